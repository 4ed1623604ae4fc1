/*
 * request.c — MPI_Request handles and the completion calls: Wait, Test and
 * their all/any/some forms, Request_free, Request_get_status, Cancel.
 *
 * A handle maps to a device request. Persistent requests map to an outer
 * request whose mpir_preq holds the device request of the current round
 * (NULL while inactive); completing them leaves the handle in place.
 * Generalized requests run their callbacks through grequest.c.
 */
#include <stdlib.h>
#include "src/pt2pt.h"

int mpir_req_handle(const char *fn, mpid_request *req, MPI_Comm comm, MPI_Request *out)
{
    req->comm = comm;
    int h = mpir_handle_new(&mpir_requests, req);
    if (h == MPI_REQUEST_NULL) {
        mpid_request_free(req);
        *out = MPI_REQUEST_NULL;
        return mpir_err_comm(comm, mpir_err(MPI_ERR_NO_MEM, fn, "out of request handles"));
    }
    req->handle = h;
    *out = h;
    return MPI_SUCCESS;
}

int mpir_req_error(const char *fn, const mpid_request *r)
{
    int e = r->status.MPI_ERROR;
    if (e == MPI_SUCCESS)
        return MPI_SUCCESS;
    if (e == MPI_ERR_TRUNCATE)
        return mpir_err(e, fn, "message truncated: received %lld bytes from rank %d "
                        "tag %d; the rest did not fit the receive buffer",
                        (long long)r->status.clumpi_count, r->status.MPI_SOURCE,
                        r->status.MPI_TAG);
    return mpir_err(e, fn, "communication with rank %d failed", r->status.MPI_SOURCE);
}

/* ---- one handle ---------------------------------------------------------- */
typedef struct {
    mpid_request *outer;   /* NULL: invalid handle */
    mpid_request *x;       /* the operation to wait for; NULL: null or inactive */
} req_view;

static inline int view(MPI_Request h, req_view *v)
{
    v->outer = v->x = NULL;
    if (h == MPI_REQUEST_NULL)
        return 1;
    mpid_request *r = mpir_handle_get(&mpir_requests, h);
    if (!r || r->mpir_kind == MPIR_REQ_GREQ_FREED)
        return 0;
    v->outer = r;
    v->x = r->mpir_kind == MPIR_REQ_PERSISTENT ? ((mpir_preq *)r->user)->inner : r;
    return 1;
}

static inline int view_done(const req_view *v)
{
    return !v->x || v->x->done;
}

/* Completes an operation whose view is done: status out, request freed (or
 * made inactive). Returns the error code (already named after fn) or
 * MPI_SUCCESS; *comm receives the communicator to report it on. */
static int finish(const char *fn, MPI_Request *h, const req_view *v, MPI_Status *st,
                  MPI_Comm *comm)
{
    if (!v->x) {
        mpir_status_empty(st);
        return MPI_SUCCESS;
    }
    mpid_request *x = v->x;
    *comm = v->outer->comm;
    if (x->mpir_kind == MPIR_REQ_GREQ)
        return mpir_greq_finish(x, h, st);
    if (st)
        *st = x->status;
    int err = mpir_req_error(fn, x);
    if (v->outer->mpir_kind == MPIR_REQ_PERSISTENT) {
        ((mpir_preq *)v->outer->user)->inner = NULL;
        mpid_request_free(x);
    } else {
        mpir_handle_free(&mpir_requests, *h);
        mpid_request_free(x);
        *h = MPI_REQUEST_NULL;
    }
    return err;
}

static MPIR_COLD int bad_request(const char *fn, const char *arg, MPI_Request h)
{
    return mpir_err_world(mpir_err(MPI_ERR_REQUEST, fn, "invalid %s (request=0x%x)", arg,
                                   (unsigned)h));
}

/* MPI-3.1 section 5.12: freeing or cancelling the request of a nonblocking
 * collective is erroneous (the other ranks' schedules depend on ours). We
 * report it and keep the request, which still completes by Wait/Test. */
static MPIR_COLD int nbc_request(const char *fn, const mpid_request *r, MPI_Request h)
{
    return mpir_err_comm(r->comm, mpir_err(MPI_ERR_REQUEST, fn,
                         "request=0x%x belongs to a nonblocking collective, which MPI "
                         "forbids to free or cancel (MPI-3.1 section 5.12); complete it "
                         "with MPI_Wait or MPI_Test (the request stays valid)", (unsigned)h));
}

static int view_done_cb(void *arg) { return view_done(arg); }

