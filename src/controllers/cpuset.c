/* controllers/cpuset.c — the cpuset controller.
 *
 * Binding, exclusivity and the per-cgroup state life cycle are handled by the engine;
 * this controller's own files and rules arrive with the controllers issue (3), so for
 * now its state is the bare css and it has no files.
 */
#include "engine/subsys.h"

const struct ucg_subsys ucg_cpuset_subsys = {
	.name = "cpuset",
	.id = UCG_SS_cpuset,
	.css_size = sizeof(struct ucg_css),
};
