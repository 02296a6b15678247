/* sim/frames.c — the frame store: the page-cache frames, their ownership records and
 * their act-list and dirty-list links (mem_pagecache.c), tables indexed by frame.
 *
 * The tables get room for the machine's RAM at the first page cached (up to 2^20
 * frames, then doubling), and frames are handed out from a high-water mark (freed
 * frames first), each set up when taken: the room is address space that a run
 * touches only as far as it caches pages, and nothing is ever copied or set up ahead
 * (for short runs the first touch of memory, a page fault per 4 KiB, and copying or
 * setting up frames never used cost more than the model did; one allocation of the
 * same size per run also lets the C library keep that memory for the next run).
 */
#include "sim/sim_impl.h"

#include <errno.h>
#include <string.h>

#include "base/alloc.h"

#define FRAMES_AT_ONCE ((uint64_t)1 << 20)

/* Room for n frames in each table; nothing is lost on failure (a table that did
 * grow keeps its room unused). */
static int tables_grow(struct sim *s, uint32_t n)
{
	struct sim_frame *nf;
	struct sim_frame_act *na;
	struct sim_frame_dl *nd;
	unsigned char *nr;

	nf = ucg_realloc(s->frames, (size_t)n * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	s->frames = nf;
	if (s->act_on) {
		na = ucg_realloc(s->frame_act, (size_t)n * sizeof(*na));
		if (!na)
			return -ENOMEM;
		s->frame_act = na;
	}
	if (s->dirty_on) {
		nd = ucg_realloc(s->frame_dl, (size_t)n * sizeof(*nd));
		if (!nd)
			return -ENOMEM;
		s->frame_dl = nd;
	}
	/* + 1: a design without a record still gets a table */
	nr = ucg_realloc(s->records, (size_t)n * s->rec_size + 1);
	if (!nr)
		return -ENOMEM;
	s->records = nr;
	s->cframes = n;
	return 0;
}

int sim_frames_reserve(struct sim *s, uint64_t more)
{
	/* every frame taken and not given back holds a cached page: the free list
	 * holds nframes - cache_used of them, the room above nframes the rest */
	uint64_t want = s->cache_used + more, n;

	if (want <= s->cframes)
		return 0;
	if (want > s->mem_pages || s->mem_pages > UINT32_MAX - 1)
		return -ENOMEM;
	/* the first time, room for the machine's RAM (up to FRAMES_AT_ONCE): address
	 * space only, as frames are set up when taken, and never copied; past that
	 * (a machine of more than 4 GiB with more page cache) the tables double */
	n = s->cframes ? s->cframes * 2 : FRAMES_AT_ONCE;
	while (n < want)
		n *= 2;
	if (n > s->mem_pages)
		n = s->mem_pages;
	return tables_grow(s, (uint32_t)n);
}

bool sim_frames_act_alloc(struct sim *s)
{
	struct sim_frame_act *na = ucg_realloc(s->frame_act, ((size_t)s->cframes + 1) * sizeof(*na));

	if (!na)
		return false;
	s->frame_act = na;
	return true;
}

bool sim_frames_dl_alloc(struct sim *s)
{
	struct sim_frame_dl *nd = ucg_realloc(s->frame_dl, ((size_t)s->cframes + 1) * sizeof(*nd));

	if (!nd)
		return false;
	s->frame_dl = nd;
	return true;
}

void sim_frames_fini(struct sim *s)
{
	ucg_free(s->frames);
	ucg_free(s->frame_act);
	ucg_free(s->frame_dl);
	ucg_free(s->records);
}
