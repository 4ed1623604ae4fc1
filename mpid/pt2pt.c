/*
 * pt2pt.c — the device's point-to-point entry points and the packet upcall:
 * isend/irecv, probe, matched-probe receive, and mpid_on_packet, the one
 * place where messages from every channel enter matching (cancel: cancel.c).
 */
#include <stdlib.h>
#include "mpid/mpidi.h"
#include "src/util/log.h"

mpid_counters mpid_cnt;

static inline int err_of(int rc)
{
    return rc == -ENOMEM ? MPI_ERR_NO_MEM : MPI_ERR_OTHER;
}

/* A failed packet to peer (a world rank) as an MPI error class, with a
 * warning unless the peer is gone (its loss is reported elsewhere). */
static int send_error(int peer, int rc)
{
    if (rc != -EHOSTUNREACH)
        cu_warn("send to rank %d failed: %s", peer, strerror(-rc));
    return err_of(rc);
}

void mpid_send_fail(mpid_req *r, int rc)
{
    r->pub.status.MPI_ERROR = send_error(r->p.peer, rc);
    mpid_req_complete(r);
}

/* The fast path: a contiguous eager message with nothing queued before it
 * goes out as one packet, with no request. 0 when sent; -EAGAIN when the
 * message does not qualify or the channel has no room (the caller takes
 * the general path); else the channel's error. */
static inline int send_now(const void *buf, size_t bytes, const cu_dtype *dt, int w,
                           const mpid_dest *d, uint32_t ctx, int my_rank, int tag, int mode)
{
    if (__builtin_expect(!dt->contig || bytes > d->eager_max || mode == MPID_SEND_SYNC ||
                         d->qhead != NULL, 0))
        return -EAGAIN;
    mpid_pkt_msg h = { MPID_PKT_EAGER, 0, 0, ctx, my_rank, tag };
    struct iovec iov = { (char *)buf + dt->true_lb, bytes };
    return d->ch->send(w, &h, sizeof h, &iov, bytes ? 1 : 0, 0);
}

/* The general path for the send r (the fast path did not take it): its
 * first packet now, or queued behind earlier sends to the same rank. */
static int send_start(mpid_req *r, const void *buf, size_t count, const cu_dtype *dt,
                      int dest, int tag, int w, mpid_dest *d, uint32_t ctx, int my_rank,
                      int mode, size_t bytes)
{
    r->p.buf = (void *)buf;
    r->p.count = count;
    r->p.dt = dt;
    r->p.bytes = bytes;
    r->p.ctx = ctx;
    r->p.rank = dest;
    r->p.tag = tag;
    r->p.my_rank = my_rank;
    r->p.peer = w;
    r->p.mode = (uint8_t)mode;
    if (__builtin_expect(d->lost, 0)) {   /* a process of another job, gone */
        mpid_req_release(r);
        return MPI_ERR_OTHER;
    }
    if (d->qhead == NULL) {
        int rc = mpid_send_first(r);
        if (rc == 0)
            return MPI_SUCCESS;
        if (rc != -EAGAIN) {
            if (r->p.dt_held) {
                cu_dtype_release((cu_dtype *)r->p.dt);
                r->p.dt_held = 0;
            }
            free(r->p.iovs);
            r->p.iovs = NULL;
            mpid_req_release(r);
            return err_of(rc);
        }
    }
    /* No room: queue behind earlier sends to the same rank (MPI order). */
    r->p.state = MPID_ST_QUEUED;
    mpid_req_hold_dt(r);
    r->p.next = NULL;
    if (d->qtail)
        d->qtail->p.next = r;
    else
        d->qhead = r;
    d->qtail = r;
    mpid_dest_mark_dirty(d);
    return MPI_SUCCESS;
}

/* The request of an isend or irecv, in *req; with MPI_PROC_NULL as the
 * peer it is complete at once. NULL when memory runs out. */
