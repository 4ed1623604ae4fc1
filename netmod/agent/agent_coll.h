/*
 * agent_coll.h — the agent's collective interface, for coll's NI
 * algorithms, the *_ni.c files (the only way collectives reach the agent:
 * ARCHITECTURE.md, "coll calls ... the agent's collective interface, never
 * the queues directly").
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

/* Nonzero when the agent can apply op (src/util/op.h index) to elements of
 * the predefined type basic (mpi.h numbering) on their packed stream. */
int agt_coll_red_ok(int op, int basic);

/* Reduction in the agents (agent_red.c) over the same trees: in holds this
 * rank's `bytes` of packed elements of basic; the result (op applied over
 * all members) lands in out at the root (all == 0: reduce) or at every
 * rank (all != 0: allreduce). bytes == 0 with all != 0 is a barrier.
 * 0 or -errno. */
int agt_coll_reduce(const void *in, void *out, size_t bytes, int op, int basic, int all, int root,
                    int shape, uint32_t ctx, int rank, int size, const int *world,
                    const agt_coll_waiter *w);

/* Fetch-and-add held by the agent of owner's node (agent_fadd.c): op is
 * AGT_FADD_INIT (set the counter (owner, id) to value), AGT_FADD_ADD (add
 * value, *old = the value before) or AGT_FADD_FREE (forget it, *old = its
 * last value); me is this rank's world rank. -ENOENT: no such counter. */
int agt_coll_fadd(int op, uint32_t owner, uint32_t id, int64_t value, int64_t *old,
                  uint32_t me, const agt_coll_waiter *w);

#endif
