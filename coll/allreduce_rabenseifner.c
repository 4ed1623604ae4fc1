/*
 * allreduce_rabenseifner.c — Rabenseifner's allreduce: reduce-scatter by
 * recursive halving, then allgather by recursive doubling. 2 log2 p rounds
 * (ring: 2(p-1)) and about 2n bytes sent per rank: the long-message choice
 * when p is large or not a multiple of the ring's sweet spot. Commutative
 * ops only. The halving phase lives in reduce_rabenseifner.c.
 */
#include "coll/reduce_impl.h"

int coll_allreduce_rabenseifner_tag(const void *sbuf, void *rbuf, size_t count,
                                    const cu_dtype *dt, const coll_op *op,
                                    const mpid_comm *comm, int tag)
{
    int p = comm->size, rank = comm->rank, rc;
    const void *mine;
    /* No copy of my operand into rbuf: the halving reads it where it is,
     * and the doubling overwrites every block of rbuf. */
    if (coll_reduce_prologue(sbuf, rbuf, count, dt, comm, &mine, &rc))
        return rc;
    coll_tmp t;
    if ((rc = coll_tmp_alloc(&t, coll_rab_tmp_count(count, comm, mine == rbuf), dt)) != MPI_SUCCESS)
        return rc;
    int nr, pof2;
    rc = coll_rab_reduce_scatter(mine, rbuf, t.buf, count, dt, op, comm, tag, &nr, &pof2);
    int rem = p - pof2;
    for (int mask = 1; rc == MPI_SUCCESS && nr >= 0 && mask < pof2; mask <<= 1) {
        int lo = nr & ~(mask - 1), hi = lo + mask;
        int plo = (nr & mask) ? lo - mask : hi;
        int peer = coll_rab_rank(nr ^ mask, rem);
        size_t s = coll_block_start(count, pof2, lo);
        size_t n = coll_block_start(count, pof2, hi) - s;
        size_t ps = coll_block_start(count, pof2, plo);
        size_t pn = coll_block_start(count, pof2, plo + mask) - ps;
        rc = coll_sendrecv(coll_elem(rbuf, s, dt), n, dt, peer, coll_elem(rbuf, ps, dt), pn, dt,
                           peer, tag, comm);
    }
    if (rc == MPI_SUCCESS && rank < 2 * rem) {
        if (rank % 2)
            rc = coll_send(rbuf, count, dt, rank - 1, tag, comm);
        else
            rc = coll_recv(rbuf, count, dt, rank + 1, tag, comm);
    }
    coll_tmp_free(&t);
    return rc;
}

int coll_allreduce_rabenseifner(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                                const coll_op *op, const mpid_comm *comm)
{
    return coll_allreduce_rabenseifner_tag(sbuf, rbuf, count, dt, op, comm, COLL_TAG_ALLREDUCE);
}
