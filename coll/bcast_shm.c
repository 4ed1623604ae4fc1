/*
 * bcast_shm.c — broadcast through the communicator's node area.
 * Up to one slot (COLL_SHM_SLOT bytes, packed): the root packs the message
 * into its slot and stores its round number; every other rank waits for
 * that number and unpacks. One store and one copy each, no message.
 * Up to COLL_SHM_STAGE bytes the same through a staging buffer of the
 * view (a second area, one buffer per round parity): the root copies once
 * more than by single copy, but leaves at once instead of waiting until
 * every rank has read its buffer, so on oversubscribed cores it needs its
 * core once per call, not again after the last reader, and readers copy
 * from shared memory without a system call each.
 * Larger (a staging buffer that size would cost twice its size per
 * communicator): the root publishes the address of its (packed) message
 * and every other rank reads it once, straight into its buffer, by single
 * copy (mpid_node_read), all at once; the root leaves when all have read.
 * With two members (above a slot) the root, whose core would idle, writes
 * half of the message into the reader's buffer while the reader reads the
 * other half (bcast_pair).
 * Each byte is copied once per receiver, with no staging and no pipeline of
 * forwarding hops (a tree would copy it twice per hop, through slots, as
 * Open MPI's xhc and MPICH's release/gather do; single copy is what their
 * large-message forms use too, but behind a tree of leaders). Without
 * single copy, or off one node's shared memory, the binomial tree runs
 * (the scatter+allgather one for large messages). The hierarchical
 * algorithms run it as their node phase (coll_bcast_shm_tag).
 */
#include "coll/shm_sync.h"
#include "src/util/vg.h"

static int bcast_copy(void *buf, size_t count, const cu_dtype *dt, int root, coll_shm *s)
{
    const mpid_comm *comm = s->view;
    coll_bytes b;
    int rc = coll_bytes_get(&b, buf, count, dt, comm->rank == root);
    if (rc != MPI_SUCCESS)
        return rc;   /* same n everywhere: a failed allocation is local, the job aborts */
    uint32_t e = coll_shm_next(s);
    if (comm->rank == root) {
        coll_shm_put_addr(coll_shm_slot_to_write(s, e), b.p);
        coll_shm_arrive_all(s);
        coll_shm_wait_all(s, e);   /* everyone has read b.p */
    } else {
        coll_shm_wait_line(s, root, e);
        rc = mpid_node_read(comm, root, b.p, coll_shm_addr(s, e, root), b.n);
        coll_shm_arrive(s);
        mpid_node_wake(comm, root);
    }
    coll_bytes_put(&b, buf, count, dt, comm->rank != root && rc == MPI_SUCCESS);
    return rc;
}

/* Two members, by single copy: the reader publishes its buffer too, and
 * the root writes the second half into it while the reader reads the
 * first, so both cores copy (as the cooperative rendezvous of
 * mpid/rndv.c, but from the size of a slot on, without its packets). Two
 * rounds: e, both addresses are out; e + 1, the root's half is written
 * (its status after the address: on failure the reader reads that half
 * too). The root leaves once the reader is done with its buffer. */
static int bcast_pair(void *buf, size_t count, const cu_dtype *dt, int root, coll_shm *s)
{
    const mpid_comm *comm = s->view;
    int me = comm->rank, other = 1 - me;
    coll_bytes b;
    int rc = coll_bytes_get(&b, buf, count, dt, me == root);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t split = (b.n / 2) & ~(size_t)4095;   /* pages apart: no line written by both */
    uint32_t e = coll_shm_next(s);
    char *slot = coll_shm_slot_to_write(s, e);
    coll_shm_put_addr(slot, b.p);
    coll_shm_arrive_all(s);
    coll_shm_wait_line(s, other, e);
    char *peer = coll_shm_addr(s, e, other);
    int st;
    if (me == root) {
        st = mpid_node_write(comm, other, peer + split, b.p + split, b.n - split);
        memcpy(slot + sizeof(void *), &st, sizeof st);
        coll_shm_arrive_all(s);
        coll_shm_wait_line(s, other, e + 1);   /* it has read its half */
    } else {
        cu_vg_written(b.p + split, b.n - split);   /* the root writes that half */
        rc = mpid_node_read(comm, root, b.p, peer, split);
        coll_shm_wait_line(s, root, e + 1);
        memcpy(&st, coll_shm_slot(s, e, root) + sizeof(void *), sizeof st);
        if (st != MPI_SUCCESS && rc == MPI_SUCCESS)
            rc = mpid_node_read(comm, root, b.p + split, peer + split, b.n - split);
        coll_shm_arrive_all(s);
    }
    coll_bytes_put(&b, buf, count, dt, me != root && rc == MPI_SUCCESS);
    return rc;
}

