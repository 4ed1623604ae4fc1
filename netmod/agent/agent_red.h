/*
 * agent_red.h — wire formats of the agent's reductions and fetch-and-add,
 * shared by the agent (agent_red.c, agent_fadd.c) and the rank side
 * (agent_red_rank.c, agent_fadd_rank.c).
 */
#ifndef AGT_RED_H
#define AGT_RED_H

#include <stdint.h>
#include "netmod/agent/agent_ring.h"

/* A RED packet: one packet's worth of a node's (or subtree's) partial
 * result, going up the (communicator, root, shape) tree of agent_mc.c.
 * The payload is the packed stream of the data (src/util/op.h's packed
 * kernels apply to it); every packet carries whole elements, so the same
 * offsets line up at every contributor. At the root's node the finished
 * packet goes down as an MCAST packet with the same header (allreduce) or
 * to the root rank only (reduce). Barrier is an allreduce of 0 bytes: one
 * empty packet. */
enum { AGT_RED_REDUCE = 1, AGT_RED_ALLREDUCE = 2 };
typedef struct agt_red_hdr {
    agt_mc_hdr mc;          /* tree key, the operation's seq, off and total */
    uint8_t op, basic;      /* cu_op index; predefined type (mpi.h numbering) */
    uint8_t what;           /* AGT_RED_* */
    uint8_t pad;
} agt_red_hdr;
_Static_assert(sizeof(agt_red_hdr) <= AGT_HDR_MAX, "reduction header too big");

/* Every MCAST packet with this as its wire dst goes to every member on a
 * node (an allreduce result; a broadcast skips its root rank). */
#define AGT_MC_ALL UINT32_MAX

/* Fetch-and-add (Verstoep et al.'s F&A, §4.2): a 64-bit counter held by the agent
 * of its owner's node, named by (owner world rank, id). Requests go from
 * the requester's agent to the owner's agent, which applies them in
 * arrival order and replies; the owner rank takes no part. */
enum { AGT_FADD_INIT = 1, AGT_FADD_ADD = 2, AGT_FADD_FREE = 3, AGT_FADD_REPLY = 4 };
typedef struct agt_fadd_hdr {
    uint32_t owner, id;     /* the counter */
    uint32_t from;          /* requester's world rank (the reply's destination) */
    uint32_t seq;           /* requester's request number, echoed */
    int64_t  value;         /* add / initial value; in a reply: the old value */
    uint8_t  op, pad[7];    /* AGT_FADD_* */
} agt_fadd_hdr;
_Static_assert(sizeof(agt_fadd_hdr) <= AGT_HDR_MAX, "fetch-and-add header too big");

#endif
