/*
 * reduce_rabenseifner.c — reduce as reduce-scatter (recursive halving) plus
 * a binomial gather of the blocks to the root (Rabenseifner). Each rank
 * sends about 2n bytes in all instead of n log2 p, so it wins for long
 * messages. Commutative ops only: halving combines in partner order.
 *
 * Non-powers of two: the first 2*rem ranks (rem = p - pof2) pair up and the
 * even one of each pair folds its data into the odd one, which takes part
 * for both; the pof2 survivors run the power-of-two algorithm.
 */
#include "coll/reduce_impl.h"

static inline size_t bstart(size_t count, int pof2, int b)
{
    return coll_block_start(count, pof2, b);
}

static int pof2_below(int p)
{
    int pof2 = 1;
    while (pof2 * 2 <= p)
        pof2 *= 2;
    return pof2;
}

size_t coll_rab_tmp_count(size_t count, const mpid_comm *comm, int mine_is_acc)
{
    int pof2 = pof2_below(comm->size), rem = comm->size - pof2;
    if (mine_is_acc && comm->rank < 2 * rem && comm->rank % 2)
        return count;
    return bstart(count, pof2, pof2 / 2);   /* the first half has the bigger blocks */
}

int coll_rab_reduce_scatter(const void *mine, void *acc, void *tmp, size_t count,
                            const cu_dtype *dt, const coll_op *op, const mpid_comm *comm,
                            int tag, int *newrank, int *pof2_out)
{
    int p = comm->size, rank = comm->rank;
    int pof2 = pof2_below(p);
    int rem = p - pof2, rc;
    *pof2_out = pof2;
    /* Until acc holds a whole partial result, data leaves from mine and the
     * peer's part lands in acc, where mine's part is then folded in: no
     * copy of mine into acc (commutative ops: the order does not matter). */
    const void *src = mine;
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            *newrank = -1;
            return coll_send(mine, count, dt, rank + 1, tag, comm);
        }
        void *in = mine == acc ? tmp : acc;
        if ((rc = coll_recv(in, count, dt, rank - 1, tag, comm)) != MPI_SUCCESS)
            return rc;
        coll_op_apply(op, in == acc ? mine : in, acc, count, dt);
        src = acc;
        *newrank = rank / 2;
    } else {
        *newrank = rank - rem;
    }
    int nr = *newrank, lo = 0, hi = pof2;
    for (int mask = pof2 / 2; mask > 0; mask /= 2) {
        int mid = lo + mask;
        int klo = lo, khi = mid, slo = mid, shi = hi;   /* keep / send */
        if (nr & mask) {
            klo = mid; khi = hi; slo = lo; shi = mid;
        }
        int peer = coll_rab_rank(nr ^ mask, rem);
        size_t ks = bstart(count, pof2, klo), kn = bstart(count, pof2, khi) - ks;
        size_t ss = bstart(count, pof2, slo), sn = bstart(count, pof2, shi) - ss;
        char *keep = coll_elem(acc, ks, dt);
        if (src != acc) {
            rc = coll_sendrecv(coll_elem(src, ss, dt), sn, dt, peer, keep, kn, dt, peer, tag,
                               comm);
            if (rc != MPI_SUCCESS)
                return rc;
            coll_op_apply(op, coll_elem(src, ks, dt), keep, kn, dt);
            src = acc;
        } else {
            rc = coll_sendrecv(coll_elem(acc, ss, dt), sn, dt, peer, tmp, kn, dt, peer, tag,
                               comm);
            if (rc != MPI_SUCCESS)
                return rc;
            coll_op_apply(op, tmp, keep, kn, dt);
        }
        lo = klo;
        hi = khi;
    }
    return MPI_SUCCESS;
}

int coll_reduce_rabenseifner(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                             const coll_op *op, int root, const mpid_comm *comm)
{
    int p = comm->size, rank = comm->rank, tag = COLL_TAG_REDUCE;
    const void *mine;
    int rc;
    if (coll_reduce_prologue(sbuf, rbuf, count, dt, comm, &mine, &rc))
        return rc;
    coll_tmp at, tt;
    at.heap = NULL;
    void *acc = rbuf;
    if (rank != root) {
        if ((rc = coll_tmp_alloc(&at, count, dt)) != MPI_SUCCESS)
            return rc;
        acc = at.buf;
    }
    if ((rc = coll_tmp_alloc(&tt, coll_rab_tmp_count(count, comm, mine == acc), dt)) !=
        MPI_SUCCESS) {
        coll_tmp_free(&at);
        return rc;
    }
    int nr, pof2;
    if ((rc = coll_rab_reduce_scatter(mine, acc, tt.buf, count, dt, op, comm, tag, &nr,
                                      &pof2)) != MPI_SUCCESS)
        goto out;
    int rem = p - pof2;
    /* The survivor that collects: the root, or the odd partner of a root
     * that folded out. */
    int target = root < 2 * rem ? root / 2 : root - rem;
    if (nr >= 0) {
        for (int mask = 1; mask < pof2; mask *= 2) {
            int lo = nr & ~(mask - 1), hi = lo + mask;   /* the blocks I hold */
            int peer = coll_rab_rank(nr ^ mask, rem);
            if ((nr ^ target) & mask) {
                size_t s = bstart(count, pof2, lo), n = bstart(count, pof2, hi) - s;
                rc = coll_send(coll_elem(acc, s, dt), n, dt, peer, tag, comm);
                break;
            }
            int plo = (nr & mask) ? lo - mask : hi;
            size_t s = bstart(count, pof2, plo), n = bstart(count, pof2, plo + mask) - s;
            if ((rc = coll_recv(coll_elem(acc, s, dt), n, dt, peer, tag, comm)) != MPI_SUCCESS)
                break;
        }
        if (rc == MPI_SUCCESS && nr == target && rank != root)
            rc = coll_send(acc, count, dt, root, tag, comm);
    } else if (rank == root) {
        rc = coll_recv(rbuf, count, dt, rank + 1, tag, comm);
    }
out:
    coll_tmp_free(&at);
    coll_tmp_free(&tt);
    return rc;
}
