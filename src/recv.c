/*
 * recv.c — MPI_Recv and MPI_Irecv.
 */
#include "src/pt2pt.h"

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
              MPI_Comm comm, MPI_Status *status)
{
    MPIR_ENTER("MPI_Recv");
    mpir_comm *c;
    MPIR_GET_COMM("MPI_Recv", comm, c);
    cu_dtype *dt;
    int rc = mpir_p2p_checks("MPI_Recv", buf, count, datatype, source, tag, 1, c, &dt);
    if (MPIR_UNLIKELY(rc))
        return mpir_err_comm(comm, rc);
    mpid_request *r;
    rc = mpid_irecv(buf, (size_t)count, dt, source, tag, &c->dev, MPID_CTX_PT2PT, &r);
    if (MPIR_UNLIKELY(rc != MPI_SUCCESS))
        return mpir_err_comm(comm, mpir_err(rc, "MPI_Recv", "cannot post the receive"));
    if (!r->done)
        mpid_wait(r);
    if (status)
        *status = r->status;
    rc = mpir_req_error("MPI_Recv", r);
    mpid_request_free(r);
    return rc ? mpir_err_comm(comm, rc) : MPI_SUCCESS;
}
MPIR_WEAK(Recv)

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
               MPI_Comm comm, MPI_Request *request)
{
    MPIR_ENTER("MPI_Irecv");
    mpir_comm *c;
    MPIR_GET_COMM("MPI_Irecv", comm, c);
    cu_dtype *dt;
    int rc = mpir_p2p_checks("MPI_Irecv", buf, count, datatype, source, tag, 1, c, &dt);
    if (MPIR_UNLIKELY(!rc && !request))
        rc = mpir_err(MPI_ERR_ARG, "MPI_Irecv", "request is NULL");
    if (MPIR_UNLIKELY(rc))
        return mpir_err_comm(comm, rc);
    mpid_request *r;
    rc = mpid_irecv(buf, (size_t)count, dt, source, tag, &c->dev, MPID_CTX_PT2PT, &r);
    if (MPIR_UNLIKELY(rc != MPI_SUCCESS))
        return mpir_err_comm(comm, mpir_err(rc, "MPI_Irecv", "cannot post the receive"));
    return mpir_req_handle("MPI_Irecv", r, comm, request);
}
MPIR_WEAK(Irecv)