static inline mpid_req *req_new(int kind, int peer, mpid_request **req)
{
    mpid_req *r = mpid_req_alloc(kind);
    if (__builtin_expect(!r, 0))
        return NULL;
    *req = &r->pub;
    if (__builtin_expect(peer == MPI_PROC_NULL, 0)) {
        mpid_status_proc_null(&r->pub.status);
        r->pub.done = 1;
    }
    return r;
}

/* Both sends after their MPI_PROC_NULL case: r is an isend's request, NULL
 * for a blocking send, which makes one only when the message cannot go at
 * once. On success *req is the request to wait for, or NULL (blocking send
 * gone at once); on failure NULL. */
static inline __attribute__((always_inline)) int
send_to(const void *buf, size_t count, const cu_dtype *dt, int dest, int tag,
        const mpid_comm *comm, unsigned ctx_off, int mode, mpid_req *r, mpid_request **req)
{
    int w = comm->world_ranks[dest];
    uint32_t ctx = mpid_ctx_of_rank(comm, dest, ctx_off);
    mpid_dest *d = &mpid_st.dests[w];
    size_t bytes = dt->size * count;
    mpid_count_send(d->cnt_kind, bytes);
    int rc = send_now(buf, bytes, dt, w, d, ctx, comm->rank, tag, mode);
    if (__builtin_expect(rc == 0, 1)) {
        mpid_count_eager();
        if (r)
            r->pub.done = 1;
        return MPI_SUCCESS;
    }
    if (rc != -EAGAIN) {
        if (r)
            mpid_req_release(r);
        *req = NULL;
        return send_error(w, rc);
    }
    if (!r && !(r = mpid_req_alloc(MPID_REQ_SEND)))
        return MPI_ERR_NO_MEM;
    *req = &r->pub;
    rc = send_start(r, buf, count, dt, dest, tag, w, d, ctx, comm->rank, mode, bytes);
    if (rc != MPI_SUCCESS)
        *req = NULL;
    return rc;
}

int mpid_isend(const void *buf, size_t count, const cu_dtype *dt, int dest, int tag,
               const mpid_comm *comm, unsigned ctx_off, int mode, mpid_request **req)
{
    mpid_req *r = req_new(MPID_REQ_SEND, dest, req);
    if (__builtin_expect(!r, 0))
        return MPI_ERR_NO_MEM;
    if (__builtin_expect(r->pub.done, 0))
        return MPI_SUCCESS;
    return send_to(buf, count, dt, dest, tag, comm, ctx_off, mode, r, req);
}

int mpid_send(const void *buf, size_t count, const cu_dtype *dt, int dest, int tag,
              const mpid_comm *comm, unsigned ctx_off, int mode, mpid_request **req)
{
    *req = NULL;
    if (__builtin_expect(dest == MPI_PROC_NULL, 0))
        return MPI_SUCCESS;
    return send_to(buf, count, dt, dest, tag, comm, ctx_off, mode, NULL, req);
}

/* A receive meets an unexpected message (also Mrecv). */
static void recv_from_msg(mpid_req *r, mpid_message *m)
{
    r->pub.status.MPI_SOURCE = m->q.all.src;
    r->pub.status.MPI_TAG = m->q.all.tag;
    if (m->type == MPID_PKT_RTS) {
        r->p.peer = m->peer;
        r->p.raddr = m->addr;
        r->p.rniov = m->niov;
        r->p.x.rkey[0] = m->rkey[0];
        r->p.x.rkey[1] = m->rkey[1];
        r->p.msg_size = m->size;
        r->p.peer_req = m->sreq;
        mpid_msg_free(m);
        mpid_rndv_recv_start(r);
        return;
    }
    mpid_eager_deliver(r, m->q.all.src, m->q.all.tag, m->data, m->size);
    if (m->type == MPID_PKT_EAGER_SYNC) {
        mpid_pkt_ack a = { .type = MPID_PKT_ACK, .sreq = m->sreq };
        mpid_ctrl_send(m->peer, &a, sizeof a);
    }
    mpid_msg_free(m);
    mpid_req_complete(r);
}

