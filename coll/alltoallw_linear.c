/*
 * alltoallw_linear.c — linear alltoallw: like alltoallv_linear with a type
 * per peer and byte displacements. Every message posted at once; empty
 * blocks send nothing; MPI_IN_PLACE sends from a packed copy.
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

static int run(const void *sbuf, const int *scounts, const int *sdispls,
               const cu_dtype *const *sdts, void *rbuf, const int *rcounts, const int *rdispls,
               const cu_dtype *const *rdts, const mpid_comm *comm)
{
    int p = comm->size, me = comm->rank, rc = MPI_SUCCESS;
    const char *sb = sbuf;
    char *rb = rbuf;
    mpid_request **reqs = calloc((size_t)p * 2, sizeof *reqs);
    if (!reqs)
        return MPI_ERR_NO_MEM;
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int src = (me - i + p) % p;
        if (cu_dtype_bytes(rdts[src], (size_t)rcounts[src]))
            rc = mpid_irecv(rb + rdispls[src], (size_t)rcounts[src], rdts[src], src,
                            COLL_TAG_ALLTOALLW, comm, MPID_CTX_COLL, &reqs[2 * i]);
    }
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int dst = (me + i) % p;
        if (cu_dtype_bytes(sdts[dst], (size_t)scounts[dst]))
            rc = mpid_isend(sb + sdispls[dst], (size_t)scounts[dst], sdts[dst], dst,
                            COLL_TAG_ALLTOALLW, comm, MPID_CTX_COLL, MPID_SEND_STANDARD,
                            &reqs[2 * i + 1]);
    }
    if (rc == MPI_SUCCESS)
        rc = coll_copy(sb + sdispls[me], (size_t)scounts[me], sdts[me], rb + rdispls[me],
                       (size_t)rcounts[me], rdts[me]);
    int rc2 = coll_waitall(2 * p, reqs);
    free(reqs);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int coll_alltoallw_linear(const void *sbuf, const int *scounts, const int *sdispls,
                          const cu_dtype *const *sdts, void *rbuf, const int *rcounts,
                          const int *rdispls, const cu_dtype *const *rdts,
                          const mpid_comm *comm)
{
    if (sbuf != MPI_IN_PLACE)
        return run(sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts, comm);
    int p = comm->size;
    size_t total = 0;
    for (int i = 0; i < p; i++)
        total += cu_dtype_bytes(rdts[i], (size_t)rcounts[i]);
    char *tmp = malloc(total + 1);
    int *cnt = malloc(sizeof(int) * 2 * (size_t)p);
    const cu_dtype **bytes = malloc(sizeof *bytes * (size_t)p);
    if (!tmp || !cnt || !bytes) {
        free(tmp);
        free(cnt);
        free(bytes);
        return MPI_ERR_NO_MEM;
    }
    size_t off = 0;
    for (int i = 0; i < p; i++) {
        size_t n = cu_dtype_bytes(rdts[i], (size_t)rcounts[i]);
        cu_dtype_pack((char *)rbuf + rdispls[i], (size_t)rcounts[i], rdts[i], 0, tmp + off, n);
        cnt[i] = (int)n;
        cnt[p + i] = (int)off;
        bytes[i] = coll_byte();
        off += n;
    }
    int rc = run(tmp, cnt, cnt + p, bytes, rbuf, rcounts, rdispls, rdts, comm);
    free(tmp);
    free(cnt);
    free(bytes);
    return rc;
}
