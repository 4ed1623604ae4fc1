/*
 * agent_mc.h — what agent_mc.c (multicast trees, refcounted slots) offers
 * the agent's other NI collectives (agent_red.c, agent_fadd.c): the tree of
 * a key, and pool-slot ownership with one reference count, so that a slot
 * may be a reduction's accumulator, then a multicast, then freed, in place.
 */
#ifndef AGT_MC_H
#define AGT_MC_H

#include <stdint.h>
#include "netmod/agent/agent_ring.h"

typedef struct agt_mc_info {
    int parent;   /* node, -1 at the root's node */
    int nchild;   /* child nodes */
    int nloc;     /* members on this node */
} agt_mc_info;

/* The installed tree of key (ctx, root, hash, shape); -1 if none yet. */
int  agt_mc_tree(const agt_mc_hdr *key, agt_mc_info *out);
/* Trees installed so far (a change means waiting packets may go on). */
unsigned agt_mc_installed(void);

/* Slot ownership, one reference (agt_mc_put drops it; the last one frees
 * the slot, or reposts it with its credit if it is a held receive slot). */
void agt_mc_own(uint32_t k);                    /* pool slot k, just taken */
void agt_mc_keep(uint32_t k, uint32_t reserve); /* received packet in slot k */

/* Uses of an owned slot; each consumes the caller's reference. */
void agt_mc_start(uint32_t k);                  /* multicast it (MCAST packet) */
void agt_mc_send(uint32_t k, int node);         /* one send */
void agt_mc_deliver_one(uint32_t k, uint32_t world);   /* one local rank */

#endif
