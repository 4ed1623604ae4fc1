/*
 * inter_reduce.c — Reduce, Allreduce, Reduce_scatter(_block) and Barrier on
 * an intercommunicator (and their nonblocking forms). Each group reduces
 * its vectors onto its rank 0 in rank order (the schedules: the
 * order-keeping binomial tree; the blocking forms: the algorithm the
 * selection table picks for the local group and the op); the groups'
 * leaders then hand the result across, and, where the whole group wants
 * it, the leader broadcasts or scatters it at home.
 */
#include <stdlib.h>
#include "coll/inter.h"
#include "coll/reduce_impl.h"
#include "coll/select.h"

/* My group's vectors, reduced onto its rank 0 (into a temporary there,
 * returned; NULL elsewhere or when memory ran out, which the schedule
 * remembers). Leaves the schedule on the main view, the reduction done. */
static void *reduce_home(coll_sched *s, const void *sbuf, size_t count, const cu_dtype *dt)
{
    void *acc = coll_sched_comm(s)->rank == 0 ? coll_sched_tmp(s, count, dt) : NULL;
    coll_sched_view(s, COLL_VIEW_LOCAL);
    coll_nbc_reduce(s, sbuf, acc, count, dt, 0);
    coll_sched_barrier(s);
    coll_sched_view(s, COLL_VIEW_MAIN);
    return acc;
}

/* The leaders swap their groups' results: mine out of `mine`, the remote
 * group's into `theirs`. Leaves the schedule on the local view, for the
 * phase at home. */
static void swap_leaders(coll_sched *s, const void *mine, void *theirs, size_t count,
                         const cu_dtype *dt)
{
    if (coll_sched_comm(s)->rank == 0) {
        coll_sched_recv(s, theirs, count, dt, 0);
        coll_sched_send(s, mine, count, dt, 0);
        coll_sched_barrier(s);
    }
    coll_sched_view(s, COLL_VIEW_LOCAL);
}

int coll_inter_reduce(coll_sched *s, const void *sbuf, void *rbuf, size_t count,
                      const cu_dtype *dt, int root)
{
    if (root == MPI_ROOT) {
        coll_sched_recv(s, rbuf, count, dt, 0);
    } else if (root != MPI_PROC_NULL) {
        void *acc = reduce_home(s, sbuf, count, dt);
        if (acc)
            coll_sched_send(s, acc, count, dt, root);
    }
    return coll_sched_failed(s);
}

int coll_inter_allreduce(coll_sched *s, const void *sbuf, void *rbuf, size_t count,
                         const cu_dtype *dt)
{
    void *acc = reduce_home(s, sbuf, count, dt);
    if (coll_sched_failed(s))
        return coll_sched_failed(s);
    swap_leaders(s, acc, rbuf, count, dt);
    return coll_nbc_bcast(s, rbuf, count, dt, 0);
}

/* No rank leaves before every rank of both groups has come: an allreduce
 * of nothing (each group's fan-in to its leader, the leaders' exchange, the
 * fan-out). */
int coll_inter_barrier(coll_sched *s)
{
    return coll_inter_allreduce(s, NULL, NULL, 0, coll_byte());
}

int coll_inter_reduce_scatter(coll_sched *s, const void *sbuf, void *rbuf, const int *rcounts,
                              const cu_dtype *dt)
{
    coll_sched_view(s, COLL_VIEW_LOCAL);
    int n = coll_sched_comm(s)->size, me = coll_sched_comm(s)->rank;
    int *displs = coll_sched_bytes(s, (size_t)n * sizeof(int));
    if (!displs)
        return coll_sched_failed(s);
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        displs[i] = (int)total;
        total += (size_t)rcounts[i];
    }
    void *acc = reduce_home(s, sbuf, total, dt);
    void *res = me == 0 ? coll_sched_tmp(s, total, dt) : NULL;
    if (coll_sched_failed(s))
        return coll_sched_failed(s);
    swap_leaders(s, acc, res, total, dt);
    return coll_nbc_scatter(s, res, rcounts, displs, 0, dt, rbuf, (size_t)rcounts[me], dt, 0);
}

/* ---- blocking forms ------------------------------------------------------ */

/* My group's vectors reduced onto its rank 0 by the algorithm the table
 * picks for the local group: *res is the result there (in acc, which the
 * caller frees, or sbuf itself when the group is only me), NULL elsewhere. */
