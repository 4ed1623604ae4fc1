/*
 * cancel.c — MPI_Cancel in the device: receives not yet matched, and sends
 * whose message the receiver has not matched.
 *
 * A receive in the posted queue is taken out and completes cancelled.
 *
 * A send is cancelled only while its message is provably unmatched:
 *  - still queued here (its first packet waits for room at the
 *    destination): taken out of the queue, completes cancelled;
 *  - a rendezvous send whose RTS waits for FIN or CTS, or a synchronous
 *    eager send waiting for its ACK: the message sits at the receiver,
 *    unexpected or being matched. A CANCEL packet follows it on the same
 *    ordered queue (so it arrives after the message, and before any later
 *    message of ours that could reuse the request's id); the receiver drops
 *    the message if it is still in its unexpected queue and answers
 *    CANCEL_ACK with dropped = 1, and the send then completes cancelled
 *    (the RTS's exposure ends). Otherwise (matched, or taken by
 *    MPI_Mprobe) it answers 0, and the send completes as it would have,
 *    by FIN, CTS or ACK: that answer is ignored, as the request may be
 *    gone by then.
 * Every other send is not cancelled (MPI-3.1 section 3.8.4 lets a cancel
 * fail; MPI_Test_cancelled then says false): a standard or ready eager
 * send (and a buffered one) completes when its packet leaves, before any
 * cancel could come, and the data is the receiver's; a send streaming
 * DATA after CTS, or being copied cooperatively, has matched. When the
 * channel has no room for the CANCEL packet at once, the cancel is not
 * attempted (it may only go in order, behind nothing).
 */
#include "mpid/mpidi.h"

static void complete_cancelled(mpid_req *r)
{
    r->pub.status.clumpi_cancelled = 1;
    r->pub.status.clumpi_count = 0;
    mpid_req_complete(r);
}

/* A send still in its destination's queue: out of it, cancelled. */
static void cancel_queued(mpid_req *r)
{
    mpid_dest *d = &mpid_st.dests[r->p.peer];
    mpid_req *prev = NULL;
    for (mpid_req *q = d->qhead; q; prev = q, q = q->p.next) {
        if (q != r)
            continue;
        if (prev)
            prev->p.next = r->p.next;
        else
            d->qhead = r->p.next;
        if (d->qtail == r)
            d->qtail = prev;
        complete_cancelled(r);
        return;
    }
}

int mpid_cancel(mpid_request *req)
{
    mpid_req *r = mpid_req_of(req);
    if (req->done)
        return MPI_SUCCESS;   /* too late: it completed */
    if (req->kind == MPID_REQ_RECV) {
        if (r->p.state != MPID_ST_POSTED)
            return MPI_SUCCESS;   /* matched already: completes normally */
        mpid_ctxq *c = mpid_ctxq_get(&mpid_st.ctxqs, r->p.ctx);
        mpid_mq_remove(&c->posted, &r->p.q);
        mpid_count_posted_del();
        req->status.MPI_SOURCE = r->p.q.src;
        req->status.MPI_TAG = r->p.q.tag;
        complete_cancelled(r);
        return MPI_SUCCESS;
    }
    if (req->kind != MPID_REQ_SEND)
        return MPI_SUCCESS;
    if (r->p.state == MPID_ST_QUEUED) {
        cancel_queued(r);
    } else if (r->p.state == MPID_ST_RTS_SENT || r->p.state == MPID_ST_SYNC_WAIT) {
        mpid_pkt_cancel h = { .type = MPID_PKT_CANCEL, .ctx = r->p.ctx,
                              .sreq = (uint64_t)(uintptr_t)r };
        mpid_dest *d = &mpid_st.dests[r->p.peer];
        d->ch->send(r->p.peer, &h, sizeof h, NULL, 0, 0);   /* no room: no cancel */
    }
    return MPI_SUCCESS;
}

void mpid_on_cancel(int src, const mpid_pkt_cancel *h)
{
    if (h->type == MPID_PKT_CANCEL_ACK) {
        if (h->dropped) {
            mpid_req *r = (mpid_req *)(uintptr_t)h->sreq;
            if (r->p.state == MPID_ST_RTS_SENT)
                mpid_rts_withdraw(r);
            complete_cancelled(r);
        }
        return;
    }
    /* The message is ahead of this packet: unexpected, or matched. */
    mpid_pkt_cancel a = { .type = MPID_PKT_CANCEL_ACK, .ctx = h->ctx, .sreq = h->sreq };
    mpid_ctxq *c = mpid_ctxq_get(&mpid_st.ctxqs, h->ctx);
    for (mpid_mq_elem *e = c ? c->unexp.all.head : NULL; e; e = e->next) {
        mpid_message *m = mpid_msg_of_q(e);
        if (m->peer == src && m->sreq == h->sreq &&
            (m->type == MPID_PKT_RTS || m->type == MPID_PKT_EAGER_SYNC)) {
            mpid_uq_remove(&c->unexp, e);
            mpid_count_unexp_del();
            mpid_msg_free(m);
            a.dropped = 1;
            break;
        }
    }
    mpid_ctrl_send(src, &a, sizeof a);
}
