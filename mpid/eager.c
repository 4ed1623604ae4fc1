/*
 * eager.c — the eager protocol (the whole message in one packet, up to the
 * route's eager limit, mpid_dest.eager_max), the first-packet dispatch of every send, and the
 * queues of packets waiting for room at a destination.
 */
#include <stdlib.h>
#include "mpid/mpidi.h"

void mpid_eager_deliver(mpid_req *r, int src, int tag, const void *payload, size_t len)
{
    size_t n = len;
    r->pub.status.MPI_SOURCE = src;
    r->pub.status.MPI_TAG = tag;
    if (__builtin_expect(len > r->p.bytes, 0)) {
        /* Truncation: keep what fits, never write past the buffer. */
        n = r->p.bytes;
        r->pub.status.MPI_ERROR = MPI_ERR_TRUNCATE;
    }
    if (n) {
        const cu_dtype *dt = r->p.dt;
        if (__builtin_expect(dt->contig, 1))
            memcpy((char *)r->p.buf + dt->true_lb, payload, n);
        else
            cu_dtype_unpack(r->p.buf, r->p.count, dt, 0, payload, n);
    }
    r->pub.status.clumpi_count = (MPI_Count)n;
}

/* Eager packet for r: contiguous data goes straight from the user buffer;
 * non-contiguous data as a gather list when it has few pieces, else packed
 * into a bounce buffer (the channel copies before send returns). */
static int eager_send(mpid_req *r, mpid_dest *d)
{
    union { mpid_pkt_msg m; mpid_pkt_esync s; } h;
    size_t hl = sizeof h.m;
    int sync = r->p.mode == MPID_SEND_SYNC;
    h.m.type = sync ? MPID_PKT_EAGER_SYNC : MPID_PKT_EAGER;
    h.m.pad0 = 0;
    h.m.pad1 = 0;
    h.m.ctx = r->p.ctx;
    h.m.src = r->p.my_rank;
    h.m.tag = r->p.tag;
    if (sync) {
        h.s.sreq = (uint64_t)(uintptr_t)r;
        hl = sizeof h.s;
    }
    const cu_dtype *dt = r->p.dt;
    size_t bytes = r->p.bytes;
    struct iovec iov[16];
    int n = 0;
    char stackbuf[512];
    void *tmp = NULL;
    if (bytes == 0) {
        n = 0;
    } else if (dt->contig) {
        iov[0].iov_base = (char *)r->p.buf + dt->true_lb;
        iov[0].iov_len = bytes;
        n = 1;
    } else {
        size_t len = 0;
        n = cu_dtype_to_iov(r->p.buf, r->p.count, dt, 0, bytes, iov, 16, &len);
        if (len < bytes) {
            tmp = bytes <= sizeof stackbuf ? stackbuf : malloc(bytes);
            if (!tmp)
                return -ENOMEM;
            cu_dtype_pack(r->p.buf, r->p.count, dt, 0, tmp, bytes);
            iov[0].iov_base = tmp;
            iov[0].iov_len = bytes;
            n = 1;
        }
    }
    /* A synchronous send waits for the ACK from before the message goes:
     * under MPI_THREAD_MULTIPLE the send may give the lock away and another
     * thread's progress take the ACK before it returns. */
    uint8_t was = r->p.state;
    if (sync) {
        r->p.state = MPID_ST_SYNC_WAIT;
        mpid_req_hold_dt(r);   /* harmless; released at the ack */
    }
    int rc = d->ch->send(r->p.peer, &h, hl, iov, n, MPID_CH_NOBUFS);
    if (tmp && tmp != stackbuf)
        free(tmp);
    if (rc != 0 && sync)
        r->p.state = was;
    else if (rc == 0 && !sync)
        mpid_req_complete(r);
    return rc;
}