/* A generalized request is completed by a store (MPI_Grequest_complete,
 * perhaps from another thread) that wakes nobody: a wait for one naps 1 ms
 * at most between looks rather than spinning. */
static inline int is_greq(const req_view *v)
{
    return v->x && v->x->mpir_kind == MPIR_REQ_GREQ;
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    MPIR_ENTER("MPI_Wait");
    if (MPIR_UNLIKELY(!request))
        return mpir_err_world(mpir_err(MPI_ERR_REQUEST, "MPI_Wait", "request is NULL"));
    req_view v;
    if (MPIR_UNLIKELY(!view(*request, &v)))
        return bad_request("MPI_Wait", "request", *request);
    if (v.x && !v.x->done) {
        if (is_greq(&v))
            mpid_progress_until_store(view_done_cb, &v);
        else if (v.x->kind == MPID_REQ_OTHER)
            mpid_progress_until(view_done_cb, &v);
        else
            mpid_wait(v.x);
    }
    MPI_Comm comm = MPI_COMM_WORLD;
    int err = finish("MPI_Wait", request, &v, status, &comm);
    return err ? mpir_err_comm(comm, err) : MPI_SUCCESS;
}
MPIR_WEAK(Wait)

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPIR_ENTER("MPI_Test");
    if (MPIR_UNLIKELY(!request || !flag))
        return mpir_err_world(mpir_err(request ? MPI_ERR_ARG : MPI_ERR_REQUEST, "MPI_Test",
                                       "%s is NULL", request ? "flag" : "request"));
    req_view v;
    if (MPIR_UNLIKELY(!view(*request, &v)))
        return bad_request("MPI_Test", "request", *request);
    if (!view_done(&v)) {
        mpid_progress_test();
        if (!view_done(&v)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    MPI_Comm comm = MPI_COMM_WORLD;
    int err = finish("MPI_Test", request, &v, status, &comm);
    return err ? mpir_err_comm(comm, err) : MPI_SUCCESS;
}
MPIR_WEAK(Test)

/* ---- arrays -------------------------------------------------------------- */
typedef struct {
    int n;
    req_view *v;
    int want;    /* 0: all done; 1: at least one active done (or none active) */
} multi;

static int multi_done(void *arg)
{
    multi *m = arg;
    int active = 0;
    for (int i = 0; i < m->n; i++) {
        if (!m->v[i].x)
            continue;
        active++;
        if (m->v[i].x->done) {
            if (m->want)
                return 1;
        } else if (!m->want) {
            return 0;
        }
    }
    return m->want ? active == 0 : 1;
}

/* Progress until m is done (see is_greq). */
static void wait_multi(multi *m)
{
    for (int i = 0; i < m->n; i++)
        if (is_greq(&m->v[i])) {
            mpid_progress_until_store(multi_done, m);
            return;
        }
    mpid_progress_until(multi_done, m);
}

/* Views of all handles; reports an invalid one. Small arrays live on the
 * caller's stack. */
static int views(const char *fn, int count, const MPI_Request *reqs, req_view *v)
{
    for (int i = 0; i < count; i++)
        if (!view(reqs[i], &v[i]))
            return mpir_err_world(mpir_err(MPI_ERR_REQUEST, fn,
                                           "invalid array_of_requests[%d] (request=0x%x)", i,
                                           (unsigned)reqs[i]));
    return MPI_SUCCESS;
}

static int check_array(const char *fn, int count, const MPI_Request *reqs)
{
    if (count < 0)
        return mpir_err_world(mpir_err(MPI_ERR_COUNT, fn, "invalid count %d", count));
    if (count > 0 && !reqs)
        return mpir_err_world(mpir_err(MPI_ERR_REQUEST, fn, "array_of_requests is NULL"));
    return MPI_SUCCESS;
}

#define VIEWS_ON_STACK 32

/* Finishes every done view; with errors, fills MPI_ERROR of each status
 * (MPI_ERR_PENDING for the ones not done) and returns MPI_ERR_IN_STATUS. */
static int finish_all(const char *fn, int count, MPI_Request *reqs, req_view *v,
                      MPI_Status *statuses)
{
    int nerr = 0;
    MPI_Comm comm = MPI_COMM_WORLD, c;
    int errs_stack[VIEWS_ON_STACK], *errs = count <= VIEWS_ON_STACK ? errs_stack
                                                 : malloc((size_t)count * sizeof *errs);
    for (int i = 0; i < count; i++) {
        MPI_Status *st = statuses ? &statuses[i] : NULL;
        c = MPI_COMM_WORLD;
        int e = finish(fn, &reqs[i], &v[i], st, &c);
        if (errs)
            errs[i] = e;
        if (e) {
            if (!nerr)
                comm = c;
            nerr++;
        }
    }
    if (nerr && statuses)
        for (int i = 0; i < count; i++)
            statuses[i].MPI_ERROR = errs ? errs[i] : statuses[i].MPI_ERROR;
    if (errs != errs_stack)
        free(errs);
    if (!nerr)
        return MPI_SUCCESS;
    return mpir_err_comm(comm, mpir_err(MPI_ERR_IN_STATUS, fn,
                                        "%d of %d requests failed (see the statuses)",
                                        nerr, count));
}

int PMPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    MPIR_ENTER("MPI_Waitall");
    int rc = check_array("MPI_Waitall", count, reqs);
    if (rc)
        return rc;
    req_view vs[VIEWS_ON_STACK], *v = count <= VIEWS_ON_STACK ? vs
                                       : malloc((size_t)count * sizeof *v);
    if (!v)
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, "MPI_Waitall", "out of memory"));
    if ((rc = views("MPI_Waitall", count, reqs, v)) == MPI_SUCCESS) {
        multi m = { count, v, 0 };
        if (!multi_done(&m))
            wait_multi(&m);
        rc = finish_all("MPI_Waitall", count, reqs, v, statuses);
    }
    if (v != vs)
        free(v);
    return rc;
}
MPIR_WEAK(Waitall)

int PMPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    MPIR_ENTER("MPI_Testall");
    int rc = check_array("MPI_Testall", count, reqs);
    if (rc)
        return rc;
    if (!flag)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, "MPI_Testall", "flag is NULL"));
    req_view vs[VIEWS_ON_STACK], *v = count <= VIEWS_ON_STACK ? vs
                                       : malloc((size_t)count * sizeof *v);
    if (!v)
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, "MPI_Testall", "out of memory"));
    if ((rc = views("MPI_Testall", count, reqs, v)) == MPI_SUCCESS) {
        multi m = { count, v, 0 };
        if (!multi_done(&m))
            mpid_progress_test();
        /* All or nothing: requests stay untouched unless every one is done. */
        *flag = multi_done(&m);
        if (*flag)
            rc = finish_all("MPI_Testall", count, reqs, v, statuses);
    }
    if (v != vs)
        free(v);
    return rc;
}
MPIR_WEAK(Testall)

static int any_common(const char *fn, int count, MPI_Request reqs[], int *index, int *flag,
                      MPI_Status *status, int block)
{
    int rc = check_array(fn, count, reqs);
    if (rc)
        return rc;
    if (!index)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "index is NULL"));
    req_view vs[VIEWS_ON_STACK], *v = count <= VIEWS_ON_STACK ? vs
                                       : malloc((size_t)count * sizeof *v);
    if (!v)
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    if ((rc = views(fn, count, reqs, v)) != MPI_SUCCESS)
        goto out;
    multi m = { count, v, 1 };
    if (!multi_done(&m)) {
        if (block)
            wait_multi(&m);
        else
            mpid_progress_test();
    }
    *index = MPI_UNDEFINED;
    int active = 0;
    for (int i = 0; i < count; i++) {
        if (!v[i].x)
            continue;
        active++;
        if (v[i].x->done) {
            MPI_Comm comm = MPI_COMM_WORLD;
            *index = i;
            int e = finish(fn, &reqs[i], &v[i], status, &comm);
            if (e)
                rc = mpir_err_comm(comm, e);
            break;
        }
    }
    if (flag)
        *flag = *index != MPI_UNDEFINED || active == 0;
    if (active == 0)
        mpir_status_empty(status);
out:
    if (v != vs)
        free(v);
    return rc;
}

int PMPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    MPIR_ENTER("MPI_Waitany");
    return any_common("MPI_Waitany", count, reqs, index, NULL, status, 1);
}
MPIR_WEAK(Waitany)

int PMPI_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    MPIR_ENTER("MPI_Testany");
    if (!flag)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, "MPI_Testany", "flag is NULL"));
    return any_common("MPI_Testany", count, reqs, index, flag, status, 0);
}
MPIR_WEAK(Testany)

