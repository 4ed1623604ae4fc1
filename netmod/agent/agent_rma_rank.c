/*
 * agent_rma_rank.c — the rank side of agent-served one-sided operations
 * (agent_rma.c), the channel's agent_rma table: a window's words in the
 * node's rank<->agent segment, a request as an RMA packet through a PIO tx
 * slot, and the answers, handed to the device. The device's
 * mpid_chan_agent_op and the wire's agt_rma_hdr carry the same values.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "mpid/channel.h"
#include "netmod/agent/agent_chan.h"
#include "netmod/agent/agent_ring.h"
#include "netmod/agent/agent_rma.h"
#include "src/util/log.h"

_Static_assert((int)MPID_AGENT_LOCK == (int)AGT_RMA_LOCK &&
                   (int)MPID_AGENT_UNLOCK == (int)AGT_RMA_UNLOCK &&
                   (int)MPID_AGENT_GRANT == (int)AGT_RMA_GRANT &&
                   (int)MPID_AGENT_ACK == (int)AGT_RMA_ACK &&
                   (int)MPID_AGENT_RESP == (int)AGT_RMA_RESP,
               "the device's request kinds are the wire's");
_Static_assert((int)MPID_AGENT_OK == (int)AGT_RMA_OK &&
                   (int)MPID_AGENT_EBADREQ == (int)AGT_RMA_EBADREQ &&
                   (int)MPID_AGENT_ERANGE == (int)AGT_RMA_ERANGE &&
                   (int)MPID_AGENT_EACCESS == (int)AGT_RMA_EACCESS,
               "the device's outcomes are the wire's");
_Static_assert(offsetof(agt_rma_line, lock) == 0 && offsetof(agt_rma_line, acc) == sizeof(int) &&
                   sizeof(agt_rma_line) == MPID_AGENT_WORDS,
               "a line starts with the lock words the device takes");

/* The line of window index win of world rank `world` on this node, or NULL. */
static agt_rma_line *line(int world, uint32_t win)
{
    agt_seg_hdr *h = agt_chan_seg();
    if (!h || win >= AGT_RMA_WINS || agt_chan_hrel())
        return NULL;   /* REL=host: the origin's channel could not resend what the agent serves */
    for (uint32_t li = 0; li < h->nlocal; li++)
        if (agt_rank(h, (int)li)->world_rank == (uint32_t)world)
            return (agt_rma_line *)agt_rma_lines(h, (int)li) + win;
    return NULL;
}

void *agt_rma_words(int world, uint32_t win) { return line(world, win); }

void agt_rma_open(uint32_t win, const void *base, size_t size)
{
    agt_rma_line *l = line((int)agt_chan_world(), win);
    if (!l)
        return;
    l->base = (uintptr_t)base;
    l->size = size;
    __atomic_store_n(&l->open, 1, __ATOMIC_RELEASE);   /* the agent may serve it now */
}

void agt_rma_close(uint32_t win)
{
    agt_rma_line *l = line((int)agt_chan_world(), win);
    if (!l)
        return;
    __atomic_store_n(&l->open, 0, __ATOMIC_RELEASE);
    l->lock = l->acc = 0;   /* the next window with this index starts from free words */
    l->base = l->size = 0;
}

int agt_rma_post(int world, const mpid_chan_agent_op *op, const struct iovec *iov, int iovcnt)
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
    agt_rma_hdr h = { .kind = (uint8_t)op->kind, .op = (uint8_t)op->op,
                      .basic = (uint8_t)op->basic, .ltype = (uint8_t)op->ltype,
                      .win = op->win, .nseg = op->nseg, .len = op->len, .addr = op->addr,
                      .oreq = op->oreq, .ooff = op->ooff, .owin = op->owin, .osrc = op->osrc };
    agt_wire wire = { .kind = AGT_K_RMA, .hdrlen = sizeof h, .len = (uint16_t)len,
                      .src = agt_chan_world(), .dst = (uint32_t)world };
    struct iovec all[6] = { { &wire, sizeof wire }, { &h, sizeof h } };
    if (iovcnt)   /* iov may be NULL then (a lock, a zero-byte get) */
        memcpy(all + 2, iov, (size_t)iovcnt * sizeof *iov);
    return agt_chan_post(AGT_CMD_PIO, all, iovcnt + 2);
}

void agt_rma_rank_packet(const char *hdr, size_t hdrlen, const char *pay, size_t len)
{
    agt_rma_hdr h;
    if (hdrlen != sizeof h)
        cu_fatal("agent: one-sided answer with a %zu-byte header", hdrlen);
    memcpy(&h, hdr, sizeof h);
    mpid_chan_agent_op op = { .kind = h.kind, .op = h.op, .basic = h.basic, .ltype = h.ltype,
                              .win = h.win, .nseg = h.nseg, .len = h.len, .addr = h.addr,
                              .oreq = h.oreq, .ooff = h.ooff, .owin = h.owin, .osrc = h.osrc };
    mpid_on_agent_rma_answer(&op, pay, len);
}
