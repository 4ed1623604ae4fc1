/*
 * coll_nb_entry.c — the nonblocking collectives: MPI_Ibarrier, Ibcast,
 * Igather(v), Iscatter(v), Iallgather(v), Ialltoall(v,w), Ireduce,
 * Iallreduce, Ireduce_scatter(_block), Iscan, Iexscan. Each runs the
 * checks of its blocking sibling (coll_check.c), builds a schedule
 * (coll/nbc_*.c) that holds on to the datatypes, and returns it as a
 * request progressed by the ordinary progress engine.
 *
 * On an intercommunicator each runs the schedule of its intercommunicator
 * form (coll_inter_entry.c), which the blocking call runs too.
 *
 * Operations on one communicator are numbered (an attribute holds the
 * counter: MPI_Comm_dup does not copy it, Comm_free drops it), and the
 * number picks the operation's tags, so any number may be outstanding.
 */
#include <stdint.h>
#include <stdlib.h>
#include "src/coll_inter.h"
#include "coll/inter.h"
#include "coll/select.h"
#include "src/pt2pt.h"

static int seq_keyval = MPI_KEYVAL_INVALID;

coll_sched *mpir_nbc_new(mpir_comm *c)
{
    MPI_Comm comm = c->handle;
    if (seq_keyval == MPI_KEYVAL_INVALID &&
        mpir_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &seq_keyval,
                                NULL) != MPI_SUCCESS)
        return NULL;
    void *v = NULL;
    int flag = 0;
    mpir_Comm_get_attr(comm, seq_keyval, &v, &flag);
    uintptr_t seq = flag ? (uintptr_t)v : 0;
    if (mpir_Comm_set_attr(comm, seq_keyval, (void *)(seq + 1)) != MPI_SUCCESS)
        return NULL;
    coll_sched *s = coll_sched_new(&c->dev, coll_nbc_tag((unsigned)seq));
    if (s && c->is_inter)
        coll_sched_add_local(s, &c->local_comm->dev);
    return s;
}

static int build_failed(const char *fn, MPI_Comm comm, coll_sched *s, int rc)
{
    coll_sched_free(s);
    return mpir_err_comm(comm, mpir_err(rc ? rc : MPI_ERR_NO_MEM, fn,
                                        "could not set up the operation (error class %d)",
                                        (rc ? rc : MPI_ERR_NO_MEM) & 0xff));
}

int mpir_nbc_start(const char *fn, MPI_Comm comm, coll_sched *s, int rc, MPI_Request *request)
{
    if (!s || rc != MPI_SUCCESS)
        return build_failed(fn, comm, s, rc);
    mpid_request *r;
    if ((rc = coll_sched_start(s, &r)) != MPI_SUCCESS)
        return build_failed(fn, comm, NULL, rc);
    r->mpir_kind = MPIR_REQ_NBC;   /* Request_free and Cancel refuse it */
    return mpir_req_handle(fn, r, comm, request);
}

int mpir_nbc_run(const char *fn, MPI_Comm comm, coll_sched *s, int rc)
{
    if (!s || rc != MPI_SUCCESS)
        return build_failed(fn, comm, s, rc);
    mpid_request *r;
    if ((rc = coll_sched_start(s, &r)) != MPI_SUCCESS)
        return build_failed(fn, comm, NULL, rc);
    mpid_wait(r);
    rc = r->status.MPI_ERROR;
    mpid_request_free(r);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, mpir_err(rc, fn, "communication failed (error class %d)",
                                            rc & 0xff));
    return MPI_SUCCESS;
}

int mpir_nbc_finish(const char *fn, MPI_Comm comm, coll_sched *s, int rc, MPI_Request *request)
{
    return request ? mpir_nbc_start(fn, comm, s, rc, request) : mpir_nbc_run(fn, comm, s, rc);
}

#define CHECKED(rc) do { if ((rc) != MPI_SUCCESS) return mpir_err_comm(comm, (rc)); } while (0)

/* The schedule builder the selection table picks (CLUMPI_COLL_I<OP>
 * overrides it), before the operation draws its number: an unknown name
 * fails the call on every rank alike, with the valid names. */
