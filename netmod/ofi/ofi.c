/*
 * ofi.c — the libfabric channel table (mpid_channel_ofi): init, send,
 * progress, idle support, and rendezvous reads (rma_read).
 *
 * Rendezvous: where the provider offers FI_RMA with an MR mode that lets one
 * registration cover the whole address space (no FI_MR_ALLOCATED, no
 * FI_MR_PROV_KEY, no FI_MR_ENDPOINT/RAW: net, tcp;ofi_rxm, sockets,
 * udp;ofi_rxd here — software providers, where registering pins nothing),
 * each rank registers [0, SIZE_MAX) for FI_REMOTE_READ under a random
 * 64-bit key that only job members learn (through PMI, "ofik-<rank>"). The
 * device's RTS already carries the sender's address (offset = address, with
 * or without FI_MR_VIRT_ADDR), so the receiver fi_reads straight into the
 * user buffer: the kernel copies once on each side, as for fi_pingpong,
 * where the pipelined path adds a copy into a send buffer and one out of the
 * receive slab (1 MiB ping-pong over net/lo: see bench/net.sh and the commit
 * message). Elsewhere (verbs needs per-buffer keys, which the RTS has no
 * room for) rma_read says -ENOTSUP and the device uses CTS + pipelined DATA
 * packets, which move any size on every provider. CLUMPI_OFI_RMA=0 turns
 * reads off here; CLUMPI_NO_RMA=1 turns them off in the device.
 * Exposure: any holder of the key can read any of our memory (read only),
 * as a peer on the node already can with process_vm_readv; the key is as
 * private as the job's PMI traffic, and like the message data it crosses
 * the network in the clear. Per-message registration (a key in the RTS)
 * would narrow this and is what verbs needs; the RTS is full today.
 * The read is synchronous for the device (like shm's process_vm_readv):
 * we poll the CQ until it completes, delivering packets meanwhile; the
 * sender's provider serves it whenever that rank polls, and an idle sender
 * is woken by its CQ wait fd (8 MiB from a sleeping sender: 3-45 ms under
 * load, vs 4-220 ms pipelined, which needs the sender awake per chunk).
 *
 * OFI_MAX_PAYLOAD = 64 KiB: pipelined chunks of 64 KiB keep the per-packet
 * cost (wire header, one completion, one copy into a send buffer) small
 * against the copy itself; larger chunks did not raise 1 MiB bandwidth over
 * net here and cost more memory per posted slab.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <rdma/fi_rma.h>
#include "netmod/ofi/ofi.h"
#include "netmod/ofi/ofi_select.h"
#include "src/util/log.h"
#include "src/util/param.h"
#include "src/util/pmi.h"

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
     * now (the device's barrier precedes us). A goodbye first, so that
     * peers still waiting do not take our closed endpoint for a death. */
    if (ofi_st.up)
        ofi_alive_bye();
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
            ofi_lost_peer(dest, (int)-rc, NULL);
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
    if (__builtin_expect(rc == 0, 1)) {
        ofi_st.tx_out[dest]++;
        return 0;
    }
    ofi_tx_put(t);
    if (rc == -FI_EAGAIN)
        return -EAGAIN;
    ofi_lost_peer(dest, (int)-rc, NULL);
}

/* ---- rendezvous reads ---------------------------------------------------- */

struct fi_context2 ofi_rd_ctx[OFI_RD_MAX];

int ofi_rma_open(void)
{
    const struct fi_info *i = ofi_st.info;
    uint64_t bad = FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT | FI_MR_RAW |
                   FI_MR_MMU_NOTIFY | FI_MR_HMEM;
    /* Exposing the whole address space under one key is safe when every rank
     * runs on this host (emulated nodes: only loopback or this machine's own
     * addresses carry the key). Between real hosts the key would cross the
     * network in the clear, so there the pipelined path is the default and
     * CLUMPI_OFI_RMA=1 opts in. mpirun says how many ranks share the host. */
    int one_host = cu_param_int("HOST_NRANKS", 0) == ofi_st.size;
    if (!cu_param_int("OFI_RMA", one_host) || !(i->caps & FI_RMA) || !(i->caps & FI_READ) ||
        !(i->caps & FI_REMOTE_READ) || (i->domain_attr->mr_mode & bad) ||
        i->domain_attr->mr_key_size == 0)
        return -ENOTSUP;
    uint64_t key = 0;
    if (getrandom(&key, sizeof key, 0) != (ssize_t)sizeof key)
        return -EIO;
    if (i->domain_attr->mr_key_size < 8)
        key &= (1ull << (8 * i->domain_attr->mr_key_size)) - 1;
    int rc = fi_mr_reg(ofi_st.domain, NULL, SIZE_MAX, FI_READ | FI_REMOTE_READ, 0, key, 0,
                       &ofi_st.rma_mr, NULL);
    if (rc) {
        cu_debug("ofi: cannot expose memory for remote reads (%s): pipelined rendezvous",
                 fi_strerror(-rc));
        ofi_st.rma_mr = NULL;
        return rc;
    }
    ofi_st.rkey = calloc((size_t)ofi_st.size, sizeof *ofi_st.rkey);
    ofi_st.rkey_st = calloc((size_t)ofi_st.size, 1);
    if (!ofi_st.rkey || !ofi_st.rkey_st) {
        fi_close(&ofi_st.rma_mr->fid);
        ofi_st.rma_mr = NULL;
        return -ENOMEM;
    }
    ofi_st.rma_key = key;
    ofi_st.rma_desc = fi_mr_desc(ofi_st.rma_mr);
    ofi_st.rd_iov = i->tx_attr->iov_limit ? i->tx_attr->iov_limit : 1;
    if (ofi_st.rd_iov > 8)
        ofi_st.rd_iov = 8;
    ofi_st.rd_max = i->ep_attr->max_msg_size ? i->ep_attr->max_msg_size : SIZE_MAX;
    ofi_st.rd_nfree = OFI_RD_MAX;
    for (int k = 0; k < OFI_RD_MAX; k++)
        ofi_st.rd_free[k] = k;
    return 0;
}

