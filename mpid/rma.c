/*
 * rma.c — the device's window table and the origin side of one-sided
 * operations: choosing each target's path, operation records, the answers
 * that complete chunks, flush, and lock/unlock through the target's path.
 */
#include <stdlib.h>
#include "mpid/rma_impl.h"
#include "src/util/log.h"
#include "src/util/param.h"


mpid_win *mpid_win_lookup(uint32_t index)
{
    return index < (uint32_t)mpid_st.rma.nwins ? mpid_st.rma.wins[index] : NULL;
}

void mpid_rma_retry_waiters(void)
{
    for (int i = 0; i < mpid_st.rma.nwins; i++)
        if (mpid_st.rma.wins[i] && mpid_st.rma.wins[i]->waiters)
            mpid_rma_lock_wait_retry(mpid_st.rma.wins[i]);
}

int mpid_win_register(mpid_win *w, const mpid_comm *comm)
{
    int n = comm->size, i;
    for (i = 0; i < mpid_st.rma.nwins && mpid_st.rma.wins[i]; i++)
        ;
    if (i == mpid_st.rma.nwins) {
        int cap = mpid_st.rma.nwins ? 2 * mpid_st.rma.nwins : 8;
        mpid_win **nw = realloc(mpid_st.rma.wins, (size_t)cap * sizeof *nw);
        if (!nw)
            return MPI_ERR_NO_MEM;
        memset(nw + mpid_st.rma.nwins, 0, (size_t)(cap - mpid_st.rma.nwins) * sizeof *nw);
        mpid_st.rma.wins = nw;
        mpid_st.rma.nwins = cap;
    }
    w->comm = comm;
    w->peers = calloc((size_t)n, sizeof *w->peers);
    w->pending = calloc((size_t)n, sizeof *w->pending);
    w->granted = calloc((size_t)n, sizeof *w->granted);
    w->grant_want = calloc((size_t)n, sizeof *w->grant_want);
    if (!w->peers || !w->pending || !w->granted || !w->grant_want) {
        free(w->peers);
        free(w->pending);
        free(w->granted);
        free(w->grant_want);
        return MPI_ERR_NO_MEM;
    }
    w->pending_total = 0;
    w->err = 0;
    w->waiters = NULL;
    w->ofi = NULL;
    w->agent = NULL;
    memset(&w->priv_ts, 0, sizeof w->priv_ts);
    w->my_ts = &w->priv_ts;   /* the shared segment's line once mapped */
    w->index = i;
    mpid_st.rma.wins[i] = w;
    return MPI_SUCCESS;
}

void mpid_win_set_paths(mpid_win *w)
{
    /* CLUMPI_RMA_AM=1: every target through active messages, even mapped
     * ones (tests run both paths on one node). */
    static int force_am = -1;
    if (force_am < 0)
        force_am = cu_param_int("RMA_AM") != 0;
    int me = w->comm->rank;
    mpid_win_peer *p = &w->peers[me];
    p->direct = w->dynamic ? NULL : w->base;
    p->ts = w->my_ts;
    int agent = !force_am && mpid_rma_agent_open(w);   /* this node's words: the agent's */
    for (int t = 0; t < w->comm->size; t++) {
        p = &w->peers[t];
        const mpid_channel *ch = mpid_st.dests[w->comm->world_ranks[t]].ch;
        if (t == me && (force_am && w->comm->size > 1))
            p->path = &mpid_rma_path_am;
        else if (t == me || (p->direct && !force_am))
            p->path = &mpid_rma_path_direct;
        else if (agent && ch && ch->agent_rma)
            p->path = &mpid_rma_path_agent;   /* another node, served by its agent */
        else if (p->ts && !w->dynamic && !force_am && ch && ch->copy && ch->copy->write)
            p->path = &mpid_rma_path_cma;   /* same node, user memory: its lock words are mapped */
        else
            p->path = &mpid_rma_path_am;
    }
    mpid_rma_ofi_setup(w);
}

void mpid_win_unregister(mpid_win *w)
{
    mpid_rma_ofi_free(w);
    mpid_rma_agent_close(w);
    if (w->index >= 0 && w->index < mpid_st.rma.nwins && mpid_st.rma.wins[w->index] == w)
        mpid_st.rma.wins[w->index] = NULL;
    free(w->peers);
    free(w->pending);
    free(w->granted);
    free(w->grant_want);
    while (w->regions) {
        mpid_win_region *r = w->regions;
        w->regions = r->next;
        free(r);
    }
    w->peers = NULL;
    w->pending = NULL;
    w->granted = NULL;
    w->grant_want = NULL;
}