#define SELECTED(f, select_call)                                                   \
    do {                                                                           \
        const char *name_;                                                         \
        if (!((f) = select_call))                                                  \
            return mpir_err_comm(comm, mpir_err(MPI_ERR_ARG, fn, "%s", name_));    \
    } while (0)

coll_sched *mpir_nbc_typed(mpir_comm *c, const cu_dtype *a, const cu_dtype *b,
                           const coll_op *op)
{
    coll_sched *s = mpir_nbc_new(c);
    if (s) {
        coll_sched_keep(s, a);
        coll_sched_keep(s, b);
        if (op)
            coll_sched_set_op(s, op);
    }
    return s;
}

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Ibarrier";
    mpir_comm *c;
    MPIR_NBC_ENTER(fn, comm, c, request);
    if (c->is_inter)
        return mpir_inter_barrier(fn, c, request);
    coll_nbc_barrier_fn *f;
    SELECTED(f, coll_select_ibarrier(&c->dev, &name_));
    coll_sched *s = mpir_nbc_new(c);
    return mpir_nbc_start(fn, comm, s, s ? f(s) : 0, request);
}
MPIR_WEAK(Ibarrier)

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    static const char fn[] = "MPI_Ibcast";
    mpir_comm *c;
    MPIR_NBC_ENTER(fn, comm, c, request);
    cu_dtype *dt;
    CHECKED(mpir_check_bcast(fn, c, buffer, count, datatype, root, &dt));
    if (c->is_inter)
        return mpir_inter_bcast(fn, c, buffer, count, dt, root, request);
    coll_nbc_bcast_fn *f;
    SELECTED(f, coll_select_ibcast(cu_dtype_bytes(dt, (size_t)count), &c->dev, &name_));
    coll_sched *s = mpir_nbc_typed(c, dt, NULL, NULL);
    return mpir_nbc_start(fn, comm, s, s ? f(s, buffer, (size_t)count, dt, root) : 0, request);
}
MPIR_WEAK(Ibcast)

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    static const char fn[] = "MPI_Igather";
    mpir_comm *c;
    MPIR_NBC_ENTER(fn, comm, c, request);
    cu_dtype *sdt, *rdt;
    CHECKED(mpir_check_gather(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                              root, &sdt, &rdt));
    if (c->is_inter)
        return mpir_inter_gather(fn, c, sendbuf, sendcount, sdt, recvbuf, NULL, NULL, recvcount,
                                 rdt, root, request);
    coll_sched *s = mpir_nbc_typed(c, sdt, rdt, NULL);
    return mpir_nbc_start(fn, comm, s,
                          s ? coll_nbc_gather(s, sendbuf, (size_t)sendcount, sdt, recvbuf, NULL,
                                              NULL, (size_t)recvcount, rdt, root) : 0,
                          request);
}
MPIR_WEAK(Igather)

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Igatherv";
    mpir_comm *c;
    MPIR_NBC_ENTER(fn, comm, c, request);
    cu_dtype *sdt, *rdt;
    CHECKED(mpir_check_gatherv(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                               displs, recvtype, root, &sdt, &rdt));
    if (c->is_inter)
        return mpir_inter_gather(fn, c, sendbuf, sendcount, sdt, recvbuf, recvcounts, displs, 0,
                                 rdt, root, request);
    coll_sched *s = mpir_nbc_typed(c, sdt, rdt, NULL);
    return mpir_nbc_start(fn, comm, s,
                          s ? coll_nbc_gather(s, sendbuf, (size_t)sendcount, sdt, recvbuf,
                                              recvcounts, displs, 0, rdt, root) : 0,
                          request);
}
MPIR_WEAK(Igatherv)

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    static const char fn[] = "MPI_Iscatter";
    mpir_comm *c;
    MPIR_NBC_ENTER(fn, comm, c, request);
    cu_dtype *sdt, *rdt;
    CHECKED(mpir_check_scatter(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                               recvtype, root, &sdt, &rdt));
    if (c->is_inter)
        return mpir_inter_scatter(fn, c, sendbuf, NULL, NULL, sendcount, sdt, recvbuf, recvcount,
                                  rdt, root, request);
    coll_sched *s = mpir_nbc_typed(c, sdt, rdt, NULL);
    return mpir_nbc_start(fn, comm, s,
                          s ? coll_nbc_scatter(s, sendbuf, NULL, NULL, (size_t)sendcount, sdt,
                                               recvbuf, (size_t)recvcount, rdt, root) : 0,
                          request);
}
MPIR_WEAK(Iscatter)

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Iscatterv";
    mpir_comm *c;
    MPIR_NBC_ENTER(fn, comm, c, request);
    cu_dtype *sdt, *rdt;
    CHECKED(mpir_check_scatterv(fn, c, sendbuf, sendcounts, displs, sendtype, recvbuf,
                                recvcount, recvtype, root, &sdt, &rdt));
    if (c->is_inter)
        return mpir_inter_scatter(fn, c, sendbuf, sendcounts, displs, 0, sdt, recvbuf, recvcount,
                                  rdt, root, request);
    coll_sched *s = mpir_nbc_typed(c, sdt, rdt, NULL);
    return mpir_nbc_start(fn, comm, s,
                          s ? coll_nbc_scatter(s, sendbuf, sendcounts, displs, 0, sdt, recvbuf,
                                               (size_t)recvcount, rdt, root) : 0,
                          request);
}
MPIR_WEAK(Iscatterv)

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Iallgather";
    mpir_comm *c;
    MPIR_NBC_ENTER(fn, comm, c, request);
    cu_dtype *sdt, *rdt;
    CHECKED(mpir_check_allgather(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                 recvtype, &sdt, &rdt));
    if (c->is_inter)
        return mpir_inter_allgather(fn, c, sendbuf, sendcount, sdt, recvbuf, NULL, NULL,
                                    recvcount, rdt, request);
    coll_nbc_allgather_fn *f;
    SELECTED(f, coll_select_iallgather(cu_dtype_bytes(rdt, (size_t)recvcount) *
                                       (size_t)c->dev.size, &c->dev, &name_));
    coll_sched *s = mpir_nbc_typed(c, sdt, rdt, NULL);
    return mpir_nbc_start(fn, comm, s,
                          s ? f(s, sendbuf, (size_t)sendcount, sdt, recvbuf, NULL, NULL,
                                (size_t)recvcount, rdt) : 0,
                          request);
}
MPIR_WEAK(Iallgather)

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Iallgatherv";
    mpir_comm *c;
    MPIR_NBC_ENTER(fn, comm, c, request);
    cu_dtype *sdt, *rdt;
    CHECKED(mpir_check_allgatherv(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                  displs, recvtype, &sdt, &rdt));
    if (c->is_inter)
        return mpir_inter_allgather(fn, c, sendbuf, sendcount, sdt, recvbuf, recvcounts, displs,
                                    0, rdt, request);
    size_t total = 0;
    for (int i = 0; i < c->dev.size; i++)
        total += (size_t)recvcounts[i];
    coll_nbc_allgather_fn *f;
    SELECTED(f, coll_select_iallgatherv(cu_dtype_bytes(rdt, total), &c->dev, &name_));
    coll_sched *s = mpir_nbc_typed(c, sdt, rdt, NULL);
    return mpir_nbc_start(fn, comm, s,
                          s ? f(s, sendbuf, (size_t)sendcount, sdt, recvbuf, recvcounts, displs,
                                0, rdt) : 0,
                          request);
}
MPIR_WEAK(Iallgatherv)