int mpid_irecv(void *buf, size_t count, const cu_dtype *dt, int src, int tag,
               const mpid_comm *comm, unsigned ctx_off, mpid_request **req)
{
    mpid_req *r = req_new(MPID_REQ_RECV, src, req);
    if (__builtin_expect(!r, 0))
        return MPI_ERR_NO_MEM;
    if (__builtin_expect(r->pub.done, 0))
        return MPI_SUCCESS;
    uint32_t ctx = comm->context_id + ctx_off;
    mpid_ctxq *c = mpid_ctxq_get(&mpid_st.ctxqs, ctx);
    if (__builtin_expect(!c, 0)) {
        mpid_req_release(r);
        *req = NULL;
        return MPI_ERR_NO_MEM;
    }
    r->p.buf = buf;
    r->p.count = count;
    r->p.dt = dt;
    r->p.bytes = dt->size * count;
    r->p.ctx = ctx;
    if (__builtin_expect(!mpid_uq_empty(&c->unexp), 0)) {
        mpid_mq_elem *e = mpid_mq_take_unexp(&c->unexp, src, tag);
        if (e) {
            mpid_count_unexp_del();
            recv_from_msg(r, mpid_msg_of_q(e));
            return MPI_SUCCESS;
        }
    }
    if (__builtin_expect(mpid_st.dyn.nlost != 0, 0) && mpid_recv_from_lost(comm, src)) {
        r->pub.status.MPI_SOURCE = src;
        r->pub.status.MPI_TAG = tag;
        r->pub.status.MPI_ERROR = MPI_ERR_OTHER;
        r->pub.done = 1;
        return MPI_SUCCESS;
    }
    r->p.q.src = src;
    r->p.q.tag = tag;
    /* who will send it, when known: a wait on a remote peer polls the network */
    r->p.peer = src >= 0 ? comm->world_ranks[src] : -1;
    r->p.state = MPID_ST_POSTED;
    if (__builtin_expect(!dt->builtin, 0))
        mpid_req_hold_dt(r);
    mpid_mq_append(&c->posted, &r->p.q);
    mpid_count_posted_add();
    return MPI_SUCCESS;
}

int mpid_iprobe(int src, int tag, const mpid_comm *comm, unsigned ctx_off,
                int *flag, MPI_Status *status, mpid_message **msg)
{
    if (src == MPI_PROC_NULL) {
        *flag = 1;
        if (status)
            mpid_status_proc_null(status);
        if (msg)
            *msg = NULL;
        return MPI_SUCCESS;
    }
    mpid_ctxq *c = mpid_ctxq_get(&mpid_st.ctxqs, comm->context_id + ctx_off);
    if (!c)
        return MPI_ERR_NO_MEM;
    mpid_mq_elem *e = mpid_mq_find_unexp(&c->unexp, src, tag);
    if (!e) {
        mpid_progress_test();
        e = mpid_mq_find_unexp(&c->unexp, src, tag);
    }
    if (!e) {
        *flag = 0;
        /* nothing more can come from a lost process of another job */
        if (__builtin_expect(mpid_st.dyn.nlost != 0, 0) && mpid_recv_from_lost(comm, src))
            return MPI_ERR_OTHER;
        return MPI_SUCCESS;
    }
    mpid_message *m = mpid_msg_of_q(e);
    *flag = 1;
    if (status) {
        status->MPI_SOURCE = m->q.all.src;
        status->MPI_TAG = m->q.all.tag;
        status->MPI_ERROR = MPI_SUCCESS;
        status->clumpi_count = (MPI_Count)m->size;
        status->clumpi_cancelled = 0;
    }
    if (msg) {
        mpid_uq_remove(&c->unexp, e);
        mpid_count_unexp_del();
        /* Mprobe matches the message: a synchronous sender may complete. */
        if (m->type == MPID_PKT_EAGER_SYNC) {
            mpid_pkt_ack a = { .type = MPID_PKT_ACK, .sreq = m->sreq };
            mpid_ctrl_send(m->peer, &a, sizeof a);
            m->type = MPID_PKT_EAGER;
        }
        *msg = m;
    }
    return MPI_SUCCESS;
}

