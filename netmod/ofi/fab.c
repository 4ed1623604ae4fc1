/*
 * fab.c — the libfabric channel table (mpid_channel_ofi): init, send,
 * progress, idle support, and rendezvous reads (rma_read).
 *
 * Rendezvous: where the provider offers FI_RMA and FI_READ with an MR mode
 * we can serve (mr.c: all but FI_MR_RAW), the sender registers exactly
 * the message's memory for FI_REMOTE_READ under a fresh random key
 * (net_rma->expose), the device sends the key in the RTS payload, and the
 * receiver fi_reads straight into the user buffer: the kernel copies once
 * on each side, as for fi_pingpong, where the pipelined path adds a copy
 * into a send buffer and one out of the receive slab (1 MiB ping-pong over
 * net/lo: see bench/net.sh). FIN ends the registration. This is the
 * default for every job, one host or many; CLUMPI_OFI_RMA=0 turns reads
 * off here, CLUMPI_NO_RMA=1 in the device, and a provider without FI_RMA
 * gets CTS + pipelined DATA packets, which move any size everywhere.
 * The read is synchronous for the device (like shm's process_vm_readv):
 * we poll the CQ until it completes, delivering packets meanwhile, yield
 * the core and then block on its wait fd while nothing comes (rd_wait);
 * the sender's provider serves it whenever that rank polls, and an idle
 * sender is woken by its CQ wait fd (8 MiB from a sleeping sender: 3-45 ms
 * under load, vs 4-220 ms pipelined, which needs the sender awake per chunk).
 *
 * OFI_MAX_PAYLOAD = 64 KiB: pipelined chunks of 64 KiB keep the per-packet
 * cost (wire header, one completion, one copy into a send buffer) small
 * against the copy itself; larger chunks did not raise 1 MiB bandwidth over
 * net here and cost more memory per posted slab.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/fi_rma.h>
#include "netmod/ofi/fab.h"
#include "src/util/clock.h"
#include "src/util/log.h"
#include "src/util/param.h"
#include "src/util/pmi.h"

static int fab_init(const mpid_chan_info *info)
{
    int rc = fab_open(info);
    if (rc) {
        fab_close();
        return rc;
    }
    return 0;
}

static int fab_finalize(void)
{
    /* Take back what the provider still holds (send completions) so the
     * buffers are not freed under it; the peers have read everything by
     * now (the device's barrier precedes us). A goodbye first, so that
     * peers still waiting do not take our closed endpoint for a death. */
    if (fab_st.up)
        fab_alive_bye();
    for (int k = 0; k < 100000 && fab_st.up; k++) {
        int free_bufs = 0;
        for (fab_txbuf *t = fab_st.tx_free; t; t = t->next)
            free_bufs++;
        if (free_bufs == fab_st.tx_count)
            break;
        fab_poll(16);
    }
    fab_close();
    return 0;
}

/* A packet as it goes on the wire: our header, the device's, the payload. */
static inline void pack(char *p, const fab_wire *w, const void *hdr, size_t hdrlen,
                        const struct iovec *iov, int iovcnt)
{
    memcpy(p, w, sizeof *w);
    p += sizeof *w;
    memcpy(p, hdr, hdrlen);
    p += hdrlen;
    for (int i = 0; i < iovcnt; i++) {
        memcpy(p, iov[i].iov_base, iov[i].iov_len);
        p += iov[i].iov_len;
    }
}

