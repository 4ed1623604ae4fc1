/*
 * reduce_ni.c — reductions combined in the NI agents (netmod/agent/
 * agent_red.c; beyond Verstoep et al., whose reductions ran on the hosts): each
 * rank hands its packed contribution to its agent; agents combine their
 * node's contributions and their children's partial results packet by
 * packet and send one result up a binary or binomial tree over nodes.
 * Reduce delivers it at the root; Allreduce multicasts it back down the
 * same tree (one result, so every rank gets the same bits); Barrier is an
 * allreduce of no data. Predefined ops on predefined element types only
 * (the agent runs no user code): anything else, or no agent, runs the
 * host's tree of the same shape.
 */
#include <stdlib.h>
#include <string.h>
#include "coll/ni.h"
#include "coll/reduce_impl.h"

/* Contiguous types go as they are; others through a packed copy. */
typedef struct ni_buf { char *p; void *tmp; } ni_buf;

static int ni_in(ni_buf *b, const void *buf, size_t count, const cu_dtype *dt, size_t bytes)
{
    b->tmp = NULL;
    if (cu_dtype_is_contig(dt)) {
        b->p = (char *)buf + dt->true_lb;
        return MPI_SUCCESS;
    }
    if (!(b->tmp = malloc(bytes)))
        return MPI_ERR_NO_MEM;
    cu_dtype_pack(buf, count, dt, 0, b->tmp, bytes);
    b->p = b->tmp;
    return MPI_SUCCESS;
}

static int ni_red(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                  const coll_op *op, int root, const mpid_comm *comm, int all, int shape)
{
    size_t bytes = cu_dtype_bytes(dt, count);
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    int wants = all || comm->rank == root;
    ni_buf in, out = { NULL, NULL };
    int rc = ni_in(&in, mine, count, dt, bytes);
    if (rc == MPI_SUCCESS && wants) {
        if (cu_dtype_is_contig(dt))
            out.p = (char *)rbuf + dt->true_lb;
        else if (!(out.p = out.tmp = malloc(bytes)))
            rc = MPI_ERR_NO_MEM;
    }
    if (rc == MPI_SUCCESS)
        rc = coll_ni_err(mpid_offload_reduce(in.p, out.p, bytes, op->builtin, dt->basic, all,
                                             root, shape, comm));
    if (rc == MPI_SUCCESS && out.tmp)
        cu_dtype_unpack(rbuf, count, dt, 0, out.tmp, bytes);
    free(in.tmp);
    free(out.tmp);
    return rc;
}

/* Whether this call runs in the agents; if not, says why (verbose). The
 * answer is the same on every rank: the type signatures match. */
static int ni_ok(const char *what, const cu_dtype *dt, const coll_op *op, int who,
                 const mpid_comm *comm, int shape)
{
    if (!mpid_offload_usable(comm)) {
        coll_ni_fallback_note(what, shape, comm, who, coll_ni_why_not(comm));
        return 0;
    }
    if (!op->builtin || !mpid_offload_red_ok(op->builtin, dt->basic)) {
        coll_ni_fallback_note(what, shape, comm, who,
                              "runs only predefined ops on one predefined element type "
                              "in the agent (a user op or a mixed type here)");
        return 0;
    }
    return 1;
}

static int reduce_ni(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                     const coll_op *op, int root, const mpid_comm *comm, int shape)
{
    if (count == 0 || dt->size == 0)
        return MPI_SUCCESS;
    if (comm->size == 1)
        return coll_copy_same(sbuf == MPI_IN_PLACE ? rbuf : sbuf, rbuf, count, dt);
    if (!ni_ok("reduce", dt, op, root, comm, shape))
        return shape == MPID_TREE_BINARY ? coll_reduce_binary(sbuf, rbuf, count, dt, op, root, comm)
                                        : coll_reduce_binomial(sbuf, rbuf, count, dt, op, root,
                                                               comm);
    return ni_red(sbuf, rbuf, count, dt, op, root, comm, 0, shape);
}

static int allreduce_ni(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                        const coll_op *op, const mpid_comm *comm, int shape)
{
    if (count == 0 || dt->size == 0)
        return MPI_SUCCESS;
    if (comm->size == 1)
        return sbuf == MPI_IN_PLACE ? MPI_SUCCESS : coll_copy_same(sbuf, rbuf, count, dt);
    if (ni_ok("allreduce", dt, op, 0, comm, shape))
        return ni_red(sbuf, rbuf, count, dt, op, 0, comm, 1, shape);
    /* the host's tree of the same shape to rank 0, and back down it */
    const void *s = sbuf == MPI_IN_PLACE && comm->rank != 0 ? rbuf : sbuf;
    int rc = shape == MPID_TREE_BINARY ? coll_reduce_binary(s, rbuf, count, dt, op, 0, comm)
                                      : coll_reduce_binomial(s, rbuf, count, dt, op, 0, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    return shape == MPID_TREE_BINARY ? coll_bcast_binary(rbuf, count, dt, 0, comm)
                                    : coll_bcast_binomial(rbuf, count, dt, 0, comm);
}

static int barrier_ni(const mpid_comm *comm, int shape)
{
    if (comm->size == 1)
        return MPI_SUCCESS;
    if (!mpid_offload_usable(comm)) {
        coll_ni_fallback_note("barrier", shape, comm, 0, coll_ni_why_not(comm));
        return coll_barrier_binomial(comm);
    }
    return coll_ni_err(mpid_offload_reduce(NULL, NULL, 0, 0, 0, 1, 0, shape, comm));
}

int coll_reduce_ni_binary(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                          const coll_op *op, int root, const mpid_comm *comm)
{
    return reduce_ni(sbuf, rbuf, count, dt, op, root, comm, MPID_TREE_BINARY);
}

int coll_reduce_ni_binomial(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                            const coll_op *op, int root, const mpid_comm *comm)
{
    return reduce_ni(sbuf, rbuf, count, dt, op, root, comm, MPID_TREE_BINOMIAL);
}

int coll_allreduce_ni_binary(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                             const coll_op *op, const mpid_comm *comm)
{
    return allreduce_ni(sbuf, rbuf, count, dt, op, comm, MPID_TREE_BINARY);
}

int coll_allreduce_ni_binomial(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                               const coll_op *op, const mpid_comm *comm)
{
    return allreduce_ni(sbuf, rbuf, count, dt, op, comm, MPID_TREE_BINOMIAL);
}

int coll_barrier_ni_binary(const mpid_comm *comm) { return barrier_ni(comm, MPID_TREE_BINARY); }
int coll_barrier_ni_binomial(const mpid_comm *comm) { return barrier_ni(comm, MPID_TREE_BINOMIAL); }
