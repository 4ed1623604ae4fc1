/*
 * inter_alltoall.c — Allgather(v) and Alltoall(v,w) on an intercommunicator
 * (and their nonblocking forms): every rank exchanges straight with every
 * rank of the remote group, all in one round. Rank i starts with remote
 * rank i (mod the remote size), so the first messages spread over the
 * remote group instead of all reaching its rank 0.
 */
#include "coll/inter.h"
#include "coll/coll_impl.h"

int coll_inter_allgather(coll_sched *s, const void *sbuf, size_t scount, const cu_dtype *sdt,
                         void *rbuf, const int *rcounts, const int *displs, size_t rcount,
                         const cu_dtype *rdt)
{
    const mpid_comm *c = coll_sched_comm(s);
    int p = c->size;
    for (int k = 0; k < p; k++) {
        int i = (c->rank + k) % p;
        coll_sched_recv(s, coll_blk(rbuf, displs, rcount, i, rdt),
                        coll_blk_count(rcounts, rcount, i), rdt, i);
        coll_sched_send(s, sbuf, scount, sdt, i);
    }
    return coll_sched_failed(s);
}

int coll_inter_alltoallw(coll_sched *s, const void *sbuf, const size_t *scounts,
                         const ptrdiff_t *sdispls, const cu_dtype *const *sdts, void *rbuf,
                         const size_t *rcounts, const ptrdiff_t *rdispls,
                         const cu_dtype *const *rdts)
{
    const mpid_comm *c = coll_sched_comm(s);
    int p = c->size;
    for (int k = 0; k < p; k++) {
        int i = (c->rank + k) % p;
        coll_sched_recv(s, (char *)rbuf + rdispls[i], rcounts[i], rdts[i], i);
        coll_sched_send(s, (const char *)sbuf + sdispls[i], scounts[i], sdts[i], i);
    }
    return coll_sched_failed(s);
}
