/*
 * sched.c — the schedule engine (see sched.h): building steps, and the poll
 * callback that runs them round by round from the progress engine.
 */
#include <stdlib.h>
#include <string.h>
#include "coll/sched.h"
#include "coll/coll_impl.h"

enum { ST_SEND, ST_RECV, ST_COPY, ST_REDUCE, ST_BARRIER };

typedef struct coll_step {
    int             kind;
    int             peer;
    int             tag;
    int             view;   /* COLL_VIEW_*: whose ranks peer names */
    const void     *src;    /* send buffer, copy/reduce source */
    void           *dst;    /* receive buffer, copy/reduce target */
    size_t          scount, dcount;
    const cu_dtype *sdt, *ddt;
} coll_step;

struct coll_sched {
    mpid_comm       views[2];   /* COLL_VIEW_*: world_ranks points at wr[v] */
    int            *wr[2];
    int             view;       /* the view of steps built now */
    int             tag, sub;
    coll_op         op;
    coll_step      *steps;
    int             n, cap;
    int             next;       /* next step to issue */
    mpid_request  **reqs;       /* posted in the current round */
    int             nreq;
    void          **mem;        /* allocations freed at completion */
    int             nmem, memcap;
    const cu_dtype **dts;       /* types kept alive until completion */
    int             ndt, dtcap;
    int             err;        /* first error (build or run) */
};

static int grow(void **arr, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return 1;
    int nc = *cap ? *cap * 2 : 16;
    while (nc < need)
        nc *= 2;
    void *p = realloc(*arr, (size_t)nc * elem);
    if (!p)
        return 0;
    *arr = p;
    *cap = nc;
    return 1;
}

/* View v as a copy of comm (its rank map and its ranks' contexts, when
 * they differ, included: the communicator may go first); 0 when out of
 * memory. */
static int set_view(coll_sched *s, int v, const mpid_comm *comm)
{
    size_t n = (size_t)comm->size, hi = comm->ctx_hi ? n : 0;
    s->wr[v] = malloc((n ? n : 1) * sizeof(int) + hi);
    if (!s->wr[v])
        return 0;
    memcpy(s->wr[v], comm->world_ranks, n * sizeof(int));
    s->views[v] = *comm;
    s->views[v].world_ranks = s->wr[v];
    if (hi) {
        s->views[v].ctx_hi = (unsigned char *)(s->wr[v] + n);
        memcpy(s->views[v].ctx_hi, comm->ctx_hi, hi);
    }
    return 1;
}

coll_sched *coll_sched_new(const mpid_comm *comm, int tag)
{
    coll_sched *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (!set_view(s, COLL_VIEW_MAIN, comm)) {
        free(s);
        return NULL;
    }
    s->tag = tag;
    return s;
}

void coll_sched_add_local(coll_sched *s, const mpid_comm *local)
{
    if (!s->err && !set_view(s, COLL_VIEW_LOCAL, local))
        s->err = MPI_ERR_NO_MEM;
}

void coll_sched_view(coll_sched *s, int view) { s->view = view; }
const mpid_comm *coll_sched_comm(const coll_sched *s) { return &s->views[s->view]; }
int coll_sched_failed(const coll_sched *s) { return s->err; }
void coll_sched_subtag(coll_sched *s, int sub) { s->sub = sub; }
void coll_sched_set_op(coll_sched *s, const coll_op *op) { s->op = *op; }
const coll_op *coll_sched_op(const coll_sched *s) { return &s->op; }

static coll_step *add(coll_sched *s, int kind)
{
    if (s->err)
        return NULL;
    if (!grow((void **)&s->steps, &s->cap, s->n + 1, sizeof *s->steps)) {
        s->err = MPI_ERR_NO_MEM;
        return NULL;
    }
    coll_step *st = &s->steps[s->n++];
    memset(st, 0, sizeof *st);
    st->kind = kind;
    st->tag = s->tag - s->sub;
    st->view = s->view;
    return st;
}

