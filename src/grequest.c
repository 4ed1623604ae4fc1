/*
 * grequest.c — generalized requests (MPI-3.1 section 12.2): requests whose
 * operation the program runs itself, completed by MPI_Grequest_complete.
 *
 * One is a device request of kind MPID_REQ_OTHER with no poll function
 * (progress never looks at it) and mpir_kind MPIR_REQ_GREQ; its callbacks
 * and extra_state hang off user. The completion calls of request.c hand a
 * done one to mpir_greq_finish (query_fn, then free_fn); MPI_Request_free,
 * MPI_Cancel and MPI_Request_get_status call the functions below.
 *
 * A request freed by MPI_Request_free before MPI_Grequest_complete keeps
 * its handle (mpir_kind MPIR_REQ_GREQ_FREED, refused by every other call)
 * so that the program's copy of it still reaches MPI_Grequest_complete,
 * which then runs free_fn and lets it go, as the standard asks.
 *
 * Errors of callbacks are returned as the callbacks gave them, through
 * MPI_COMM_WORLD's error handler (a generalized request has no
 * communicator).
 */
#include <stdlib.h>
#include "src/pt2pt.h"

typedef struct greq {
    MPI_Grequest_query_function  *query;
    MPI_Grequest_free_function   *free;
    MPI_Grequest_cancel_function *cancel;
    void *extra;
} greq;

static void release(mpid_request *r, MPI_Request h)
{
    free(r->user);
    r->user = NULL;
    mpir_handle_free(&mpir_requests, h);
    mpid_request_free(r);
}

int mpir_greq_query(mpid_request *r, MPI_Status *st)
{
    /* query_fn always gets a status to fill, MPI_STATUS_IGNORE or not. */
    MPI_Status scratch;
    if (!st)
        st = &scratch;
    mpir_status_empty(st);
    greq *g = r->user;
    return g->query(g->extra, st);
}

int mpir_greq_finish(mpid_request *r, MPI_Request *h, MPI_Status *st)
{
    greq *g = r->user;
    int qrc = mpir_greq_query(r, st);
    int frc = g->free(g->extra);
    release(r, *h);
    *h = MPI_REQUEST_NULL;
    /* The standard returns the last callback's code (free_fn's); query_fn's
     * failure is not lost when free_fn succeeds. */
    return frc != MPI_SUCCESS ? frc : qrc;
}

int mpir_greq_free(mpid_request *r, MPI_Request *h)
{
    int rc = MPI_SUCCESS;
    if (r->done) {
        greq *g = r->user;
        rc = g->free(g->extra);
        release(r, *h);
    } else {
        r->mpir_kind = MPIR_REQ_GREQ_FREED;   /* free_fn runs at completion */
    }
    *h = MPI_REQUEST_NULL;
    return rc;
}

int mpir_greq_cancel(mpid_request *r)
{
    greq *g = r->user;
    return g->cancel(g->extra, r->done);
}

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    static const char fn[] = "MPI_Grequest_start";
    MPIR_ENTER(fn);
    const char *null = !query_fn ? "query_fn" : !free_fn ? "free_fn" : !cancel_fn ? "cancel_fn"
                     : !request ? "request" : NULL;
    if (null)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "%s is NULL", null));
    greq *g = malloc(sizeof *g);
    mpid_request *r = g ? mpid_request_new_other() : NULL;
    if (!r) {
        free(g);
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    }
    *g = (greq){ query_fn, free_fn, cancel_fn, extra_state };
    r->user = g;
    r->mpir_kind = MPIR_REQ_GREQ;
    int rc = mpir_req_handle(fn, r, MPI_COMM_WORLD, request);
    if (rc != MPI_SUCCESS)
        free(g);   /* mpir_req_handle released r */
    return rc;
}
MPIR_WEAK(Grequest_start)

/* On a request not freed, the only store is the completion flag: a helper
 * thread of the program may complete a request that another thread waits
 * for (the wait looks at it at least every millisecond). */
int PMPI_Grequest_complete(MPI_Request request)
{
    static const char fn[] = "MPI_Grequest_complete";
    MPIR_ENTER(fn);
    mpid_request *r = mpir_handle_get(&mpir_requests, request);
    if (!r)
        return mpir_err_world(mpir_err(MPI_ERR_REQUEST, fn, "invalid request (request=0x%x)",
                                       (unsigned)request));
    if (r->mpir_kind != MPIR_REQ_GREQ && r->mpir_kind != MPIR_REQ_GREQ_FREED)
        return mpir_err_world(mpir_err(MPI_ERR_REQUEST, fn, "request=0x%x is not a "
                                       "generalized request", (unsigned)request));
    if (r->done)
        return mpir_err_world(mpir_err(MPI_ERR_REQUEST, fn, "request=0x%x is already complete",
                                       (unsigned)request));
    if (r->mpir_kind == MPIR_REQ_GREQ) {
        __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
        return MPI_SUCCESS;
    }
    /* Freed by MPI_Request_free: nothing will wait for it, free_fn runs now. */
    greq *g = r->user;
    int rc = g->free(g->extra);
    release(r, request);
    return mpir_err_world(rc);
}
MPIR_WEAK(Grequest_complete)
