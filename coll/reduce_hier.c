/*
 * reduce_hier.c — hierarchical reduce: reduce inside each node to its leader
 * (the node area's shm reduce, coll/reduce_shm.c, where the node's ranks
 * share memory; else binomial), reduce among the leaders to the leader of the root's
 * node (binomial), and hand the result to the root if it does not lead its
 * node. Commutative ops only (a node's ranks need not be consecutive).
 */
#include "coll/reduce_impl.h"
#include "coll/shm_sync.h"

int coll_reduce_hier(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                     const coll_op *op, int root, const mpid_comm *comm)
{
    if (count == 0)
        return MPI_SUCCESS;
    int rank = comm->rank;
    coll_hier h;
    int rc = coll_hier_init(&h, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    int rnode = 0;   /* the root's node */
    for (int k = 0; k < h.nnodes; k++)
        for (int j = h.start[k]; j < h.start[k + 1]; j++)
            if (h.order[j] == root)
                rnode = k;
    int leader = h.node.rank == 0;
    int rlead = coll_hier_leader(&h, rnode);
    /* mine: my operand. part: where a leader keeps its node's partial
     * result (rbuf at the root, a work buffer at other leaders). */
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    coll_tmp t;
    t.heap = NULL;
    void *part = rbuf;
    if (leader && rank != root) {
        if ((rc = coll_tmp_alloc(&t, count, dt)) != MPI_SUCCESS)
            goto out;
        part = t.buf;
    }
    /* A leader's sbuf is MPI_IN_PLACE only when it is the root, and then
     * part is rbuf: the view's root semantics hold as they are. */
    if (h.node.size > 1)
        rc = coll_reduce_shm_tag(leader ? sbuf : mine, leader ? part : rbuf, count, dt, op, 0,
                                 &h.node, COLL_TAG_RED_NODE);
    else if (mine != part)
        rc = coll_copy_same(mine, part, count, dt);
    if (rc == MPI_SUCCESS && leader && h.nnodes > 1)
        rc = coll_reduce_binomial_tag(h.lead.rank == rnode ? MPI_IN_PLACE : part, part, count,
                                      dt, op, rnode, &h.lead, COLL_TAG_RED_LEAD);
    if (rc == MPI_SUCCESS && root != rlead) {
        if (rank == rlead)
            rc = coll_send(part, count, dt, root, COLL_TAG_RED_ROOT, comm);
        else if (rank == root)
            rc = coll_recv(rbuf, count, dt, rlead, COLL_TAG_RED_ROOT, comm);
    }
out:
    coll_tmp_free(&t);
    coll_hier_free(&h);
    return rc;
}
