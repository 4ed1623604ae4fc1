/*
 * allgather_shm.c — allgather through the communicator's node area.
 * Blocks up to one slot: each rank packs its block into its slot and
 * arrives, and once all have, unpacks every slot. No message; one round.
 * All blocks together up to STAGE bytes on 8 or more ranks: the same
 * through a staging buffer of the view (one per round parity), and a rank
 * leaves as soon as it has copied the others' blocks out: no second round,
 * so a rank that has finished does not need the core again, and plain
 * copies instead of a kernel call per block that pins the peer's pages.
 * Larger, with single copy: each rank publishes the address of its
 * (packed) send buffer and, once all have, reads every other block
 * straight into its receive buffer (mpid_node_read); a second round keeps
 * the blocks until everyone has read them. Every core copies its own p - 1 blocks at
 * once, where the ring needs p - 1 steps each waiting for a neighbour.
 * Otherwise (no area, no single copy) the ring runs.
 */
#include "coll/shm_sync.h"

/* The staging buffer's size per round parity, and the fewest ranks that
 * take it: on fewer the second round costs less than the extra copy of
 * each block and reading lines the writer's core has just dirtied. */
#define STAGE ((size_t)1 << 20)
#define STAGE_RANKS 8

/* Through the staging buffer of round e (`stage`, every block at its
 * rank's offset): in one round; the writer of round e + 2 waits until
 * every member has arrived in round e + 1, past its reads of this one. */
static int allgather_staged(const void *sbuf, size_t scount, const cu_dtype *sdt, char *rbuf,
                            size_t rcount, const cu_dtype *rdt, coll_shm *s, uint32_t e,
                            char *stage, size_t blk)
{
    int me = s->view->rank, p = s->view->size;
    char *mine = coll_blk(rbuf, NULL, rcount, me, rdt);
    coll_shm_slot_to_write(s, e);
    int rc = sbuf == MPI_IN_PLACE
                 ? coll_copy(mine, rcount, rdt, stage + (size_t)me * blk, blk, coll_byte())
                 : coll_copy(sbuf, scount, sdt, stage + (size_t)me * blk, blk, coll_byte());
    coll_shm_arrive_all(s);
    if (sbuf != MPI_IN_PLACE && rc == MPI_SUCCESS)
        rc = coll_copy(sbuf, scount, sdt, mine, rcount, rdt);
    coll_shm_wait_all(s, e);
    for (int k = 1; k < p && rc == MPI_SUCCESS; k++) {
        int i = (me + k) % p;
        rc = coll_copy(stage + (size_t)i * blk, blk, coll_byte(),
                       coll_blk(rbuf, NULL, rcount, i, rdt), rcount, rdt);
    }
    return rc;
}

int coll_allgather_shm(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                       size_t rcount, const cu_dtype *rdt, const mpid_comm *comm)
{
    int me = comm->rank, p = comm->size;
    size_t blk = cu_dtype_bytes(rdt, rcount);
    coll_shm s;
    int staged = p >= STAGE_RANKS && blk > COLL_SHM_SLOT && blk * (size_t)p <= STAGE;
    int rc = staged ? coll_shm_get(comm, &s) : coll_shm_open(comm, blk, &s);
    void *stage = NULL;
    if (rc == MPI_SUCCESS && staged &&
        (rc = mpid_node_area(comm, 2 * STAGE, &stage, NULL)) == MPI_ERR_UNSUPPORTED_OPERATION &&
        s.copy)
        rc = MPI_SUCCESS;   /* no staging buffer: by single copy */
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION)
        return coll_allgather_ring(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    char *mine = coll_blk(rbuf, NULL, rcount, me, rdt);
    uint32_t e = coll_shm_next(&s);
    if (stage)
        return allgather_staged(sbuf, scount, sdt, rbuf, rcount, rdt, &s, e,
                                (char *)stage + (size_t)(e & 1) * STAGE, blk);
    if (blk <= COLL_SHM_SLOT) {
        if (sbuf != MPI_IN_PLACE)
            rc = coll_copy(sbuf, scount, sdt, mine, rcount, rdt);
        int rc2 = coll_copy(mine, rcount, rdt, coll_shm_slot_to_write(&s, e), blk, coll_byte());
        rc = rc != MPI_SUCCESS ? rc : rc2;
        coll_shm_arrive_all(&s);
        coll_shm_wait_all(&s, e);
        for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
            if (i != me)
                rc = coll_copy(coll_shm_slot(&s, e, i), blk, coll_byte(),
                               coll_blk(rbuf, NULL, rcount, i, rdt), rcount, rdt);
        return rc;
    }
    /* Peers read my block from my send buffer, not from its copy in my
     * receive buffer: I copy it while they read, and they do not read lines
     * this core has just dirtied (as the ring sends from sbuf). */
    int inplace = sbuf == MPI_IN_PLACE;
    coll_bytes b;
    int rc2 = inplace ? coll_bytes_get(&b, mine, rcount, rdt, 1)
                      : coll_bytes_get(&b, sbuf, scount, sdt, 1);
    if (rc2 != MPI_SUCCESS)
        return rc2;   /* a local allocation failure: the job aborts */
    coll_shm_put_addr(coll_shm_slot_to_write(&s, e), b.p);
    coll_shm_arrive_all(&s);
    if (!inplace)
        rc = coll_copy(sbuf, scount, sdt, mine, rcount, rdt);
    coll_shm_wait_all(&s, e);
    for (int k = 1; k < p && rc == MPI_SUCCESS; k++) {
        int i = (me + k) % p;   /* staggered: the readers of one block spread out */
        rc = coll_shm_read_typed(&s, i, coll_shm_addr(&s, e, i), blk,
                                 coll_blk(rbuf, NULL, rcount, i, rdt), rcount, rdt);
    }
    coll_shm_fence(&s);
    coll_bytes_put(&b, NULL, 0, rdt, 0);
    return rc;
}