int mpid_send_first(mpid_req *r)
{
    mpid_dest *d = &mpid_st.dests[r->p.peer];
    int rc;
    if (r->p.bytes <= d->eager_max) {
        rc = eager_send(r, d);
        if (__builtin_expect(rc != -ENOBUFS, 1)) {
            if (rc == 0)
                mpid_count_eager();
            return rc;
        }
        /* Receivers hold the channel's buffers for messages they have not
         * matched yet: a rendezvous needs none, and it makes this sender
         * wait for the receiver instead of running ever further ahead. */
        if (d->no_rma)
            return -EAGAIN;
    }
    rc = mpid_rts_send(r, d);
    if (rc == 0)
        mpid_count_rndv();
    return rc;
}

/* ---- waiting packets ----------------------------------------------------- */

void mpid_dest_mark_dirty(mpid_dest *d)
{
    if (d->dirty)
        return;
    d->dirty = 1;
    d->dnext = mpid_st.dirty;
    mpid_st.dirty = d;
}

int mpid_ctrl_send(int peer, const void *hdr, size_t len)
{
    mpid_dest *d = &mpid_st.dests[peer];
    if (!d->chead) {
        int rc = d->ch->send(peer, hdr, len, NULL, 0, MPID_CH_CTRL);
        if (rc != -EAGAIN)
            return rc;
    }
    mpid_ctrl *c = malloc(sizeof *c);
    if (!c)
        return -ENOMEM;
    c->next = NULL;
    c->len = len;
    memcpy(c->hdr, hdr, len);
    if (d->ctail)
        d->ctail->next = c;
    else
        d->chead = c;
    d->ctail = c;
    mpid_dest_mark_dirty(d);
    return 0;
}

/* Retry what waits at one destination; control packets first (they free
 * resources at the peer). Returns the packets sent. */
static int flush_dest(mpid_dest *d, int peer)
{
    int n = 0;
    while (d->chead) {
        mpid_ctrl *c = d->chead;
        int rc = d->ch->send(peer, c->hdr, c->len, NULL, 0, MPID_CH_CTRL);
        if (rc == -EAGAIN)
            break;
        d->chead = c->next;
        if (!d->chead)
            d->ctail = NULL;
        free(c);
        n++;
    }
    while (d->qhead) {
        mpid_req *r = d->qhead;
        mpid_req *next = r->p.next;   /* r may be released when it completes */
        int rc = mpid_send_first(r);
        if (rc == -EAGAIN)
            break;
        d->qhead = next;
        if (!next)
            d->qtail = NULL;
        if (rc < 0)
            mpid_send_fail(r, rc);
        n++;
    }
    return n;
}


int mpid_do_work(void)
{
    int n = 0;
    if (mpid_st.dirty) {
        mpid_dest *d = mpid_st.dirty;
        mpid_st.dirty = NULL;
        while (d) {
            mpid_dest *next = d->dnext;
            d->dirty = 0;
            d->dnext = NULL;
            n += flush_dest(d, (int)(d - mpid_st.dests));
            if (d->chead || d->qhead)
                mpid_dest_mark_dirty(d);
            d = next;
        }
    }
    while (mpid_st.rndv_work) {
        /* Oldest first is not needed: each read is independent. */
        mpid_req *r = mpid_st.rndv_work;
        mpid_st.rndv_work = r->p.next;
        mpid_rndv_work_one(r);
        n++;
    }
    for (mpid_req **pp = &mpid_st.streams; *pp;) {
        mpid_req *r = *pp;
        mpid_req *next = r->p.next;
        if (mpid_stream_one(r)) {
            *pp = next;
            n++;
        } else {
            pp = &r->p.next;
        }
    }
    if (mpid_st.polled) {
        mpid_req *next;
        for (mpid_req *r = mpid_st.polled; r; r = next) {
            next = r->p.poll_next;
            if (r->pub.done || !r->pub.poll) {
                mpid_olist_remove(r);
                continue;
            }
            /* Count only polls that moved something: a rank whose pending
             * collective waits on peers must still yield or sleep. */
            n += r->pub.poll(&r->pub) > 0;
        }
    }
    return n;
}
