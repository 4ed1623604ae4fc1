/*
 * progress.c — the completion queue: packets handed to the device in
 * place, receive buffers reposted, send buffers returned, and errors, which
 * end the job naming the peer (a peer that vanished must not leave us
 * waiting for packets that will never come), or for a process of another
 * job fail only what we do with it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netmod/ofi/fab.h"
#include "src/util/log.h"
#include "src/util/pmi.h"

int fab_post_rx(fab_rxbuf *b)
{
    struct iovec iov = { b->buf, b->size };
    void *desc = b->desc;
    struct fi_msg m = {
        .msg_iov = &iov, .desc = &desc, .iov_count = 1,
        .addr = FI_ADDR_UNSPEC, .context = &b->ctx,
    };
    int rc;
    /* the queue has room for every buffer we own; EAGAIN only means the
     * provider wants progress first */
    for (int tries = 0; tries < 1000; tries++) {
        rc = (int)fi_recvmsg(fab_st.ep, &m, fab_st.multi_recv ? FI_MULTI_RECV : 0);
        if (rc != -FI_EAGAIN)
            return rc;
        struct fi_cq_data_entry e;
        (void)fi_cq_read(fab_st.cq, &e, 0);   /* progress without taking entries */
    }
    return rc;
}

fab_txbuf *fab_tx_get(void)
{
    fab_txbuf *t = fab_st.tx_free;
    if (t) {
        fab_st.tx_free = t->next;
        return t;
    }
    if (fab_st.tx_count >= fab_st.tx_max)
        return NULL;
    t = malloc(sizeof *t + OFI_PKT_MAX);
    if (!t)
        return NULL;
    if (fab_mr_reg(t->data, OFI_PKT_MAX, FI_SEND, &t->mr, &t->desc)) {
        free(t);
        return NULL;
    }
    fab_st.tx_count++;
    return t;
}

void fab_tx_put(fab_txbuf *t)
{
    t->next = fab_st.tx_free;
    fab_st.tx_free = t;
}

void fab_tx_release_all(void)
{
    /* buffers still in flight at close are lost with the endpoint */
    fab_txbuf *t = fab_st.tx_free;
    while (t) {
        fab_txbuf *n = t->next;
        if (t->mr)
            fi_close(&t->mr->fid);
        free(t);
        t = n;
    }
    fab_st.tx_free = NULL;
    fab_st.tx_count = 0;
}

static int is_rx(void *ctx)
{
    return fab_st.rx && (char *)ctx >= (char *)fab_st.rx &&
           (char *)ctx < (char *)(fab_st.rx + fab_st.nrx);
}

/* A send to `rank` failed (errno-style err, the provider's detail or NULL):
 * the peer is gone, and with it whatever it would have sent us. A world
 * rank ends the job; a process of another job only fails what we do with
 * it: the device hears of it from fab_progress (the caller may be deep in
 * a send or a read the device is making). */
void fab_lost_peer(int rank, int err, const char *detail)
{
    if (rank >= fab_st.size && rank < fab_st.cap && fab_st.peer_lost) {
        if (fab_st.lost[rank])
            return;
        fab_st.lost[rank] = 1;
        fab_st.lost_news = 1;
        fab_st.probe_at[rank] = fab_st.probe_again[rank] = 0;
    }
    char msg[700], who[200];
    snprintf(who, sizeof who, "rank %d", rank);
    if (rank >= fab_st.size) {   /* a process of another job: its address names it */
        char a[120] = "?", raw[128];
        size_t alen = sizeof a, rlen = sizeof raw;
        if (rank < fab_st.cap && fab_st.addr[rank] != FI_ADDR_NOTAVAIL &&
            fi_av_lookup(fab_st.av, fab_st.addr[rank], raw, &rlen) == 0 && rlen <= sizeof raw)
            fi_av_straddr(fab_st.av, raw, a, &alen);
        snprintf(who, sizeof who, "a process of another job (dynamic slot %d, at %.100s)",
                 rank, a);
    }
    snprintf(msg, sizeof msg, "ofi: lost the connection to %s (send failed: %s%s%s); %s",
             who, fi_strerror(err), detail && *detail ? ", " : "", detail && *detail ? detail : "",
             fab_lost(rank) ? "operations with it fail" : "ending the job");
    if (fab_lost(rank)) {
        cu_warn("%s", msg);
        return;
    }
    cu_pmi_abort(1, msg);
}

