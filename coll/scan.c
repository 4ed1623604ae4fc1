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

int coll_scan_recdbl(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                     const coll_op *op, const mpid_comm *comm)
{
    int p = comm->size, rank = comm->rank, rc, tag = COLL_TAG_SCAN;
    if (count == 0)
        return MPI_SUCCESS;
    if (sbuf != MPI_IN_PLACE && (rc = coll_copy_same(sbuf, rbuf, count, dt)) != MPI_SUCCESS)
        return rc;
    if (p == 1)
        return MPI_SUCCESS;
    coll_tmp t1, t2;
    t2.heap = NULL;
    if ((rc = coll_tmp_alloc(&t1, count, dt)) != MPI_SUCCESS)
        return rc;
    if ((rc = coll_tmp_alloc(&t2, count, dt)) != MPI_SUCCESS)
        goto out;
    void *partial = t1.buf, *in = t2.buf;
    if ((rc = coll_copy_same(rbuf, partial, count, dt)) != MPI_SUCCESS)
        goto out;
    for (int mask = 1; mask < p; mask <<= 1) {
        int peer = rank ^ mask;
        if (peer >= p)
            continue;
        if ((rc = coll_sendrecv(partial, count, dt, peer, in, count, dt, peer, tag, comm)) !=
            MPI_SUCCESS)
            break;
        if (peer < rank) {
            coll_op_apply(op, in, partial, count, dt);
            coll_op_apply(op, in, rbuf, count, dt);
        } else if (op->commute) {
            coll_op_apply(op, in, partial, count, dt);
        } else {
            coll_op_apply(op, partial, in, count, dt);   /* mine op higher */
            void *x = partial;
            partial = in;
            in = x;
        }
    }
out:
    coll_tmp_free(&t1);
    coll_tmp_free(&t2);
    return rc;
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
    int p = comm->size, rank = comm->rank, rc, tag = COLL_TAG_EXSCAN;
    if (count == 0 || p == 1)
        return MPI_SUCCESS;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    coll_tmp t1, t2;
    t2.heap = NULL;
    if ((rc = coll_tmp_alloc(&t1, count, dt)) != MPI_SUCCESS)
        return rc;
    if ((rc = coll_tmp_alloc(&t2, count, dt)) != MPI_SUCCESS)
        goto out;
    void *partial = t1.buf, *in = t2.buf;
    if ((rc = coll_copy_same(mine, partial, count, dt)) != MPI_SUCCESS)
        goto out;
    int have = 0;   /* rbuf holds a prefix yet */
    for (int mask = 1; mask < p; mask <<= 1) {
        int peer = rank ^ mask;
        if (peer >= p)
            continue;
        if ((rc = coll_sendrecv(partial, count, dt, peer, in, count, dt, peer, tag, comm)) !=
            MPI_SUCCESS)
            break;
        if (peer < rank) {
            coll_op_apply(op, in, partial, count, dt);
            if (!have) {
                if ((rc = coll_copy_same(in, rbuf, count, dt)) != MPI_SUCCESS)
                    break;
                have = 1;
            } else {
                coll_op_apply(op, in, rbuf, count, dt);
            }
        } else if (op->commute) {
            coll_op_apply(op, in, partial, count, dt);
        } else {
            coll_op_apply(op, partial, in, count, dt);
            void *x = partial;
            partial = in;
            in = x;
        }
    }
out:
    coll_tmp_free(&t1);
    coll_tmp_free(&t2);
    return rc;
}
