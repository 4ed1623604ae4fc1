/*
 * gather_shm.c — gather through the communicator's node area.
 * Blocks up to one slot: each rank packs its block into its slot and
 * arrives; the root waits for all and unpacks every slot. No message, and
 * a non-root never waits (the slots alternate by round parity).
 * Larger blocks, with single copy: the root publishes the address of its
 * receive buffer (packed, when its type is not contiguous) and every rank
 * writes its block there itself (mpid_node_write), so p - 1 cores copy at
 * once instead of the root alone; the root leaves when all have written.
 * Otherwise (no area, no single copy) the linear gather runs.
 */
#include <stdlib.h>
#include "coll/shm_sync.h"
#include "src/util/vg.h"

/* The root's own block, from its send buffer unless in place. */
static int own_block(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                     size_t rcount, const cu_dtype *rdt, int root)
{
    if (sbuf == MPI_IN_PLACE)
        return MPI_SUCCESS;
    return coll_copy(sbuf, scount, sdt, coll_blk(rbuf, NULL, rcount, root, rdt), rcount, rdt);
}

static int gather_slots(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                        size_t rcount, const cu_dtype *rdt, int root, coll_shm *s, size_t blk)
{
    const mpid_comm *comm = s->view;
    uint32_t e = coll_shm_next(s);
    if (comm->rank != root) {
        int rc = coll_copy(sbuf, scount, sdt, coll_shm_slot_to_write(s, e), blk, coll_byte());
        coll_shm_arrive(s);
        return rc;
    }
    coll_shm_arrive(s);
    coll_shm_wait_all(s, e);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < comm->size && rc == MPI_SUCCESS; i++)
        if (i != root)
            rc = coll_copy(coll_shm_slot(s, e, i), blk, coll_byte(),
                           coll_blk(rbuf, NULL, rcount, i, rdt), rcount, rdt);
    return rc;
}

static int gather_copy(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                       size_t rcount, const cu_dtype *rdt, int root, coll_shm *s, size_t blk)
{
    const mpid_comm *comm = s->view;
    uint32_t e = coll_shm_next(s);
    coll_bytes b;
    int rc;
    if (comm->rank == root) {
        rc = coll_bytes_get(&b, rbuf, rcount * (size_t)comm->size, rdt, 0);
        if (rc != MPI_SUCCESS)
            return rc;
        coll_shm_put_addr(coll_shm_slot_to_write(s, e), b.p);
        cu_vg_written(b.p, b.n);   /* the others write their blocks */
        coll_shm_arrive_all(s);
        /* mine while the others write theirs, not before they may */
        rc = own_block(sbuf, scount, sdt, rbuf, rcount, rdt, root);
        coll_shm_wait_all(s, e);
        for (int i = 0; b.tmp && i < comm->size; i++)   /* my block came from sbuf */
            if (i != root)
                coll_copy(b.p + (size_t)i * blk, blk, coll_byte(),
                          coll_blk(rbuf, NULL, rcount, i, rdt), rcount, rdt);
        coll_bytes_put(&b, rbuf, 0, rdt, 0);
        return rc;
    }
    rc = coll_bytes_get(&b, sbuf, scount, sdt, 1);
    coll_shm_wait_line(s, root, e);
    if (rc == MPI_SUCCESS)
        rc = mpid_node_write(comm, root, coll_shm_addr(s, e, root) + (size_t)comm->rank * blk,
                             b.p, blk);
    coll_bytes_put(&b, NULL, 0, sdt, 0);
    coll_shm_arrive(s);
    mpid_node_wake(comm, root);
    return rc;
}

int coll_gather_shm(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                    size_t rcount, const cu_dtype *rdt, int root, const mpid_comm *comm)
{
    int me = comm->rank;
    size_t blk = me == root ? cu_dtype_bytes(rdt, rcount) : cu_dtype_bytes(sdt, scount);
    coll_shm s;
    int rc = coll_shm_open(comm, blk, &s);
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION)
        return coll_gather_linear(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (blk > COLL_SHM_SLOT)
        return gather_copy(sbuf, scount, sdt, rbuf, rcount, rdt, root, &s, blk);
    if (me == root)
        rc = own_block(sbuf, scount, sdt, rbuf, rcount, rdt, root);
    int rc2 = gather_slots(sbuf, scount, sdt, rbuf, rcount, rdt, root, &s, blk);
    return rc != MPI_SUCCESS ? rc : rc2;
}
