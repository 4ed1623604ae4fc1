/*
 * agent_chan.h — what the rank side of offload mode (agent_chan.c) offers
 * its multicast half (agent_mc_rank.c), and back: a raw PIO post of any
 * command kind, and the hook for arrived multicast packets.
 */
#ifndef AGT_CHAN_H
#define AGT_CHAN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

int  agt_chan_up(void);   /* offload mode is running on this rank */
int  agt_chan_hrel(void); /* CLUMPI_AGENT_REL=host: the ranks retransmit */
/* offload mode is running and the agents serve collectives and counters
 * (not under REL=host: only DATA packets are made reliable end to end) */
int  agt_chan_ni_up(void);
/* The device's progress (mpid_chan_info's): one pass, returning the events
 * handled; passes until done(arg) is nonzero (may sleep). */
int  agt_chan_progress(void);
void agt_chan_progress_until(int (*done)(void *), void *arg);
struct agt_seg_hdr *agt_chan_seg(void);   /* the node's rank<->agent segment, while up */
uint32_t agt_chan_world(void);            /* this rank's world rank */
const uint32_t *agt_chan_nodes(void);   /* world rank -> node, while up */
struct agt_rank_blk *agt_chan_blk(void);  /* this rank's block of the segment, while up */
/* Wait until ready(arg): packets arriving meanwhile are taken aside (for
 * progress to deliver later); after a short spin, sleep until the agent
 * rings (it does when it hands us something while our cq's sleep bit is
 * set) or 1 ms passes. */
void agt_chan_wait(int (*ready)(void *), void *arg);
void agt_chan_room_made(void);   /* we freed something the agent may wait for */
/* Copy iov into a tx slot and post command op (AGT_CMD_PIO/TREE) for it;
 * -EAGAIN: no free tx slot or command unit yet. */
int  agt_chan_post(uint8_t op, const struct iovec *iov, int iovcnt);
/* agent_mc_rank.c: an NI-collective packet arrived (called from progress);
 * kind is its AGT_RXK_* (multicast / reduction result, fetch-and-add reply). */
void agt_coll_rank_packet(int kind, const char *hdr, size_t hdrlen, const char *pay, size_t len);

/* agent_rma_rank.c: agent-served one-sided operations (the channel's
 * agent_rma table: words, open, close, post) and their answers
 * (AGT_RXK_RMA). */
void *agt_rma_words(int world, uint32_t win);
void agt_rma_open(uint32_t win, const void *base, size_t size);
void agt_rma_close(uint32_t win);
struct mpid_chan_agent_op;
int  agt_rma_post(int world, const struct mpid_chan_agent_op *op, const struct iovec *iov,
                  int iovcnt);
void agt_rma_rank_packet(const char *hdr, size_t hdrlen, const char *pay, size_t len);

/* agent_bulk_rank.c: rendezvous through the agents' bulk path (the
 * channel's net_rma: expose, unexpose, read_key). */
int  agt_bulk_expose(int dest, const void *base, size_t len, uint64_t *key, void **handle);
void agt_bulk_unexpose(void *handle);
ssize_t agt_bulk_read(int src, uint64_t key, uint64_t rbase, const struct iovec *local,
                      int nlocal, const struct iovec *remote, int nremote);

#endif
