/*
 * alltoall_bruck.c — Bruck's alltoall: after a local rotation, in step k
 * every rank sends rank+2^k all blocks whose index has bit k set (and
 * receives as many from rank-2^k); a final inverse rotation puts blocks in
 * place. ceil(log2 p) messages per rank instead of p-1, at the price of
 * moving each block log2(p)/2 times: the choice for small blocks.
 */
#include <stdlib.h>
#include <string.h>
#include "coll/coll_impl.h"

int coll_alltoall_bruck(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                        size_t rcount, const cu_dtype *rdt, const mpid_comm *comm)
{
    if (sbuf == MPI_IN_PLACE)
        return coll_alltoall_inplace(coll_alltoall_bruck, rbuf, rcount, rdt, comm);
    int p = comm->size, me = comm->rank, rc = MPI_SUCCESS;
    size_t blk = cu_dtype_bytes(rdt, rcount);
    if (cu_dtype_bytes(sdt, scount) != blk)
        return MPI_ERR_TRUNCATE;
    ptrdiff_t sx = (ptrdiff_t)scount * sdt->extent, rx = (ptrdiff_t)rcount * rdt->extent;
    size_t half = ((size_t)p / 2 + 1) * blk;
    char *tmp = malloc((size_t)p * blk + 2 * half + 1);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    char *pk = tmp + (size_t)p * blk, *in = pk + half;
    for (int i = 0; i < p; i++)       /* tmp[i]: my block for rank me+i */
        cu_dtype_pack((const char *)sbuf + ((me + i) % p) * sx, scount, sdt, 0,
                      tmp + (size_t)i * blk, blk);
    const cu_dtype *byte = coll_byte();
    for (int k = 1; k < p && rc == MPI_SUCCESS; k <<= 1) {
        size_t n = 0;
        for (int i = k; i < p; i++)
            if (i & k)
                memcpy(pk + (n++) * blk, tmp + (size_t)i * blk, blk);
        rc = coll_sendrecv(pk, n * blk, byte, (me + k) % p, in, n * blk, byte,
                           (me - k + p) % p, COLL_TAG_ALLTOALL, comm);
        n = 0;
        for (int i = k; i < p && rc == MPI_SUCCESS; i++)
            if (i & k)
                memcpy(tmp + (size_t)i * blk, in + (n++) * blk, blk);
    }
    if (rc == MPI_SUCCESS)            /* tmp[i] came from rank me-i */
        for (int i = 0; i < p; i++)
            cu_dtype_unpack((char *)rbuf + ((me - i + p) % p) * rx, rcount, rdt, 0,
                            tmp + (size_t)i * blk, blk);
    free(tmp);
    return rc;
}
