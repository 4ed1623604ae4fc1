/*
 * reduce_binary.c — segmented, pipelined binary-tree reduce. The message is
 * cut into segments (CLUMPI_COLL_SEGSIZE bytes, whole elements); a rank
 * receives segment s+1 from its two children while it combines segment s
 * and sends it up, so every level of the tree works at once on long
 * messages, and each rank sends only one stream (higher throughput than a
 * binomial tree, whose root takes log2 p full messages).
 *
 * The tree is numbered in pre-order: a rank v with range [v, hi) has its
 * left subtree on [v+1, m) and its right one on [m, hi). "mine op left op
 * right" is therefore rank order when the tree is rooted at rank 0, which is
 * what a non-commutative op gets (rank 0 then sends the result to the root
 * in one message). Commutative ops root the tree at the root.
 */
#include <stdlib.h>
#include "coll/reduce_impl.h"

/* My parent and children in the pre-order tree over [0, p) (-1: none). */
static void tree_of(int v, int p, int *parent, int *left, int *right)
{
    int lo = 0, hi = p;
    *parent = -1;
    while (lo != v) {
        int m = lo + 1 + (hi - lo) / 2;
        *parent = lo;
        if (v < m) {
            lo = lo + 1;
            hi = m;
        } else {
            lo = m;
        }
    }
    int m = lo + 1 + (hi - lo) / 2;
    *left = lo + 1 < hi ? lo + 1 : -1;
    *right = m < hi ? m : -1;
}

/* One segment: nothing to pipeline. Each child's message is received and
 * combined in turn (blocking calls carry no request when the message goes
 * or is there at once); child into_out's lands in out itself. */
static int binary_one(const void *mine, void *out, size_t count, const cu_dtype *dt,
                      const coll_op *op, const int kid[2], int into_out, int parent, int tag,
                      const mpid_comm *comm)
{
    coll_tmp t[2];
    t[0].heap = t[1].heap = NULL;
    const void *acc = mine;
    int rc = MPI_SUCCESS;
    for (int c = 0; c < 2 && kid[c] >= 0 && rc == MPI_SUCCESS; c++) {
        void *into = out;
        if (c != into_out) {
            if ((rc = coll_tmp_alloc(&t[c], count, dt)) != MPI_SUCCESS)
                break;
            into = t[c].buf;
        }
        if ((rc = coll_recv(into, count, dt, kid[c], tag, comm)) == MPI_SUCCESS) {
            coll_op_apply(op, acc, into, count, dt);
            acc = into;
        }
    }
    if (rc == MPI_SUCCESS && parent >= 0)
        rc = coll_send(acc, count, dt, parent, tag, comm);
    else if (rc == MPI_SUCCESS && acc != out)
        rc = coll_copy_same(acc, out, count, dt);
    coll_tmp_free(&t[0]);
    coll_tmp_free(&t[1]);
    return rc;
}