/* ---- operation records ------------------------------------------------- */
mpid_rma_rec *mpid_rma_rec_new(mpid_win *w, const mpid_rma_args *a)
{
    mpid_rma_rec *rec = malloc(sizeof *rec);
    if (!rec)
        return NULL;
    rec->w = w;
    rec->rbuf = a->rbuf;
    rec->rcount = a->rcount;
    rec->rdt = a->rdt;
    rec->req = a->req;
    rec->pending = 1;   /* held while issuing */
    rec->err = 0;
    if (rec->rdt)
        cu_dtype_retain(rec->rdt);   /* the user may free it meanwhile */
    return rec;
}

void mpid_rma_rec_data(mpid_rma_rec *rec, size_t off, const void *data, size_t len)
{
    const cu_dtype *dt = rec->rdt;
    if (!len || !dt)
        return;
    if (dt->contig)
        memcpy((char *)rec->rbuf + dt->true_lb + off, data, len);
    else
        cu_dtype_unpack(rec->rbuf, rec->rcount, dt, off, data, len);
}

void mpid_rma_rec_done(mpid_rma_rec *rec, int n)
{
    rec->pending -= n;
    if (rec->pending > 0)
        return;
    if (rec->req) {
        rec->req->status.MPI_ERROR = rec->err;
        mpid_req_complete(mpid_req_of(rec->req));   /* freed by the user: released now */
    }
    if (rec->rdt)
        cu_dtype_release(rec->rdt);
    free(rec);
}

void mpid_rma_on_answer(const mpid_pkt_rma *h, const void *payload, size_t len)
{
    mpid_win *w = mpid_win_lookup(h->win);
    if (!w || h->src < 0 || h->src >= w->comm->size) {
        cu_warn("RMA answer for unknown window %u dropped", h->win);
        return;
    }
    if (h->kind == MPID_RMA_GRANT) {
        w->granted[h->src]++;
        return;
    }
    w->pending[h->src]--;
    w->pending_total--;
    int err = (int)h->nseg;
    if (err && !w->err)
        w->err = err;
    mpid_rma_rec *rec = (mpid_rma_rec *)(uintptr_t)h->oreq;
    if (!rec)
        return;
    if (err && !rec->err)
        rec->err = err;
    if (!err && len)
        mpid_rma_rec_data(rec, h->ooff, payload, len < h->len ? len : h->len);
    mpid_rma_rec_done(rec, 1);
}

void mpid_rma_on_packet(int src, const void *hdr, size_t hdrlen, const void *payload,
                        size_t len)
{
    mpid_pkt_rma h;
    if (hdrlen < sizeof h) {
        cu_warn("short RMA packet from rank %d dropped", src);
        return;
    }
    memcpy(&h, hdr, sizeof h);
    if (h.kind >= MPID_RMA_GRANT)
        mpid_rma_on_answer(&h, payload, len);
    else
        mpid_rma_on_request(src, &h, payload, len);
}

/* ---- operations, flush, locks ------------------------------------------ */
mpid_request *mpid_rma_request_new(void)
{
    /* Completed by the answers, never polled. Of the send kind for what
     * MPI_Request_free does to it: an active one is only marked, completes
     * anyway (then goes back to the pool) and Finalize waits for it. */
    mpid_req *r = mpid_req_alloc(MPID_REQ_SEND);
    return r ? &r->pub : NULL;
}

int mpid_rma_issue(mpid_win *w, const mpid_rma_args *a)
{
    mpid_rma_rec *rec = NULL;
    if (a->req || mpid_rma_fetches(a->kind)) {
        rec = mpid_rma_rec_new(w, a);
        if (!rec)
            return MPI_ERR_NO_MEM;
    }
    int rc = w->peers[a->target].path->issue(w, a, rec);
    if (rec) {
        if (rc) {
            /* The caller reports the error and frees the request; chunks
             * already sent still answer into rec, not into the request. */
            rec->err = rc;
            rec->req = NULL;
        }
        mpid_rma_rec_done(rec, 1);   /* the issuing hold */
    }
    return rc;
}

struct flush_arg { mpid_win *w; int target; };

static int flushed(void *arg)
{
    struct flush_arg *f = arg;
    return f->target < 0 ? f->w->pending_total == 0 : f->w->pending[f->target] == 0;
}

int mpid_win_flush(mpid_win *w, int target)
{
    struct flush_arg f = { w, target };
    /* Progress now and then even with nothing pending: a rank spinning on
     * its own memory through the direct path must still serve the others
     * (every call would double the cost of a same-node put + flush). */
    static unsigned idle;
    if (!flushed(&f))
        mpid_progress_until(flushed, &f);
    else if ((++idle & 7) == 0)
        mpid_progress();
    int err = w->err;
    w->err = 0;
    /* Our own direct stores must be visible before whatever follows (a
     * barrier, an unlock, a completion message). */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return err;
}

int mpid_win_lock(mpid_win *w, int target, int type)
{
    return w->peers[target].path->lock(w, target, type);
}

int mpid_win_unlock(mpid_win *w, int target, int type)
{
    int err = mpid_win_flush(w, target);
    int rc = w->peers[target].path->unlock(w, target, type);
    return err ? err : rc;
}
