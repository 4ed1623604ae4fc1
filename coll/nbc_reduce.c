/*
 * nbc_reduce.c — Ireduce (binomial, linear), Iallreduce (recursive
 * doubling, reduce+bcast),
 * Ireduce_scatter (reduce + scatterv) and Iscan/Iexscan (recursive
 * doubling) as schedules. All keep MPI's operand order, so they serve
 * non-commutative ops too: the schedule is fixed at the call, so "which
 * buffer holds the accumulator" is decided while building — an
 * order-keeping step `acc = acc op x` is done as `x = acc op x` and the two
 * buffers swap roles instead of copying.
 */
#include "coll/sched.h"
#include "coll/coll_impl.h"

static inline void swap(void **a, void **b)
{
    void *t = *a;
    *a = *b;
    *b = t;
}

/* acc = acc op x (x from a higher rank), in either buffer. */
static void combine_right(coll_sched *s, void **acc, void **x, size_t count, const cu_dtype *dt)
{
    coll_sched_reduce(s, *acc, *x, count, dt);
    swap(acc, x);
}

/* Binomial reduction of `mine` onto root's `result`. Commutative ops use
 * the tree relative to the root; others the tree rooted at rank 0 (whose
 * subtrees are contiguous rank ranges, children combined in rank order) and
 * a last hop to the root. */
static int build_reduce(coll_sched *s, const void *mine, void *result, size_t count,
                        const cu_dtype *dt, int root, int commute)
{
    const mpid_comm *c = coll_sched_comm(s);
    int p = c->size, me = c->rank, troot = commute ? root : 0;
    int vr = (me - troot + p) % p;
    int nchild = 0, mask = 1;
    while (mask < p && !(vr & mask)) {
        if (vr + mask < p)
            nchild++;
        mask <<= 1;
    }
    int parent = mask < p ? (vr - mask + troot) % p : -1;
    void *acc = (void *)mine;
    if (nchild > 0 || (me == troot && me == root)) {
        /* The tree root accumulates in the result when it is the root. */
        void *a = me == root && troot == root ? result : coll_sched_tmp(s, count, dt);
        void *x = nchild ? coll_sched_tmp(s, count, dt) : NULL;
        if (!a || (nchild && !x))
            return coll_sched_failed(s);
        coll_sched_copy(s, mine, count, dt, a, count, dt);
        acc = a;
        for (int m = 1; m < mask; m <<= 1) {
            if (vr + m >= p)
                continue;
            coll_sched_recv(s, x, count, dt, (vr + m + troot) % p);
            coll_sched_barrier(s);
            if (commute)
                coll_sched_reduce(s, x, acc, count, dt);
            else
                combine_right(s, &acc, &x, count, dt);
        }
    }
    if (parent >= 0) {
        coll_sched_send(s, acc, count, dt, parent);
    } else if (me != root) {
        coll_sched_send(s, acc, count, dt, root);   /* rank 0 of an ordered tree */
    } else if (acc != result) {
        coll_sched_copy(s, acc, count, dt, result, count, dt);
    }
    if (me == root && troot != root) {
        coll_sched_barrier(s);   /* my send may still read result (in place) */
        coll_sched_recv(s, result, count, dt, troot);
    }
    coll_sched_barrier(s);
    return coll_sched_failed(s);
}

int coll_nbc_reduce(coll_sched *s, const void *sbuf, void *rbuf, size_t count,
                    const cu_dtype *dt, int root)
{
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    return build_reduce(s, mine, rbuf, count, dt, root, coll_sched_op(s)->commute);
}

/* Linear: the root receives every rank's vector at once (one round, p - 1
 * buffers) and combines them in rank order, right to left:
 * x0 op (x1 op (... op x(p-1))), which associativity makes MPI's result. */
int coll_nbc_reduce_linear(coll_sched *s, const void *sbuf, void *rbuf, size_t count,
                           const cu_dtype *dt, int root)
{
    const mpid_comm *c = coll_sched_comm(s);
    int p = c->size, me = c->rank;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (me != root) {
        coll_sched_send(s, mine, count, dt, root);
        return coll_sched_failed(s);
    }
    const void **x = coll_sched_bytes(s, (size_t)p * sizeof *x);
    if (!x)
        return coll_sched_failed(s);
    for (int i = 0; i < p; i++) {
        /* in place, my vector is in the result we fold into: keep a copy */
        void *t = i != me || mine == rbuf ? coll_sched_tmp(s, count, dt) : NULL;
        if (i != me && !t)
            return coll_sched_failed(s);
        if (i != me)
            coll_sched_recv(s, t, count, dt, i);
        else if (t)
            coll_sched_copy(s, mine, count, dt, t, count, dt);
        x[i] = t ? t : mine;
    }
    coll_sched_barrier(s);
    coll_sched_copy(s, x[p - 1], count, dt, rbuf, count, dt);
    for (int i = p - 2; i >= 0; i--)
        coll_sched_reduce(s, x[i], rbuf, count, dt);
    return coll_sched_failed(s);
}

/* Recursive doubling over the largest power of two pof2 <= p: the first
 * 2 * (p - pof2) ranks pair up (even into odd) beforehand and the odd ones
 * hand the result back after; partners combine lower rank's data on the
 * left. */
