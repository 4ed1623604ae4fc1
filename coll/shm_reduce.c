/*
 * shm_reduce.c — a reduction split across the ranks of a node: in round e
 * every member has published the address of its operand (a contiguous
 * vector) and of its result buffer; member k combines slice k of all the
 * operands, in rank order, reading the peers' slices by single copy in
 * chunks that stay in cache, and writes the slice of the result to the
 * members that want it. Every core combines 1/p of the vector and each
 * byte of an operand crosses once; a reduction tree makes one core combine
 * all of it at its root (Open MPI's han and xhc reduce on the leader, UCC's
 * shared-memory team splits only above its own thresholds).
 * Slice k of an operand is read only by member k, and each chunk of slice k
 * of a peer's result written only by member k once it has read that chunk
 * of every operand, so in-place buffers need no copy.
 */
#include <stdlib.h>
#include "coll/shm_sync.h"
#include "src/util/vg.h"

/* Bytes combined at a time: two chunks (the accumulator and the one read)
 * stay in a core's L2. Each chunk of each peer is one process_vm_readv,
 * which pins the peer's pages under its mmap lock: 32 KiB chunks made an
 * 8-rank 1 MiB allreduce 256 such calls each way per call. */
#define CHUNK 131072

/* Slice k of count elements among p: [lo, hi). */
static void slice(size_t count, int p, int k, size_t *lo, size_t *hi)
{
    *lo = count / (size_t)p * (size_t)k + ((size_t)k < count % (size_t)p ? (size_t)k
                                                                          : count % (size_t)p);
    *hi = *lo + count / (size_t)p + ((size_t)k < count % (size_t)p);
}

/* Member i's result buffer (its data start), or NULL when it wants none. */
static char *result_of(const coll_shm *s, uint32_t e, int i)
{
    char *to;
    memcpy(&to, coll_shm_slot(s, e, i) + sizeof to, sizeof to);
    return to;
}

int coll_shm_reduce_slice(coll_shm *s, uint32_t e, size_t count, const cu_dtype *dt,
                          const coll_op *op, int root)
{
    size_t lo, hi;
    int me = s->view->rank;
    char *mine = result_of(s, e, me);
    if (mine && (root < 0 || root == me))   /* the other slices come by single copy */
        cu_vg_written(mine, count * dt->size);
    slice(count, s->view->size, me, &lo, &hi);
    return coll_shm_reduce_range(s, e, lo, hi, dt, op, root);
}

int coll_shm_reduce_range(coll_shm *s, uint32_t e, size_t lo, size_t hi, const cu_dtype *dt,
                          const coll_op *op, int root)
{
    const mpid_comm *v = s->view;
    int p = v->size, me = v->rank, rc = MPI_SUCCESS;
    size_t sz = dt->size;
    ptrdiff_t lb = dt->true_lb;
    size_t step = CHUNK / sz ? CHUNK / sz : 1, n = hi - lo;
    if (n == 0)
        return MPI_SUCCESS;
    size_t cap = (step < n ? step : n) * sz;
    /* When I want this range myself it is combined in my result, where it
     * ends anyway (a copy fewer), unless my result overlaps my operand
     * (in place: my operand's range is still to be read). My operand's
     * chunks are combined where they are, not copied first. */
    const char *myop = coll_shm_addr(s, e, me) + lo * sz;
    char *mine = (root < 0 || root == me) ? result_of(s, e, me) : NULL;
    if (mine) {
        mine += lo * sz;
        if (mine < myop + n * sz && myop < mine + n * sz)
            mine = NULL;
    }
    char *buf = malloc(mine ? cap : 2 * cap);
    if (!buf)
        return MPI_ERR_NO_MEM;
    char *in = buf, *acc = mine ? NULL : buf + cap;
    for (size_t c = lo; c < hi && rc == MPI_SUCCESS; c += step) {
        size_t m = hi - c < step ? hi - c : step, off = c * sz;
        char *a = mine ? mine + (off - lo * sz) : acc;
        /* x0 op (x1 op (... op x(p-1))), right to left as the slot form */
        rc = mpid_node_read(v, p - 1, a, coll_shm_addr(s, e, p - 1) + off, m * sz);
        for (int i = p - 2; i >= 0 && rc == MPI_SUCCESS; i--) {
            const char *x = in;
            if (i == me)
                x = myop + (off - lo * sz);
            else
                rc = mpid_node_read(v, i, in, coll_shm_addr(s, e, i) + off, m * sz);
            if (rc == MPI_SUCCESS)
                coll_op_apply(op, x - lb, a - lb, m, dt);
        }
        for (int i = 0; i < p && rc == MPI_SUCCESS; i++) {
            char *to = result_of(s, e, i);
            if ((root < 0 || i == root) && to && !(mine && i == me))
                rc = mpid_node_write(v, i, to + off, a, m * sz);
        }
    }
    free(buf);
    return rc;
}

void coll_shm_put_operands(char *slot, const void *operand, void *result)
{
    coll_shm_put_addr(slot, operand);
    memcpy(slot + sizeof operand, &result, sizeof result);
}
