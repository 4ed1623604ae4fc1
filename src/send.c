/*
 * send.c — MPI_Send, Ssend, Rsend, Isend, Issend, Irsend. Ready mode is sent
 * as a standard send (allowed: a ready send may behave as a standard one).
 */
#include "src/pt2pt.h"

/* Checks shared by every send-side entry point; *c and *dt on success. */
static inline int send_checks(const char *fn, const void *buf, int count, MPI_Datatype type,
                              int dest, int tag, mpir_comm *c, cu_dtype **dt)
{
    int rc;
    if ((rc = mpir_check_count(fn, "count", count)) ||
        (rc = mpir_check_dtype(fn, "datatype", type, dt)) ||
        (rc = mpir_check_buf(fn, "buf", buf, count, *dt)) ||
        (rc = mpir_check_tag(fn, "tag", tag, 0)) ||
        (rc = mpir_check_rank(fn, "dest", c, dest, 0)))
        return rc;
    return MPI_SUCCESS;
}

static int send_blocking(const char *fn, const void *buf, int count, MPI_Datatype type,
                         int dest, int tag, MPI_Comm comm, int mode)
{
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *dt;
    int rc = send_checks(fn, buf, count, type, dest, tag, c, &dt);
    if (rc)
        return mpir_err_comm(comm, rc);
    mpid_request *r;
    rc = mpid_isend(buf, (size_t)count, dt, dest, tag, &c->dev, MPID_CTX_PT2PT, mode, &r);
    if (__builtin_expect(rc != MPI_SUCCESS, 0))
        return mpir_err_comm(comm, mpir_err(rc, fn, "cannot send to rank %d", dest));
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
    int rc = send_checks(fn, buf, count, type, dest, tag, c, &dt);
    if (!rc && !request)
        rc = mpir_err(MPI_ERR_ARG, fn, "request is NULL");
    if (rc)
        return mpir_err_comm(comm, rc);
    mpid_request *r;
    rc = mpid_isend(buf, (size_t)count, dt, dest, tag, &c->dev, MPID_CTX_PT2PT, mode, &r);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, mpir_err(rc, fn, "cannot send to rank %d", dest));
    return mpir_req_handle(fn, r, comm, request);
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm)
{
    MPIR_ENTER("MPI_Send");
    return send_blocking("MPI_Send", buf, count, datatype, dest, tag, comm, MPID_SEND_STANDARD);
}
MPIR_WEAK(Send)

int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm)
{
    MPIR_ENTER("MPI_Ssend");
    return send_blocking("MPI_Ssend", buf, count, datatype, dest, tag, comm, MPID_SEND_SYNC);
}
MPIR_WEAK(Ssend)

int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm)
{
    MPIR_ENTER("MPI_Rsend");
    return send_blocking("MPI_Rsend", buf, count, datatype, dest, tag, comm, MPID_SEND_READY);
}
MPIR_WEAK(Rsend)

int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request *request)
{
    MPIR_ENTER("MPI_Isend");
    return send_nonblocking("MPI_Isend", buf, count, datatype, dest, tag, comm,
                            MPID_SEND_STANDARD, request);
}
MPIR_WEAK(Isend)

int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    MPIR_ENTER("MPI_Issend");
    return send_nonblocking("MPI_Issend", buf, count, datatype, dest, tag, comm,
                            MPID_SEND_SYNC, request);
}
MPIR_WEAK(Issend)

int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    MPIR_ENTER("MPI_Irsend");
    return send_nonblocking("MPI_Irsend", buf, count, datatype, dest, tag, comm,
                            MPID_SEND_READY, request);
}
MPIR_WEAK(Irsend)
