/* sim/net.c — network model (placeholder until the ntc model is linked). */
#include "sim/sim_impl.h"

#include <errno.h>

int sim_net_init(struct sim *s) { (void)s; return 0; }
void sim_net_fini(struct sim *s) { (void)s; }
bool sim_net_available(void) { return false; }
int sim_net_tc(struct sim *s, int argc, char **argv, int line)
{
	(void)argc; (void)argv;
	return sim_fail(s, line, -ENOSYS, "tc: the traffic-control model is not built in");
}
int sim_net_flow(struct sim *s, struct sim_task *t, const char *iface, uint64_t npkts,
		 uint32_t size, uint64_t rate_bps, uint16_t dport, int line)
{
	(void)t; (void)iface; (void)npkts; (void)size; (void)rate_bps; (void)dport;
	return sim_fail(s, line, -ENOSYS, "flow: the traffic-control model is not built in");
}
int sim_net_iface(struct sim *s, const char *name, uint64_t rate_bps, int line)
{
	(void)name; (void)rate_bps;
	return sim_fail(s, line, -ENOSYS, "iface: the traffic-control model is not built in");
}
