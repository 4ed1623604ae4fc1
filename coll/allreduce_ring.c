/*
 * allreduce_ring.c — ring allreduce: a ring reduce-scatter (p-1 steps, each
 * rank combines one block per step) then a ring allgather (p-1 steps).
 * Every rank sends 2(p-1)/p of the vector in all, spread evenly over the
 * ring's links: bandwidth-optimal for long messages. Commutative ops only
 * (each block is combined starting from a different rank).
 *
 * My operand is read where it is: peers' blocks are received into the
 * result and my block combined into them (no copy of the vector first).
 */
#include <stdlib.h>
#include "coll/reduce_impl.h"

int coll_ring_reduce_scatter(const void *mine, void *acc, void *tmp, const size_t *bstart,
                             const size_t *bcount, const cu_dtype *dt, const coll_op *op,
                             int shift, const mpid_comm *comm, int tag)
{
    int p = comm->size, rank = comm->rank;
    int right = (rank + 1) % p, left = (rank - 1 + p) % p;
    int f = (rank + shift) % p;   /* the block I end with */
    /* Each block of acc is received at most once and then only sent on:
     * apart from mine, a peer's partial block lands in acc itself and my
     * operand's block is combined into it there, so the operand is never
     * copied first (1 MiB less to copy, and to evict, per rank). */
    const void *from = mine;
    for (int k = 0; k < p - 1; k++) {
        int sb = ((f - k - 1) % p + p) % p, rb = ((f - k - 2) % p + p) % p;
        char *dst = mine == acc ? tmp : coll_elem(acc, bstart[rb], dt);
        int rc = coll_sendrecv(coll_elem(from, bstart[sb], dt), bcount[sb], dt, right,
                               dst, bcount[rb], dt, left, tag, comm);
        if (rc != MPI_SUCCESS)
            return rc;
        if (mine == acc)
            coll_op_apply(op, tmp, coll_elem(acc, bstart[rb], dt), bcount[rb], dt);
        else
            coll_op_apply(op, coll_elem(mine, bstart[rb], dt), dst, bcount[rb], dt);
        from = acc;
    }
    return MPI_SUCCESS;
}

int coll_allreduce_ring(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                        const coll_op *op, const mpid_comm *comm)
{
    int p = comm->size, rank = comm->rank, rc, tag = COLL_TAG_ALLREDUCE;
    const void *mine;
    if (coll_reduce_prologue(sbuf, rbuf, count, dt, comm, &mine, &rc))
        return rc;
    size_t *bs = malloc(2 * sizeof(size_t) * (size_t)p);
    if (!bs)
        return MPI_ERR_NO_MEM;
    size_t *bc = bs + p;
    for (int i = 0; i < p; i++) {
        bs[i] = coll_block_start(count, p, i);
        bc[i] = coll_block_start(count, p, i + 1) - bs[i];
    }
    coll_tmp t;
    if ((rc = coll_tmp_alloc(&t, mine == rbuf ? bc[0] : 0, dt)) != MPI_SUCCESS) {
        free(bs);
        return rc;
    }
    rc = coll_ring_reduce_scatter(mine, rbuf, t.buf, bs, bc, dt, op, 1, comm, tag);
    int right = (rank + 1) % p, left = (rank - 1 + p) % p;
    for (int k = 0; rc == MPI_SUCCESS && k < p - 1; k++) {
        int sb = (rank + 1 - k + p) % p, rb = (rank - k + p) % p;
        rc = coll_sendrecv(coll_elem(rbuf, bs[sb], dt), bc[sb], dt, right,
                           coll_elem(rbuf, bs[rb], dt), bc[rb], dt, left, tag, comm);
    }
    coll_tmp_free(&t);
    free(bs);
    return rc;
}