/* HOT PATH: every packet to another node. */
static int fab_send(int dest, const void *hdr, size_t hdrlen,
                    const struct iovec *iov, int iovcnt, unsigned flags)
{
    if (__builtin_expect((unsigned)dest >= (unsigned)fab_st.cap || hdrlen > MPID_HDR_MAX, 0))
        return -EINVAL;
    fi_addr_t a = fab_st.addr[dest];
    if (__builtin_expect(a == FI_ADDR_NOTAVAIL, 0)) {
        int rc = fab_resolve(dest);
        if (rc)
            return rc;
        a = fab_st.addr[dest];
    }
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    size_t total = sizeof(fab_wire) + hdrlen + len;
    fab_wire w = { .src = (uint32_t)fab_st.rank, .hdrlen = (uint16_t)hdrlen };
    if (__builtin_expect(dest >= fab_st.size, 0)) {   /* a peer of another job */
        if (fab_st.lost[dest])
            return -EHOSTUNREACH;
        w.src = fab_st.dyn_src[dest - fab_st.size];
    }
    if (total <= fab_st.inject_max) {
        char b[256];
        if (total <= sizeof b) {
            pack(b, &w, hdr, hdrlen, iov, iovcnt);
            ssize_t rc = fi_inject(fab_st.ep, b, total, a);
            if (__builtin_expect(rc == 0, 1))
                return 0;
            if (rc == -FI_EAGAIN)
                return -EAGAIN;
            fab_lost_peer(dest, (int)-rc, NULL);
            return -EHOSTUNREACH;
        }
    }
    if (len > OFI_MAX_PAYLOAD)
        return -EMSGSIZE;
    fab_txbuf *t = fab_tx_get();
    if (!t)
        return -EAGAIN;   /* all in flight: their completions free them */
    pack(t->data, &w, hdr, hdrlen, iov, iovcnt);
    t->dest = dest;
    ssize_t rc = fi_send(fab_st.ep, t->data, total, t->desc, a, &t->ctx);
    if (__builtin_expect(rc == 0, 1)) {
        fab_st.tx_out[dest]++;
        return 0;
    }
    fab_tx_put(t);
    if (rc == -FI_EAGAIN)
        return -EAGAIN;
    fab_lost_peer(dest, (int)-rc, NULL);
    return -EHOSTUNREACH;
}

/* ---- rendezvous reads ---------------------------------------------------- */

struct fi_context2 fab_rd_ctx[OFI_RD_MAX];

int fab_rma_open(void)
{
    const struct fi_info *i = fab_st.info;
    if (!cu_param_int("OFI_RMA") || !(i->caps & FI_RMA) || !(i->caps & FI_READ) ||
        !(i->caps & FI_REMOTE_READ) || !fab_mr_remote_ok())
        return -ENOTSUP;
    fab_st.rd_iov = i->tx_attr->iov_limit ? i->tx_attr->iov_limit : 1;
    if (fab_st.rd_iov > 8)
        fab_st.rd_iov = 8;
    fab_st.rd_max = i->ep_attr->max_msg_size ? i->ep_attr->max_msg_size : SIZE_MAX;
    fab_st.rd_nfree = OFI_RD_MAX;
    for (int k = 0; k < OFI_RD_MAX; k++)
        fab_st.rd_free[k] = k;
    /* the device's bounds for a wait: yield this long, then block */
    fab_st.rd_yield_ns = cu_param_int("YIELD_US") * 1000LL;
    fab_st.rd_sleep_us = cu_param_int("SLEEP_US");
    fab_st.rd_on = 1;
    return 0;
}

void fab_rd_done(void *ctx, int ok)
{
    int slot = (int)((struct fi_context2 *)ctx - fab_rd_ctx);
    if (!fab_st.rd_busy[slot])
        return;
    fab_st.rd_busy[slot] = 0;
    fab_st.rd_free[fab_st.rd_nfree++] = slot;
    fab_st.rd_pending--;
    /* only the call that posted it fails: another call's read is healthy */
    if (!ok && fab_st.rd_of[slot] == fab_st.rd_call)
        fab_st.rd_failed = 1;
}

int fab_rd_peer(const void *ctx)
{
    return fab_st.rd_src[(const struct fi_context2 *)ctx - fab_rd_ctx];
}

static int rd_busy_from(int src)
{
    int n = 0;
    for (int k = 0; k < OFI_RD_MAX; k++)
        n += fab_st.rd_busy[k] && fab_st.rd_src[k] == src;
    return n;
}

/* A lost peer's reads: cancelled, and their (error) completions awaited,
 * since until then the provider may still write into the local buffer,
 * which the caller deregisters and the user reuses once we return. */
static void rd_drain_lost(int src)
{
    for (int k = 0; k < OFI_RD_MAX; k++)
        if (fab_st.rd_busy[k] && fab_st.rd_src[k] == src)
            fi_cancel(&fab_st.ep->fid, &fab_rd_ctx[k]);
    long long limit = fab_st.dyn_limit_ns > 0 ? fab_st.dyn_limit_ns : 10000000000LL;
    long long end = cu_now_ns() + limit;
    while (rd_busy_from(src)) {
        if (!fab_poll(32) && cu_now_ns() > end) {
            /* returning would let the user reuse memory the provider may
             * still write: end the job instead, saying why */
            char msg[240];
            snprintf(msg, sizeof msg, "ofi: remote reads from a lost process of another job "
                     "(dynamic slot %d) neither completed nor were cancelled; the receive "
                     "buffer cannot be released safely", src);
            cu_pmi_abort(1, msg);
        }
    }
}

