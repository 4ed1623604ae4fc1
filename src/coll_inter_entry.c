/*
 * coll_inter_entry.c — the collectives on an intercommunicator (MPI-3.1
 * 5.2.2), once for both forms: the blocking entry points call these with
 * request NULL, the nonblocking ones with their request (the schedule is
 * returned, progressed by the progress engine). Blocking, the operations
 * with phases inside a group run their blocking form (which uses the
 * local group's tuned intracommunicator algorithms), the others their
 * schedule to completion. Arguments are checked by the caller
 * (coll_check.c); the algorithms are coll/inter_*.c.
 */
#include <stdlib.h>
#include "src/coll_inter.h"
#include "coll/inter.h"

/* A blocking form's result, reported on c's error handler. */
static int ran(const char *fn, const mpir_comm *c, int rc)
{
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    return mpir_err_comm(c->handle, mpir_err(rc, fn, "intercommunicator algorithm failed "
                                             "(error class %d)", rc & 0xff));
}

int mpir_inter_barrier(const char *fn, mpir_comm *c, MPI_Request *request)
{
    if (!request)
        return ran(fn, c, coll_inter_barrier_run(&c->dev, &c->local_comm->dev));
    coll_sched *s = mpir_nbc_new(c);
    return mpir_nbc_finish(fn, c->handle, s, s ? coll_inter_barrier(s) : 0, request);
}

int mpir_inter_bcast(const char *fn, mpir_comm *c, void *buf, int count, const cu_dtype *dt,
                     int root, MPI_Request *request)
{
    if (!request)
        return ran(fn, c, coll_inter_bcast_run(buf, (size_t)count, dt, root, &c->dev,
                                               &c->local_comm->dev));
    coll_sched *s = mpir_nbc_typed(c, dt, NULL, NULL);
    return mpir_nbc_finish(fn, c->handle, s,
                           s ? coll_inter_bcast(s, buf, (size_t)count, dt, root) : 0, request);
}

int mpir_inter_gather(const char *fn, mpir_comm *c, const void *sbuf, int scount,
                      const cu_dtype *sdt, void *rbuf, const int *rcounts, const int *displs,
                      int rcount, const cu_dtype *rdt, int root, MPI_Request *request)
{
    coll_sched *s = mpir_nbc_typed(c, sdt, rdt, NULL);
    return mpir_nbc_finish(fn, c->handle, s,
                           s ? coll_inter_gather(s, sbuf, (size_t)scount, sdt, rbuf, rcounts,
                                                 displs, (size_t)rcount, rdt, root) : 0,
                           request);
}

int mpir_inter_scatter(const char *fn, mpir_comm *c, const void *sbuf, const int *scounts,
                       const int *displs, int scount, const cu_dtype *sdt, void *rbuf,
                       int rcount, const cu_dtype *rdt, int root, MPI_Request *request)
{
    coll_sched *s = mpir_nbc_typed(c, sdt, rdt, NULL);
    return mpir_nbc_finish(fn, c->handle, s,
                           s ? coll_inter_scatter(s, sbuf, scounts, displs, (size_t)scount, sdt,
                                                  rbuf, (size_t)rcount, rdt, root) : 0,
                           request);
}

int mpir_inter_allgather(const char *fn, mpir_comm *c, const void *sbuf, int scount,
                         const cu_dtype *sdt, void *rbuf, const int *rcounts, const int *displs,
                         int rcount, const cu_dtype *rdt, MPI_Request *request)
{
    coll_sched *s = mpir_nbc_typed(c, sdt, rdt, NULL);
    return mpir_nbc_finish(fn, c->handle, s,
                           s ? coll_inter_allgather(s, sbuf, (size_t)scount, sdt, rbuf, rcounts,
                                                    displs, (size_t)rcount, rdt) : 0,
                           request);
}

int mpir_inter_reduce(const char *fn, mpir_comm *c, const void *sbuf, void *rbuf, int count,
                      const cu_dtype *dt, const coll_op *op, int root, MPI_Request *request)
{
    if (!request)
        return ran(fn, c, coll_inter_reduce_run(sbuf, rbuf, (size_t)count, dt, op, root,
                                                &c->dev, &c->local_comm->dev));
    coll_sched *s = mpir_nbc_typed(c, dt, NULL, op);
    return mpir_nbc_finish(fn, c->handle, s,
                           s ? coll_inter_reduce(s, sbuf, rbuf, (size_t)count, dt, root) : 0,
                           request);
}

int mpir_inter_allreduce(const char *fn, mpir_comm *c, const void *sbuf, void *rbuf, int count,
                         const cu_dtype *dt, const coll_op *op, MPI_Request *request)
{
    if (!request)
        return ran(fn, c, coll_inter_allreduce_run(sbuf, rbuf, (size_t)count, dt, op, &c->dev,
                                                   &c->local_comm->dev));
    coll_sched *s = mpir_nbc_typed(c, dt, NULL, op);
    return mpir_nbc_finish(fn, c->handle, s,
                           s ? coll_inter_allreduce(s, sbuf, rbuf, (size_t)count, dt) : 0,
                           request);
}

int mpir_inter_reduce_scatter(const char *fn, mpir_comm *c, const void *sbuf, void *rbuf,
                              const int *rcounts, int rcount, const cu_dtype *dt,
                              const coll_op *op, MPI_Request *request)
{
    int n = c->group->size, rc = 0;
    if (!request) {
        int *counts = rcounts ? NULL : malloc((size_t)n * sizeof(int));
        for (int i = 0; counts && i < n; i++)
            counts[i] = rcount;
        rc = rcounts || counts ? coll_inter_reduce_scatter_run(sbuf, rbuf,
                                                               rcounts ? rcounts : counts, dt,
                                                               op, &c->dev,
                                                               &c->local_comm->dev)
                               : MPI_ERR_NO_MEM;
        free(counts);
        return ran(fn, c, rc);
    }
    coll_sched *s = mpir_nbc_typed(c, dt, NULL, op);
    int *counts = s && !rcounts ? coll_sched_bytes(s, (size_t)n * sizeof(int)) : NULL;
    for (int i = 0; counts && i < n; i++)
        counts[i] = rcount;
    if (s && (rcounts || counts))
        rc = coll_inter_reduce_scatter(s, sbuf, rbuf, rcounts ? rcounts : counts, dt);
    return mpir_nbc_finish(fn, c->handle, s, rc, request);
}
