/*
 * send.c — MPI_Send, Ssend, Rsend, Isend, Issend, Irsend. Ready mode is sent
 * as a standard send (allowed: a ready send may behave as a standard one).
 */
#include "src/pt2pt.h"

static int send_blocking(const char *fn, const void *buf, int count, MPI_Datatype type,
                         int dest, int tag, MPI_Comm comm, int mode)
{
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *dt;
    int rc = mpir_p2p_checks(fn, buf, count, type, dest, tag, 0, c, &dt);
    if (MPIR_UNLIKELY(rc))
        return mpir_err_comm(comm, rc);
    mpid_request *r;
    rc = mpid_send(buf, (size_t)count, dt, dest, tag, &c->dev, MPID_CTX_PT2PT, mode, &r);
    if (MPIR_UNLIKELY(rc != MPI_SUCCESS))
        return mpir_err_comm(comm, mpir_err(rc, fn, "cannot send to rank %d", dest));
    if (MPIR_LIKELY(r == NULL))   /* gone at once: no request was made */
        return MPI_SUCCESS;
    if (!r->done)
        mpid_wait(r);
    rc = mpir_req_error(fn, r);
    mpid_request_free(r);
    return rc ? mpir_err_comm(comm, rc) : MPI_SUCCESS;
}

static int send_nonblocking(const char *fn, const void *buf, int count, MPI_Datatype type,
                            int dest, int tag, MPI_Comm comm, int mode, MPI_Request *request)
{
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *dt;
    int rc = mpir_p2p_checks(fn, buf, count, type, dest, tag, 0, c, &dt);
    if (MPIR_UNLIKELY(!rc && !request))
        rc = mpir_err(MPI_ERR_ARG, fn, "request is NULL");
    if (MPIR_UNLIKELY(rc))
        return mpir_err_comm(comm, rc);
    mpid_request *r;
    rc = mpid_isend(buf, (size_t)count, dt, dest, tag, &c->dev, MPID_CTX_PT2PT, mode, &r);
    if (MPIR_UNLIKELY(rc != MPI_SUCCESS))
        return mpir_err_comm(comm, mpir_err(rc, fn, "cannot send to rank %d", dest));
    return mpir_req_handle(fn, r, comm, request);
}

/* The entry points differ only in their mode. */
#define SEND_BLOCKING(name, mode)                                                   \
    int PMPI_##name(const void *buf, int count, MPI_Datatype datatype, int dest,    \
                    int tag, MPI_Comm comm)                                         \
    {                                                                               \
        MPIR_ENTER("MPI_" #name);                                                   \
        return send_blocking("MPI_" #name, buf, count, datatype, dest, tag, comm,   \
                             mode);                                                 \
    }                                                                               \
    MPIR_WEAK(name)

#define SEND_NONBLOCKING(name, mode)                                                \
    int PMPI_##name(const void *buf, int count, MPI_Datatype datatype, int dest,    \
                    int tag, MPI_Comm comm, MPI_Request *request)                   \
    {                                                                               \
        MPIR_ENTER("MPI_" #name);                                                   \
        return send_nonblocking("MPI_" #name, buf, count, datatype, dest, tag,      \
                                comm, mode, request);                               \
    }                                                                               \
    MPIR_WEAK(name)

SEND_BLOCKING(Send, MPID_SEND_STANDARD)
SEND_BLOCKING(Ssend, MPID_SEND_SYNC)
SEND_BLOCKING(Rsend, MPID_SEND_READY)
SEND_NONBLOCKING(Isend, MPID_SEND_STANDARD)
SEND_NONBLOCKING(Issend, MPID_SEND_SYNC)
SEND_NONBLOCKING(Irsend, MPID_SEND_READY)
