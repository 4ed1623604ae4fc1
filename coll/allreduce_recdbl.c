/*
 * allreduce_recdbl.c — recursive doubling: log2 p exchanges of the whole
 * vector, the fewest rounds of any allreduce, so it is the one for short
 * messages (and for oversubscribed cores, where every round may wait for a
 * peer to be scheduled).
 *
 * Non-powers of two: the first 2*rem ranks pair up, the even one folds its
 * data into the odd one and gets the result back at the end. Order: after
 * the step of distance m a survivor holds the reduction of an aligned run
 * of survivors, i.e. of consecutive ranks, so "lower run op higher run"
 * keeps rank order for non-commutative ops (at the price of a pointer swap;
 * commutative ops combine in place).
 */
#include "coll/reduce_impl.h"

int coll_allreduce_recdbl_tag(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                              const coll_op *op, const mpid_comm *comm, int tag)
{
    int p = comm->size, rank = comm->rank, rc;
    coll_tmp t;
    if (coll_red_prologue(sbuf, rbuf, count, dt, comm, &t, &rc))
        return rc;
    int pof2 = 1;
    while (pof2 * 2 <= p)
        pof2 *= 2;
    int rem = p - pof2, nr;
    void *acc = rbuf, *other = t.buf;
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            rc = coll_send(acc, count, dt, rank + 1, tag, comm);
            nr = -1;
        } else {
            rc = coll_recv(other, count, dt, rank - 1, tag, comm);
            coll_op_apply(op, other, acc, count, dt);   /* lower rank first */
            nr = rank / 2;
        }
    } else {
        nr = rank - rem;
    }
    for (int mask = 1; nr >= 0 && rc == MPI_SUCCESS && mask < pof2; mask <<= 1) {
        int pnr = nr ^ mask;
        rc = coll_recdbl_step(&acc, &other, count, dt, op, coll_rab_rank(pnr, rem), pnr < nr,
                              comm, tag);
    }
    if (rc == MPI_SUCCESS && rank < 2 * rem) {
        if (rank % 2)
            rc = coll_send(acc, count, dt, rank - 1, tag, comm);
        else
            rc = coll_recv(rbuf, count, dt, rank + 1, tag, comm);
    }
    if (rc == MPI_SUCCESS && acc != rbuf && nr >= 0)
        rc = coll_copy_same(acc, rbuf, count, dt);
    coll_tmp_free(&t);
    return rc;
}

int coll_allreduce_recdbl(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                          const coll_op *op, const mpid_comm *comm)
{
    return coll_allreduce_recdbl_tag(sbuf, rbuf, count, dt, op, comm, COLL_TAG_ALLREDUCE);
}
