/*
 * agent_rma_rank.c — the rank side of agent-served one-sided operations
 * (agent_rma.c): the channel's rma_line (a window's words in the node's
 * rank<->agent segment), rma_post (a request as an RMA packet through a
 * PIO tx slot) and the answers, handed to the device.
 */
#include <errno.h>
#include <string.h>
#include "mpid/channel.h"
#include "netmod/agent/agent_chan.h"
#include "netmod/agent/agent_ring.h"
#include "src/util/log.h"

mpid_agent_rma_line *agt_rma_line(int world, uint32_t win)
{
    agt_seg_hdr *h = agt_chan_seg();
    if (!h || win >= AGT_RMA_WINS)
        return NULL;
    for (uint32_t li = 0; li < h->nlocal; li++)
        if (agt_rank(h, (int)li)->world_rank == (uint32_t)world)
            return (mpid_agent_rma_line *)agt_rma_lines(h, (int)li) + win;
    return NULL;
}

int agt_rma_post(int world, const mpid_agent_rma *h, const struct iovec *iov, int iovcnt)
{
    agt_seg_hdr *s = agt_chan_seg();
    if (!s)
        return -ENOTCONN;
    if (iovcnt > 4)
        return -EINVAL;
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (len > AGT_MAX_PAYLOAD)
        return -EMSGSIZE;
    agt_wire wire = { .kind = AGT_K_RMA, .hdrlen = sizeof *h, .len = (uint16_t)len,
                      .src = agt_chan_world(), .dst = (uint32_t)world };
    struct iovec all[6] = { { &wire, sizeof wire }, { (void *)h, sizeof *h } };
    if (iovcnt)   /* iov may be NULL then (a lock, a zero-byte get) */
        memcpy(all + 2, iov, (size_t)iovcnt * sizeof *iov);
    return agt_chan_post(AGT_CMD_PIO, all, iovcnt + 2);
}

void agt_rma_rank_packet(const char *hdr, size_t hdrlen, const char *pay, size_t len)
{
    mpid_agent_rma h;
    if (hdrlen != sizeof h)
        cu_fatal("agent: one-sided answer with a %zu-byte header", hdrlen);
    memcpy(&h, hdr, sizeof h);
    mpid_on_agent_rma_answer(&h, pay, len);
}
