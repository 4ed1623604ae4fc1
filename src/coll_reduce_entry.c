/*
 * coll_reduce_entry.c — MPI_Reduce, Allreduce, Reduce_scatter(_block), Scan
 * and Exscan: argument checks, the (op, datatype) check, then the algorithm
 * the selection table (coll/select.c) picks for the size, ranks and nodes.
 */
#include <limits.h>
#include "src/core.h"
#include "coll/select.h"

/* Checks shared by every reduction: count, datatype, op (with the type),
 * and the two buffers. sendbuf may be MPI_IN_PLACE where in_place_ok;
 * recvbuf never. A sendbuf equal to recvbuf is the classic misuse of what
 * MPI_IN_PLACE is for: it would be read and written at once, so it is an
 * error rather than silently wrong results. */
static int check_common(const char *fn, const void *sendbuf, const void *recvbuf, int count,
                        size_t rcount, MPI_Datatype datatype, MPI_Op op, int in_place_ok,
                        int check_recv, cu_dtype **dt, coll_op *cop)
{
    int rc = mpir_check_count(fn, "count", count);
    if (rc == MPI_SUCCESS)
        rc = mpir_check_dtype(fn, "datatype", datatype, dt);
    if (rc == MPI_SUCCESS)
        rc = mpir_op_resolve(fn, op, datatype, *dt, cop);
    if (rc != MPI_SUCCESS)
        return rc;
    if (sendbuf == MPI_IN_PLACE && !in_place_ok)
        return mpir_err(MPI_ERR_BUFFER, fn, "sendbuf is MPI_IN_PLACE (allowed only at the root)");
    if (sendbuf != MPI_IN_PLACE && (rc = mpir_check_buf(fn, "sendbuf", sendbuf, count, *dt)))
        return rc;
    if (check_recv) {
        if (recvbuf == MPI_IN_PLACE)
            return mpir_err(MPI_ERR_BUFFER, fn, "recvbuf is MPI_IN_PLACE (pass MPI_IN_PLACE "
                            "as sendbuf for an in-place operation)");
        if ((rc = mpir_check_buf(fn, "recvbuf", recvbuf, rcount > 0, *dt)))
            return rc;
        if (sendbuf == recvbuf && count > 0 && rcount > 0 && (*dt)->size > 0)
            return mpir_err(MPI_ERR_BUFFER, fn, "sendbuf and recvbuf are the same buffer "
                            "(use MPI_IN_PLACE as sendbuf for an in-place operation)");
    }
    return MPI_SUCCESS;
}

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
    if (root < 0 || root >= c->dev.size)
        FAIL(mpir_err(MPI_ERR_ROOT, fn, "invalid root %d (comm size %d)", root, c->dev.size));
    int me_root = c->dev.rank == root;
    cu_dtype *dt;
    coll_op cop;
    int rc = check_common(fn, sendbuf, recvbuf, count, (size_t)count, datatype, op, me_root,
                          me_root, &dt, &cop);
    if (rc != MPI_SUCCESS)
        FAIL(rc);
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
    int rc = check_common(fn, sendbuf, recvbuf, count, (size_t)count, datatype, op, 1, 1, &dt,
                          &cop);
    if (rc != MPI_SUCCESS)
        FAIL(rc);
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
    if (!recvcounts)
        FAIL(mpir_err(MPI_ERR_ARG, fn, "recvcounts is NULL"));
    long long total = 0;
    for (int i = 0; i < c->dev.size; i++) {
        if (recvcounts[i] < 0)
            FAIL(mpir_err(MPI_ERR_COUNT, fn, "invalid recvcounts[%d] = %d (must be >= 0)", i,
                          recvcounts[i]));
        total += recvcounts[i];
    }
    if (total > INT_MAX)
        FAIL(mpir_err(MPI_ERR_COUNT, fn, "the sum of recvcounts (%lld) exceeds INT_MAX", total));
    cu_dtype *dt;
    coll_op cop;
    int mine = recvcounts[c->dev.rank];
    int rc = check_common(fn, sendbuf, recvbuf, (int)total, (size_t)mine, datatype, op, 1, 1,
                          &dt, &cop);
    if (rc != MPI_SUCCESS)
        FAIL(rc);
    const char *name;
    coll_reduce_scatter_fn *f = coll_select_reduce_scatter(cu_dtype_bytes(dt, (size_t)total),
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
    if (recvcount < 0)
        FAIL(mpir_err(MPI_ERR_COUNT, fn, "invalid recvcount %d (must be >= 0)", recvcount));
    long long total = (long long)recvcount * c->dev.size;
    if (total > INT_MAX)
        FAIL(mpir_err(MPI_ERR_COUNT, fn, "recvcount * comm size (%lld) exceeds INT_MAX", total));
    cu_dtype *dt;
    coll_op cop;
    int rc = check_common(fn, sendbuf, recvbuf, (int)total, (size_t)recvcount, datatype, op, 1,
                          1, &dt, &cop);
    if (rc != MPI_SUCCESS)
        FAIL(rc);
    const char *name;
    coll_reduce_scatter_block_fn *f =
        coll_select_reduce_scatter_block(cu_dtype_bytes(dt, (size_t)total), &cop, &c->dev,
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
    int rc = check_common(fn, sendbuf, recvbuf, count, (size_t)count, datatype, op, 1, 1, &dt,
                          &cop);
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
