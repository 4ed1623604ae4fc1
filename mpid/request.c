/*
 * request.c — the request pool and completion. Requests come from a free
 * list refilled in slabs, so the fast path never calls malloc; slabs are
 * kept until MPI_Finalize (a program's peak of outstanding requests is
 * small), then freed so leak checkers see a clean exit.
 */
#include <stdlib.h>
#include "mpid/mpidi.h"


mpid_req *mpid_req_alloc_slow(int kind)
{
    struct mpid_slab *sl = calloc(1, sizeof *sl);
    if (!sl)
        return NULL;
    sl->next = mpid_st.slabs;
    mpid_st.slabs = sl;
    for (int i = 0; i < MPID_SLAB; i++) {
        sl->r[i].pub.priv = &sl->r[i].p;
        sl->r[i].p.next = mpid_st.req_pool;
        mpid_st.req_pool = &sl->r[i];
    }
    return mpid_req_alloc(kind);
}

void mpid_req_finalize(void)
{
    while (mpid_st.slabs) {
        struct mpid_slab *sl = mpid_st.slabs;
        mpid_st.slabs = sl->next;
        free(sl);
    }
    mpid_st.req_pool = NULL;
    mpid_st.polled = NULL;
}

void mpid_olist_remove(mpid_req *r)
{
    if (!r->p.in_olist)
        return;
    if (r->p.poll_prev)
        r->p.poll_prev->p.poll_next = r->p.poll_next;
    else
        mpid_st.polled = r->p.poll_next;
    if (r->p.poll_next)
        r->p.poll_next->p.poll_prev = r->p.poll_prev;
    r->p.in_olist = 0;
}

void mpid_req_release(mpid_req *r)
{
    mpid_olist_remove(r);
    r->pub.kind = 0;
    r->p.next = mpid_st.req_pool;
    mpid_st.req_pool = r;
}

void mpid_req_complete_slow(mpid_req *r)
{
    if (r->p.dt_held) {
        cu_dtype_release((cu_dtype *)r->p.dt);
        r->p.dt_held = 0;
    }
    free(r->p.iovs);
    r->p.iovs = NULL;
    free(r->p.bounce);
    r->p.bounce = NULL;
    r->p.state = MPID_ST_NONE;
    r->pub.done = 1;
    if (r->p.user_freed) {
        if (r->pub.kind == MPID_REQ_SEND)
            mpid_st.detached--;
        mpid_req_release(r);
    }
}

mpid_request *mpid_request_new_other(void)
{
    mpid_req *r = mpid_req_alloc(MPID_REQ_OTHER);
    if (!r)
        return NULL;
    /* Progress polls it until done (once the owner sets poll). */
    r->p.poll_prev = NULL;
    r->p.poll_next = mpid_st.polled;
    if (mpid_st.polled)
        mpid_st.polled->p.poll_prev = r;
    mpid_st.polled = r;
    r->p.in_olist = 1;
    return &r->pub;
}

void mpid_request_free(mpid_request *req)
{
    if (!req)
        return;
    mpid_req *r = mpid_req_of(req);
    if (!req->done && req->kind != MPID_REQ_OTHER) {
        /* A send or receive in flight still completes; its request goes
         * back to the pool then (mpid_req_complete_slow). Others (polled
         * requests) go now: their owner abandons them. */
        r->p.user_freed = 1;
        /* Finalize waits for freed sends; a freed receive that never
         * matches must not hold it up. */
        if (req->kind == MPID_REQ_SEND)
            mpid_st.detached++;
        return;
    }
    mpid_req_release(r);
}

long mpid_pending_detached(void) { return mpid_st.detached; }

int mpid_wait(mpid_request *req)
{
    if (req->done)
        return 0;
    return mpid_progress_until(NULL, req);
}

/* ---- unexpected-message records ----------------------------------------- */

mpid_message *mpid_msg_alloc(size_t payload)
{
    mpid_message *m = mpid_st.msg_pool;
    if (m)
        mpid_st.msg_pool = m->next_free;
    else if (!(m = malloc(sizeof *m)))
        return NULL;
    m->data = m->inl;
    m->lent = 0;
    if (payload > MPID_UNEXP_INLINE && !(m->data = malloc(payload))) {
        m->next_free = mpid_st.msg_pool;
        mpid_st.msg_pool = m;
        return NULL;
    }
    return m;
}

void mpid_msg_free(mpid_message *m)
{
    if (m->lent)
        mpid_st.dests[m->peer].ch->give_back(m->peer, m->data);
    else if (m->data != m->inl)
        free(m->data);
    m->next_free = mpid_st.msg_pool;
    mpid_st.msg_pool = m;
}
