/*
 * coll_entry.c — the data-movement collectives: MPI_Barrier, Bcast,
 * Gather(v), Scatter(v), Allgather(v), Alltoall(v,w). Each checks its
 * arguments (everything detectable locally: communicator, root, counts,
 * types, buffers, MPI_IN_PLACE misuse and send/receive buffer aliasing,
 * size mismatches of this rank's own blocks), asks coll/select.c for the
 * algorithm, and runs it. The reductions live in src/coll_reduce_entry.c.
 */
#include <stdlib.h>
#include "src/core.h"
#include "coll/select.h"

/* count, type and buffer of one argument triple */
static int chk(const char *fn, const char *cname, int count, const char *tname, MPI_Datatype t,
               const char *bname, const void *buf, cu_dtype **dt)
{
    int rc = mpir_check_count(fn, cname, count);
    if (rc == MPI_SUCCESS)
        rc = mpir_check_dtype(fn, tname, t, dt);
    if (rc == MPI_SUCCESS)
        rc = mpir_check_buf(fn, bname, buf, count, *dt);
    return rc;
}

static int chk_root(const char *fn, const mpir_comm *c, int root)
{
    if (root < 0 || root >= c->dev.size)
        return mpir_err(MPI_ERR_ROOT, fn, "invalid root %d (comm size %d)", root, c->dev.size);
    return MPI_SUCCESS;
}

/* sendbuf and recvbuf must not be the same memory where MPI_IN_PLACE is
 * the way to say so */
static int chk_alias(const char *fn, const void *s, size_t sbytes, const void *r, size_t rbytes)
{
    if (s && s == r && sbytes && rbytes)
        return mpir_err(MPI_ERR_BUFFER, fn, "sendbuf and recvbuf are the same buffer "
                        "(use MPI_IN_PLACE)");
    return MPI_SUCCESS;
}

/* this rank's own block: what it sends must be what it receives */
static int chk_match(const char *fn, size_t sbytes, size_t rbytes, const char *what)
{
    if (sbytes != rbytes)
        return mpir_err(sbytes > rbytes ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT, fn,
                        "send size %zu bytes differs from receive size %zu bytes%s", sbytes,
                        rbytes, what);
    return MPI_SUCCESS;
}

