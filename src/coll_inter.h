/*
 * coll_inter.h — the collectives on intercommunicators, shared by the
 * blocking and nonblocking entry points (coll_inter_entry.c): request NULL
 * runs the operation to completion, else it is returned in *request. Each
 * reports its failures on c's error handler. Arguments are checked; the
 * v forms pass counts and displacements, the plain forms NULL and count.
 */
#ifndef MPIR_COLL_INTER_H
#define MPIR_COLL_INTER_H

#include "src/coll_nbc.h"

int mpir_inter_barrier(const char *fn, mpir_comm *c, MPI_Request *request);
int mpir_inter_bcast(const char *fn, mpir_comm *c, void *buf, int count, const cu_dtype *dt,
                     int root, MPI_Request *request);
int mpir_inter_gather(const char *fn, mpir_comm *c, const void *sbuf, int scount,
                      const cu_dtype *sdt, void *rbuf, const int *rcounts, const int *displs,
                      int rcount, const cu_dtype *rdt, int root, MPI_Request *request);
int mpir_inter_scatter(const char *fn, mpir_comm *c, const void *sbuf, const int *scounts,
                       const int *displs, int scount, const cu_dtype *sdt, void *rbuf,
                       int rcount, const cu_dtype *rdt, int root, MPI_Request *request);
int mpir_inter_allgather(const char *fn, mpir_comm *c, const void *sbuf, int scount,
                         const cu_dtype *sdt, void *rbuf, const int *rcounts, const int *displs,
                         int rcount, const cu_dtype *rdt, MPI_Request *request);
int mpir_inter_reduce(const char *fn, mpir_comm *c, const void *sbuf, void *rbuf, int count,
                      const cu_dtype *dt, const coll_op *op, int root, MPI_Request *request);
int mpir_inter_allreduce(const char *fn, mpir_comm *c, const void *sbuf, void *rbuf, int count,
                         const cu_dtype *dt, const coll_op *op, MPI_Request *request);
/* rcounts NULL: the block form, rcount for every local rank. */
int mpir_inter_reduce_scatter(const char *fn, mpir_comm *c, const void *sbuf, void *rbuf,
                              const int *rcounts, int rcount, const cu_dtype *dt,
                              const coll_op *op, MPI_Request *request);
/* Alltoall, -v and -w: mpir_nbc_alltoall (coll_nb_entry.c), which serves
 * both kinds of communicator. */

#endif
