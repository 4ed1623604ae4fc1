/*
 * scatter_shm.c — scatter through the communicator's node area.
 * All blocks together up to one slot: the root packs them into its slot
 * and arrives; every other rank waits for it and unpacks its own block.
 * Larger, with single copy: the root publishes the address of its (packed)
 * send buffer and every rank reads its block from there itself
 * (mpid_node_read), all at once, while the root copies its own; the root
 * leaves when all have read.
 * Otherwise (no area, no single copy) the linear scatter runs.
 */
#include "coll/shm_sync.h"

int coll_scatter_shm(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                     size_t rcount, const cu_dtype *rdt, int root, const mpid_comm *comm)
{
    int me = comm->rank, p = comm->size;
    size_t blk = me == root ? cu_dtype_bytes(sdt, scount) : cu_dtype_bytes(rdt, rcount);
    size_t all = blk * (size_t)p;
    coll_shm s;
    int rc = coll_shm_open(comm, all, &s);
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION)
        return coll_scatter_linear(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    uint32_t e = coll_shm_next(&s);
    if (me != root) {
        if (all <= COLL_SHM_SLOT) {
            coll_shm_arrive(&s);
            coll_shm_wait_line(&s, root, e);
            return coll_copy(coll_shm_slot(&s, e, root) + (size_t)me * blk, blk, coll_byte(),
                             rbuf, rcount, rdt);
        }
        coll_shm_wait_line(&s, root, e);
        rc = coll_shm_read_typed(&s, root, coll_shm_addr(&s, e, root) + (size_t)me * blk, blk,
                                 rbuf, rcount, rdt);
        coll_shm_arrive(&s);
        mpid_node_wake(comm, root);
        return rc;
    }
    int in_slot = all <= COLL_SHM_SLOT;
    coll_bytes b;
    if (in_slot)
        rc = coll_copy(sbuf, scount * (size_t)p, sdt, coll_shm_slot_to_write(&s, e), all,
                       coll_byte());
    else if ((rc = coll_bytes_get(&b, sbuf, scount * (size_t)p, sdt, 1)) != MPI_SUCCESS)
        return rc;   /* a local allocation failure: the job aborts */
    else
        coll_shm_put_addr(coll_shm_slot_to_write(&s, e), b.p);
    coll_shm_arrive_all(&s);
    /* my own block while the others read theirs, not before they may */
    if (rbuf != MPI_IN_PLACE && rc == MPI_SUCCESS)
        rc = coll_copy(coll_blk(sbuf, NULL, scount, me, sdt), scount, sdt, rbuf, rcount, rdt);
    if (!in_slot) {   /* the others read from my buffer until they arrive */
        coll_shm_wait_all(&s, e);
        coll_bytes_put(&b, NULL, 0, sdt, 0);
    }
    return rc;
}