/* counts and displacements arrays of the v/w forms */
static int chk_counts(const char *fn, const char *cname, const int *counts, const char *dname,
                      const int *displs, int n)
{
    if (!counts)
        return mpir_err(MPI_ERR_ARG, fn, "%s is NULL", cname);
    if (!displs)
        return mpir_err(MPI_ERR_ARG, fn, "%s is NULL", dname);
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return mpir_err(MPI_ERR_COUNT, fn, "invalid %s[%d] = %d (must be >= 0)", cname, i,
                            counts[i]);
    return MPI_SUCCESS;
}

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
    int rc = chk_root(fn, c, root);
    if (rc == MPI_SUCCESS)
        rc = chk(fn, "count", count, "datatype", datatype, "buffer", buffer, &dt);
    if (rc == MPI_SUCCESS && buffer == MPI_IN_PLACE)
        rc = mpir_err(MPI_ERR_BUFFER, fn, "buffer is MPI_IN_PLACE");
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
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
    cu_dtype *sdt = NULL, *rdt = NULL;
    int rc = chk_root(fn, c, root), isroot = c->dev.rank == root;
    if (rc == MPI_SUCCESS && sendbuf == MPI_IN_PLACE && !isroot)
        rc = mpir_err(MPI_ERR_BUFFER, fn, "sendbuf is MPI_IN_PLACE on a rank other than the root");
    if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE)
        rc = chk(fn, "sendcount", sendcount, "sendtype", sendtype, "sendbuf", sendbuf, &sdt);
    if (rc == MPI_SUCCESS && isroot) {
        rc = chk(fn, "recvcount", recvcount, "recvtype", recvtype, "recvbuf", recvbuf, &rdt);
        if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
            rc = mpir_err(MPI_ERR_BUFFER, fn, "recvbuf is MPI_IN_PLACE");
        if (rc == MPI_SUCCESS && sdt)
            rc = chk_match(fn, cu_dtype_bytes(sdt, (size_t)sendcount),
                           cu_dtype_bytes(rdt, (size_t)recvcount), " at the root");
        if (rc == MPI_SUCCESS && sdt)
            rc = chk_alias(fn, sendbuf, cu_dtype_bytes(sdt, (size_t)sendcount), recvbuf,
                           cu_dtype_bytes(rdt, (size_t)recvcount));
    }
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
    size_t blk = isroot ? cu_dtype_bytes(rdt, (size_t)recvcount)
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
    cu_dtype *sdt = NULL, *rdt = NULL;
    int rc = chk_root(fn, c, root), isroot = c->dev.rank == root, me = c->dev.rank;
    if (rc == MPI_SUCCESS && sendbuf == MPI_IN_PLACE && !isroot)
        rc = mpir_err(MPI_ERR_BUFFER, fn, "sendbuf is MPI_IN_PLACE on a rank other than the root");
    if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE)
        rc = chk(fn, "sendcount", sendcount, "sendtype", sendtype, "sendbuf", sendbuf, &sdt);
    if (rc == MPI_SUCCESS && isroot) {
        rc = chk_counts(fn, "recvcounts", recvcounts, "displs", displs, c->dev.size);
        if (rc == MPI_SUCCESS)
            rc = mpir_check_dtype(fn, "recvtype", recvtype, &rdt);
        if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
            rc = mpir_err(MPI_ERR_BUFFER, fn, "recvbuf is MPI_IN_PLACE");
        if (rc == MPI_SUCCESS && sdt)
            rc = chk_match(fn, cu_dtype_bytes(sdt, (size_t)sendcount),
                           cu_dtype_bytes(rdt, (size_t)recvcounts[me]), " at the root");
        if (rc == MPI_SUCCESS && sdt && sendbuf ==
            (const char *)recvbuf + (ptrdiff_t)displs[me] * rdt->extent)
            rc = chk_alias(fn, sendbuf, cu_dtype_bytes(sdt, (size_t)sendcount), sendbuf,
                           cu_dtype_bytes(rdt, (size_t)recvcounts[me]));
    }
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
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
    cu_dtype *sdt = NULL, *rdt = NULL;
    int rc = chk_root(fn, c, root), isroot = c->dev.rank == root;
    if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE && !isroot)
        rc = mpir_err(MPI_ERR_BUFFER, fn, "recvbuf is MPI_IN_PLACE on a rank other than the root");
    if (rc == MPI_SUCCESS && recvbuf != MPI_IN_PLACE)
        rc = chk(fn, "recvcount", recvcount, "recvtype", recvtype, "recvbuf", recvbuf, &rdt);
    if (rc == MPI_SUCCESS && isroot) {
        rc = chk(fn, "sendcount", sendcount, "sendtype", sendtype, "sendbuf", sendbuf, &sdt);
        if (rc == MPI_SUCCESS && sendbuf == MPI_IN_PLACE)
            rc = mpir_err(MPI_ERR_BUFFER, fn, "sendbuf is MPI_IN_PLACE");
        if (rc == MPI_SUCCESS && rdt)
            rc = chk_match(fn, cu_dtype_bytes(sdt, (size_t)sendcount),
                           cu_dtype_bytes(rdt, (size_t)recvcount), " at the root");
        if (rc == MPI_SUCCESS && rdt)
            rc = chk_alias(fn, sendbuf, cu_dtype_bytes(sdt, (size_t)sendcount), recvbuf,
                           cu_dtype_bytes(rdt, (size_t)recvcount));
    }
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
    size_t blk = isroot ? cu_dtype_bytes(sdt, (size_t)sendcount)
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
    cu_dtype *sdt = NULL, *rdt = NULL;
    int rc = chk_root(fn, c, root), isroot = c->dev.rank == root, me = c->dev.rank;
    if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE && !isroot)
        rc = mpir_err(MPI_ERR_BUFFER, fn, "recvbuf is MPI_IN_PLACE on a rank other than the root");
    if (rc == MPI_SUCCESS && recvbuf != MPI_IN_PLACE)
        rc = chk(fn, "recvcount", recvcount, "recvtype", recvtype, "recvbuf", recvbuf, &rdt);
    if (rc == MPI_SUCCESS && isroot) {
        rc = chk_counts(fn, "sendcounts", sendcounts, "displs", displs, c->dev.size);
        if (rc == MPI_SUCCESS)
            rc = mpir_check_dtype(fn, "sendtype", sendtype, &sdt);
        if (rc == MPI_SUCCESS && sendbuf == MPI_IN_PLACE)
            rc = mpir_err(MPI_ERR_BUFFER, fn, "sendbuf is MPI_IN_PLACE");
        if (rc == MPI_SUCCESS && rdt)
            rc = chk_match(fn, cu_dtype_bytes(sdt, (size_t)sendcounts[me]),
                           cu_dtype_bytes(rdt, (size_t)recvcount), " at the root");
        if (rc == MPI_SUCCESS && rdt &&
            recvbuf == (const char *)sendbuf + (ptrdiff_t)displs[me] * sdt->extent)
            rc = chk_alias(fn, recvbuf, cu_dtype_bytes(sdt, (size_t)sendcounts[me]), recvbuf,
                           cu_dtype_bytes(rdt, (size_t)recvcount));
    }
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
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
    cu_dtype *sdt = NULL, *rdt;
    int rc = MPI_SUCCESS;
    if (sendbuf != MPI_IN_PLACE)
        rc = chk(fn, "sendcount", sendcount, "sendtype", sendtype, "sendbuf", sendbuf, &sdt);
    if (rc == MPI_SUCCESS)
        rc = chk(fn, "recvcount", recvcount, "recvtype", recvtype, "recvbuf", recvbuf, &rdt);
    if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
        rc = mpir_err(MPI_ERR_BUFFER, fn, "recvbuf is MPI_IN_PLACE");
    if (rc == MPI_SUCCESS && sdt)
        rc = chk_match(fn, cu_dtype_bytes(sdt, (size_t)sendcount),
                       cu_dtype_bytes(rdt, (size_t)recvcount), "");
    if (rc == MPI_SUCCESS && sdt)
        rc = chk_alias(fn, sendbuf, cu_dtype_bytes(sdt, (size_t)sendcount), recvbuf,
                       cu_dtype_bytes(rdt, (size_t)recvcount));
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
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
    cu_dtype *sdt = NULL, *rdt;
    int me = c->dev.rank, rc = MPI_SUCCESS;
    if (sendbuf != MPI_IN_PLACE)
        rc = chk(fn, "sendcount", sendcount, "sendtype", sendtype, "sendbuf", sendbuf, &sdt);
    if (rc == MPI_SUCCESS)
        rc = chk_counts(fn, "recvcounts", recvcounts, "displs", displs, c->dev.size);
    if (rc == MPI_SUCCESS)
        rc = mpir_check_dtype(fn, "recvtype", recvtype, &rdt);
    if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
        rc = mpir_err(MPI_ERR_BUFFER, fn, "recvbuf is MPI_IN_PLACE");
    if (rc == MPI_SUCCESS && sdt)
        rc = chk_match(fn, cu_dtype_bytes(sdt, (size_t)sendcount),
                       cu_dtype_bytes(rdt, (size_t)recvcounts[me]), "");
    if (rc == MPI_SUCCESS && sdt &&
        sendbuf == (const char *)recvbuf + (ptrdiff_t)displs[me] * rdt->extent)
        rc = chk_alias(fn, sendbuf, cu_dtype_bytes(sdt, (size_t)sendcount), sendbuf,
                       cu_dtype_bytes(rdt, (size_t)recvcounts[me]));
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
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
    cu_dtype *sdt = NULL, *rdt;
    int rc = MPI_SUCCESS;
    if (sendbuf != MPI_IN_PLACE)
        rc = chk(fn, "sendcount", sendcount, "sendtype", sendtype, "sendbuf", sendbuf, &sdt);
    if (rc == MPI_SUCCESS)
        rc = chk(fn, "recvcount", recvcount, "recvtype", recvtype, "recvbuf", recvbuf, &rdt);
    if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
        rc = mpir_err(MPI_ERR_BUFFER, fn, "recvbuf is MPI_IN_PLACE");
    if (rc == MPI_SUCCESS && sdt)
        rc = chk_match(fn, cu_dtype_bytes(sdt, (size_t)sendcount),
                       cu_dtype_bytes(rdt, (size_t)recvcount), " per block");
    if (rc == MPI_SUCCESS && sdt)
        rc = chk_alias(fn, sendbuf, cu_dtype_bytes(sdt, (size_t)sendcount), recvbuf,
                       cu_dtype_bytes(rdt, (size_t)recvcount));
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
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
    cu_dtype *sdt = NULL, *rdt;
    int p = c->dev.size, me = c->dev.rank, rc = MPI_SUCCESS;
    if (sendbuf != MPI_IN_PLACE) {
        rc = chk_counts(fn, "sendcounts", sendcounts, "sdispls", sdispls, p);
        if (rc == MPI_SUCCESS)
            rc = mpir_check_dtype(fn, "sendtype", sendtype, &sdt);
    }
    if (rc == MPI_SUCCESS)
        rc = chk_counts(fn, "recvcounts", recvcounts, "rdispls", rdispls, p);
    if (rc == MPI_SUCCESS)
        rc = mpir_check_dtype(fn, "recvtype", recvtype, &rdt);
    if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
        rc = mpir_err(MPI_ERR_BUFFER, fn, "recvbuf is MPI_IN_PLACE");
    if (rc == MPI_SUCCESS && sdt)
        rc = chk_match(fn, cu_dtype_bytes(sdt, (size_t)sendcounts[me]),
                       cu_dtype_bytes(rdt, (size_t)recvcounts[me]), " for this rank's own block");
    if (rc == MPI_SUCCESS && sdt) {
        size_t sb = 0, rb = 0;
        for (int i = 0; i < p; i++) {
            sb += cu_dtype_bytes(sdt, (size_t)sendcounts[i]);
            rb += cu_dtype_bytes(rdt, (size_t)recvcounts[i]);
        }
        rc = chk_alias(fn, sendbuf, sb, recvbuf, rb);
    }
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
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
    int p = c->dev.size, me = c->dev.rank, rc = MPI_SUCCESS, inplace = sendbuf == MPI_IN_PLACE;
    cu_dtype **dts = calloc((size_t)p * 2, sizeof *dts);
    if (!dts)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    cu_dtype **sdts = dts, **rdts = dts + p;
    if (!inplace) {
        rc = chk_counts(fn, "sendcounts", sendcounts, "sdispls", sdispls, p);
        if (rc == MPI_SUCCESS && !sendtypes)
            rc = mpir_err(MPI_ERR_ARG, fn, "sendtypes is NULL");
        for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
            rc = mpir_check_dtype(fn, "sendtypes[i]", sendtypes[i], &sdts[i]);
    }
    if (rc == MPI_SUCCESS)
        rc = chk_counts(fn, "recvcounts", recvcounts, "rdispls", rdispls, p);
    if (rc == MPI_SUCCESS && !recvtypes)
        rc = mpir_err(MPI_ERR_ARG, fn, "recvtypes is NULL");
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
        rc = mpir_check_dtype(fn, "recvtypes[i]", recvtypes[i], &rdts[i]);
    if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
        rc = mpir_err(MPI_ERR_BUFFER, fn, "recvbuf is MPI_IN_PLACE");
    if (rc == MPI_SUCCESS && !inplace)
        rc = chk_match(fn, cu_dtype_bytes(sdts[me], (size_t)sendcounts[me]),
                       cu_dtype_bytes(rdts[me], (size_t)recvcounts[me]),
                       " for this rank's own block");
    if (rc == MPI_SUCCESS && !inplace) {
        size_t sb = 0, rb = 0;
        for (int i = 0; i < p; i++) {
            sb += cu_dtype_bytes(sdts[i], (size_t)sendcounts[i]);
            rb += cu_dtype_bytes(rdts[i], (size_t)recvcounts[i]);
        }
        rc = chk_alias(fn, sendbuf, sb, recvbuf, rb);
    }
    if (rc != MPI_SUCCESS) {
        free(dts);
        return mpir_err_comm(comm, rc);
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