int mpid_imrecv(void *buf, size_t count, const cu_dtype *dt, mpid_message *msg,
                mpid_request **req)
{
    mpid_req *r = mpid_req_alloc(MPID_REQ_RECV);
    if (!r)
        return MPI_ERR_NO_MEM;
    *req = &r->pub;
    r->p.buf = buf;
    r->p.count = count;
    r->p.dt = dt;
    r->p.bytes = dt->size * count;
    r->p.ctx = msg->ctx;
    recv_from_msg(r, msg);
    return MPI_SUCCESS;
}

/* ---- arrivals ---------------------------------------------------------- */
/* Queues a record of the message; its payload is copied, or kept where it
 * is when lend (then returns 1: the channel's buffer is ours until
 * mpid_msg_free gives it back). */
static int unexpected(mpid_ctxq *c, int peer, const mpid_pkt_msg *h, unsigned type,
                      const void *payload, size_t len, uint64_t sreq, int lend)
{
    lend = lend && len > MPID_UNEXP_INLINE;
    mpid_message *m = mpid_msg_alloc(lend ? 0 : len);
    if (!m)
        cu_fatal("out of memory queueing an unexpected message of %zu bytes", len);
    m->q.all.src = h->src;
    m->q.all.tag = h->tag;
    m->type = (uint8_t)type;
    m->peer = peer;
    m->ctx = h->ctx;
    m->size = len;
    m->sreq = sreq;
    if (lend) {
        m->data = (void *)payload;
        m->lent = 1;
    } else if (len) {
        memcpy(m->data, payload, len);
    }
    mpid_uq_append(&c->unexp, &m->q);
    mpid_count_unexp_add();
    return lend;
}

static inline mpid_ctxq *ctxq_or_die(uint32_t ctx)
{
    mpid_ctxq *c = mpid_ctxq_get(&mpid_st.ctxqs, ctx);
    if (__builtin_expect(!c, 0))
        cu_fatal("out of memory creating matching queues");
    return c;
}

/* Both upcalls (channel.h). A payload is lent only while rendezvous reads
 * from src work: a sender whose buffers are all out on loan sends by
 * rendezvous, and then the read must not need those buffers itself. */
