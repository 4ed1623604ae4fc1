/*
 * inter_bcast.c — Bcast on an intercommunicator (and Ibcast): the root
 * sends to rank 0 of the remote group, which broadcasts on its group's
 * intracommunicator.
 */
#include "coll/inter.h"
#include "coll/coll_impl.h"
#include "coll/select.h"

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

int coll_inter_bcast_run(void *buf, size_t count, const cu_dtype *dt, int root,
                         const mpid_comm *inter, const mpid_comm *local)
{
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (root == MPI_ROOT)
        return coll_send(buf, count, dt, 0, COLL_TAG_INTER, inter);
    int rc = local->rank == 0 ? coll_recv(buf, count, dt, root, COLL_TAG_INTER, inter)
                              : MPI_SUCCESS;
    const char *name;
    coll_bcast_fn *f = coll_select_bcast(cu_dtype_bytes(dt, count), local, &name);
    if (rc == MPI_SUCCESS)
        rc = f ? f(buf, count, dt, 0, local) : MPI_ERR_ARG;
    return rc;
}