/* Completions until at most `upto` reads are pending. Packets that arrive
 * meanwhile are delivered as usual (we are called from the device's
 * progress work or a receive call, never from a packet handler).
 * The peer's provider serves the read only while that rank polls, so it
 * needs a core: a wait that spun here kept the core from the peer it
 * waited for (under SCHED_RR for a whole round-robin slice, 100 ms). So
 * after RD_SPIN empty polls the wait yields the core, and after
 * rd_yield_ns without a completion it blocks on the CQ's wait fd, which
 * the read's data (or a packet) on the provider's sockets makes readable.
 * Yielding, not blocking at once: a blocked reader's wake-ups made 1 MiB
 * reads slower. */
#define RD_SPIN 64
/* A poll that took this long moved a read's data (the provider copies it
 * into the buffer inside the poll): not an empty one, though the CQ had
 * no completion, so a reader whose data streams in keeps its core. */
#define RD_BUSY_NS 2000

static void rd_wait(int src, int upto)
{
    int empty = 0, pending = fab_st.rd_pending;
    long long idle_from = 0;
    while (fab_st.rd_pending > upto) {
        long long t0 = cu_now_ns();
        int got = fab_poll(32);
        long long now = cu_now_ns();
        int moved = now - t0 > RD_BUSY_NS;
        if (!got)
            fab_alive_check(src);   /* a long wait: is the peer still there? */
        if (fab_lost(src)) {        /* a process of another job is gone */
            rd_drain_lost(src);
            fab_st.rd_failed = 1;
            return;
        }
        if (got || moved || fab_st.rd_pending != pending) {
            pending = fab_st.rd_pending;
            empty = 0;
            idle_from = 0;
            continue;
        }
        if (++empty < RD_SPIN)
            continue;
        if (!idle_from)
            idle_from = now;
        if (now - idle_from < fab_st.rd_yield_ns) {
            sched_yield();
            continue;
        }
        if (!fab_arm_sleep())
            fab_sleep(fab_st.rd_sleep_us);
        fab_disarm_sleep();
    }
}

static int rd_post(int src, const struct iovec *v, void **desc, size_t n, fi_addr_t a,
                   uint64_t raddr, uint64_t key)
{
    if (fab_st.rd_nfree == 0)
        rd_wait(src, OFI_RD_MAX - 1);
    if (fab_st.rd_nfree == 0 || fab_lost(src))
        return -EIO;
    int slot = fab_st.rd_free[--fab_st.rd_nfree];
    fab_st.rd_src[slot] = src;
    fab_st.rd_of[slot] = fab_st.rd_call;
    for (;;) {
        ssize_t rc = fi_readv(fab_st.ep, v, desc, n, a, raddr, key, &fab_rd_ctx[slot]);
        if (rc == 0) {
            fab_st.rd_busy[slot] = 1;
            fab_st.rd_pending++;
            return 0;
        }
        if (rc != -FI_EAGAIN) {
            fab_st.rd_free[fab_st.rd_nfree++] = slot;
            cu_warn("ofi: posting a remote read from rank %d failed: %s", src,
                    fi_strerror((int)-rc));
            return -EIO;
        }
        fab_poll(32);   /* the provider wants progress first */
    }
}

/* Read the peer's remote[] into local[] (same total length, any split).
 * Synchronous for the device: posts one fi_read per remote segment (and
 * per iov_limit local pieces), then waits for all. Returns bytes read. */
static ssize_t read_posted(int src, fi_addr_t a, uint64_t key, uint64_t rbase,
                           const struct iovec *local, int nlocal, const struct iovec *remote,
                           int nremote, void **ldesc);

