/*
 * algos.h — every collective algorithm, one family per file, and the types
 * the selection table (coll/select.c) uses to pick among them.
 *
 * Conventions shared by all algorithms:
 * - arguments are already checked by the MPI layer;
 * - MPI_IN_PLACE arrives as is, where the standard allows it;
 * - traffic uses the communicator's collective context (MPID_CTX_COLL) and
 *   tags below zero, so it never matches user messages;
 * - counts are element counts of the given type; displacements are in
 *   elements of the receive (or send) type, as in MPI.
 */
#ifndef COLL_ALGOS_H
#define COLL_ALGOS_H

#include "coll/coll.h"

/* A reduction operation as the algorithms see it. */
typedef struct coll_op {
    int                builtin;  /* predefined op index (1..14), or 0 */
    int                commute;  /* nonzero if the op is commutative */
    MPI_User_function *user_fn;  /* user op (builtin == 0) */
    MPI_Datatype       dt_handle;/* datatype handle given to user_fn */
} coll_op;

/* inout[i] = in[i] op inout[i] for count elements of dt (MPI's order: the
 * left operand is `in`). Implemented in coll/op_apply.c with the kernels of
 * src/util/op.c. */
void coll_op_apply(const coll_op *op, const void *in, void *inout, size_t count,
                   const cu_dtype *dt);

/* ---- signatures, one per operation ------------------------------------ */
typedef int coll_barrier_fn(const mpid_comm *comm);
typedef int coll_bcast_fn(void *buf, size_t count, const cu_dtype *dt, int root,
                          const mpid_comm *comm);
typedef int coll_reduce_fn(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                           const coll_op *op, int root, const mpid_comm *comm);
typedef int coll_allreduce_fn(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                              const coll_op *op, const mpid_comm *comm);
typedef int coll_gather_fn(const void *sbuf, size_t scount, const cu_dtype *sdt,
                           void *rbuf, size_t rcount, const cu_dtype *rdt, int root,
                           const mpid_comm *comm);
typedef coll_gather_fn coll_scatter_fn;
typedef int coll_gatherv_fn(const void *sbuf, size_t scount, const cu_dtype *sdt,
                            void *rbuf, const int *rcounts, const int *displs,
                            const cu_dtype *rdt, int root, const mpid_comm *comm);
typedef int coll_scatterv_fn(const void *sbuf, const int *scounts, const int *displs,
                             const cu_dtype *sdt, void *rbuf, size_t rcount,
                             const cu_dtype *rdt, int root, const mpid_comm *comm);
typedef int coll_allgather_fn(const void *sbuf, size_t scount, const cu_dtype *sdt,
                              void *rbuf, size_t rcount, const cu_dtype *rdt,
                              const mpid_comm *comm);
typedef int coll_allgatherv_fn(const void *sbuf, size_t scount, const cu_dtype *sdt,
                               void *rbuf, const int *rcounts, const int *displs,
                               const cu_dtype *rdt, const mpid_comm *comm);
typedef coll_allgather_fn coll_alltoall_fn;
typedef int coll_alltoallv_fn(const void *sbuf, const int *scounts, const int *sdispls,
                              const cu_dtype *sdt, void *rbuf, const int *rcounts,
                              const int *rdispls, const cu_dtype *rdt,
                              const mpid_comm *comm);
/* Alltoallw: byte displacements and one type per peer. */
typedef int coll_alltoallw_fn(const void *sbuf, const int *scounts, const int *sdispls,
                              const cu_dtype *const *sdts, void *rbuf, const int *rcounts,
                              const int *rdispls, const cu_dtype *const *rdts,
                              const mpid_comm *comm);
typedef int coll_reduce_scatter_fn(const void *sbuf, void *rbuf, const int *rcounts,
                                   const cu_dtype *dt, const coll_op *op,
                                   const mpid_comm *comm);
typedef int coll_reduce_scatter_block_fn(const void *sbuf, void *rbuf, size_t rcount,
                                         const cu_dtype *dt, const coll_op *op,
                                         const mpid_comm *comm);
typedef int coll_scan_fn(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                         const coll_op *op, const mpid_comm *comm);

/* ---- data movement (coll/barrier_*.c, bcast_*.c, gather_*.c, ...) ------ */
coll_barrier_fn coll_barrier_dissemination, coll_barrier_binomial, coll_barrier_hier,
                coll_barrier_shm;
coll_bcast_fn   coll_bcast_binomial, coll_bcast_binary, coll_bcast_knomial, coll_bcast_flat,
                coll_bcast_scatter_allgather, coll_bcast_hier, coll_bcast_shm;
coll_gather_fn  coll_gather_binomial, coll_gather_linear, coll_gather_shm;
coll_scatter_fn coll_scatter_binomial, coll_scatter_linear, coll_scatter_shm;
coll_gatherv_fn  coll_gatherv_linear;
coll_scatterv_fn coll_scatterv_linear;
coll_allgather_fn coll_allgather_ring, coll_allgather_recdbl, coll_allgather_bruck,
                  coll_allgather_hier, coll_allgather_shm;
coll_allgatherv_fn coll_allgatherv_ring;
coll_alltoall_fn  coll_alltoall_pairwise, coll_alltoall_bruck, coll_alltoall_linear,
                  coll_alltoall_shm;
coll_alltoallv_fn coll_alltoallv_linear;
coll_alltoallw_fn coll_alltoallw_linear;

/* ---- reductions (coll/reduce_*.c, allreduce_*.c, ...) ------------------ */
coll_reduce_fn    coll_reduce_binomial, coll_reduce_binary, coll_reduce_rabenseifner,
                  coll_reduce_hier, coll_reduce_shm;
coll_allreduce_fn coll_allreduce_recdbl, coll_allreduce_ring, coll_allreduce_rabenseifner,
                  coll_allreduce_reduce_bcast, coll_allreduce_hier, coll_allreduce_shm;
coll_reduce_scatter_fn       coll_reduce_scatter_ring, coll_reduce_scatter_reduce_scatterv,
                             coll_reduce_scatter_shm;
coll_reduce_scatter_block_fn coll_reduce_scatter_block_ring,
                             coll_reduce_scatter_block_reduce_scatter,
                             coll_reduce_scatter_block_shm;
coll_scan_fn coll_scan_linear, coll_scan_recdbl, coll_exscan_linear, coll_exscan_recdbl;

#endif
