/*
 * nbc_gather.c — Igather(v) and Iscatter(v) as schedules: linear, the root
 * posting every receive (send) at once, so the transfers overlap.
 * rcounts/scounts NULL means the plain form (count per rank, displacement
 * rank * count).
 */
#include "coll/sched.h"
#include "coll/coll_impl.h"

int coll_nbc_gather(coll_sched *s, const void *sbuf, size_t scount, const cu_dtype *sdt,
                    void *rbuf, const int *rcounts, const int *displs, size_t rcount,
                    const cu_dtype *rdt, int root)
{
    const mpid_comm *c = coll_sched_comm(s);
    if (c->rank != root) {
        coll_sched_send(s, sbuf, scount, sdt, root);
        return coll_sched_failed(s);
    }
    for (int i = 0; i < c->size; i++) {
        char *b = coll_blk(rbuf, displs, rcount, i, rdt);
        if (i != root)
            coll_sched_recv(s, b, coll_blk_count(rcounts, rcount, i), rdt, i);
        else if (sbuf != MPI_IN_PLACE)
            coll_sched_copy(s, sbuf, scount, sdt, b, coll_blk_count(rcounts, rcount, i), rdt);
    }
    return coll_sched_failed(s);
}

int coll_nbc_scatter(coll_sched *s, const void *sbuf, const int *scounts, const int *displs,
                     size_t scount, const cu_dtype *sdt, void *rbuf, size_t rcount,
                     const cu_dtype *rdt, int root)
{
    const mpid_comm *c = coll_sched_comm(s);
    if (c->rank != root) {
        coll_sched_recv(s, rbuf, rcount, rdt, root);
        return coll_sched_failed(s);
    }
    for (int i = 0; i < c->size; i++) {
        const char *b = coll_blk(sbuf, displs, scount, i, sdt);
        if (i != root)
            coll_sched_send(s, b, coll_blk_count(scounts, scount, i), sdt, i);
        else if (rbuf != MPI_IN_PLACE)
            coll_sched_copy(s, b, coll_blk_count(scounts, scount, i), sdt, rbuf, rcount, rdt);
    }
    return coll_sched_failed(s);
}
