/*
 * coll_entry.c — the data-movement collectives: MPI_Barrier, Bcast,
 * Gather(v), Scatter(v), Allgather(v), Alltoall(v,w). Each checks its
 * arguments (everything detectable locally: communicator, root, counts,
 * types, buffers, MPI_IN_PLACE misuse and send/receive buffer aliasing,
 * size mismatches of this rank's own blocks), asks coll/select.c for the
 * algorithm, and runs it. The reductions live in src/coll_reduce_entry.c.
 * On an intercommunicator, after the same checks, each runs the schedule
 * of its intercommunicator form (coll_inter_entry.c) to completion.
 */
#include <stdlib.h>
#include "src/coll_inter.h"
#include "coll/select.h"

static int bad_select(MPI_Comm comm, const char *fn, const char *msg)
{
    return mpir_err_comm(comm, mpir_err(MPI_ERR_ARG, fn, "%s", msg));
}

static int failed(MPI_Comm comm, const char *fn, const char *algo, int rc)
{
    return mpir_err_comm(comm, mpir_err(rc, fn, "algorithm %s failed (error class %d)", algo,
                                        rc & 0xff));
}

int PMPI_Barrier(MPI_Comm comm)
{
    static const char fn[] = "MPI_Barrier";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    if (c->is_inter)
        return mpir_inter_barrier(fn, c, NULL);
    const char *name;
    coll_barrier_fn *f = coll_select_barrier(&c->dev, &name);
    if (!f)
        return bad_select(comm, fn, name);
    int rc = f(&c->dev);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : failed(comm, fn, name, rc);
}
MPIR_WEAK(Barrier)

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Bcast";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *dt;
    int rc = mpir_check_bcast(fn, c, buffer, count, datatype, root, &dt);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
    if (c->is_inter)
        return mpir_inter_bcast(fn, c, buffer, count, dt, root, NULL);
    const char *name;
    coll_bcast_fn *f = coll_select_bcast(cu_dtype_bytes(dt, (size_t)count), &c->dev, &name);
    if (!f)
        return bad_select(comm, fn, name);
    rc = f(buffer, (size_t)count, dt, root, &c->dev);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : failed(comm, fn, name, rc);
}
MPIR_WEAK(Bcast)

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Gather";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *sdt, *rdt;
    int rc = mpir_check_gather(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                               recvtype, root, &sdt, &rdt);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
    if (c->is_inter)
        return mpir_inter_gather(fn, c, sendbuf, sendcount, sdt, recvbuf, NULL, NULL, recvcount,
                                 rdt, root, NULL);
    size_t blk = c->dev.rank == root ? cu_dtype_bytes(rdt, (size_t)recvcount)
                                     : cu_dtype_bytes(sdt, (size_t)sendcount);
    const char *name;
    coll_gather_fn *f = coll_select_gather(blk, &c->dev, &name);
    if (!f)
        return bad_select(comm, fn, name);
    rc = f(sendbuf, (size_t)sendcount, sdt, recvbuf, (size_t)recvcount, rdt, root, &c->dev);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : failed(comm, fn, name, rc);
}
MPIR_WEAK(Gather)

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    static const char fn[] = "MPI_Gatherv";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *sdt, *rdt;
    int rc = mpir_check_gatherv(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                displs, recvtype, root, &sdt, &rdt);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
    if (c->is_inter)
        return mpir_inter_gather(fn, c, sendbuf, sendcount, sdt, recvbuf, recvcounts, displs, 0,
                                 rdt, root, NULL);
    const char *name;
    coll_gatherv_fn *f = coll_select_gatherv(&c->dev, &name);
    if (!f)
        return bad_select(comm, fn, name);
    rc = f(sendbuf, (size_t)sendcount, sdt, recvbuf, recvcounts, displs, rdt, root, &c->dev);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : failed(comm, fn, name, rc);
}
MPIR_WEAK(Gatherv)

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Scatter";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *sdt, *rdt;
    int rc = mpir_check_scatter(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                recvtype, root, &sdt, &rdt);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
    if (c->is_inter)
        return mpir_inter_scatter(fn, c, sendbuf, NULL, NULL, sendcount, sdt, recvbuf, recvcount,
                                  rdt, root, NULL);
    size_t blk = c->dev.rank == root ? cu_dtype_bytes(sdt, (size_t)sendcount)
                                     : cu_dtype_bytes(rdt, (size_t)recvcount);
    const char *name;
    coll_scatter_fn *f = coll_select_scatter(blk, &c->dev, &name);
    if (!f)
        return bad_select(comm, fn, name);
    rc = f(sendbuf, (size_t)sendcount, sdt, recvbuf, (size_t)recvcount, rdt, root, &c->dev);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : failed(comm, fn, name, rc);
}
MPIR_WEAK(Scatter)

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Scatterv";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *sdt, *rdt;
    int rc = mpir_check_scatterv(fn, c, sendbuf, sendcounts, displs, sendtype, recvbuf,
                                 recvcount, recvtype, root, &sdt, &rdt);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
    if (c->is_inter)
        return mpir_inter_scatter(fn, c, sendbuf, sendcounts, displs, 0, sdt, recvbuf, recvcount,
                                  rdt, root, NULL);
    const char *name;
    coll_scatterv_fn *f = coll_select_scatterv(&c->dev, &name);
    if (!f)
        return bad_select(comm, fn, name);
    rc = f(sendbuf, sendcounts, displs, sdt, recvbuf, (size_t)recvcount, rdt, root, &c->dev);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : failed(comm, fn, name, rc);
}
MPIR_WEAK(Scatterv)

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Allgather";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *sdt, *rdt;
    int rc = mpir_check_allgather(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                  recvtype, &sdt, &rdt);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
    if (c->is_inter)
        return mpir_inter_allgather(fn, c, sendbuf, sendcount, sdt, recvbuf, NULL, NULL,
                                    recvcount, rdt, NULL);
    const char *name;
    coll_allgather_fn *f = coll_select_allgather(
        cu_dtype_bytes(rdt, (size_t)recvcount) * (size_t)c->dev.size, &c->dev, &name);
    if (!f)
        return bad_select(comm, fn, name);
    rc = f(sendbuf, (size_t)sendcount, sdt, recvbuf, (size_t)recvcount, rdt, &c->dev);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : failed(comm, fn, name, rc);
}
MPIR_WEAK(Allgather)

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    static const char fn[] = "MPI_Allgatherv";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *sdt, *rdt;
    int rc = mpir_check_allgatherv(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                   displs, recvtype, &sdt, &rdt);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
    if (c->is_inter)
        return mpir_inter_allgather(fn, c, sendbuf, sendcount, sdt, recvbuf, recvcounts, displs,
                                    0, rdt, NULL);
    size_t total = 0;
    for (int i = 0; i < c->dev.size; i++)
        total += cu_dtype_bytes(rdt, (size_t)recvcounts[i]);
    const char *name;
    coll_allgatherv_fn *f = coll_select_allgatherv(total, &c->dev, &name);
    if (!f)
        return bad_select(comm, fn, name);
    rc = f(sendbuf, (size_t)sendcount, sdt, recvbuf, recvcounts, displs, rdt, &c->dev);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : failed(comm, fn, name, rc);
}
MPIR_WEAK(Allgatherv)

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Alltoall";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *sdt, *rdt;
    int rc = mpir_check_alltoall(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                 recvtype, &sdt, &rdt);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
    if (c->is_inter)
        return mpir_nbc_alltoall(fn, comm, c, sendbuf, sendcount, NULL, NULL, sdt, NULL, recvbuf,
                                 recvcount, NULL, NULL, rdt, NULL, 0, NULL);
    const char *name;
    coll_alltoall_fn *f = coll_select_alltoall(cu_dtype_bytes(rdt, (size_t)recvcount), &c->dev,
                                               &name);
    if (!f)
        return bad_select(comm, fn, name);
    rc = f(sendbuf, (size_t)sendcount, sdt, recvbuf, (size_t)recvcount, rdt, &c->dev);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : failed(comm, fn, name, rc);
}
MPIR_WEAK(Alltoall)

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Alltoallv";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *sdt, *rdt;
    int rc = mpir_check_alltoallv(fn, c, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                  recvcounts, rdispls, recvtype, &sdt, &rdt);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
    if (c->is_inter)
        return mpir_nbc_alltoall(fn, comm, c, sendbuf, 0, sendcounts, sdispls, sdt, NULL, recvbuf,
                                 0, recvcounts, rdispls, rdt, NULL, 0, NULL);
    const char *name;
    coll_alltoallv_fn *f = coll_select_alltoallv(&c->dev, &name);
    if (!f)
        return bad_select(comm, fn, name);
    rc = f(sendbuf, sendcounts, sdispls, sdt, recvbuf, recvcounts, rdispls, rdt, &c->dev);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : failed(comm, fn, name, rc);
}
MPIR_WEAK(Alltoallv)

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    static const char fn[] = "MPI_Alltoallw";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    int p = c->dev.size;
    cu_dtype **dts = calloc((size_t)p * 2, sizeof *dts);
    if (!dts)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    cu_dtype **sdts = dts, **rdts = dts + p;
    int rc = mpir_check_alltoallw(fn, c, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                  recvcounts, rdispls, recvtypes, sdts, rdts);
    if (rc != MPI_SUCCESS) {
        free(dts);
        return mpir_err_comm(comm, rc);
    }
    if (c->is_inter) {
        rc = mpir_nbc_alltoall(fn, comm, c, sendbuf, 0, sendcounts, sdispls, NULL, sdts, recvbuf,
                               0, recvcounts, rdispls, NULL, rdts, 1, NULL);
        free(dts);
        return rc;
    }
    const char *name;
    coll_alltoallw_fn *f = coll_select_alltoallw(&c->dev, &name);
    if (!f) {
        free(dts);
        return bad_select(comm, fn, name);
    }
    rc = f(sendbuf, sendcounts, sdispls, (const cu_dtype *const *)sdts, recvbuf, recvcounts,
           rdispls, (const cu_dtype *const *)rdts, &c->dev);
    free(dts);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : failed(comm, fn, name, rc);
}
MPIR_WEAK(Alltoallw)
