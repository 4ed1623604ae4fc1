/*
 * inter_gather.c — Gather(v) and Scatter(v) on an intercommunicator (and
 * their nonblocking forms): linear, the root posting one receive (send)
 * per remote rank at once, each remote rank one send (receive).
 */
#include "coll/inter.h"
#include "coll/coll_impl.h"

int coll_inter_gather(coll_sched *s, const void *sbuf, size_t scount, const cu_dtype *sdt,
                      void *rbuf, const int *rcounts, const int *displs, size_t rcount,
                      const cu_dtype *rdt, int root)
{
    if (root == MPI_ROOT) {
        for (int i = 0; i < coll_sched_comm(s)->size; i++)
            coll_sched_recv(s, coll_blk(rbuf, displs, rcount, i, rdt),
                            coll_blk_count(rcounts, rcount, i), rdt, i);
    } else if (root != MPI_PROC_NULL) {
        coll_sched_send(s, sbuf, scount, sdt, root);
    }
    return coll_sched_failed(s);
}

int coll_inter_scatter(coll_sched *s, const void *sbuf, const int *scounts, const int *displs,
                       size_t scount, const cu_dtype *sdt, void *rbuf, size_t rcount,
                       const cu_dtype *rdt, int root)
{
    if (root == MPI_ROOT) {
        for (int i = 0; i < coll_sched_comm(s)->size; i++)
            coll_sched_send(s, coll_blk(sbuf, displs, scount, i, sdt),
                            coll_blk_count(scounts, scount, i), sdt, i);
    } else if (root != MPI_PROC_NULL) {
        coll_sched_recv(s, rbuf, rcount, rdt, root);
    }
    return coll_sched_failed(s);
}