/* Tells the device of the dynamic peers lost since the last call. */
void fab_lost_report(void)
{
    fab_st.lost_news = 0;
    for (int r = fab_st.size; r < fab_st.dyn_top; r++)
        if (fab_st.lost[r] == 1) {
            fab_st.lost[r] = 2;
            fab_st.peer_lost(r);
        }
}

/* A provider error is fatal for the job (the device has no way to resend),
 * but for a process of another job (fab_lost_peer). */
static void on_error(void)
{
    struct fi_cq_err_entry err;
    memset(&err, 0, sizeof err);
    if (fi_cq_readerr(fab_st.cq, &err, 0) <= 0)
        return;
    /* FI_ECANCELED is not benign here: we never cancel, and the endpoint
     * is closed only after the last poll, so it means the provider flushed
     * the operations of a connection that broke (net does this when the
     * peer's socket closes). Ignoring it lost the send buffers and left a
     * sender waiting for completions that never came. */
    char perr[256] = "";
    const char *ps = fi_cq_strerror(fab_st.cq, err.prov_errno, err.err_data, perr, sizeof perr);
    if (fab_is_rd(err.op_context)) {
        /* the reader reports it (rendezvous: MPI_ERR_OTHER on the receive,
         * then its FIN to the peer fails: fab_lost_peer) */
        cu_warn("ofi: remote read from rank %d failed: %s%s%s", fab_rd_peer(err.op_context),
                fi_strerror(err.err), ps && *ps ? ", " : "", ps && *ps ? ps : "");
        fab_rd_done(err.op_context, 0);
        return;
    }
    if (fab_is_wop(err.op_context)) {
        /* the origin's operation reports it (MPI_ERR_OTHER at its flush) */
        cu_warn("ofi: one-sided access to rank %d failed: %s%s%s",
                fab_wop_peer(err.op_context), fi_strerror(err.err), ps && *ps ? ", " : "",
                ps && *ps ? ps : "");
        fab_wop_done(err.op_context, 0);
        return;
    }
    int peer = fab_alive_probe_peer(err.op_context);
    if (peer >= 0) {
        fab_alive_probe_done(peer);
        if (!fab_alive_said_bye(peer))   /* else it met a finalized peer's closed endpoint */
            fab_lost_peer(peer, err.err, ps);
        return;
    }
    if (err.op_context && !is_rx(err.op_context)) {
        fab_txbuf *t = err.op_context;
        if (!fab_alive_said_bye(t->dest))
            fab_lost_peer(t->dest, err.err, ps);
        fab_st.tx_out[t->dest]--;   /* flushed as the peer closed (finalized or lost) */
        fab_tx_put(t);
        return;
    }
    char msg[600];
    snprintf(msg, sizeof msg, "ofi: receive failed (%s%s%s): a peer vanished; ending the job",
             fi_strerror(err.err), ps && *ps ? ", " : "", ps && *ps ? ps : "");
    cu_pmi_abort(1, msg);
}

/*
 * A receive completion for slab or buffer b. Multi-recv: the provider
 * carves packets off the slab back to back, from its start, as their
 * headers arrive, and flags FI_MULTI_RECV once it carves no more. In
 * libfabric 1.17 the net provider puts that flag on the completion of the
 * last packet carved, which need not be the last to complete: a packet
 * carved earlier for another connection may still be filling (the sender
 * wrote part of it and was descheduled). Reposting at the flag would let
 * new packets land on that one ("corrupt packet", MPI_ERR_TRUNCATE under
 * load). (libfabric 1.20 puts the flag on the last completion.) Since the packets tile the slab from its start, it is free
 * once the completed bytes reach the end of the furthest packet; a
 * provider that flags the last completion, or releases with a separate
 * entry, passes that test at once.
 */
