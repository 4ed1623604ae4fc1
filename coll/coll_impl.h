/*
 * coll_impl.h — private to coll/: tags and the point-to-point helpers the
 * algorithms share.
 */
#ifndef COLL_IMPL_H
#define COLL_IMPL_H

#include "coll/coll.h"

/* Internal tags on the collective context. Negative, so they can never equal
 * a user tag (MPI_Comm_create_group runs with user tags on the same context);
 * MPI_ANY_TAG (-1) is never used here. Collectives on one communicator run
 * in the same order everywhere, and messages between two ranks do not
 * overtake, so one tag per algorithm is enough. */
#define COLL_TAG_BARRIER   (-16)
#define COLL_TAG_BCAST     (-17)
#define COLL_TAG_ALLGATHER (-18)

/* Exchange with two peers: receive from src while sending to dst. */
int coll_sendrecv(const void *sbuf, size_t scount, const cu_dtype *sdt, int dst,
                  void *rbuf, size_t rcount, const cu_dtype *rdt, int src,
                  int tag, const mpid_comm *comm);

/* Wait for n requests (NULL entries skipped), free them; first error wins. */
int coll_waitall(int n, mpid_request **reqs);

/* Local copy between two typed buffers holding the same packed bytes. */
int coll_copy(const void *sbuf, size_t scount, const cu_dtype *sdt,
              void *rbuf, size_t rcount, const cu_dtype *rdt);

/* The allgather algorithms (coll_allgather_tag picks one). */
int coll_allgather_ring(const void *sendbuf, size_t sendcount, const cu_dtype *sendtype,
                        void *recvbuf, size_t recvcount, const cu_dtype *recvtype,
                        const mpid_comm *comm, int tag);
int coll_allgather_bruck(const void *sendbuf, size_t sendcount, const cu_dtype *sendtype,
                         void *recvbuf, size_t recvcount, const cu_dtype *recvtype,
                         const mpid_comm *comm, int tag);

/* The MPI_BYTE type, for zero-byte synchronisation messages. */
const cu_dtype *coll_byte(void);

#endif
