/*
 * alltoall_shm.c — alltoall through the communicator's node area.
 * All of a rank's blocks together up to one slot: each packs them into its
 * slot and arrives; once all have, each unpacks its own block from every
 * slot. One round, no message.
 * Larger, with single copy: each rank publishes the address of its
 * (packed) send buffer and, once all have, reads its block from every peer
 * straight into its receive buffer (mpid_node_read), starting with its
 * right neighbour so the readers of one buffer spread out; a second round
 * keeps the buffers until everyone has read them. Otherwise (no area, no
 * single copy) the pairwise exchange runs. MPI_IN_PLACE goes through a
 * packed copy of the receive buffer.
 */
#include "coll/shm_sync.h"

int coll_alltoall_shm(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                      size_t rcount, const cu_dtype *rdt, const mpid_comm *comm)
{
    int me = comm->rank, p = comm->size;
    size_t blk = cu_dtype_bytes(rdt, rcount), all = blk * (size_t)p;
    coll_shm s;
    int rc = coll_shm_open(comm, all, &s);
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION)
        return coll_alltoall_pairwise(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (sbuf == MPI_IN_PLACE)
        return coll_alltoall_inplace(coll_alltoall_shm, rbuf, rcount, rdt, comm);
    uint32_t e = coll_shm_next(&s);
    if (all <= COLL_SHM_SLOT) {
        coll_copy(sbuf, scount * (size_t)p, sdt, coll_shm_slot_to_write(&s, e), all,
                  coll_byte());
        coll_shm_arrive_all(&s);
        coll_shm_wait_all(&s, e);
        for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
            rc = coll_copy(coll_shm_slot(&s, e, i) + (size_t)me * blk, blk, coll_byte(),
                           coll_blk(rbuf, NULL, rcount, i, rdt), rcount, rdt);
        return rc;
    }
    coll_bytes b;
    rc = coll_bytes_get(&b, sbuf, scount * (size_t)p, sdt, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_shm_put_addr(coll_shm_slot_to_write(&s, e), b.p);
    coll_shm_arrive_all(&s);
    coll_shm_wait_all(&s, e);
    for (int k = 0; k < p && rc == MPI_SUCCESS; k++) {
        int i = (me + k) % p;
        rc = coll_shm_read_typed(&s, i, coll_shm_addr(&s, e, i) + (size_t)me * blk, blk,
                                 coll_blk(rbuf, NULL, rcount, i, rdt), rcount, rdt);
    }
    coll_shm_fence(&s);
    coll_bytes_put(&b, NULL, 0, sdt, 0);
    return rc;
}
