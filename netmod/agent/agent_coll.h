/*
 * agent_coll.h — the agent's collective interface, for coll/bcast_ni.c (the
 * only way collectives reach the agent: ARCHITECTURE.md, "coll calls ...
 * the agent's collective interface, never the queues directly").
 */
#ifndef AGT_COLL_H
#define AGT_COLL_H

#include <stddef.h>
#include <stdint.h>

/* Nonzero when this rank runs in offload mode with its node's agent up
 * (CLUMPI_NET=agent and more than one node). */
int agt_coll_up(void);

/* The largest communicator a forwarding table takes. */
size_t agt_coll_max_ranks(void);

/* How a blocking NI collective waits: one progress pass, and progress
 * until done(arg) (may sleep; the agent wakes us). */
typedef struct agt_coll_waiter {
    int (*progress)(void);
    int (*until)(int (*done)(void *), void *);
} agt_coll_waiter;

/* NI-forwarded broadcast of len contiguous bytes along a tree over nodes
 * (shape AGT_TREE_BINARY or AGT_TREE_BINOMIAL, agent_ring.h). world maps
 * the communicator's ranks to world ranks; ctx names it. Returns 0 or
 * -errno. */
int agt_coll_bcast(void *buf, size_t len, int root, int shape, uint32_t ctx, int rank, int size,
                   const int *world, const agt_coll_waiter *w);

#endif