static void rx_slab_done(fab_rxbuf *b, const struct fi_cq_data_entry *e, const char *p)
{
    if (fab_st.multi_recv) {
        if (e->len) {
            b->done += e->len;
            size_t end = (size_t)(p - b->buf) + e->len;
            if (end > b->end)
                b->end = end;
        }
        if (e->flags & FI_MULTI_RECV)
            b->released = 1;
        if (!b->released)
            return;
        if (b->done != b->end) {
            fab_st.rx_waited++;   /* once per completion while it waits */
            return;
        }
        b->done = b->end = 0;
        b->released = 0;
    }
    int rc = fab_post_rx(b);
    if (rc)
        cu_fatal("ofi: reposting a receive buffer failed: %s", fi_strerror(-rc));
}

static void deliver(const char *p, size_t len)
{
    fab_wire w;
    if (len < sizeof w)
        cu_fatal("ofi: runt packet of %zu bytes", len);
    memcpy(&w, p, sizeof w);
    if (w.src >= (uint32_t)fab_st.cap || sizeof w + w.hdrlen > len || w.hdrlen > MPID_HDR_MAX)
        cu_fatal("ofi: corrupt packet (source %u, header %u, %zu bytes)", w.src, w.hdrlen, len);
    if (fab_alive_packet(&w))
        return;
    /* a peer judged lost was alive after all (stopped, not dead): what it
     * sends would answer requests the device has failed and freed */
    if (__builtin_expect(w.src >= (uint32_t)fab_st.size, 0) && fab_st.lost[w.src])
        return;
    const char *hdr = p + sizeof w;
    mpid_on_packet((int)w.src, hdr, w.hdrlen, hdr + w.hdrlen, len - sizeof w - w.hdrlen);
}

int fab_poll(int budget)
{
    if (fab_st.in_progress)
        return 0;
    fab_st.in_progress = 1;
    int delivered = 0;
    while (delivered < budget) {
        struct fi_cq_data_entry e[16];
        size_t want = (size_t)(budget - delivered) < 16 ? (size_t)(budget - delivered) : 16;
        ssize_t n = fi_cq_read(fab_st.cq, e, want);
        if (n == -FI_EAGAIN)
            break;
        if (n == -FI_EAVAIL) {
            on_error();
            continue;
        }
        if (n < 0) {
            fab_st.in_progress = 0;
            cu_fatal("ofi: reading the completion queue failed: %s", fi_strerror((int)-n));
        }
        fab_st.got_cqe = 1;
        fab_st.ncqe++;
        for (ssize_t k = 0; k < n; k++) {
            void *ctx = e[k].op_context;
            int peer;
            if (is_rx(ctx)) {   /* a packet, or a slab's separate release */
                fab_rxbuf *b = (fab_rxbuf *)ctx;
                /* multi-recv reports where in the slab the packet is */
                const char *p = fab_st.multi_recv ? (const char *)e[k].buf : b->buf;
                if (e[k].len) {
                    if (!p || p < b->buf || e[k].len > b->size - (size_t)(p - b->buf))
                        cu_fatal("ofi: a packet of %zu bytes outside its receive buffer",
                                 e[k].len);
                    deliver(p, e[k].len);
                    delivered++;
                }
                /* the handler copied what it keeps: the space is free again */
                rx_slab_done(b, &e[k], p);
            } else if (fab_is_rd(ctx)) {
                fab_rd_done(ctx, 1);
            } else if (fab_is_wop(ctx)) {
                fab_wop_done(ctx, 1);
                delivered++;
            } else if ((peer = fab_alive_probe_peer(ctx)) >= 0) {
                fab_alive_probe_done(peer);
            } else if (ctx) {
                fab_txbuf *t = ctx;
                fab_st.tx_out[t->dest]--;
                fab_tx_put(t);
            }
        }
        if ((size_t)n < want)
            break;
    }
    fab_st.in_progress = 0;
    return delivered;
}
