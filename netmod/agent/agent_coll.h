/*
 * agent_coll.h — the rank side's offloaded collectives (agent_mc_rank.c,
 * agent_red_rank.c, agent_fadd_rank.c): the channel's mpid_chan_coll
 * table, through which the device's offload.c reaches them. Each blocks
 * in the device's progress (agent_chan.h's agt_chan_progress).
 */
#ifndef AGT_COLL_H
#define AGT_COLL_H

#include <stddef.h>
#include <stdint.h>
#include "mpid/channel.h"

extern const mpid_chan_coll agt_coll_table;

/* The members of mpid_chan_coll (see there). */
int    agt_coll_red_ok(int op, int basic);
int    agt_coll_bcast(void *buf, size_t len, int root, int shape, uint32_t ctx, int rank,
                      int size, const int *world, uint8_t *have);
int    agt_coll_lossy(void);
/* REL=host: the longest sleep (us, <= dflt; dflt < 0: none) before a
 * broadcast waiting with `have` gives up on its missing packets. */
long   agt_coll_sleep_us(long dflt);
/* REL=host: the broadcasts' counters for CLUMPI_AGENT_STATS=1 */
void   agt_coll_stats(int rank);
int    agt_coll_reduce(const void *in, void *out, size_t bytes, int op, int basic, int all,
                       int root, int shape, uint32_t ctx, int rank, int size, const int *world);
int    agt_coll_fadd(int op, uint32_t owner, uint32_t id, int64_t value, int64_t *old,
                     uint32_t me);

#endif