/* Segments of seg elements, nseg > 1, through the tree at once. */
static int binary_pipelined(const void *mine, void *out, size_t count, size_t seg, size_t nseg,
                            const cu_dtype *dt, const coll_op *op, const int kid[2],
                            int into_out, int parent, int tag, const mpid_comm *comm)
{
    /* kt[child][parity]: segment buffers; child into_out's segments land
     * in out itself. */
    coll_tmp kt[2][2];
    mpid_request *rq[2][2] = { { NULL, NULL }, { NULL, NULL } }, *sq = NULL;
    int rc = MPI_SUCCESS;
    for (int c = 0; c < 2; c++)
        for (int q = 0; q < 2; q++)
            kt[c][q].heap = NULL;
    for (int c = 0; c < 2; c++)
        if (kid[c] >= 0 && c != into_out)
            for (int q = 0; q < 2; q++)
                if ((rc = coll_tmp_alloc(&kt[c][q], seg, dt)) != MPI_SUCCESS)
                    goto out;

#define SEGN(s) ((s) + 1 < nseg ? seg : count - (s) * seg)
#define SEGBUF(c, s) ((c) == into_out ? coll_elem(out, (s) * seg, dt) : kt[c][(s) & 1].buf)
    for (int c = 0; c < 2; c++)
        if (kid[c] >= 0 && (rc = mpid_irecv(SEGBUF(c, 0), SEGN(0), dt, kid[c], tag, comm,
                                            MPID_CTX_COLL, &rq[c][0])) != MPI_SUCCESS)
            goto out;
    for (size_t s = 0; s < nseg; s++) {
        int q = (int)(s & 1);
        size_t n = SEGN(s);
        if ((rc = coll_waitall(2, (mpid_request *[]){ rq[0][q], rq[1][q] })) != MPI_SUCCESS)
            goto out;
        rq[0][q] = rq[1][q] = NULL;
        /* The previous send used the other parity's buffers: free them
         * before receiving the next segment there. */
        if ((rc = coll_waitall(1, &sq)) != MPI_SUCCESS)
            goto out;
        if (s + 1 < nseg)
            for (int c = 0; c < 2; c++)
                if (kid[c] >= 0 &&
                    (rc = mpid_irecv(SEGBUF(c, s + 1), SEGN(s + 1), dt, kid[c], tag, comm,
                                     MPID_CTX_COLL, &rq[c][q ^ 1])) != MPI_SUCCESS)
                    goto out;
        const void *acc = coll_elem(mine, s * seg, dt);
        for (int c = 0; c < 2; c++)
            if (kid[c] >= 0) {
                void *k = SEGBUF(c, s);
                coll_op_apply(op, acc, k, n, dt);  /* kid = acc op kid */
                acc = k;
            }
        if (parent >= 0)
            rc = mpid_isend(acc, n, dt, parent, tag, comm, MPID_CTX_COLL, MPID_SEND_STANDARD, &sq);
        else
            rc = coll_copy_same(acc, coll_elem(out, s * seg, dt), n, dt);
        if (rc != MPI_SUCCESS)
            goto out;
    }
#undef SEGN
#undef SEGBUF
    rc = coll_waitall(1, &sq);
out:
    /* On an error, receives still posted will never be matched. */
    for (int c = 0; c < 2; c++)
        for (int q = 0; q < 2; q++)
            if (rq[c][q])
                mpid_cancel(rq[c][q]);
    coll_waitall(4, &rq[0][0]);
    coll_waitall(1, &sq);
    for (int c = 0; c < 2; c++)
        for (int q = 0; q < 2; q++)
            coll_tmp_free(&kt[c][q]);
    return rc;
}

int coll_reduce_binary(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                       const coll_op *op, int root, const mpid_comm *comm)
{
    int p = comm->size, rank = comm->rank, tag = COLL_TAG_REDUCE;
    const void *mine;
    int rc;
    if (coll_reduce_prologue(sbuf, rbuf, count, dt, comm, &mine, &rc))
        return rc;
    int troot = op->commute ? root : 0;
    int vrank = (rank - troot + p) % p;
    int vp, vl, vr;
    tree_of(vrank, p, &vp, &vl, &vr);
    int parent = vp < 0 ? -1 : (vp + troot) % p;
    int kid[2] = { vl < 0 ? -1 : (vl + troot) % p, vr < 0 ? -1 : (vr + troot) % p };

    size_t seg = dt->size ? coll_param_segsize() / dt->size : count;
    if (seg == 0)
        seg = 1;
    if (seg > count)
        seg = count;
    size_t nseg = (count + seg - 1) / seg;

    /* out: where the tree root puts the result (rbuf, or a full buffer
     * that rank 0 forwards to the root). */
    coll_tmp ot;
    ot.heap = NULL;
    void *out = rbuf;
    if (parent < 0 && rank != root) {
        if ((rc = coll_tmp_alloc(&ot, count, dt)) != MPI_SUCCESS)
            return rc;
        out = ot.buf;
    }
    /* The child whose data lands in out itself (-1: none): at the tree
     * root the last one, where the combined result ends anyway
     * (kid = acc op kid), so the result is never copied from a work
     * buffer; not when out holds my operand. */
    int last = kid[1] >= 0 ? 1 : 0;
    int into_out = parent < 0 && kid[last] >= 0 && out != mine ? last : -1;
    rc = nseg == 1 ? binary_one(mine, out, count, dt, op, kid, into_out, parent, tag, comm)
                   : binary_pipelined(mine, out, count, seg, nseg, dt, op, kid, into_out, parent,
                                      tag, comm);
    if (rc == MPI_SUCCESS && parent < 0 && rank != root)
        rc = coll_send(out, count, dt, root, tag, comm);
    else if (rc == MPI_SUCCESS && rank == root && parent >= 0)
        rc = coll_recv(rbuf, count, dt, troot, tag, comm);
    coll_tmp_free(&ot);
    return rc;
}