void ofi_rd_done(void *ctx, int ok)
{
    ofi_st.rd_free[ofi_st.rd_nfree++] = (int)((struct fi_context2 *)ctx - ofi_rd_ctx);
    ofi_st.rd_pending--;
    if (!ok)
        ofi_st.rd_failed = 1;
}

int ofi_rd_peer(const void *ctx)
{
    return ofi_st.rd_src[(const struct fi_context2 *)ctx - ofi_rd_ctx];
}

/* The peer's key: 0, or -ENOTSUP when it exposes nothing (no RMA there). */
static int peer_key(int src)
{
    if (ofi_st.rkey_st[src] == 1)
        return 0;
    if (ofi_st.rkey_st[src] == 2)
        return -ENOTSUP;
    char key[32], val[CU_PMI_VALLEN_MAX];
    unsigned char k[8];
    snprintf(key, sizeof key, "ofik-%d", src);
    if (cu_pmi_get(key, val, sizeof val) != 0 || ofi_hex_decode(val, k, sizeof k) != 8) {
        ofi_st.rkey_st[src] = 2;
        return -ENOTSUP;
    }
    memcpy(&ofi_st.rkey[src], k, 8);
    ofi_st.rkey_st[src] = 1;
    return 0;
}

/* Completions until at most `upto` reads are pending. Packets that arrive
 * meanwhile are delivered as usual (we are called from the device's
 * progress work or a receive call, never from a packet handler). */
static void rd_wait(int src, int upto)
{
    while (ofi_st.rd_pending > upto) {
        if (!ofi_poll(32))
            ofi_alive_check(src);   /* a long wait: is the peer still there? */
    }
}

static int rd_post(int src, const struct iovec *v, void **desc, size_t n, fi_addr_t a,
                   uint64_t raddr, uint64_t key)
{
    if (ofi_st.rd_nfree == 0)
        rd_wait(src, OFI_RD_MAX - 1);
    int slot = ofi_st.rd_free[--ofi_st.rd_nfree];
    ofi_st.rd_src[slot] = src;
    for (;;) {
        ssize_t rc = fi_readv(ofi_st.ep, v, desc, n, a, raddr, key, &ofi_rd_ctx[slot]);
        if (rc == 0) {
            ofi_st.rd_pending++;
            return 0;
        }
        if (rc != -FI_EAGAIN) {
            ofi_st.rd_free[ofi_st.rd_nfree++] = slot;
            cu_warn("ofi: posting a remote read from rank %d failed: %s", src,
                    fi_strerror((int)-rc));
            return -EIO;
        }
        ofi_poll(32);   /* the provider wants progress first */
    }
}

/* Read the peer's remote[] into local[] (same total length, any split).
 * Synchronous for the device: posts one fi_read per remote segment (and
 * per iov_limit local pieces), then waits for all. Returns bytes read. */
static ssize_t ofi_rma_read(int src, const struct iovec *local, int nlocal,
                            const struct iovec *remote, int nremote)
{
    if (!ofi_st.rma_mr)
        return -ENOTSUP;
    if ((unsigned)src >= (unsigned)ofi_st.size)
        return -EINVAL;
    if (ofi_st.in_progress)
        cu_fatal("ofi: remote read from inside a packet handler");
    int rc = peer_key(src);
    if (rc)
        return rc;
    if (ofi_st.addr[src] == FI_ADDR_NOTAVAIL && (rc = ofi_resolve(src)))
        return rc;
    fi_addr_t a = ofi_st.addr[src];
    uint64_t key = ofi_st.rkey[src];
    ofi_st.rd_failed = 0;
    size_t total = 0, loff = 0;
    int li = 0;
    for (int ri = 0; ri < nremote && li < nlocal; ri++) {
        size_t rlen = remote[ri].iov_len, roff = 0;
        while (roff < rlen && li < nlocal) {
            struct iovec v[8];
            void *desc[8];
            size_t n = 0, got = 0, room = rlen - roff;
            if (room > ofi_st.rd_max)
                room = ofi_st.rd_max;
            while (n < ofi_st.rd_iov && li < nlocal && got < room) {
                size_t seg = local[li].iov_len - loff;
                if (seg > room - got)
                    seg = room - got;
                if (seg) {
                    v[n].iov_base = (char *)local[li].iov_base + loff;
                    v[n].iov_len = seg;
                    desc[n] = ofi_st.rma_desc;
                    n++;
                }
                got += seg;
                loff += seg;
                if (loff == local[li].iov_len) {
                    li++;
                    loff = 0;
                }
            }
            if (!got)
                break;
            uint64_t raddr = (uint64_t)(uintptr_t)remote[ri].iov_base + roff;
            if ((rc = rd_post(src, v, desc, n, a, raddr, key))) {
                rd_wait(src, 0);
                return rc;
            }
            roff += got;
            total += got;
        }
    }
    rd_wait(src, 0);
    if (ofi_st.rd_failed)
        return -EIO;
    return (ssize_t)total;
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
    .rma_read = ofi_rma_read,
    .arm_sleep = ofi_arm_sleep,
    .sleep = ofi_sleep,
    .disarm_sleep = ofi_disarm_sleep,
    .wait_fd = ofi_wait_fd,
};
