/* controllers/cpu_v2.c — cpu.shares as cpu.weight, and a v1 quota or weight divided
 * over v2 leaves (the formulas and their limits are in cpu_v2.h). */
#include "controllers/cpu_v2.h"

#include <math.h>

uint64_t ucg_v1v2_cpu_weight(uint64_t shares)
{
	double l, exponent;

	if (shares == 0)
		return 0;
	if (shares <= 2)
		return 1;
	if (shares >= 262144)
		return 10000;
	l = log2((double)shares);
	exponent = (l * l + 125 * l) / 612.0 - 7.0 / 34.0;
	/* The curve meets 100 at 1024 exactly; floating error must not round 100 up. */
	return (uint64_t)ceil(pow(10, exponent) - 1e-9);
}

void ucg_v2_split_quota(uint64_t quota_us, uint64_t period_us, uint64_t interval_us,
			struct ucg_v2_split_leaf *leaves, size_t n)
{
	const uint64_t floor = UCG_V2_MIN_QUOTA_US;
	uint64_t left = quota_us, given = 0;
	size_t i, open = n, biggest = 0;

	if (!n)
		return;
	if (quota_us <= floor * n) {
		for (i = 0; i < n; i++)
			leaves[i].next_us = floor;
		return;
	}
	/* the demands: next_us holds the demand until the leaf is settled */
	for (i = 0; i < n; i++) {
		struct ucg_v2_split_leaf *l = &leaves[i];
		double per = interval_us
				     ? (double)l->used_us * (double)period_us / (double)interval_us
				     : 0;

		l->settled = 0;
		l->next_us = !l->alloc_us || l->throttled ? UINT64_MAX : (uint64_t)(per * 1.25) + 1;
	}
	/* water-filling: settle every demand under an equal part of what is left; when
	 * none is, the open ones all get that part */
	while (open) {
		uint64_t part = left / open;
		size_t settled = 0;

		for (i = 0; i < n; i++) {
			struct ucg_v2_split_leaf *l = &leaves[i];

			if (l->settled || l->next_us > part)
				continue;
			left -= l->next_us;
			l->settled = 1;
			settled++;
		}
		open -= settled;
		if (settled)
			continue;
		for (i = 0; i < n; i++)
			if (!leaves[i].settled) {
				leaves[i].next_us = part;
				leaves[i].settled = 1;
				left -= part;
			}
		open = 0;
	}
	/* what no one wants (or rounding) spread equally, then the minimum */
	for (i = 0; i < n; i++) {
		struct ucg_v2_split_leaf *l = &leaves[i];

		l->next_us += left / n;
		if (l->next_us < floor)
			l->next_us = floor;
		given += l->next_us;
		if (l->next_us > leaves[biggest].next_us)
			biggest = i;
	}
	if (given > quota_us) /* minimums given: taken from the biggest part */
		leaves[biggest].next_us -= given - quota_us;
	else
		leaves[biggest].next_us += quota_us - given;
}

void ucg_v2_split_weight(uint64_t weight, struct ucg_v2_weight_part *parts, size_t n)
{
	double total = 0;
	size_t i;

	for (i = 0; i < n; i++)
		total += (double)parts[i].demand_us;
	for (i = 0; i < n; i++) {
		double w = total > 0 ? (double)weight * (double)parts[i].demand_us / total
				     : (double)weight / (double)n;
		uint64_t r = (uint64_t)(w + 0.5);

		if (r < UCG_V2_MIN_WEIGHT)
			r = UCG_V2_MIN_WEIGHT;
		if (r > UCG_V2_MAX_WEIGHT)
			r = UCG_V2_MAX_WEIGHT;
		parts[i].weight = r;
	}
}

uint64_t ucg_v2_weight_shares(uint64_t weight)
{
	uint64_t s = (weight * 1024 + 50) / 100;

	if (weight == 0)
		return 0;
	return s < 2 ? 2 : s;
}
