/*
 * allgatherv_ring.c — ring allgatherv: in step s each rank passes the block
 * it received in step s-1 to its right neighbour. p-1 steps for any p and
 * any block sizes, every block moving straight between user buffers.
 */
#include "coll/coll_impl.h"

int coll_allgatherv_ring_tag(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                             const int *rcounts, const int *displs, const cu_dtype *rdt,
                             const mpid_comm *comm, int tag)
{
    int p = comm->size, me = comm->rank;
    char *rb = rbuf;
    ptrdiff_t x = rdt->extent;
    if (sbuf != MPI_IN_PLACE) {
        int rc = coll_copy(sbuf, scount, sdt, rb + displs[me] * x, (size_t)rcounts[me], rdt);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    int right = (me + 1) % p, left = (me - 1 + p) % p;
    for (int s = 0; s < p - 1; s++) {
        int sb = (me - s + p) % p, rbk = (me - s - 1 + p) % p;
        int rc = coll_sendrecv(rb + displs[sb] * x, (size_t)rcounts[sb], rdt, right,
                               rb + displs[rbk] * x, (size_t)rcounts[rbk], rdt, left, tag, comm);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int coll_allgatherv_ring(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                         const int *rcounts, const int *displs, const cu_dtype *rdt,
                         const mpid_comm *comm)
{
    return coll_allgatherv_ring_tag(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm,
                                    COLL_TAG_ALLGATHERV);
}