static ssize_t fab_rma_read(int src, uint64_t key, uint64_t rbase, const struct iovec *local,
                            int nlocal, const struct iovec *remote, int nremote)
{
    if (!fab_st.rd_on)
        return -ENOTSUP;
    if ((unsigned)src >= (unsigned)fab_st.cap || nlocal < 0)
        return -EINVAL;
    if (fab_lost(src))
        return -EHOSTUNREACH;
    if (fab_st.in_progress)
        cu_fatal("ofi: remote read from inside a packet handler");
    int rc = 0;
    if (fab_st.addr[src] == FI_ADDR_NOTAVAIL && (rc = fab_resolve(src)))
        return rc;
    fi_addr_t a = fab_st.addr[src];
    /* FI_MR_LOCAL: our side of the read registered for its duration */
    struct fid_mr *lmr_one[8], **lmr = lmr_one;
    void *ldesc_one[8], **ldesc = ldesc_one;
    if (fab_st.mr_local) {
        if (nlocal > 8 && (!(lmr = calloc((size_t)nlocal, sizeof *lmr)) ||
                           !(ldesc = calloc((size_t)nlocal, sizeof *ldesc)))) {
            rc = -ENOMEM;
        } else if ((rc = fab_mr_local(local, (size_t)nlocal, FI_READ, lmr, ldesc))) {
            cu_debug("ofi: cannot register a read's buffer: %s", fi_strerror(-rc));
            rc = -ENOTSUP;
        }
        if (rc) {
            if (lmr != lmr_one)
                free(lmr);
            if (ldesc != ldesc_one)
                free(ldesc);
            return rc;
        }
    }
    ssize_t got = read_posted(src, a, key, rbase, local, nlocal, remote, nremote,
                              fab_st.mr_local ? ldesc : NULL);
    if (fab_st.mr_local) {
        fab_mr_local_end(lmr, (size_t)nlocal);
        if (lmr != lmr_one)
            free(lmr);
        if (ldesc != ldesc_one)
            free(ldesc);
    }
    return got;
}

/* Post the reads of fab_rma_read and wait for them all. */
static ssize_t read_posted(int src, fi_addr_t a, uint64_t key, uint64_t rbase,
                           const struct iovec *local, int nlocal, const struct iovec *remote,
                           int nremote, void **ldesc)
{
    int rc;
    fab_st.rd_call++;
    fab_st.rd_failed = 0;
    size_t total = 0, loff = 0;
    int li = 0;
    for (int ri = 0; ri < nremote && li < nlocal; ri++) {
        size_t rlen = remote[ri].iov_len, roff = 0;
        while (roff < rlen && li < nlocal) {
            struct iovec v[8];
            void *desc[8];
            size_t n = 0, got = 0, room = rlen - roff;
            if (room > fab_st.rd_max)
                room = fab_st.rd_max;
            while (n < fab_st.rd_iov && li < nlocal && got < room) {
                size_t seg = local[li].iov_len - loff;
                if (seg > room - got)
                    seg = room - got;
                if (seg) {
                    v[n].iov_base = (char *)local[li].iov_base + loff;
                    v[n].iov_len = seg;
                    desc[n] = ldesc ? ldesc[li] : NULL;
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
            uint64_t raddr = fab_raddr((uint64_t)(uintptr_t)remote[ri].iov_base + roff, rbase);
            if ((rc = rd_post(src, v, desc, n, a, raddr, key))) {
                rd_wait(src, 0);
                return rc;
            }
            roff += got;
            total += got;
        }
    }
    rd_wait(src, 0);
    if (fab_st.rd_failed)
        return -EIO;
    return (ssize_t)total;
}

static int fab_progress(int budget)
{
    if (__builtin_expect(fab_st.lost_news, 0))
        fab_lost_report();
    int n = fab_poll(budget);
    /* processes of other jobs are probed while we idle: no mpirun of
     * ours would tell us they died */
    if (__builtin_expect(n == 0 && fab_st.dyn_top > fab_st.size, 0))
        fab_alive_check(-1);
    return n;
}

static const mpid_chan_net_rma fab_net_rma = {
    .expose = fab_rma_expose,
    .unexpose = fab_mr_unexpose,
    .read_key = fab_rma_read,
    .mem_expose = fab_mem_expose,
    .mem_unexpose = fab_mr_unexpose,
    .post = fab_rma_post,
    .atomic_ok = fab_rma_atomic_ok,
};
static const mpid_chan_dyn fab_dyn = {
    .addr = fab_dyn_addr, .peer_add = fab_dyn_peer_add, .peer_del = fab_dyn_peer_del
};

const mpid_channel mpid_channel_ofi = {
    .name = "ofi",
    .max_payload = OFI_MAX_PAYLOAD,
    .init = fab_init,
    .finalize = fab_finalize,
    .send = fab_send,
    .progress = fab_progress,
    .arm_sleep = fab_arm_sleep,
    .sleep = fab_sleep,
    .disarm_sleep = fab_disarm_sleep,
    .wait_fd = fab_wait_fd,
    .net_rma = &fab_net_rma,
    .dyn = &fab_dyn,
};