static int some_common(const char *fn, int count, MPI_Request reqs[], int *outcount,
                       int indices[], MPI_Status statuses[], int block)
{
    int rc = check_array(fn, count, reqs);
    if (rc)
        return rc;
    if (!outcount || (count > 0 && !indices))
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "%s is NULL",
                                       outcount ? "array_of_indices" : "outcount"));
    req_view vs[VIEWS_ON_STACK], *v = count <= VIEWS_ON_STACK ? vs
                                       : malloc((size_t)count * sizeof *v);
    if (!v)
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    if ((rc = views(fn, count, reqs, v)) != MPI_SUCCESS)
        goto out;
    multi m = { count, v, 1 };
    if (!multi_done(&m)) {
        if (block)
            wait_multi(&m);
        else
            mpid_progress_test();
    }
    int active = 0, n = 0, nerr = 0;
    MPI_Comm comm = MPI_COMM_WORLD;
    for (int i = 0; i < count; i++) {
        if (!v[i].x)
            continue;
        active++;
        if (!v[i].x->done)
            continue;
        MPI_Comm c = MPI_COMM_WORLD;
        MPI_Status *st = statuses ? &statuses[n] : NULL;
        int e = finish(fn, &reqs[i], &v[i], st, &c);
        if (st)
            st->MPI_ERROR = e;
        if (e && !nerr++)
            comm = c;
        indices[n++] = i;
    }
    *outcount = active == 0 ? MPI_UNDEFINED : n;
    if (nerr)
        rc = mpir_err_comm(comm, mpir_err(MPI_ERR_IN_STATUS, fn,
                                          "%d of %d completed requests failed", nerr, n));
out:
    if (v != vs)
        free(v);
    return rc;
}

int PMPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    MPIR_ENTER("MPI_Waitsome");
    return some_common("MPI_Waitsome", incount, reqs, outcount, indices, statuses, 1);
}
MPIR_WEAK(Waitsome)

int PMPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    MPIR_ENTER("MPI_Testsome");
    return some_common("MPI_Testsome", incount, reqs, outcount, indices, statuses, 0);
}
MPIR_WEAK(Testsome)

/* ---- the rest ------------------------------------------------------------ */
int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    MPIR_ENTER("MPI_Request_get_status");
    if (!flag)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, "MPI_Request_get_status", "flag is NULL"));
    req_view v;
    if (!view(request, &v))
        return bad_request("MPI_Request_get_status", "request", request);
    if (!view_done(&v))
        mpid_progress_test();
    *flag = view_done(&v);
    if (*flag) {
        if (is_greq(&v)) {
            return mpir_err_world(mpir_greq_query(v.x, status));
        } else if (v.x) {
            if (status)
                *status = v.x->status;
        } else {
            mpir_status_empty(status);
        }
    }
    return MPI_SUCCESS;
}
MPIR_WEAK(Request_get_status)

int PMPI_Request_free(MPI_Request *request)
{
    MPIR_ENTER("MPI_Request_free");
    if (MPIR_UNLIKELY(!request))
        return mpir_err_world(mpir_err(MPI_ERR_REQUEST, "MPI_Request_free", "request is NULL"));
    req_view v;
    if (!view(*request, &v) || !v.outer)
        return bad_request("MPI_Request_free", "request", *request);
    mpid_request *r = v.outer;
    if (r->mpir_kind == MPIR_REQ_NBC)
        return nbc_request("MPI_Request_free", r, *request);
    if (r->mpir_kind == MPIR_REQ_GREQ)
        return mpir_err_world(mpir_greq_free(r, request));
    mpir_handle_free(&mpir_requests, *request);
    if (r->mpir_kind == MPIR_REQ_PERSISTENT) {
        mpir_preq *p = r->user;
        if (p->inner)
            mpid_request_free(p->inner);   /* the round still completes */
        cu_dtype_release(p->dt);
        free(p);
        r->done = 1;
        mpid_request_free(r);
    } else {
        mpid_request_free(r);
    }
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}
MPIR_WEAK(Request_free)

int PMPI_Cancel(MPI_Request *request)
{
    MPIR_ENTER("MPI_Cancel");
    if (MPIR_UNLIKELY(!request))
        return mpir_err_world(mpir_err(MPI_ERR_REQUEST, "MPI_Cancel", "request is NULL"));
    req_view v;
    if (!view(*request, &v) || !v.outer)
        return bad_request("MPI_Cancel", "request", *request);
    if (v.outer->mpir_kind == MPIR_REQ_NBC)
        return nbc_request("MPI_Cancel", v.outer, *request);
    if (is_greq(&v))
        return mpir_err_world(mpir_greq_cancel(v.x));
    /* Receives not yet matched are cancelled, and sends whose message the
     * receiver has not matched (mpid/cancel.c says which); the others
     * complete normally (MPI-3.1 lets cancellation fail), and
     * MPI_Test_cancelled says which happened. */
    if (v.x && (v.x->kind == MPID_REQ_RECV || v.x->kind == MPID_REQ_SEND))
        mpid_cancel(v.x);
    return MPI_SUCCESS;
}
MPIR_WEAK(Cancel)