int mpir_nbc_alltoall(const char *fn, MPI_Comm comm, mpir_comm *c, const void *sendbuf,
                      int scount, const int *scounts, const int *sdispls, cu_dtype *sdt,
                      cu_dtype *const *sdts, void *recvbuf, int rcount, const int *rcounts,
                      const int *rdispls, cu_dtype *rdt, cu_dtype *const *rdts, int wform,
                      MPI_Request *request)
{
    int p = c->dev.size, rc = 0;
    coll_sched *s = mpir_nbc_new(c);
    size_t *cnt = s ? coll_sched_bytes(s, 2 * (size_t)p * sizeof *cnt) : NULL;
    ptrdiff_t *dsp = s ? coll_sched_bytes(s, 2 * (size_t)p * sizeof *dsp) : NULL;
    const cu_dtype **ty = s ? coll_sched_bytes(s, 2 * (size_t)p * sizeof *ty) : NULL;
    if (s && cnt && dsp && ty) {
        int inplace = sendbuf == MPI_IN_PLACE;
        for (int i = 0; i < p; i++) {
            const cu_dtype *st = inplace ? NULL : sdts ? sdts[i] : sdt;
            const cu_dtype *rt = rdts ? rdts[i] : rdt;
            coll_sched_keep(s, st);
            coll_sched_keep(s, rt);
            ty[i] = st;
            ty[p + i] = rt;
            cnt[i] = inplace ? 0 : scounts ? (size_t)scounts[i] : (size_t)scount;
            cnt[p + i] = rcounts ? (size_t)rcounts[i] : (size_t)rcount;
            ptrdiff_t sd = inplace ? 0 : sdispls ? sdispls[i] : (ptrdiff_t)i * scount;
            ptrdiff_t rd = rdispls ? rdispls[i] : (ptrdiff_t)i * rcount;
            dsp[i] = wform || inplace ? sd : sd * st->extent;
            dsp[p + i] = wform ? rd : rd * rt->extent;
        }
        rc = (c->is_inter ? coll_inter_alltoallw : coll_nbc_alltoallw)(
            s, sendbuf, cnt, dsp, ty, recvbuf, cnt + p, dsp + p, ty + p);
    }
    return mpir_nbc_finish(fn, comm, s, rc, request);
}

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Ialltoall";
    mpir_comm *c;
    MPIR_NBC_ENTER(fn, comm, c, request);
    cu_dtype *sdt, *rdt;
    CHECKED(mpir_check_alltoall(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                recvtype, &sdt, &rdt));
    return mpir_nbc_alltoall(fn, comm, c, sendbuf, sendcount, NULL, NULL, sdt, NULL, recvbuf,
                             recvcount, NULL, NULL, rdt, NULL, 0, request);
}
MPIR_WEAK(Ialltoall)

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    static const char fn[] = "MPI_Ialltoallv";
    mpir_comm *c;
    MPIR_NBC_ENTER(fn, comm, c, request);
    cu_dtype *sdt, *rdt;
    CHECKED(mpir_check_alltoallv(fn, c, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                 recvcounts, rdispls, recvtype, &sdt, &rdt));
    return mpir_nbc_alltoall(fn, comm, c, sendbuf, 0, sendcounts, sdispls, sdt, NULL, recvbuf,
                             0, recvcounts, rdispls, rdt, NULL, 0, request);
}
MPIR_WEAK(Ialltoallv)

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    static const char fn[] = "MPI_Ialltoallw";
    mpir_comm *c;
    MPIR_NBC_ENTER(fn, comm, c, request);
    int p = c->dev.size;
    cu_dtype **dts = calloc((size_t)p * 2, sizeof *dts);
    if (!dts)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    int rc = mpir_check_alltoallw(fn, c, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                  recvcounts, rdispls, recvtypes, dts, dts + p);
    if (rc == MPI_SUCCESS)
        rc = mpir_nbc_alltoall(fn, comm, c, sendbuf, 0, sendcounts, sdispls, NULL, dts, recvbuf,
                               0, recvcounts, rdispls, NULL, dts + p, 1, request);
    else
        rc = mpir_err_comm(comm, rc);
    free(dts);
    return rc;
}
MPIR_WEAK(Ialltoallw)

