/*
 * reduce_shm.c — reduce through the communicator's node area, for vectors
 * of a contiguous type.
 * Up to REDUCE_STAGE bytes: each rank copies its vector into its own part
 * of the area (its slot up to COLL_SHM_SLOT, above that its part of a
 * staging area, one per round parity) and arrives; the root combines the
 * parts in rank order, each as soon as its rank has arrived, straight from
 * shared memory into its buffer. No message, and a non-root never waits
 * for the others: on oversubscribed cores it needs its core once per call,
 * where the trees make a parent wait for its children and a rendezvous
 * make a child wait for its parent, and the split form below needs every
 * rank's core three times (arrive, combine its slice, fence). The root's
 * combining is serial, but on fewer cores than ranks the others' copies
 * keep the other cores busy meanwhile; staged, pairs of ranks (2k, 2k + 1,
 * neither the root) halve it: the second of a pair to come combines the
 * first's part with its vector into part 2k + 1 (in rank order) while it
 * runs anyway, and the root combines that part once for both.
 * Larger, with single copy: the reduction is split across the ranks
 * (coll/shm_reduce.c): each combines one slice of every vector, read by
 * single copy, and writes it into the root's buffer; two rounds of flags.
 * Otherwise (other types, no area, no single copy) the binomial tree runs.
 * Every form combines in rank order, so non-commutative ops are served.
 * The hierarchical reductions run it as their node phase
 * (coll_reduce_shm_tag).
 */
#include <string.h>
#include "coll/reduce_impl.h"
#include "coll/shm_sync.h"

/* The most bytes per rank staged: the area holds 2 x size parts of it. */
#define REDUCE_STAGE 65536

/* Member i's part of round e: its slot, or its part of the staging area. */
static char *part_of(const coll_shm *s, char *stage, uint32_t e, int i)
{
    return stage ? stage + ((size_t)(e & 1) * (size_t)s->view->size + (size_t)i) * REDUCE_STAGE
                 : coll_shm_slot(s, e, i);
}

/* Whether ranks i and i + 1 pair up in the staged form. */
static int paired(int i, int root, int p)
{
    return !(i & 1) && i + 1 < p && i != root && i + 1 != root;
}

/* Through the parts (n up to REDUCE_STAGE; stage NULL: up to a slot). Staged,
 * the first byte of a paired rank's slot says whether it combined its
 * partner's vector with its own. */
static int reduce_staged(const char *mine, void *rbuf, size_t count, const cu_dtype *dt,
                         const coll_op *op, int root, coll_shm *s, size_t n, char *stage)
{
    const mpid_comm *comm = s->view;
    int me = comm->rank, p = comm->size;
    ptrdiff_t lb = dt->true_lb;
    char *res = (char *)rbuf + lb;
    uint32_t e = coll_shm_next(s);
    char *slot = coll_shm_slot_to_write(s, e);   /* also frees this parity's stage */
    char *own = stage ? part_of(s, stage, e, me) : slot;
    /* the root's own vector is read in place, unless in place in the result
     * that the first copy overwrites */
    int keep = me != root || (mine == res && root != p - 1);
    if (stage && (paired(me, root, p) || (me & 1 && paired(me - 1, root, p)))) {
        /* after the partner's arrival: x(2k) op x(2k+1) into part 2k + 1;
         * each looks before it arrives, so at most one of the two sees the
         * other there */
        char *other = part_of(s, stage, e, me ^ 1);
        int took = coll_shm_reached(atomic_load_explicit(coll_shm_line(s, me ^ 1),
                                                         memory_order_acquire), e);
        if (took && !(me & 1)) {
            coll_op_apply(op, mine - lb, other - lb, count, dt);
        } else {
            memcpy(own, mine, n);
            if (took)
                coll_op_apply(op, other - lb, own - lb, count, dt);
        }
        slot[0] = (char)took;
        keep = 0;
    }
    if (keep)
        memcpy(own, mine, n);
    coll_shm_arrive(s);
    if (me != root) {
        mpid_node_wake(comm, root);
        return MPI_SUCCESS;
    }
    /* x0 op (x1 op (... op x(p-1))), right to left as the other forms */
    for (int i = p - 1; i >= 0; i--) {
        const char *x = i == me && !keep ? mine : part_of(s, stage, e, i);
        int lo = i;   /* x holds ranks lo..i combined */
        if (i != me)
            coll_shm_wait_line(s, i, e);
        if (stage && i > 0 && paired(i - 1, root, p)) {
            if (!coll_shm_slot(s, e, i)[0])
                coll_shm_wait_line(s, i - 1, e);
            if (coll_shm_slot(s, e, i)[0] || coll_shm_slot(s, e, i - 1)[0])
                lo = i - 1;
        }
        if (i == p - 1) {
            if (x != res)
                memcpy(res, x, n);
        } else {
            coll_op_apply(op, x - lb, rbuf, count, dt);
        }
        i = lo;
    }
    return MPI_SUCCESS;
}

/* The view's staging area in *stage; NULL with MPI_ERR_UNSUPPORTED_OPERATION,
 * alike on every member, when it cannot have one (another error is local:
 * the job aborts). */
static int stage_of(const coll_shm *s, char **stage)
{
    void *base;
    int rc = mpid_node_area(s->view, 2 * (size_t)s->view->size * REDUCE_STAGE, &base, NULL);
    *stage = rc == MPI_SUCCESS ? base : NULL;
    return rc;
}

int coll_reduce_shm_tag(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                        const coll_op *op, int root, const mpid_comm *comm, int tag)
{
    size_t n = dt->size * count;
    coll_shm s;
    char *stage = NULL;
    int rc = !cu_dtype_is_contig(dt)  ? MPI_ERR_UNSUPPORTED_OPERATION
             : n > REDUCE_STAGE       ? coll_shm_open(comm, n, &s)
             : comm->size <= 1 || !n  ? MPI_ERR_UNSUPPORTED_OPERATION
                                      : coll_shm_get(comm, &s);
    if (rc == MPI_SUCCESS && n > COLL_SHM_SLOT && n <= REDUCE_STAGE &&
        (rc = stage_of(&s, &stage)) == MPI_ERR_UNSUPPORTED_OPERATION && s.copy)
        rc = MPI_SUCCESS;   /* no staging area: split, by single copy */
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION)
        return coll_reduce_binomial_tag(sbuf, rbuf, count, dt, op, root, comm, tag);
    if (rc != MPI_SUCCESS)
        return rc;
    const char *mine = (const char *)(sbuf == MPI_IN_PLACE ? rbuf : sbuf) + dt->true_lb;
    if (n <= COLL_SHM_SLOT || stage)
        return reduce_staged(mine, rbuf, count, dt, op, root, &s, n, stage);
    uint32_t e = coll_shm_next(&s);
    coll_shm_put_operands(coll_shm_slot_to_write(&s, e), mine,
                          comm->rank == root ? (char *)rbuf + dt->true_lb : NULL);
    coll_shm_arrive_all(&s);
    coll_shm_wait_all(&s, e);
    rc = coll_shm_reduce_slice(&s, e, count, dt, op, root);
    coll_shm_fence(&s);
    return rc;
}

int coll_reduce_shm(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                    const coll_op *op, int root, const mpid_comm *comm)
{
    return coll_reduce_shm_tag(sbuf, rbuf, count, dt, op, root, comm, COLL_TAG_REDUCE);
}
