/*
 * alltoallv_linear.c — linear alltoallv: every receive and send posted at
 * once (peers in rotated order so not everyone targets rank 0 first), then
 * one wait. Empty blocks send nothing: both ends agree they are empty
 * since the type signatures match. MPI_IN_PLACE packs the receive buffer
 * first and sends from the copy.
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

static int run(const void *sbuf, const int *scounts, const int *sdispls, const cu_dtype *sdt,
               void *rbuf, const int *rcounts, const int *rdispls, const cu_dtype *rdt,
               const mpid_comm *comm)
{
    int p = comm->size, me = comm->rank, rc = MPI_SUCCESS;
    const char *sb = sbuf;
    char *rb = rbuf;
    mpid_request **reqs = calloc((size_t)p * 2, sizeof *reqs);
    if (!reqs)
        return MPI_ERR_NO_MEM;
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int src = (me - i + p) % p;
        if (cu_dtype_bytes(rdt, (size_t)rcounts[src]))
            rc = mpid_irecv(rb + (ptrdiff_t)rdispls[src] * rdt->extent, (size_t)rcounts[src],
                            rdt, src, COLL_TAG_ALLTOALLV, comm, MPID_CTX_COLL, &reqs[2 * i]);
    }
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int dst = (me + i) % p;
        if (cu_dtype_bytes(sdt, (size_t)scounts[dst]))
            rc = mpid_isend(sb + (ptrdiff_t)sdispls[dst] * sdt->extent, (size_t)scounts[dst],
                            sdt, dst, COLL_TAG_ALLTOALLV, comm, MPID_CTX_COLL,
                            MPID_SEND_STANDARD, &reqs[2 * i + 1]);
    }
    if (rc == MPI_SUCCESS)
        rc = coll_copy(sb + (ptrdiff_t)sdispls[me] * sdt->extent, (size_t)scounts[me], sdt,
                       rb + (ptrdiff_t)rdispls[me] * rdt->extent, (size_t)rcounts[me], rdt);
    int rc2 = coll_waitall(2 * p, reqs);
    free(reqs);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int coll_alltoallv_linear(const void *sbuf, const int *scounts, const int *sdispls,
                          const cu_dtype *sdt, void *rbuf, const int *rcounts,
                          const int *rdispls, const cu_dtype *rdt, const mpid_comm *comm)
{
    if (sbuf != MPI_IN_PLACE)
        return run(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm);
    int p = comm->size;
    size_t total = 0;
    for (int i = 0; i < p; i++)
        total += cu_dtype_bytes(rdt, (size_t)rcounts[i]);
    char *tmp = malloc(total + 1);
    int *cnt = malloc(sizeof(int) * 2 * (size_t)p);
    if (!tmp || !cnt) {
        free(tmp);
        free(cnt);
        return MPI_ERR_NO_MEM;
    }
    size_t off = 0;
    for (int i = 0; i < p; i++) {
        size_t n = cu_dtype_bytes(rdt, (size_t)rcounts[i]);
        cu_dtype_pack((char *)rbuf + (ptrdiff_t)rdispls[i] * rdt->extent, (size_t)rcounts[i],
                      rdt, 0, tmp + off, n);
        cnt[i] = (int)n;
        cnt[p + i] = (int)off;
        off += n;
    }
    int rc = run(tmp, cnt, cnt + p, coll_byte(), rbuf, rcounts, rdispls, rdt, comm);
    free(tmp);
    free(cnt);
    return rc;
}
