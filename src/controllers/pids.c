/* controllers/pids.c — the pids controller.
 *
 * Binding, exclusivity and the per-cgroup state life cycle are handled by the engine;
 * this controller's own files and rules arrive with the controllers issue (3), so for
 * now its state is the bare css and it has no files.
 */
#include "engine/subsys.h"

const struct ucg_subsys ucg_pids_subsys = {
	.name = "pids",
	.id = UCG_SS_pids,
	.css_size = sizeof(struct ucg_css),
};