static int reduce_home_run(const void *sbuf, coll_tmp *acc, size_t count, const cu_dtype *dt,
                           const coll_op *op, const mpid_comm *local, const void **res)
{
    *res = local->size == 1 ? sbuf : NULL;
    if (local->size == 1)
        return MPI_SUCCESS;
    int rc = local->rank == 0 ? coll_tmp_alloc(acc, count, dt) : MPI_SUCCESS;
    const char *name;
    coll_reduce_fn *f = coll_select_reduce(cu_dtype_bytes(dt, count), op, local, &name);
    if (rc == MPI_SUCCESS)
        rc = f ? f(sbuf, acc->buf, count, dt, op, 0, local) : MPI_ERR_ARG;
    if (local->rank == 0)
        *res = acc->buf;
    return rc;
}

/* The leaders swap their groups' results (the others wait for nothing). */
static int swap_leaders_run(const void *mine, void *theirs, size_t count, const cu_dtype *dt,
                            const mpid_comm *inter)
{
    if (inter->rank != 0)
        return MPI_SUCCESS;
    return coll_sendrecv(mine, count, dt, 0, theirs, count, dt, 0, COLL_TAG_INTER, inter);
}

int coll_inter_barrier_run(const mpid_comm *inter, const mpid_comm *local)
{
    /* Every local rank has come once the first barrier ends, the remote
     * group's too once the leaders have swapped word; the second barrier
     * holds my group until its leader has. */
    const char *name;
    coll_barrier_fn *f = coll_select_barrier(local, &name);
    if (!f)
        return MPI_ERR_ARG;
    int rc = f(local);
    if (rc == MPI_SUCCESS)
        rc = swap_leaders_run(NULL, NULL, 0, coll_byte(), inter);
    return rc == MPI_SUCCESS ? f(local) : rc;
}

int coll_inter_reduce_run(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                          const coll_op *op, int root, const mpid_comm *inter,
                          const mpid_comm *local)
{
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (root == MPI_ROOT)
        return coll_recv(rbuf, count, dt, 0, COLL_TAG_INTER, inter);
    coll_tmp acc = { 0 };
    const void *mine;
    int rc = reduce_home_run(sbuf, &acc, count, dt, op, local, &mine);
    if (rc == MPI_SUCCESS && local->rank == 0)
        rc = coll_send(mine, count, dt, root, COLL_TAG_INTER, inter);
    coll_tmp_free(&acc);
    return rc;
}

int coll_inter_allreduce_run(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                             const coll_op *op, const mpid_comm *inter, const mpid_comm *local)
{
    coll_tmp acc = { 0 };
    const void *mine;
    int rc = reduce_home_run(sbuf, &acc, count, dt, op, local, &mine);
    if (rc == MPI_SUCCESS)
        rc = swap_leaders_run(mine, rbuf, count, dt, inter);
    coll_tmp_free(&acc);
    const char *name;
    coll_bcast_fn *f = coll_select_bcast(cu_dtype_bytes(dt, count), local, &name);
    if (rc == MPI_SUCCESS)
        rc = f ? f(rbuf, count, dt, 0, local) : MPI_ERR_ARG;
    return rc;
}

int coll_inter_reduce_scatter_run(const void *sbuf, void *rbuf, const int *rcounts,
                                  const cu_dtype *dt, const coll_op *op,
                                  const mpid_comm *inter, const mpid_comm *local)
{
    int n = local->size, me = local->rank;
    int *displs = malloc((size_t)n * sizeof(int));
    if (!displs)
        return MPI_ERR_NO_MEM;
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        displs[i] = (int)total;
        total += (size_t)rcounts[i];
    }
    coll_tmp acc = { 0 }, res = { 0 };
    const void *mine = NULL;
    int rc = me == 0 ? coll_tmp_alloc(&res, total, dt) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        rc = reduce_home_run(sbuf, &acc, total, dt, op, local, &mine);
    if (rc == MPI_SUCCESS)
        rc = swap_leaders_run(mine, res.buf, total, dt, inter);
    const char *name;
    coll_scatterv_fn *f = coll_select_scatterv(local, &name);
    if (rc == MPI_SUCCESS)
        rc = f ? f(res.buf, rcounts, displs, dt, rbuf, (size_t)rcounts[me], dt, 0, local)
               : MPI_ERR_ARG;
    coll_tmp_free(&acc);
    coll_tmp_free(&res);
    free(displs);
    return rc;
}
