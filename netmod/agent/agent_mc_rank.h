/*
 * agent_mc_rank.h — the rank side's tree plumbing (agent_mc_rank.c), shared
 * by its NI collectives: broadcast there, reductions in agent_red_rank.c,
 * fetch-and-add in agent_fadd_rank.c.
 */
#ifndef AGT_MC_RANK_H
#define AGT_MC_RANK_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "netmod/agent/agent_chan.h"
#include "netmod/agent/agent_coll.h"
#include "netmod/agent/agent_ring.h"
#include "netmod/agent/agent_tree.h"
#include "src/util/biglock.h"

/* One pass of a wait for something the agent frees without waking us (tx
 * slots, results): progress, and yield the core every 16 idle passes. */
static inline void agt_mc_idle(unsigned pass)
{
    if (agt_chan_progress() == 0 && (pass & 15) == 15) {
        if (cu_mt)
            cu_lock_sched_yield();   /* MPI_THREAD_MULTIPLE: the others go on */
        else
            sched_yield();
    }
}

/* Post a command (the packet in iov), progressing while tx slots are busy. */
void agt_mc_post(uint8_t op, const struct iovec *iov, int n);
/* The key of the tree (ctx, root, shape, members), installing it at the
 * node's agent at this rank's first use, with the next operation number
 * of that tree (every member counts the same calls). 0 or -errno. */
int  agt_mc_key(agt_mc_hdr *key, int shape, uint32_t ctx, int root, int size, const int *world);
/* One operation's receive of its result, on its caller's stack (several
 * threads may each wait for one), and for host-packet trees the packets
 * this rank still sends on, (off, len) FIFO, each to every child node
 * (next: the child the head goes to next). Zeroed before use. */
typedef struct agt_mc_rx {
    struct agt_mc_rx *next;
    agt_mc_hdr key;
    char *buf;
    size_t total, got, npk;
    uint32_t root_world;
    /* REL=host broadcast: a bit per packet come (copies dropped); the
     * wait ends once none came for quiet_ns after last_ns */
    uint8_t *have;
    uint64_t last_ns, quiet_ns;
    struct {
        int nchild, child[AGT_TREE_CHILD_MAX], next;
        uint32_t *off, *len;
        size_t h, t;
    } fwd;
} agt_mc_rx;
/* Receive operation key's MCAST packets (total bytes, at least one packet)
 * into buf: begin takes what came early, wait progresses until all is in. */
void agt_mc_rx_begin(agt_mc_rx *rx, const agt_mc_hdr *key, void *buf, size_t total);
void agt_mc_rx_wait(agt_mc_rx *rx);
/* Packets of receive rx taken so far. */
size_t agt_mc_rx_count(const agt_mc_rx *rx);

/* agent_fadd_rank.c: a fetch-and-add reply arrived. */
void agt_fadd_rank_packet(const char *hdr, size_t hdrlen, const char *pay, size_t len);

#endif
