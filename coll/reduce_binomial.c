/*
 * reduce_binomial.c — binomial-tree reduce: ceil(log2 p) rounds. Each rank
 * combines the partial results of its children (smallest subtree first,
 * which is ready first) and sends one message to its parent.
 *
 * Order: a subtree of rank v covers ranks [v, v + 2^k), so combining
 * "mine op child" keeps rank order when the tree is rooted at rank 0. A
 * commutative op roots the tree at the root itself; a non-commutative one
 * roots it at 0, and rank 0 forwards the result to the root (one more
 * message, the price of order).
 */
#include "coll/reduce_impl.h"

int coll_reduce_binomial_tag(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                             const coll_op *op, int root, const mpid_comm *comm, int tag)
{
    int p = comm->size, rank = comm->rank;
    const void *mine;
    int rc;
    if (coll_reduce_prologue(sbuf, rbuf, count, dt, comm, &mine, &rc))
        return rc;
    int troot = op->commute ? root : 0;
    int vrank = (rank - troot + p) % p;
    int nchild = 0, mask;
    for (mask = 1; mask < p && !(vrank & mask); mask <<= 1)
        if (vrank + mask < p)
            nchild++;
    int parent_mask = mask;   /* >= p at the tree's root */

    /* Receive buffers alternate between b[0] and b[1]; the k-th result
     * lands in b[(k-1) % 2]. At the root, arrange for the last one to be
     * rbuf (b[0] must not be rbuf when rbuf holds my operand). */
    coll_tmp t1, t2;
    rc = MPI_SUCCESS;
    t1.heap = t2.heap = NULL;
    void *b[2] = { NULL, NULL };
    int final_here = rank == root && rank == troot;
    if (nchild > 0) {
        if ((rc = coll_tmp_alloc(&t1, count, dt)) != MPI_SUCCESS)
            return rc;
        if (final_here && mine == rbuf) {
            b[0] = t1.buf;
            b[1] = rbuf;
        } else if (final_here) {
            b[(nchild - 1) % 2] = rbuf;
            b[nchild % 2] = t1.buf;
        } else {
            b[0] = t1.buf;
            if (nchild > 1) {
                if ((rc = coll_tmp_alloc(&t2, count, dt)) != MPI_SUCCESS)
                    goto out;
                b[1] = t2.buf;
            }
        }
    }
    const void *acc = mine;
    int k = 0;
    for (int m = 1; m < parent_mask; m <<= 1) {
        if (vrank + m >= p)
            continue;
        int child = (vrank + m + troot) % p;
        void *into = b[k % 2];
        if ((rc = coll_recv(into, count, dt, child, tag, comm)) != MPI_SUCCESS)
            goto out;
        coll_op_apply(op, acc, into, count, dt);   /* into = acc op child's */
        acc = into;
        k++;
    }
    if (parent_mask < p) {
        int parent = (vrank - parent_mask + troot) % p;
        if ((rc = coll_send(acc, count, dt, parent, tag, comm)) != MPI_SUCCESS)
            goto out;
    }
    if (rank == troot && rank != root)
        rc = coll_send(acc, count, dt, root, tag, comm);
    else if (rank == root && rank != troot)
        rc = coll_recv(rbuf, count, dt, troot, tag, comm);
    else if (rank == root)
        rc = coll_copy_same(acc, rbuf, count, dt);
out:
    coll_tmp_free(&t1);
    coll_tmp_free(&t2);
    return rc;
}

int coll_reduce_binomial(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                         const coll_op *op, int root, const mpid_comm *comm)
{
    return coll_reduce_binomial_tag(sbuf, rbuf, count, dt, op, root, comm, COLL_TAG_REDUCE);
}
