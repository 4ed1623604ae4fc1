/*
 * coll_entry.c — MPI_Barrier, MPI_Bcast and MPI_Allgather: argument checks,
 * then the internal collectives of coll/. The collectives issue replaces the
 * bodies with its algorithm selection; the checks stay.
 */
#include "src/core.h"
#include "coll/coll.h"

int PMPI_Barrier(MPI_Comm comm)
{
    static const char fn[] = "MPI_Barrier";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    int rc = coll_barrier(&c->dev);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, mpir_err(rc, fn, "barrier failed (error class %d)", rc & 0xff));
    return MPI_SUCCESS;
}
MPIR_WEAK(Barrier)

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Bcast";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    if (root < 0 || root >= c->dev.size)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_ROOT, fn, "invalid root %d (comm size %d)",
                                            root, c->dev.size));
    cu_dtype *dt;
    int rc = mpir_check_count(fn, "count", count);
    if (rc == MPI_SUCCESS)
        rc = mpir_check_dtype(fn, "datatype", datatype, &dt);
    if (rc == MPI_SUCCESS)
        rc = mpir_check_buf(fn, "buffer", buffer, count, dt);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
    rc = coll_bcast(buffer, (size_t)count, dt, root, &c->dev);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, mpir_err(rc, fn, "broadcast from root %d failed (error class %d)",
                                            root, rc & 0xff));
    return MPI_SUCCESS;
}
MPIR_WEAK(Bcast)

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Allgather";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *sdt = NULL, *rdt;
    int rc = MPI_SUCCESS;
    if (sendbuf != MPI_IN_PLACE) {
        rc = mpir_check_count(fn, "sendcount", sendcount);
        if (rc == MPI_SUCCESS)
            rc = mpir_check_dtype(fn, "sendtype", sendtype, &sdt);
        if (rc == MPI_SUCCESS)
            rc = mpir_check_buf(fn, "sendbuf", sendbuf, sendcount, sdt);
    }
    if (rc == MPI_SUCCESS)
        rc = mpir_check_count(fn, "recvcount", recvcount);
    if (rc == MPI_SUCCESS)
        rc = mpir_check_dtype(fn, "recvtype", recvtype, &rdt);
    if (rc == MPI_SUCCESS)
        rc = mpir_check_buf(fn, "recvbuf", recvbuf, recvcount, rdt);
    if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
        rc = mpir_err(MPI_ERR_BUFFER, fn, "recvbuf is MPI_IN_PLACE");
    if (rc == MPI_SUCCESS && sdt &&
        cu_dtype_bytes(sdt, (size_t)sendcount) > cu_dtype_bytes(rdt, (size_t)recvcount))
        rc = mpir_err(MPI_ERR_TRUNCATE, fn, "sendcount*size(sendtype) = %zu bytes exceeds "
                      "recvcount*size(recvtype) = %zu bytes",
                      cu_dtype_bytes(sdt, (size_t)sendcount), cu_dtype_bytes(rdt, (size_t)recvcount));
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
    rc = coll_allgather(sendbuf, (size_t)sendcount, sdt, recvbuf, (size_t)recvcount, rdt, &c->dev);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, mpir_err(rc, fn, "allgather failed (error class %d)", rc & 0xff));
    return MPI_SUCCESS;
}
MPIR_WEAK(Allgather)
