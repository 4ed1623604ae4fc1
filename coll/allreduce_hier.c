/*
 * allreduce_hier.c — hierarchical allreduce: reduce inside each node to its
 * leader, allreduce among the leaders (recursive doubling, or Rabenseifner
 * for long vectors of a commutative op), then broadcast inside each node;
 * the node phases are the node area's shm reduce and broadcast where the
 * node's ranks share memory (coll/reduce_shm.c, bcast_shm.c), binomial
 * trees otherwise. Only one message per node pair
 * crosses the network per round. Commutative ops only: a node's ranks need
 * not be consecutive.
 */
#include "coll/reduce_impl.h"
#include "coll/shm_sync.h"

int coll_allreduce_hier(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                        const coll_op *op, const mpid_comm *comm)
{
    if (count == 0)
        return MPI_SUCCESS;
    coll_hier h;
    int rc = coll_hier_init(&h, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    int leader = h.node.rank == 0;
    if (h.node.size > 1) {
        /* MPI_IN_PLACE is for the view's root (the leader) only. */
        const void *s = sbuf == MPI_IN_PLACE && !leader ? rbuf : sbuf;
        rc = coll_reduce_shm_tag(s, rbuf, count, dt, op, 0, &h.node, COLL_TAG_RED_NODE);
    } else if (sbuf != MPI_IN_PLACE) {
        rc = coll_copy_same(sbuf, rbuf, count, dt);
    }
    if (rc == MPI_SUCCESS && leader && h.nnodes > 1) {
        if (op->commute && cu_dtype_bytes(dt, count) > COLL_RED_LONG)
            rc = coll_allreduce_rabenseifner_tag(MPI_IN_PLACE, rbuf, count, dt, op, &h.lead,
                                                 COLL_TAG_RED_LEAD);
        else
            rc = coll_allreduce_recdbl_tag(MPI_IN_PLACE, rbuf, count, dt, op, &h.lead,
                                           COLL_TAG_RED_LEAD);
    }
    if (rc == MPI_SUCCESS && h.node.size > 1)
        rc = coll_bcast_shm_tag(rbuf, count, dt, 0, &h.node, COLL_TAG_RED_BCAST);
    coll_hier_free(&h);
    return rc;
}