int coll_nbc_allreduce(coll_sched *s, const void *sbuf, void *rbuf, size_t count,
                       const cu_dtype *dt)
{
    const mpid_comm *c = coll_sched_comm(s);
    int p = c->size, me = c->rank, pof2 = 1;
    while (pof2 * 2 <= p)
        pof2 *= 2;
    int rem = p - pof2, nr;
    void *acc = rbuf, *x = coll_sched_tmp(s, count, dt);
    if (!x)
        return coll_sched_failed(s);
    if (sbuf != MPI_IN_PLACE)
        coll_sched_copy(s, sbuf, count, dt, rbuf, count, dt);
    if (me < 2 * rem) {
        if (me % 2 == 0) {
            coll_sched_send(s, acc, count, dt, me + 1);
            nr = -1;
        } else {
            coll_sched_recv(s, x, count, dt, me - 1);
            coll_sched_barrier(s);
            coll_sched_reduce(s, x, acc, count, dt);
            nr = me / 2;
        }
    } else {
        nr = me - rem;
    }
    if (nr >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int pnr = nr ^ mask, peer = pnr < rem ? 2 * pnr + 1 : pnr + rem;
            coll_sched_barrier(s);
            coll_sched_recv(s, x, count, dt, peer);
            coll_sched_send(s, acc, count, dt, peer);
            coll_sched_barrier(s);
            if (pnr < nr)
                coll_sched_reduce(s, x, acc, count, dt);
            else
                combine_right(s, &acc, &x, count, dt);
        }
        coll_sched_barrier(s);
        if (acc != rbuf)
            coll_sched_copy(s, acc, count, dt, rbuf, count, dt);
        if (me < 2 * rem)
            coll_sched_send(s, rbuf, count, dt, me - 1);
    } else {
        coll_sched_barrier(s);
        coll_sched_recv(s, rbuf, count, dt, me + 1);
    }
    return coll_sched_failed(s);
}

/* Reduce of the whole vector onto rank 0 (an order-keeping tree), then a
 * scatterv of the blocks. */
int coll_nbc_reduce_scatter(coll_sched *s, const void *sbuf, void *rbuf, const int *rcounts,
                            const cu_dtype *dt)
{
    const mpid_comm *c = coll_sched_comm(s);
    int p = c->size;
    size_t total = 0;
    for (int i = 0; i < p; i++)
        total += (size_t)rcounts[i];
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    void *res = c->rank == 0 ? coll_sched_tmp(s, total, dt) : NULL;
    if (c->rank == 0 && !res)
        return coll_sched_failed(s);
    int rc = build_reduce(s, mine, res, total, dt, 0, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    int *displs = coll_sched_bytes(s, (size_t)p * sizeof(int));
    if (!displs)
        return coll_sched_failed(s);
    for (int i = 0, d = 0; i < p; d += rcounts[i++])
        displs[i] = d;
    return coll_nbc_scatter(s, res, rcounts, displs, 0, dt, rbuf, (size_t)rcounts[c->rank], dt, 0);
}

/* Recursive doubling (as MPICH's): `partial` holds the reduction of the
 * ranks covered so far, exchanged with rank ^ mask each round; data from a
 * lower rank goes on the left of both the partial and the result. */
int coll_nbc_scan(coll_sched *s, const void *sbuf, void *rbuf, size_t count,
                  const cu_dtype *dt, int exclusive)
{
    const mpid_comm *c = coll_sched_comm(s);
    int p = c->size, me = c->rank, have = !exclusive;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    void *part = coll_sched_tmp(s, count, dt), *x = coll_sched_tmp(s, count, dt);
    if (!part || !x)
        return coll_sched_failed(s);
    coll_sched_copy(s, mine, count, dt, part, count, dt);
    if (!exclusive)
        coll_sched_copy(s, mine, count, dt, rbuf, count, dt);
    for (int mask = 1; mask < p; mask <<= 1) {
        int peer = me ^ mask;
        if (peer >= p)
            continue;
        coll_sched_barrier(s);
        coll_sched_recv(s, x, count, dt, peer);
        coll_sched_send(s, part, count, dt, peer);
        coll_sched_barrier(s);
        if (peer < me) {
            if (have) {
                coll_sched_reduce(s, x, rbuf, count, dt);
            } else {
                coll_sched_copy(s, x, count, dt, rbuf, count, dt);
                have = 1;
            }
            coll_sched_reduce(s, x, part, count, dt);
        } else {
            combine_right(s, &part, &x, count, dt);
        }
    }
    return coll_sched_failed(s);
}

/* Reduce onto rank 0 (the order-keeping binomial tree), then a binomial
 * broadcast from it on sub-tag 1: 2 log2 p rounds of one message each way
 * per tree edge, against log2 p rounds of exchanges for recursive doubling. */
int coll_nbc_allreduce_reduce_bcast(coll_sched *s, const void *sbuf, void *rbuf, size_t count,
                                    const cu_dtype *dt)
{
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    int rc = build_reduce(s, mine, rbuf, count, dt, 0, coll_sched_op(s)->commute);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_sched_subtag(s, 1);
    return coll_nbc_bcast(s, rbuf, count, dt, 0);
}