void coll_sched_send(coll_sched *s, const void *buf, size_t count, const cu_dtype *dt, int peer)
{
    if (peer == MPI_PROC_NULL)
        return;
    coll_step *st = add(s, ST_SEND);
    if (st) {
        st->src = buf;
        st->scount = count;
        st->sdt = dt;
        st->peer = peer;
    }
}

void coll_sched_recv(coll_sched *s, void *buf, size_t count, const cu_dtype *dt, int peer)
{
    if (peer == MPI_PROC_NULL)
        return;
    coll_step *st = add(s, ST_RECV);
    if (st) {
        st->dst = buf;
        st->dcount = count;
        st->ddt = dt;
        st->peer = peer;
    }
}

void coll_sched_copy(coll_sched *s, const void *src, size_t scount, const cu_dtype *sdt,
                     void *dst, size_t dcount, const cu_dtype *ddt)
{
    if (src == dst && scount == dcount && sdt == ddt)
        return;
    coll_step *st = add(s, ST_COPY);
    if (st) {
        st->src = src;
        st->scount = scount;
        st->sdt = sdt;
        st->dst = dst;
        st->dcount = dcount;
        st->ddt = ddt;
    }
}

void coll_sched_reduce(coll_sched *s, const void *in, void *inout, size_t count,
                       const cu_dtype *dt)
{
    if (count == 0)
        return;
    coll_step *st = add(s, ST_REDUCE);
    if (st) {
        st->src = in;
        st->dst = inout;
        st->scount = st->dcount = count;
        st->sdt = st->ddt = dt;
    }
}

void coll_sched_barrier(coll_sched *s)
{
    /* Consecutive barriers, or one at the start, wait for nothing. */
    if (s->n == 0 || s->steps[s->n - 1].kind == ST_BARRIER)
        return;
    add(s, ST_BARRIER);
}

void coll_sched_keep(coll_sched *s, const cu_dtype *dt)
{
    if (!dt || s->err)
        return;
    if (!grow((void **)&s->dts, &s->dtcap, s->ndt + 1, sizeof *s->dts)) {
        s->err = MPI_ERR_NO_MEM;
        return;
    }
    cu_dtype_retain(dt);
    s->dts[s->ndt++] = dt;
}

void *coll_sched_bytes(coll_sched *s, size_t bytes)
{
    if (s->err)
        return NULL;
    void *p = NULL;
    if (!grow((void **)&s->mem, &s->memcap, s->nmem + 1, sizeof *s->mem) ||
        !(p = malloc(bytes ? bytes : 1))) {
        s->err = MPI_ERR_NO_MEM;
        return NULL;
    }
    s->mem[s->nmem++] = p;
    return p;
}

void *coll_sched_tmp(coll_sched *s, size_t count, const cu_dtype *dt)
{
    /* As coll_tmp_alloc: the span the elements touch, addressed so that the
     * type's lower bound and negative extents land inside it. */
    ptrdiff_t ext = dt->extent;
    size_t aext = (size_t)(ext < 0 ? -ext : ext);
    size_t span = count ? (size_t)dt->true_extent + (count - 1) * aext : 1;
    ptrdiff_t low = dt->true_lb + (ext < 0 && count ? (ptrdiff_t)(count - 1) * ext : 0);
    char *base = coll_sched_bytes(s, span);
    return base ? base - low : NULL;
}

static void release(coll_sched *s)
{
    for (int i = 0; i < s->nreq; i++)
        if (s->reqs[i])
            mpid_request_free(s->reqs[i]);
    for (int i = 0; i < s->nmem; i++)
        free(s->mem[i]);
    for (int i = 0; i < s->ndt; i++)
        cu_dtype_release(s->dts[i]);
    free(s->mem);
    free(s->dts);
    free(s->reqs);
    free(s->steps);
    free(s->wr[COLL_VIEW_MAIN]);
    free(s->wr[COLL_VIEW_LOCAL]);
    free(s);
}

