/*
 * reduce_scatter.c — Reduce_scatter and Reduce_scatter_block.
 *
 * ring: the ring reduce-scatter of allreduce_ring over the caller's blocks
 *   (p-1 steps, each rank sends n(p-1)/p): long vectors, commutative ops.
 * reduce_scatterv: a binomial reduce of the whole vector to rank 0 (in rank
 *   order), then rank 0 sends each rank its block: log2 p + 1 rounds, the
 *   choice for short vectors and for non-commutative ops.
 * The _block forms are the same with equal blocks.
 */
#include <limits.h>
#include <stdlib.h>
#include "coll/reduce_impl.h"

/* The ring straight from the input: step k sends the block combined in
 * step k-1 (the first, an input block as it is) and receives the next into
 * a work block, into which the input's own block of it is then combined;
 * the last step receives into rbuf (a work block when in place, where
 * rbuf's start still holds input). No copy of the whole input first. */
static int ring(const void *sbuf, void *rbuf, const size_t *bs, const size_t *bc, size_t total,
                const cu_dtype *dt, const coll_op *op, const mpid_comm *comm)
{
    (void)total;
    int p = comm->size, rank = comm->rank, rc = MPI_SUCCESS;
    int right = (rank + 1) % p, left = (rank - 1 + p) % p;
    /* MPI_IN_PLACE: the input is the whole of rbuf, my block goes to its start. */
    int inplace = sbuf == MPI_IN_PLACE;
    const void *in = inplace ? rbuf : sbuf;
    size_t maxb = 0;
    for (int i = 0; i < p; i++)
        if (bc[i] > maxb)
            maxb = bc[i];
    coll_tmp w[2];
    w[1].heap = NULL;
    if ((rc = coll_tmp_alloc(&w[0], maxb, dt)) != MPI_SUCCESS ||
        (rc = coll_tmp_alloc(&w[1], maxb, dt)) != MPI_SUCCESS)
        goto out;
    const void *src = coll_elem(in, bs[(rank - 1 + p) % p], dt);
    for (int k = 0; k < p - 1 && rc == MPI_SUCCESS; k++) {
        int sb = ((rank - k - 1) % p + p) % p, rb = ((rank - k - 2) % p + p) % p;
        void *dst = k == p - 2 && !inplace ? rbuf : w[k & 1].buf;
        rc = coll_sendrecv(src, bc[sb], dt, right, dst, bc[rb], dt, left,
                           COLL_TAG_REDUCE_SCATTER, comm);
        if (rc == MPI_SUCCESS)
            coll_op_apply(op, coll_elem(in, bs[rb], dt), dst, bc[rb], dt);
        src = dst;
    }
    if (rc == MPI_SUCCESS && inplace)
        rc = coll_copy_same(src, rbuf, bc[rank], dt);
out:
    coll_tmp_free(&w[0]);
    coll_tmp_free(&w[1]);
    return rc;
}

static int reduce_then_scatter(const void *sbuf, void *rbuf, const size_t *bs, const size_t *bc,
                               size_t total, const cu_dtype *dt, const coll_op *op,
                               const mpid_comm *comm)
{
    int p = comm->size, rank = comm->rank, rc, tag = COLL_TAG_REDUCE_SCATTER;
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    coll_tmp acc;
    acc.heap = NULL;
    acc.buf = NULL;
    if (rank == 0 && (rc = coll_tmp_alloc(&acc, total, dt)) != MPI_SUCCESS)
        return rc;
    rc = coll_reduce_binomial_tag(in, acc.buf, total, dt, op, 0, comm, tag);
    if (rc == MPI_SUCCESS && rank == 0) {
        mpid_request **rq = calloc((size_t)p, sizeof *rq);
        if (!rq)
            rc = MPI_ERR_NO_MEM;
        for (int i = 1; rq && i < p && rc == MPI_SUCCESS; i++)
            if (bc[i])
                rc = mpid_isend(coll_elem(acc.buf, bs[i], dt), bc[i], dt, i, tag, comm,
                                MPID_CTX_COLL, MPID_SEND_STANDARD, &rq[i]);
        if (rq) {
            int rc2 = coll_waitall(p, rq);
            if (rc == MPI_SUCCESS)
                rc = rc2;
        }
        free(rq);
        if (rc == MPI_SUCCESS)
            rc = coll_copy_same(acc.buf, rbuf, bc[0], dt);
    } else if (rc == MPI_SUCCESS && bc[rank]) {
        rc = coll_recv(rbuf, bc[rank], dt, 0, tag, comm);
    }
    coll_tmp_free(&acc);
    return rc;
}

typedef int algo_fn(const void *, void *, const size_t *, const size_t *, size_t,
                    const cu_dtype *, const coll_op *, const mpid_comm *);

/* Blocks from counts (rcounts, or n each when rcounts is NULL). */
static int run(algo_fn *fn, const void *sbuf, void *rbuf, const int *rcounts, size_t n,
               const cu_dtype *dt, const coll_op *op, const mpid_comm *comm)
{
    int p = comm->size;
    size_t *bs = malloc(2 * sizeof(size_t) * (size_t)p);
    if (!bs)
        return MPI_ERR_NO_MEM;
    size_t *bc = bs + p, total = 0;
    for (int i = 0; i < p; i++) {
        bs[i] = total;
        bc[i] = rcounts ? (size_t)rcounts[i] : n;
        total += bc[i];
    }
    int rc = MPI_SUCCESS;
    if (total > 0) {
        if (p == 1)
            rc = sbuf == MPI_IN_PLACE ? MPI_SUCCESS : coll_copy_same(sbuf, rbuf, total, dt);
        else
            rc = fn(sbuf, rbuf, bs, bc, total, dt, op, comm);
    }
    free(bs);
    return rc;
}

int coll_reduce_scatter_ring(const void *sbuf, void *rbuf, const int *rcounts,
                             const cu_dtype *dt, const coll_op *op, const mpid_comm *comm)
{
    return run(ring, sbuf, rbuf, rcounts, 0, dt, op, comm);
}

int coll_reduce_scatter_reduce_scatterv(const void *sbuf, void *rbuf, const int *rcounts,
                                        const cu_dtype *dt, const coll_op *op,
                                        const mpid_comm *comm)
{
    return run(reduce_then_scatter, sbuf, rbuf, rcounts, 0, dt, op, comm);
}

int coll_reduce_scatter_block_ring(const void *sbuf, void *rbuf, size_t rcount,
                                   const cu_dtype *dt, const coll_op *op,
                                   const mpid_comm *comm)
{
    return run(ring, sbuf, rbuf, NULL, rcount, dt, op, comm);
}

int coll_reduce_scatter_block_reduce_scatter(const void *sbuf, void *rbuf, size_t rcount,
                                             const cu_dtype *dt, const coll_op *op,
                                             const mpid_comm *comm)
{
    return run(reduce_then_scatter, sbuf, rbuf, NULL, rcount, dt, op, comm);
}
