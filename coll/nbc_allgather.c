/*
 * nbc_allgather.c — Iallgather(v) (ring, linear) and Ialltoall(v,w)
 * (linear) as schedules.
 */
#include "coll/sched.h"
#include "coll/coll_impl.h"

/* Block i of the result (rcounts NULL: the plain form). */
#define CNT(i) (rcounts ? (size_t)rcounts[i] : rcount)
#define BLK(i) ((char *)rbuf + (displs ? (ptrdiff_t)displs[i] : (ptrdiff_t)(i) * (ptrdiff_t)rcount) \
                                   * rdt->extent)

/* Ring: p - 1 rounds; in round k each rank passes on the block it received
 * in round k - 1 (its own first) and receives the next one from the left.
 * Blocks go straight between the receive buffers. rcounts NULL: the plain
 * form. */
int coll_nbc_allgather(coll_sched *s, const void *sbuf, size_t scount, const cu_dtype *sdt,
                       void *rbuf, const int *rcounts, const int *displs, size_t rcount,
                       const cu_dtype *rdt)
{
    const mpid_comm *c = coll_sched_comm(s);
    int p = c->size, me = c->rank, left = (me - 1 + p) % p, right = (me + 1) % p;
    if (sbuf != MPI_IN_PLACE)
        coll_sched_copy(s, sbuf, scount, sdt, BLK(me), CNT(me), rdt);
    for (int k = 0; k < p - 1; k++) {
        int sb = (me - k + p) % p, rb = (me - k - 1 + p) % p;
        coll_sched_recv(s, BLK(rb), CNT(rb), rdt, left);
        coll_sched_send(s, BLK(sb), CNT(sb), rdt, right);
        coll_sched_barrier(s);
    }
    return coll_sched_failed(s);
}

/* Linear: one round, every block sent straight to every rank. p - 1
 * messages in and out per rank, but no rank waits on a chain of others:
 * for small blocks, and for oversubscribed cores where each ring step
 * waits for a descheduled neighbour. */
int coll_nbc_allgather_linear(coll_sched *s, const void *sbuf, size_t scount,
                              const cu_dtype *sdt, void *rbuf, const int *rcounts,
                              const int *displs, size_t rcount, const cu_dtype *rdt)
{
    const mpid_comm *c = coll_sched_comm(s);
    int p = c->size, me = c->rank;
    if (sbuf != MPI_IN_PLACE)
        coll_sched_copy(s, sbuf, scount, sdt, BLK(me), CNT(me), rdt);   /* runs before the sends */
    for (int k = 1; k < p; k++) {
        int i = (me - k + p) % p;
        coll_sched_recv(s, BLK(i), CNT(i), rdt, i);
    }
    for (int k = 1; k < p; k++)
        coll_sched_send(s, BLK(me), CNT(me), rdt, (me + k) % p);
    return coll_sched_failed(s);
}
#undef CNT
#undef BLK

/* Linear: every receive and send posted at once. MPI_IN_PLACE: the blocks
 * to send are packed out of the receive buffer at the call (the standard
 * lets the operation read them any time before completion), so receiving
 * into it cannot overwrite them. */
int coll_nbc_alltoallw(coll_sched *s, const void *sbuf, const size_t *scounts,
                       const ptrdiff_t *sdispls, const cu_dtype *const *sdts, void *rbuf,
                       const size_t *rcounts, const ptrdiff_t *rdispls,
                       const cu_dtype *const *rdts)
{
    const mpid_comm *c = coll_sched_comm(s);
    int p = c->size, me = c->rank;
    for (int k = 1; k < p; k++) {
        int i = (me - k + p) % p;   /* receive from the left first, as the sends go right */
        coll_sched_recv(s, (char *)rbuf + rdispls[i], rcounts[i], rdts[i], i);
    }
    for (int k = 1; k < p; k++) {
        int i = (me + k) % p;
        if (sbuf == MPI_IN_PLACE) {
            size_t n = cu_dtype_bytes(rdts[i], rcounts[i]);
            char *t = coll_sched_bytes(s, n);
            if (!t)
                break;
            cu_dtype_pack((char *)rbuf + rdispls[i], rcounts[i], rdts[i], 0, t, n);
            coll_sched_send(s, t, n, coll_byte(), i);
        } else {
            coll_sched_send(s, (const char *)sbuf + sdispls[i], scounts[i], sdts[i], i);
        }
    }
    if (sbuf != MPI_IN_PLACE)
        coll_sched_copy(s, (const char *)sbuf + sdispls[me], scounts[me], sdts[me],
                        (char *)rbuf + rdispls[me], rcounts[me], rdts[me]);
    return coll_sched_failed(s);
}