static inline __attribute__((always_inline)) int
on_packet(int src, const void *hdr, size_t hdrlen, const void *payload, size_t len, int lend)
{
    unsigned type = *(const uint8_t *)hdr;
    lend = lend && !mpid_st.dests[src].no_rma;
    if (__builtin_expect(type == MPID_PKT_EAGER, 1)) {
        mpid_pkt_msg h;
        memcpy(&h, hdr, sizeof h);
        mpid_count_recv(mpid_st.dests[src].cnt_kind, len);
        mpid_ctxq *c = ctxq_or_die(h.ctx);
        mpid_mq_elem *e = c->posted.head ? mpid_mq_take_posted(&c->posted, h.src, h.tag) : NULL;
        if (__builtin_expect(e != NULL, 1)) {
            mpid_count_posted_del();
            mpid_req *r = mpid_req_of_q(e);
            mpid_eager_deliver(r, h.src, h.tag, payload, len);
            mpid_req_complete(r);
            return 0;
        }
        return unexpected(c, src, &h, type, payload, len, 0, lend);
    }
    switch (type) {
    case MPID_PKT_EAGER_SYNC: {
        mpid_pkt_esync h;
        memcpy(&h, hdr, sizeof h);
        mpid_count_recv(mpid_st.dests[src].cnt_kind, len);
        mpid_ctxq *c = ctxq_or_die(h.m.ctx);
        mpid_mq_elem *e = mpid_mq_take_posted(&c->posted, h.m.src, h.m.tag);
        if (e) {
            mpid_count_posted_del();
            mpid_req *r = mpid_req_of_q(e);
            mpid_eager_deliver(r, h.m.src, h.m.tag, payload, len);
            mpid_req_complete(r);
            mpid_pkt_ack a = { .type = MPID_PKT_ACK, .sreq = h.sreq };
            mpid_ctrl_send(src, &a, sizeof a);
        } else {
            return unexpected(c, src, &h.m, type, payload, len, h.sreq, lend);
        }
        break;
    }
    case MPID_PKT_RTS: {
        mpid_pkt_rts h;
        memcpy(&h, hdr, sizeof h);
        uint64_t rkey[2] = { 0, 0 };   /* payload: keys (net_rma->read_key), if any */
        if (len)
            memcpy(rkey, payload, len < sizeof rkey ? len : sizeof rkey);
        mpid_count_recv(mpid_st.dests[src].cnt_kind, h.size);
        mpid_ctxq *c = ctxq_or_die(h.m.ctx);
        mpid_mq_elem *e = mpid_mq_take_posted(&c->posted, h.m.src, h.m.tag);
        if (e) {
            mpid_count_posted_del();
            /* Read the data from progress, outside the channel's callback. */
            mpid_req *r = mpid_req_of_q(e);
            r->pub.status.MPI_SOURCE = h.m.src;
            r->pub.status.MPI_TAG = h.m.tag;
            r->p.peer = src;
            r->p.raddr = h.addr;
            r->p.rniov = h.niov;
            r->p.x.rkey[0] = rkey[0];
            r->p.x.rkey[1] = rkey[1];
            r->p.msg_size = h.size;
            r->p.peer_req = h.sreq;
            r->p.state = MPID_ST_RNDV_MATCHED;
            r->p.next = mpid_st.rndv_work;
            mpid_st.rndv_work = r;
        } else {
            mpid_message *m;
            unexpected(c, src, &h.m, type, NULL, 0, h.sreq, 0);
            m = mpid_msg_of_q(mpid_uq_last(&c->unexp));
            m->size = h.size;
            m->addr = h.addr;
            m->niov = h.niov;
            m->rkey[0] = rkey[0];
            m->rkey[1] = rkey[1];
        }
        break;
    }
    case MPID_PKT_CTS: {
        mpid_pkt_cts h;
        memcpy(&h, hdr, sizeof h);
        mpid_on_cts(&h);
        break;
    }
    case MPID_PKT_DATA: {
        mpid_pkt_data h;
        memcpy(&h, hdr, sizeof h);
        mpid_on_data(&h, payload, len);
        break;
    }
    case MPID_PKT_FIN: {
        mpid_pkt_ack h;
        memcpy(&h, hdr, sizeof h);
        mpid_on_fin(h.sreq);
        break;
    }
    case MPID_PKT_COOP:
    case MPID_PKT_WDONE: {
        mpid_pkt_coop h;
        memcpy(&h, hdr, sizeof h);
        mpid_on_coop(&h);
        break;
    }
    case MPID_PKT_ACK: {
        mpid_pkt_ack h;
        memcpy(&h, hdr, sizeof h);
        mpid_req *r = (mpid_req *)(uintptr_t)h.sreq;
        mpid_req_complete(r);
        break;
    }
    case MPID_PKT_RMA:
        mpid_rma_on_packet(src, hdr, hdrlen, payload, len);
        break;
    case MPID_PKT_CANCEL:
    case MPID_PKT_CANCEL_ACK: {
        mpid_pkt_cancel h;
        memcpy(&h, hdr, sizeof h);
        mpid_on_cancel(src, &h);
        break;
    }
    default:
        cu_warn("dropping a packet of unknown type %u from rank %d (%zu header bytes)",
                type, src, hdrlen);
    }
    return 0;
}

void mpid_on_packet(int src, const void *hdr, size_t hdrlen, const void *payload, size_t len)
{
    on_packet(src, hdr, hdrlen, payload, len, 0);
}

int mpid_on_packet_lent(int src, const void *hdr, size_t hdrlen, const void *payload, size_t len)
{
    return on_packet(src, hdr, hdrlen, payload, len, 1);
}
