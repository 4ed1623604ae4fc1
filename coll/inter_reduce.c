/*
 * inter_reduce.c — Reduce, Allreduce, Reduce_scatter(_block) and Barrier on
 * an intercommunicator (and their nonblocking forms). Each group reduces
 * its vectors onto its rank 0 with the order-keeping intracommunicator
 * tree; the groups' leaders then hand the result across, and, where the
 * whole group wants it, the leader broadcasts or scatters it at home.
 */
#include "coll/inter.h"
#include "coll/coll_impl.h"

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
