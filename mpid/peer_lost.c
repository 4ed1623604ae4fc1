/*
 * peer_lost.c — a process of another job is gone (the network channel says
 * so through mpid_chan_info's peer_lost, from its progress): what waits
 * for it fails with MPI_ERR_OTHER instead of ending our job, so a server
 * outlives the clients it accepted. The MPI layer reports each failure
 * through the communicator's error handler (MPI_ERRORS_ARE_FATAL still
 * ends the job; the channel's warning names the peer).
 *
 * Failed here, at once: sends waiting for the peer's answer (a synchronous
 * send's ack, a rendezvous's FIN or CTS), receives naming it, receives
 * from MPI_ANY_SOURCE on a communicator that holds it (the MPI layer says
 * which, mpid_set_ctx_holds), and rendezvous receives from it waiting for
 * DATA. What is queued or streaming to it fails as progress retries it,
 * since the channel refuses the peer from now on (-EHOSTUNREACH); a
 * matched rendezvous from it fails when its read would start
 * (mpid_rndv_recv_start). New receives naming it, or from MPI_ANY_SOURCE
 * on a communicator holding it, fail when posted, and so do probes that
 * find nothing; eager messages it sent before it died are still received
 * and probed. The slot stays lost until its last
 * reference goes (dynpeer.c).
 *
 * Members of MPI_COMM_WORLD are never reported: their loss ends the job.
 */
#include "mpid/mpidi.h"
#include "src/util/log.h"

static int (*ctx_holds)(uint32_t ctx, int slot);

void mpid_set_ctx_holds(int (*holds)(uint32_t ctx, int slot))
{
    ctx_holds = holds;
}

int mpid_dyn_lost(int slot)
{
    return slot >= mpid_st.world_size && slot < mpid_st.dyn_top && mpid_st.dests[slot].lost;
}

int mpid_recv_from_lost(const mpid_comm *comm, int src)
{
    if (src >= 0)
        return mpid_dyn_lost(comm->world_ranks[src]);
    if (!comm->foreign)
        return 0;
    for (int i = 0; i < comm->size; i++)
        if (mpid_dyn_lost(comm->world_ranks[i]))
            return 1;
    return 0;
}

/* Whether request r (not done) waits for slot w, and so fails. */
static int waits_for(mpid_req *r, int w)
{
    switch (r->p.state) {
    case MPID_ST_SYNC_WAIT:
    case MPID_ST_RNDV_DATA:
    case MPID_ST_COOP_WAIT:
        return r->p.peer == w;
    case MPID_ST_RTS_SENT:
        if (r->p.peer != w)
            return 0;
        mpid_rts_withdraw(r);   /* no FIN or CTS will come */
        return 1;
    case MPID_ST_POSTED:
        if (r->p.peer != w &&
            (r->p.peer >= 0 || !ctx_holds || !ctx_holds(r->p.ctx & ~MPID_CTX_COLL, w)))
            return 0;
        mpid_mq_remove(&mpid_ctxq_get(&mpid_st.ctxqs, r->p.ctx)->posted, &r->p.q);
        mpid_count_posted_del();
        r->pub.status.MPI_SOURCE = r->p.q.src;
        r->pub.status.MPI_TAG = r->p.q.tag;
        return 1;
    default:
        /* queued, streaming, or on the rendezvous work list: those fail on
         * their own path (see above) */
        return 0;
    }
}

void mpid_on_peer_lost(int w)
{
    if (w < mpid_st.world_size || w >= mpid_st.dyn_top || mpid_st.dests[w].lost)
        return;
    mpid_dest *d = &mpid_st.dests[w];
    d->lost = 1;
    mpid_st.dyn.nlost++;
    cu_debug("dynamic slot %d lost: failing what waits for it", w);
    for (struct mpid_slab *sl = mpid_st.slabs; sl; sl = sl->next)
        for (int i = 0; i < MPID_SLAB; i++) {
            mpid_req *r = &sl->r[i];
            if ((r->pub.kind != MPID_REQ_SEND && r->pub.kind != MPID_REQ_RECV) ||
                r->pub.done || !waits_for(r, w))
                continue;
            if (r->pub.kind == MPID_REQ_SEND)
                r->pub.status.MPI_SOURCE = r->p.rank;
            r->pub.status.MPI_ERROR = MPI_ERR_OTHER;
            mpid_req_complete(r);
        }
    d->rts_out = 0;
    if (d->qhead || d->chead)
        mpid_dest_mark_dirty(d);   /* their retries fail them now */
}
