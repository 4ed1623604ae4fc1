/*
 * inter_bcast.c — Bcast on an intercommunicator (and Ibcast): the root
 * sends to rank 0 of the remote group, which broadcasts on its group's
 * intracommunicator.
 */
#include "coll/inter.h"

int coll_inter_bcast(coll_sched *s, void *buf, size_t count, const cu_dtype *dt, int root)
{
    if (root == MPI_PROC_NULL)
        return coll_sched_failed(s);
    if (root == MPI_ROOT) {
        coll_sched_send(s, buf, count, dt, 0);
        return coll_sched_failed(s);
    }
    if (coll_sched_comm(s)->rank == 0) {
        coll_sched_recv(s, buf, count, dt, root);
        coll_sched_barrier(s);
    }
    coll_sched_view(s, COLL_VIEW_LOCAL);
    return coll_nbc_bcast(s, buf, count, dt, 0);
}
