/*
 * persistent.c — Send_init, Bsend_init, Ssend_init, Rsend_init, Recv_init,
 * Start, Startall. A persistent request is created inactive; Start begins a
 * round (a device request kept in mpir_preq.inner); Wait/Test end it and
 * leave the request inactive for the next Start.
 */
#include <stdlib.h>
#include "src/pt2pt.h"

static int init_common(const char *fn, int op, const void *buf, int count,
                       MPI_Datatype type, int rank, int tag, MPI_Comm comm,
                       MPI_Request *request)
{
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *dt;
    int rc = mpir_p2p_checks(fn, buf, count, type, rank, tag, op == MPIR_P_RECV, c, &dt);
    if (rc)
        return mpir_err_comm(comm, rc);
    if (!request)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_ARG, fn, "request is NULL"));
    mpir_preq *p = malloc(sizeof *p);
    mpid_request *r = p ? mpid_request_new_other() : NULL;
    if (!r) {
        free(p);
        return mpir_err_comm(comm, mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    }
    p->op = op;
    p->buf = (void *)buf;
    p->count = count;
    p->dt = dt;
    cu_dtype_retain(dt);   /* the user may free the type before the last Start */
    p->rank = rank;
    p->tag = tag;
    p->comm = comm;
    p->inner = NULL;
    r->mpir_kind = MPIR_REQ_PERSISTENT;
    r->user = p;
    r->done = 1;   /* never polled: completion is the inner request's */
    return mpir_req_handle(fn, r, comm, request);
}

/* The four send modes' init calls differ only in the mode they record. */
#define SEND_INIT(name, mode)                                                      \
    int PMPI_##name(const void *buf, int count, MPI_Datatype datatype, int dest,   \
                    int tag, MPI_Comm comm, MPI_Request *request)                  \
    {                                                                              \
        MPIR_ENTER("MPI_" #name);                                                  \
        return init_common("MPI_" #name, mode, buf, count, datatype, dest, tag,    \
                           comm, request);                                         \
    }                                                                              \
    MPIR_WEAK(name)

SEND_INIT(Send_init, MPIR_P_SEND)
SEND_INIT(Bsend_init, MPIR_P_BSEND)
SEND_INIT(Ssend_init, MPIR_P_SSEND)
SEND_INIT(Rsend_init, MPIR_P_RSEND)

int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    MPIR_ENTER("MPI_Recv_init");
    return init_common("MPI_Recv_init", MPIR_P_RECV, buf, count, datatype, source, tag, comm,
                       request);
}
MPIR_WEAK(Recv_init)

static int start_one(const char *fn, MPI_Request h, const char *arg, int idx)
{
    mpid_request *r = mpir_handle_get(&mpir_requests, h);
    if (!r || r->mpir_kind != MPIR_REQ_PERSISTENT)
        return mpir_err_world(mpir_err(MPI_ERR_REQUEST, fn,
                                       idx < 0 ? "invalid %s (not a persistent request: 0x%x)"
                                               : "invalid %s[%d] (not a persistent request)",
                                       arg, idx < 0 ? (int)h : idx));
    mpir_preq *p = r->user;
    if (p->inner)
        return mpir_err_comm(p->comm, mpir_err(MPI_ERR_REQUEST, fn,
                                               "%s is already active", arg));
    mpir_comm *c = mpir_comm_get(p->comm);
    if (!c)
        return mpir_err_world(mpir_err(MPI_ERR_COMM, fn, "the request's communicator is gone"));
    int rc;
    static const int mode[] = { [MPIR_P_SEND] = MPID_SEND_STANDARD,
                                [MPIR_P_SSEND] = MPID_SEND_SYNC,
                                [MPIR_P_RSEND] = MPID_SEND_READY };
    switch (p->op) {
    case MPIR_P_RECV:
        rc = mpid_irecv(p->buf, (size_t)p->count, p->dt, p->rank, p->tag, &c->dev,
                        MPID_CTX_PT2PT, &p->inner);
        break;
    case MPIR_P_BSEND:
        return mpir_bsend(fn, p->buf, p->count, p->dt, p->rank, p->tag, c, &p->inner);
    default:
        rc = mpid_isend(p->buf, (size_t)p->count, p->dt, p->rank, p->tag, &c->dev,
                        MPID_CTX_PT2PT, mode[p->op], &p->inner);
    }
    if (rc) {
        p->inner = NULL;
        return mpir_err_comm(p->comm, mpir_err(rc, fn, "cannot start the request"));
    }
    return MPI_SUCCESS;
}

int PMPI_Start(MPI_Request *request)
{
    MPIR_ENTER("MPI_Start");
    if (!request)
        return mpir_err_world(mpir_err(MPI_ERR_REQUEST, "MPI_Start", "request is NULL"));
    return start_one("MPI_Start", *request, "request", -1);
}
MPIR_WEAK(Start)

int PMPI_Startall(int count, MPI_Request reqs[])
{
    MPIR_ENTER("MPI_Startall");
    if (count < 0)
        return mpir_err_world(mpir_err(MPI_ERR_COUNT, "MPI_Startall", "invalid count %d", count));
    if (count > 0 && !reqs)
        return mpir_err_world(mpir_err(MPI_ERR_REQUEST, "MPI_Startall",
                                       "array_of_requests is NULL"));
    for (int i = 0; i < count; i++) {
        int rc = start_one("MPI_Startall", reqs[i], "array_of_requests", i);
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}
MPIR_WEAK(Startall)
