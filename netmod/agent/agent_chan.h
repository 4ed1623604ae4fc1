/*
 * agent_chan.h — what the rank side of offload mode (agent_chan.c) offers
 * its multicast half (agent_mc_rank.c), and back: a raw PIO post of any
 * command kind, and the hook for arrived multicast packets.
 */
#ifndef AGT_CHAN_H
#define AGT_CHAN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

int  agt_chan_up(void);   /* offload mode is running on this rank */
const uint32_t *agt_chan_nodes(void);   /* world rank -> node, while up */
/* Copy iov into a tx slot and post command op (AGT_CMD_PIO/TREE) for it;
 * -EAGAIN: no free tx slot or command cell yet. */
int  agt_chan_post(uint8_t op, const struct iovec *iov, int iovcnt);
/* agent_mc_rank.c: an NI-collective packet arrived (called from progress);
 * kind is its AGT_RXK_* (multicast / reduction result, fetch-and-add reply). */
void agt_coll_rank_packet(int kind, const char *hdr, size_t hdrlen, const char *pay, size_t len);

#endif
