/* controllers/net_cls.c — the net_cls controller.
 *
 * Binding, exclusivity and the per-cgroup state life cycle are handled by the engine;
 * this controller's own files and rules arrive with the controllers issue (3), so for
 * now its state is the bare css and it has no files.
 */
#include "engine/subsys.h"

const struct ucg_subsys ucg_net_cls_subsys = {
	.name = "net_cls",
	.id = UCG_SS_net_cls,
	.css_size = sizeof(struct ucg_css),
};
