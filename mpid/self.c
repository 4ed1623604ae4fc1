/*
 * self.c — the self channel: packets a rank sends to itself wait in a local
 * FIFO and are delivered from progress (never from inside send, so handlers
 * never nest). Its single-copy read is a memcpy between gather lists.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "mpid/channel.h"

typedef struct self_pkt {
    struct self_pkt *next;
    size_t hdrlen, len;
    uint64_t hdr[MPID_HDR_MAX / 8];
    char data[];
} self_pkt;

static struct {
    self_pkt *head, *tail;
    /* packets queued: the channel's pending word, which the device tests
     * before calling progress */
    int queued;
    int rank;
} self_st;


static int self_init(const mpid_chan_info *info)
{
    self_st.rank = info->world_rank;
    return 0;
}

static int self_finalize(void)
{
    while (self_st.head) {
        self_pkt *p = self_st.head;
        self_st.head = p->next;
        free(p);
    }
    self_st.tail = NULL;
    self_st.queued = 0;
    return 0;
}

static int self_send(int dest, const void *hdr, size_t hdrlen,
                     const struct iovec *iov, int iovcnt, unsigned flags)
{
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (hdrlen > MPID_HDR_MAX)
        return -EINVAL;
    self_pkt *p = malloc(sizeof *p + len);
    if (!p)
        return -ENOMEM;
    p->next = NULL;
    p->hdrlen = hdrlen;
    p->len = len;
    memcpy(p->hdr, hdr, hdrlen);
    char *o = p->data;
    for (int i = 0; i < iovcnt; i++) {
        memcpy(o, iov[i].iov_base, iov[i].iov_len);
        o += iov[i].iov_len;
    }
    if (self_st.tail)
        self_st.tail->next = p;
    else
        self_st.head = p;
    self_st.tail = p;
    self_st.queued++;
    return 0;
}

static int self_progress(int budget)
{
    int n = 0;
    while (self_st.head && n < budget) {
        self_pkt *p = self_st.head;
        self_st.head = p->next;
        if (!self_st.head)
            self_st.tail = NULL;
        self_st.queued--;
        mpid_on_packet(self_st.rank, p->hdr, p->hdrlen, p->data, p->len);
        free(p);
        n++;
    }
    return n;
}

static ssize_t self_rma_read(int src, const struct iovec *local, int nlocal,
                             const struct iovec *remote, int nremote)
{
    size_t total = 0, lo = 0, ro = 0;
    int li = 0, ri = 0;
    while (li < nlocal && ri < nremote) {
        size_t l = local[li].iov_len - lo, r = remote[ri].iov_len - ro;
        size_t n = l < r ? l : r;
        memcpy((char *)local[li].iov_base + lo, (const char *)remote[ri].iov_base + ro, n);
        total += n;
        lo += n;
        ro += n;
        if (lo == local[li].iov_len) { li++; lo = 0; }
        if (ro == remote[ri].iov_len) { ri++; ro = 0; }
    }
    return (ssize_t)total;
}

static const mpid_chan_copy self_copy = { .read = self_rma_read };

const mpid_channel mpid_channel_self = {
    .name = "self",
    /* Eager to self copies twice; above this the rendezvous read copies once. */
    .max_payload = 16384,
    .init = self_init,
    .finalize = self_finalize,
    .send = self_send,
    .progress = self_progress,
    .pending = &self_st.queued,
    .copy = &self_copy,
};