/* The view's staging buffer of round e in *stage; NULL with
 * MPI_ERR_UNSUPPORTED_OPERATION, alike on every member, when it cannot
 * have one (another error is local: the job aborts). */
static int stage_of(const coll_shm *s, uint32_t e, char **stage)
{
    void *base;
    int rc = mpid_node_area(s->view, 2 * (size_t)COLL_SHM_STAGE, &base, NULL);
    *stage = rc == MPI_SUCCESS ? (char *)base + (size_t)(e & 1) * COLL_SHM_STAGE : NULL;
    return rc;
}

/* Through a slot (n up to COLL_SHM_SLOT) or the staging buffer: the root
 * writes the round's buffer, once every member is done with the round
 * before the last that used it, and leaves. */
static int bcast_staged(void *buf, size_t count, const cu_dtype *dt, int root, coll_shm *s,
                        size_t n, char *stage)
{
    const mpid_comm *comm = s->view;
    uint32_t e = coll_shm_next(s);
    if (comm->rank == root) {
        char *slot = coll_shm_slot_to_write(s, e);
        int rc = coll_copy(buf, count, dt, stage ? stage : slot, n, coll_byte());
        coll_shm_arrive(s);
        for (int i = 0; i < comm->size; i++)
            if (i != root)
                mpid_node_wake(comm, i);
        return rc;
    }
    coll_shm_arrive(s);
    coll_shm_wait_line(s, root, e);
    return coll_copy(stage ? stage : coll_shm_slot(s, e, root), n, coll_byte(), buf, count, dt);
}

/* tag: the binomial tree's when the view has no area (0: the plain
 * algorithms' choice). */
static int bcast_shm(void *buf, size_t count, const cu_dtype *dt, int root,
                     const mpid_comm *comm, int tag)
{
    size_t n = cu_dtype_bytes(dt, count);
    if (comm->size <= 1 || n == 0)
        return MPI_SUCCESS;
    coll_shm s;
    /* A pair's root has nothing else to do: both copy (bcast_pair), no
     * staging. A node phase (tag) stays as it was: there the pair shares
     * its cores with the other nodes' ranks. */
    int pair = comm->size == 2 && n > COLL_SHM_SLOT && !tag;
    /* up to the staging buffer no single copy is needed */
    int rc = n <= COLL_SHM_STAGE && !pair ? coll_shm_get(comm, &s) : coll_shm_open(comm, n, &s);
    if (rc == MPI_SUCCESS && pair)
        return bcast_pair(buf, count, dt, root, &s);
    char *stage = NULL;
    if (rc == MPI_SUCCESS && n > COLL_SHM_SLOT && n <= COLL_SHM_STAGE &&
        (rc = stage_of(&s, coll_shm_next(&s), &stage)) == MPI_ERR_UNSUPPORTED_OPERATION &&
        s.copy)
        rc = MPI_SUCCESS;   /* no staging buffer: by single copy */
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION && tag)
        return coll_bcast_binomial_tag(buf, count, dt, root, comm, tag);
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION)
        return n <= COLL_SHM_SLOT ? coll_bcast_binomial(buf, count, dt, root, comm)
                                  : coll_bcast_scatter_allgather(buf, count, dt, root, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (n > COLL_SHM_SLOT && !stage)
        return bcast_copy(buf, count, dt, root, &s);
    return bcast_staged(buf, count, dt, root, &s, n, stage);
}

int coll_bcast_shm(void *buf, size_t count, const cu_dtype *dt, int root,
                   const mpid_comm *comm)
{
    return bcast_shm(buf, count, dt, root, comm, 0);
}

int coll_bcast_shm_tag(void *buf, size_t count, const cu_dtype *dt, int root,
                       const mpid_comm *view, int tag)
{
    return bcast_shm(buf, count, dt, root, view, tag);
}