/* ---- reductions ------------------------------------------------------------ */

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Ireduce";
    mpir_comm *c;
    MPIR_NBC_ENTER(fn, comm, c, request);
    cu_dtype *dt;
    coll_op cop;
    CHECKED(mpir_check_reduce(fn, c, sendbuf, recvbuf, count, datatype, op, root, &dt, &cop));
    if (c->is_inter)
        return mpir_inter_reduce(fn, c, sendbuf, recvbuf, count, dt, &cop, root, request);
    coll_nbc_reduce_fn *f;
    SELECTED(f, coll_select_ireduce(cu_dtype_bytes(dt, (size_t)count), &cop, &c->dev, &name_));
    coll_sched *s = mpir_nbc_typed(c, dt, NULL, &cop);
    return mpir_nbc_start(fn, comm, s,
                          s ? f(s, sendbuf, recvbuf, (size_t)count, dt, root) : 0,
                          request);
}
MPIR_WEAK(Ireduce)

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Iallreduce";
    mpir_comm *c;
    MPIR_NBC_ENTER(fn, comm, c, request);
    cu_dtype *dt;
    coll_op cop;
    CHECKED(mpir_check_allreduce(fn, c, sendbuf, recvbuf, count, datatype, op, &dt, &cop));
    if (c->is_inter)
        return mpir_inter_allreduce(fn, c, sendbuf, recvbuf, count, dt, &cop, request);
    coll_nbc_allreduce_fn *f;
    SELECTED(f, coll_select_iallreduce(cu_dtype_bytes(dt, (size_t)count), &cop, &c->dev,
                                       &name_));
    coll_sched *s = mpir_nbc_typed(c, dt, NULL, &cop);
    return mpir_nbc_start(fn, comm, s,
                          s ? f(s, sendbuf, recvbuf, (size_t)count, dt) : 0,
                          request);
}
MPIR_WEAK(Iallreduce)

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Ireduce_scatter";
    mpir_comm *c;
    MPIR_NBC_ENTER(fn, comm, c, request);
    cu_dtype *dt;
    coll_op cop;
    size_t total;
    CHECKED(mpir_check_reduce_scatter(fn, c, sendbuf, recvbuf, recvcounts, datatype, op, &dt,
                                      &cop, &total));
    if (c->is_inter)
        return mpir_inter_reduce_scatter(fn, c, sendbuf, recvbuf, recvcounts, 0, dt, &cop,
                                         request);
    coll_sched *s = mpir_nbc_typed(c, dt, NULL, &cop);
    return mpir_nbc_start(fn, comm, s,
                          s ? coll_nbc_reduce_scatter(s, sendbuf, recvbuf, recvcounts, dt) : 0,
                          request);
}
MPIR_WEAK(Ireduce_scatter)

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    static const char fn[] = "MPI_Ireduce_scatter_block";
    mpir_comm *c;
    MPIR_NBC_ENTER(fn, comm, c, request);
    cu_dtype *dt;
    coll_op cop;
    size_t total;
    CHECKED(mpir_check_reduce_scatter_block(fn, c, sendbuf, recvbuf, recvcount, datatype, op,
                                            &dt, &cop, &total));
    if (c->is_inter)
        return mpir_inter_reduce_scatter(fn, c, sendbuf, recvbuf, NULL, recvcount, dt, &cop,
                                         request);
    coll_sched *s = mpir_nbc_typed(c, dt, NULL, &cop);
    int rc = 0;
    int *counts = s ? coll_sched_bytes(s, (size_t)c->dev.size * sizeof(int)) : NULL;
    if (counts) {
        for (int i = 0; i < c->dev.size; i++)
            counts[i] = recvcount;
        rc = coll_nbc_reduce_scatter(s, sendbuf, recvbuf, counts, dt);
    }
    return mpir_nbc_start(fn, comm, s, rc, request);
}
MPIR_WEAK(Ireduce_scatter_block)

static int iscan(const char *fn, int exclusive, const void *sendbuf, void *recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    mpir_comm *c;
    MPIR_NBC_ENTER(fn, comm, c, request);
    cu_dtype *dt;
    coll_op cop;
    CHECKED(mpir_check_intra(fn, c));
    CHECKED(mpir_check_allreduce(fn, c, sendbuf, recvbuf, count, datatype, op, &dt, &cop));
    coll_sched *s = mpir_nbc_typed(c, dt, NULL, &cop);
    return mpir_nbc_start(fn, comm, s,
                          s ? coll_nbc_scan(s, sendbuf, recvbuf, (size_t)count, dt, exclusive)
                            : 0,
                          request);
}

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    return iscan("MPI_Iscan", 0, sendbuf, recvbuf, count, datatype, op, comm, request);
}
MPIR_WEAK(Iscan)

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return iscan("MPI_Iexscan", 1, sendbuf, recvbuf, count, datatype, op, comm, request);
}
MPIR_WEAK(Iexscan)
