/*
 * allgather_recdbl.c — recursive-doubling allgather: in step k each rank
 * swaps everything it holds with rank^2^k, so the held range doubles;
 * log2(p) steps, each byte moved once. With p a power of two the blocks
 * move straight between user buffers (the held range is a run of whole
 * blocks). Otherwise the p - 2^floor(log2 p) extra ranks first hand their
 * block to a partner among the first 2^floor(log2 p), those run the
 * doubling on packed bytes laid out so that every held range stays one
 * run (partner i keeps blocks i and i+p2 side by side), and finally send
 * the extras the whole result: two more steps, still O(log p).
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

/* packed position (in blocks) of participant i's first block */
static size_t pos_of(int i, int r)
{
    return (size_t)(i < r ? 2 * i : r + i);
}

int coll_allgather_recdbl(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                          size_t rcount, const cu_dtype *rdt, const mpid_comm *comm)
{
    int p = comm->size, me = comm->rank, rc = MPI_SUCCESS;
    ptrdiff_t ext = (ptrdiff_t)rcount * rdt->extent;
    char *rb = rbuf;
    const int tag = COLL_TAG_ALLGATHER;
    if (sbuf != MPI_IN_PLACE && (rc = coll_copy(sbuf, scount, sdt, rb + me * ext, rcount, rdt)))
        return rc;
    int p2 = 1;
    while (p2 * 2 <= p)
        p2 *= 2;
    if (p2 == p) {
        for (int m = 1; m < p && rc == MPI_SUCCESS; m <<= 1) {
            int peer = me ^ m, g = me & ~(m - 1), pg = peer & ~(m - 1);
            rc = coll_sendrecv(rb + g * ext, (size_t)m * rcount, rdt, peer,
                               rb + pg * ext, (size_t)m * rcount, rdt, peer, tag, comm);
        }
        return rc;
    }
    int r = p - p2;
    size_t blk = cu_dtype_bytes(rdt, rcount);
    const cu_dtype *byte = coll_byte();
    char *tmp = malloc((size_t)p * blk + 1);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    if (me >= p2) {                       /* an extra: hand over, get all back */
        cu_dtype_pack(rb + me * ext, rcount, rdt, 0, tmp, blk);
        rc = coll_send(tmp, blk, byte, me - p2, tag, comm);
        if (rc == MPI_SUCCESS)
            rc = coll_recv(tmp, (size_t)p * blk, byte, me - p2, tag, comm);
    } else {
        cu_dtype_pack(rb + me * ext, rcount, rdt, 0, tmp + pos_of(me, r) * blk, blk);
        if (me < r)
            rc = coll_recv(tmp + (pos_of(me, r) + 1) * blk, blk, byte, me + p2, tag, comm);
        for (int m = 1; m < p2 && rc == MPI_SUCCESS; m <<= 1) {
            int peer = me ^ m, g = me & ~(m - 1), pg = peer & ~(m - 1);
            size_t so = pos_of(g, r), sn = pos_of(g + m, r) - so;
            size_t ro = pos_of(pg, r), rn = pos_of(pg + m, r) - ro;
            rc = coll_sendrecv(tmp + so * blk, sn * blk, byte, peer, tmp + ro * blk, rn * blk,
                               byte, peer, tag, comm);
        }
        if (rc == MPI_SUCCESS && me < r)
            rc = coll_send(tmp, (size_t)p * blk, byte, me + p2, tag, comm);
    }
    if (rc == MPI_SUCCESS)
        for (int b = 0; b < p; b++) {
            size_t pos = b < r ? 2 * (size_t)b : b >= p2 ? 2 * (size_t)(b - p2) + 1
                                                         : (size_t)(r + b);
            if (b != me)
                cu_dtype_unpack(rb + b * ext, rcount, rdt, 0, tmp + pos * blk, blk);
        }
    free(tmp);
    return rc;
}
