/*
 * ofi.c — the libfabric channel table (mpid_channel_ofi): init, send,
 * progress, idle support. Rendezvous data uses the device's CTS + pipelined
 * DATA packets (rma_read is NULL), which moves any size on every provider.
 *
 * OFI_MAX_PAYLOAD = 64 KiB: pipelined chunks of 64 KiB keep the per-packet
 * cost (wire header, one completion, one copy into a send buffer) small
 * against the copy itself; larger chunks did not raise 1 MiB bandwidth over
 * net here and cost more memory per posted slab.
 */
#include <errno.h>
#include <string.h>
#include "netmod/ofi/ofi.h"
#include "src/util/log.h"

static int ofi_init(const mpid_chan_info *info)
{
    int rc = ofi_open(info);
    if (rc) {
        ofi_close();
        return rc;
    }
    return 0;
}

static int ofi_finalize(void)
{
    /* Take back what the provider still holds (send completions) so the
     * buffers are not freed under it; the peers have read everything by
     * now (the device's barrier precedes us). */
    for (int k = 0; k < 100000 && ofi_st.up; k++) {
        int free_bufs = 0;
        for (ofi_txbuf *t = ofi_st.tx_free; t; t = t->next)
            free_bufs++;
        if (free_bufs == ofi_st.tx_count)
            break;
        ofi_poll(16);
    }
    ofi_close();
    return 0;
}

/* HOT PATH: every packet to another node. */
static int ofi_send(int dest, const void *hdr, size_t hdrlen,
                    const struct iovec *iov, int iovcnt, unsigned flags)
{
    if (__builtin_expect((unsigned)dest >= (unsigned)ofi_st.size || hdrlen > MPID_HDR_MAX, 0))
        return -EINVAL;
    fi_addr_t a = ofi_st.addr[dest];
    if (__builtin_expect(a == FI_ADDR_NOTAVAIL, 0)) {
        int rc = ofi_resolve(dest);
        if (rc)
            return rc;
        a = ofi_st.addr[dest];
    }
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    size_t total = sizeof(ofi_wire) + hdrlen + len;
    ofi_wire w = { .src = (uint32_t)ofi_st.rank, .hdrlen = (uint16_t)hdrlen };
    if (total <= ofi_st.inject_max) {
        char b[256];
        if (total <= sizeof b) {
            char *p = b;
            memcpy(p, &w, sizeof w);
            p += sizeof w;
            memcpy(p, hdr, hdrlen);
            p += hdrlen;
            for (int i = 0; i < iovcnt; i++) {
                memcpy(p, iov[i].iov_base, iov[i].iov_len);
                p += iov[i].iov_len;
            }
            ssize_t rc = fi_inject(ofi_st.ep, b, total, a);
            if (__builtin_expect(rc == 0, 1))
                return 0;
            if (rc == -FI_EAGAIN)
                return -EAGAIN;
            cu_warn("ofi: send to rank %d failed: %s", dest, fi_strerror((int)-rc));
            return -EIO;
        }
    }
    if (len > OFI_MAX_PAYLOAD)
        return -EMSGSIZE;
    ofi_txbuf *t = ofi_tx_get();
    if (!t)
        return -EAGAIN;   /* all in flight: their completions free them */
    char *p = t->data;
    memcpy(p, &w, sizeof w);
    p += sizeof w;
    memcpy(p, hdr, hdrlen);
    p += hdrlen;
    for (int i = 0; i < iovcnt; i++) {
        memcpy(p, iov[i].iov_base, iov[i].iov_len);
        p += iov[i].iov_len;
    }
    t->dest = dest;
    ssize_t rc = fi_send(ofi_st.ep, t->data, total, t->desc, a, &t->ctx);
    if (__builtin_expect(rc == 0, 1))
        return 0;
    ofi_tx_put(t);
    if (rc == -FI_EAGAIN)
        return -EAGAIN;
    cu_warn("ofi: send to rank %d failed: %s", dest, fi_strerror((int)-rc));
    return -EIO;
}

static int ofi_progress(int budget)
{
    return ofi_poll(budget);
}

const mpid_channel mpid_channel_ofi = {
    .name = "ofi",
    .max_payload = OFI_MAX_PAYLOAD,
    .init = ofi_init,
    .finalize = ofi_finalize,
    .send = ofi_send,
    .progress = ofi_progress,
    .rma_read = NULL,
    .arm_sleep = ofi_arm_sleep,
    .sleep = ofi_sleep,
    .disarm_sleep = ofi_disarm_sleep,
    .wait_fd = ofi_wait_fd,
};
