/*
 * scan.c — inclusive (Scan) and exclusive (Exscan) prefix reductions.
 *
 * linear: rank r waits for the prefix of ranks < r from r-1, combines, and
 *   passes it on: p-1 rounds, one message per rank — cheap for a few ranks
 *   and for long vectors (a pipeline across calls).
 * recdbl: recursive doubling (log2 p rounds): each rank keeps the partial
 *   reduction of its aligned block and adds blocks from lower ranks to its
 *   result. Lower blocks always go in front, so both keep rank order and
 *   serve non-commutative ops.
 */
#include "coll/reduce_impl.h"

int coll_scan_linear(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                     const coll_op *op, const mpid_comm *comm)
{
    int p = comm->size, rank = comm->rank, rc = MPI_SUCCESS, tag = COLL_TAG_SCAN;
    if (count == 0)
        return MPI_SUCCESS;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    coll_tmp t;
    t.heap = NULL;
    if (rank > 0) {
        if ((rc = coll_tmp_alloc(&t, count, dt)) != MPI_SUCCESS)
            return rc;
        rc = coll_recv(t.buf, count, dt, rank - 1, tag, comm);
    }
    if (rc == MPI_SUCCESS)
        rc = coll_copy_same(mine, rbuf, count, dt);
    if (rc == MPI_SUCCESS && rank > 0)
        coll_op_apply(op, t.buf, rbuf, count, dt);   /* prefix op mine */
    if (rc == MPI_SUCCESS && rank + 1 < p)
        rc = coll_send(rbuf, count, dt, rank + 1, tag, comm);
    coll_tmp_free(&t);
    return rc;
}

/* Recursive doubling for both scans: each rank keeps the partial result of
 * its aligned block (from mine) and puts every lower block's in front of
 * rbuf, which holds a prefix already when `have` (Scan: my operand) and
 * takes the first lower block as it is otherwise (Exscan). */
static int prefix_recdbl(const void *mine, void *rbuf, int have, size_t count,
                         const cu_dtype *dt, const coll_op *op, const mpid_comm *comm, int tag)
{
    int p = comm->size, rank = comm->rank, rc;
    coll_tmp t1, t2;
    if ((rc = coll_tmp_alloc(&t1, count, dt)) != MPI_SUCCESS)
        return rc;
    if ((rc = coll_tmp_alloc(&t2, count, dt)) == MPI_SUCCESS)
        rc = coll_copy_same(mine, t1.buf, count, dt);
    void *partial = t1.buf, *in = t2.buf;
    for (int mask = 1; rc == MPI_SUCCESS && mask < p; mask <<= 1) {
        int peer = rank ^ mask;
        if (peer >= p)
            continue;
        rc = coll_recdbl_step(&partial, &in, count, dt, op, peer, peer < rank, comm, tag);
        if (rc == MPI_SUCCESS && peer < rank && !have) {
            rc = coll_copy_same(in, rbuf, count, dt);
            have = 1;
        } else if (rc == MPI_SUCCESS && peer < rank) {
            coll_op_apply(op, in, rbuf, count, dt);
        }
    }
    coll_tmp_free(&t1);
    coll_tmp_free(&t2);
    return rc;
}

int coll_scan_recdbl(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                     const coll_op *op, const mpid_comm *comm)
{
    int rc;
    if (coll_red_prologue(sbuf, rbuf, count, dt, comm, NULL, &rc))
        return rc;
    return prefix_recdbl(rbuf, rbuf, 1, count, dt, op, comm, COLL_TAG_SCAN);
}

int coll_exscan_linear(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                       const coll_op *op, const mpid_comm *comm)
{
    int p = comm->size, rank = comm->rank, rc = MPI_SUCCESS, tag = COLL_TAG_EXSCAN;
    if (count == 0 || p == 1)
        return MPI_SUCCESS;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (rank == 0)
        return coll_send(mine, count, dt, 1, tag, comm);   /* rbuf stays untouched */
    coll_tmp t;
    t.heap = NULL;
    int last = rank + 1 == p;
    /* The next prefix needs my operand after rbuf is overwritten. */
    if (!last) {
        if ((rc = coll_tmp_alloc(&t, count, dt)) != MPI_SUCCESS)
            return rc;
        rc = coll_copy_same(mine, t.buf, count, dt);
    }
    if (rc == MPI_SUCCESS)
        rc = coll_recv(rbuf, count, dt, rank - 1, tag, comm);
    if (rc == MPI_SUCCESS && !last) {
        coll_op_apply(op, rbuf, t.buf, count, dt);   /* prefix op mine */
        rc = coll_send(t.buf, count, dt, rank + 1, tag, comm);
    }
    coll_tmp_free(&t);
    return rc;
}

int coll_exscan_recdbl(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                       const coll_op *op, const mpid_comm *comm)
{
    if (count == 0 || comm->size == 1)
        return MPI_SUCCESS;
    return prefix_recdbl(sbuf == MPI_IN_PLACE ? rbuf : sbuf, rbuf, 0, count, dt, op, comm,
                         COLL_TAG_EXSCAN);
}
