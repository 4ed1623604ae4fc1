/*
 * coll_check.h — the argument checks of the collectives, shared by the
 * blocking entry points (coll_entry.c, coll_reduce_entry.c), the nonblocking
 * ones (coll_nb_entry.c) and the neighborhood ones (coll_neighbor_entry.c),
 * so MPI_Ix checks exactly what MPI_x does. Each returns MPI_SUCCESS or an
 * error code naming fn (for mpir_err_comm) and fills the resolved types;
 * types of arguments that do not apply on this rank (receive side off the
 * root, MPI_IN_PLACE, every argument at an intercommunicator's MPI_PROC_NULL
 * root) are left NULL. Intercommunicators: see coll_check.c.
 */
#ifndef MPIR_COLL_CHECK_H
#define MPIR_COLL_CHECK_H

#include "src/core.h"
#include "coll/algos.h"

/* count, type and buffer of one argument triple: one inline test; when it
 * fails, mpir_coll_chk_error (cold) reports the first bad one in that order */
int mpir_coll_chk_error(const char *fn, const char *cname, int count, const char *tname,
                        MPI_Datatype t, const char *bname, const void *buf,
                        cu_dtype **dt) MPIR_COLD;
static inline int mpir_coll_chk(const char *fn, const char *cname, int count,
                                const char *tname, MPI_Datatype t, const char *bname,
                                const void *buf, cu_dtype **dt)
{
    cu_dtype *d = mpir_dtype_get(t);   /* NULL for MPI_DATATYPE_NULL too */
    if (MPIR_LIKELY(mpir_buf_args_ok(d, count, buf))) {
        *dt = d;
        return MPI_SUCCESS;
    }
    return mpir_coll_chk_error(fn, cname, count, tname, t, bname, buf, dt);
}
/* counts and displacements arrays of the v/w forms (n entries) */
int mpir_coll_chk_counts(const char *fn, const char *cname, const int *counts,
                         const char *dname, const int *displs, int n);

int mpir_check_bcast(const char *fn, const mpir_comm *c, void *buffer, int count,
                     MPI_Datatype datatype, int root, cu_dtype **dt);
int mpir_check_gather(const char *fn, const mpir_comm *c, const void *sendbuf, int sendcount,
                      MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, cu_dtype **sdt, cu_dtype **rdt);
int mpir_check_gatherv(const char *fn, const mpir_comm *c, const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int displs[], MPI_Datatype recvtype, int root, cu_dtype **sdt,
                       cu_dtype **rdt);
int mpir_check_scatter(const char *fn, const mpir_comm *c, const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, cu_dtype **sdt, cu_dtype **rdt);
int mpir_check_scatterv(const char *fn, const mpir_comm *c, const void *sendbuf,
                        const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                        cu_dtype **sdt, cu_dtype **rdt);
int mpir_check_allgather(const char *fn, const mpir_comm *c, const void *sendbuf,
                         int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, cu_dtype **sdt, cu_dtype **rdt);
int mpir_check_allgatherv(const char *fn, const mpir_comm *c, const void *sendbuf,
                          int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                          cu_dtype **sdt, cu_dtype **rdt);
int mpir_check_alltoall(const char *fn, const mpir_comm *c, const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, cu_dtype **sdt, cu_dtype **rdt);
int mpir_check_alltoallv(const char *fn, const mpir_comm *c, const void *sendbuf,
                         const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int rdispls[],
                         MPI_Datatype recvtype, cu_dtype **sdt, cu_dtype **rdt);
/* sdts and rdts: caller's arrays of comm size entries */
int mpir_check_alltoallw(const char *fn, const mpir_comm *c, const void *sendbuf,
                         const int sendcounts[], const int sdispls[],
                         const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                         const int rdispls[], const MPI_Datatype recvtypes[], cu_dtype **sdts,
                         cu_dtype **rdts);

/* Reductions: count, type, op (with the type) and the buffers. */
int mpir_check_reduce(const char *fn, const mpir_comm *c, const void *sendbuf, void *recvbuf,
                      int count, MPI_Datatype datatype, MPI_Op op, int root, cu_dtype **dt,
                      coll_op *cop);
/* Allreduce, Scan, Exscan */
int mpir_check_allreduce(const char *fn, const mpir_comm *c, const void *sendbuf, void *recvbuf,
                         int count, MPI_Datatype datatype, MPI_Op op, cu_dtype **dt,
                         coll_op *cop);
/* *total: the sum of recvcounts (one per rank of the local group) */
int mpir_check_reduce_scatter(const char *fn, const mpir_comm *c, const void *sendbuf,
                              void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                              MPI_Op op, cu_dtype **dt, coll_op *cop, size_t *total);
int mpir_check_reduce_scatter_block(const char *fn, const mpir_comm *c, const void *sendbuf,
                                    void *recvbuf, int recvcount, MPI_Datatype datatype,
                                    MPI_Op op, cu_dtype **dt, coll_op *cop, size_t *total);

#endif