void coll_sched_free(coll_sched *s)
{
    if (s)
        release(s);
}

static void issue(coll_sched *s, const coll_step *st)
{
    int rc = MPI_SUCCESS;
    mpid_request *r = NULL;
    switch (st->kind) {
    case ST_SEND:
        rc = mpid_isend(st->src, st->scount, st->sdt, st->peer, st->tag, &s->views[st->view],
                        MPID_CTX_COLL, MPID_SEND_STANDARD, &r);
        break;
    case ST_RECV:
        rc = mpid_irecv(st->dst, st->dcount, st->ddt, st->peer, st->tag, &s->views[st->view],
                        MPID_CTX_COLL, &r);
        break;
    case ST_COPY:
        rc = coll_copy(st->src, st->scount, st->sdt, st->dst, st->dcount, st->ddt);
        break;
    case ST_REDUCE:
        coll_op_apply(&s->op, st->src, st->dst, st->scount, st->sdt);
        break;
    }
    if (rc != MPI_SUCCESS && !s->err)
        s->err = rc;
    if (r)
        s->reqs[s->nreq++] = r;
}

/* Runs as far as it can: SCHED_DONE when every step has completed,
 * SCHED_MOVED when a round completed (and the next went out), else 0. */
enum { SCHED_IDLE, SCHED_MOVED, SCHED_DONE };
static int advance(coll_sched *s)
{
    int moved = SCHED_IDLE;
    for (;;) {
        for (int i = 0; i < s->nreq; i++)
            if (!s->reqs[i]->done)
                return moved;
        for (int i = 0; i < s->nreq; i++) {
            if (!s->err && s->reqs[i]->status.MPI_ERROR != MPI_SUCCESS)
                s->err = s->reqs[i]->status.MPI_ERROR;
            mpid_request_free(s->reqs[i]);
        }
        s->nreq = 0;
        if (s->next == s->n)
            return SCHED_DONE;
        moved = SCHED_MOVED;
        while (s->next < s->n) {
            const coll_step *st = &s->steps[s->next++];
            if (st->kind == ST_BARRIER)
                break;
            issue(s, st);
        }
    }
}

/* The poll callback: progress calls it until done (it must not progress).
 * Returns 1 when it moved the operation on, 0 when it only looked, so a
 * waiter can tell an idle pass (and yield the core) from a busy one. */
static int sched_poll(mpid_request *req)
{
    coll_sched *s = req->user;
    int st = s ? advance(s) : SCHED_IDLE;
    if (st != SCHED_DONE)
        return st == SCHED_MOVED;
    req->status.MPI_SOURCE = MPI_ANY_SOURCE;
    req->status.MPI_TAG = MPI_ANY_TAG;
    req->status.MPI_ERROR = s->err;
    req->status.clumpi_cancelled = 0;
    req->status.clumpi_count = 0;
    req->user = NULL;
    release(s);
    req->done = 1;
    return 1;
}

int coll_sched_start(coll_sched *s, mpid_request **out)
{
    *out = NULL;
    int rc = s->err;
    if (rc == MPI_SUCCESS) {
        /* The largest round bounds the requests outstanding at once. */
        int most = 0, cur = 0;
        for (int i = 0; i < s->n; i++) {
            if (s->steps[i].kind == ST_BARRIER)
                cur = 0;
            else if (s->steps[i].kind <= ST_RECV && ++cur > most)
                most = cur;
        }
        if (!(s->reqs = malloc((size_t)(most ? most : 1) * sizeof *s->reqs)))
            rc = MPI_ERR_NO_MEM;
    }
    mpid_request *r = rc == MPI_SUCCESS ? mpid_request_new_other() : NULL;
    if (!r) {
        release(s);
        return rc ? rc : MPI_ERR_NO_MEM;
    }
    r->user = s;
    r->poll = sched_poll;
    sched_poll(r);   /* the first round goes out now, not at the next progress */
    *out = r;
    return MPI_SUCCESS;
}
