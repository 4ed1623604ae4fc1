/*
 * coll_reduce_entry.c — MPI_Reduce, Allreduce, Reduce_scatter(_block), Scan
 * and Exscan: argument checks, the (op, datatype) check, then the algorithm
 * the selection table (coll/select.c) picks for the size, ranks and nodes.
 * On an intercommunicator the first four run the schedule of their
 * intercommunicator form (coll_inter_entry.c) to completion; Scan and
 * Exscan have none (MPI_ERR_COMM).
 */
#include "src/coll_inter.h"
#include "coll/select.h"

#define FAIL(rc) return mpir_err_comm(comm, (rc))

/* The algorithm failed (or none could be chosen): name it in the error. */
static int algo_err(MPI_Comm comm, const char *fn, const char *algo, int rc)
{
    return mpir_err_comm(comm, mpir_err(rc, fn, "algorithm %s failed (error class %d)", algo,
                                        rc & 0xff));
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                MPI_Op op, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Reduce";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *dt;
    coll_op cop;
    int rc = mpir_check_reduce(fn, c, sendbuf, recvbuf, count, datatype, op, root, &dt, &cop);
    if (rc != MPI_SUCCESS)
        FAIL(rc);
    if (c->is_inter)
        return mpir_inter_reduce(fn, c, sendbuf, recvbuf, count, dt, &cop, root, NULL);
    const char *name;
    coll_reduce_fn *f = coll_select_reduce(cu_dtype_bytes(dt, (size_t)count), &cop, &c->dev,
                                           &name);
    if (!f)
        FAIL(mpir_err(MPI_ERR_ARG, fn, "%s", name));
    rc = f(sendbuf, recvbuf, (size_t)count, dt, &cop, root, &c->dev);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : algo_err(comm, fn, name, rc);
}
MPIR_WEAK(Reduce)

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm)
{
    static const char fn[] = "MPI_Allreduce";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *dt;
    coll_op cop;
    int rc = mpir_check_allreduce(fn, c, sendbuf, recvbuf, count, datatype, op, &dt, &cop);
    if (rc != MPI_SUCCESS)
        FAIL(rc);
    if (c->is_inter)
        return mpir_inter_allreduce(fn, c, sendbuf, recvbuf, count, dt, &cop, NULL);
    const char *name;
    coll_allreduce_fn *f = coll_select_allreduce(cu_dtype_bytes(dt, (size_t)count), &cop,
                                                 &c->dev, &name);
    if (!f)
        FAIL(mpir_err(MPI_ERR_ARG, fn, "%s", name));
    rc = f(sendbuf, recvbuf, (size_t)count, dt, &cop, &c->dev);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : algo_err(comm, fn, name, rc);
}
MPIR_WEAK(Allreduce)

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    static const char fn[] = "MPI_Reduce_scatter";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *dt;
    coll_op cop;
    size_t total;
    int rc = mpir_check_reduce_scatter(fn, c, sendbuf, recvbuf, recvcounts, datatype, op, &dt,
                                       &cop, &total);
    if (rc != MPI_SUCCESS)
        FAIL(rc);
    if (c->is_inter)
        return mpir_inter_reduce_scatter(fn, c, sendbuf, recvbuf, recvcounts, 0, dt, &cop, NULL);
    const char *name;
    coll_reduce_scatter_fn *f = coll_select_reduce_scatter(cu_dtype_bytes(dt, total),
                                                           &cop, &c->dev, &name);
    if (!f)
        FAIL(mpir_err(MPI_ERR_ARG, fn, "%s", name));
    rc = f(sendbuf, recvbuf, recvcounts, dt, &cop, &c->dev);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : algo_err(comm, fn, name, rc);
}
MPIR_WEAK(Reduce_scatter)

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    static const char fn[] = "MPI_Reduce_scatter_block";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *dt;
    coll_op cop;
    size_t total;
    int rc = mpir_check_reduce_scatter_block(fn, c, sendbuf, recvbuf, recvcount, datatype, op,
                                             &dt, &cop, &total);
    if (rc != MPI_SUCCESS)
        FAIL(rc);
    if (c->is_inter)
        return mpir_inter_reduce_scatter(fn, c, sendbuf, recvbuf, NULL, recvcount, dt, &cop,
                                         NULL);
    const char *name;
    coll_reduce_scatter_block_fn *f =
        coll_select_reduce_scatter_block(cu_dtype_bytes(dt, total), &cop, &c->dev,
                                         &name);
    if (!f)
        FAIL(mpir_err(MPI_ERR_ARG, fn, "%s", name));
    rc = f(sendbuf, recvbuf, (size_t)recvcount, dt, &cop, &c->dev);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : algo_err(comm, fn, name, rc);
}
MPIR_WEAK(Reduce_scatter_block)

static int scan_common(const char *fn, int exclusive, const void *sendbuf, void *recvbuf,
                       int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *dt;
    coll_op cop;
    int rc = mpir_check_intra(fn, c);
    if (rc == MPI_SUCCESS)
        rc = mpir_check_allreduce(fn, c, sendbuf, recvbuf, count, datatype, op, &dt, &cop);
    if (rc != MPI_SUCCESS)
        FAIL(rc);
    const char *name;
    size_t bytes = cu_dtype_bytes(dt, (size_t)count);
    coll_scan_fn *f = exclusive ? coll_select_exscan(bytes, &cop, &c->dev, &name)
                                : coll_select_scan(bytes, &cop, &c->dev, &name);
    if (!f)
        FAIL(mpir_err(MPI_ERR_ARG, fn, "%s", name));
    rc = f(sendbuf, recvbuf, (size_t)count, dt, &cop, &c->dev);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : algo_err(comm, fn, name, rc);
}

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    static const char fn[] = "MPI_Scan";
    MPIR_ENTER(fn);
    return scan_common(fn, 0, sendbuf, recvbuf, count, datatype, op, comm);
}
MPIR_WEAK(Scan)

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm)
{
    static const char fn[] = "MPI_Exscan";
    MPIR_ENTER(fn);
    return scan_common(fn, 1, sendbuf, recvbuf, count, datatype, op, comm);
}
MPIR_WEAK(Exscan)
