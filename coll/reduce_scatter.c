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

static int ring(const void *sbuf, void *rbuf, const size_t *bs, const size_t *bc, size_t total,
                const cu_dtype *dt, const coll_op *op, const mpid_comm *comm)
{
    int p = comm->size, rank = comm->rank, rc;
    /* MPI_IN_PLACE: the input is the whole of rbuf, my block goes to its start. */
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    size_t maxb = 0;
    for (int i = 0; i < p; i++)
        if (bc[i] > maxb)
            maxb = bc[i];
    coll_tmp acc, tmp;
    tmp.heap = NULL;
    if ((rc = coll_tmp_alloc(&acc, total, dt)) != MPI_SUCCESS)
        return rc;
    if ((rc = coll_tmp_alloc(&tmp, maxb, dt)) == MPI_SUCCESS &&
        (rc = coll_copy_same(in, acc.buf, total, dt)) == MPI_SUCCESS)
        rc = coll_ring_reduce_scatter(acc.buf, tmp.buf, bs, bc, dt, op, 0, comm,
                                      COLL_TAG_REDUCE_SCATTER);
    if (rc == MPI_SUCCESS)
        rc = coll_copy_same(coll_elem(acc.buf, bs[rank], dt), rbuf, bc[rank], dt);
    coll_tmp_free(&acc);
    coll_tmp_free(&tmp);
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
