/*
 * inter.h — the collectives on intercommunicators (MPI-3.1 5.2.2), as
 * schedules (coll/sched.h) that the blocking entry points run to completion
 * and the nonblocking ones return as requests.
 *
 * Each builder takes a schedule made on the intercommunicator's device view
 * (COLL_VIEW_MAIN: rank = my rank in the local group, size and ranks = the
 * remote group) that also holds the local group's intracommunicator
 * (COLL_VIEW_LOCAL, coll_sched_add_local). Phases inside one group run the
 * intracommunicator schedules (coll/nbc_*.c) on the local view; the groups
 * talk between their leaders (local rank 0) or rank to rank.
 *
 * Rooted operations take root as MPI-3.1 defines it for intercommunicators:
 * MPI_ROOT at the root, MPI_PROC_NULL at the other ranks of its group (they
 * take no part), the root's rank in the remote group on the other side.
 * Arguments are checked; MPI_IN_PLACE never arrives (it has no meaning on an
 * intercommunicator). Counts and displacements are read while building.
 */
#ifndef COLL_INTER_H
#define COLL_INTER_H

#include "coll/sched.h"

/* inter_bcast.c */
int coll_inter_barrier(coll_sched *s);
int coll_inter_bcast(coll_sched *s, void *buf, size_t count, const cu_dtype *dt, int root);

/* inter_gather.c: rcounts/scounts NULL is the plain form (rcount, scount
 * elements per rank, block i at i * count). */
int coll_inter_gather(coll_sched *s, const void *sbuf, size_t scount, const cu_dtype *sdt,
                      void *rbuf, const int *rcounts, const int *displs, size_t rcount,
                      const cu_dtype *rdt, int root);
int coll_inter_scatter(coll_sched *s, const void *sbuf, const int *scounts, const int *displs,
                       size_t scount, const cu_dtype *sdt, void *rbuf, size_t rcount,
                       const cu_dtype *rdt, int root);

/* inter_alltoall.c: every rank's block to every remote rank. Allgather(v)
 * as coll_nbc_allgather_fn (rcounts NULL: the plain form); alltoall, -v
 * and -w in the w form of coll_nbc_alltoallw (byte displacements). */
coll_nbc_allgather_fn coll_inter_allgather;
int coll_inter_alltoallw(coll_sched *s, const void *sbuf, const size_t *scounts,
                         const ptrdiff_t *sdispls, const cu_dtype *const *sdts, void *rbuf,
                         const size_t *rcounts, const ptrdiff_t *rdispls,
                         const cu_dtype *const *rdts);

/* inter_reduce.c: the schedule's op; operands combined in rank order, so
 * non-commutative ops are served. Reduce_scatter: rcounts has one entry per
 * LOCAL rank (the result of the remote group's vectors is cut among this
 * group); reduce_scatter_block passes rcount for every local rank. */
int coll_inter_reduce(coll_sched *s, const void *sbuf, void *rbuf, size_t count,
                      const cu_dtype *dt, int root);
int coll_inter_allreduce(coll_sched *s, const void *sbuf, void *rbuf, size_t count,
                         const cu_dtype *dt);
int coll_inter_reduce_scatter(coll_sched *s, const void *sbuf, void *rbuf, const int *rcounts,
                              const cu_dtype *dt);

/* ---- blocking forms of the operations with phases inside a group: those
 * phases run the algorithms the selection table picks for the local group
 * (local: its intracommunicator view; shared memory, node-aware and NI
 * algorithms included), the groups talk on the intercommunicator's view
 * (inter) with COLL_TAG_INTER. Arguments as for the builders; MPI_ERR_ARG
 * when a forced algorithm name matches none. ----------------------------- */
int coll_inter_barrier_run(const mpid_comm *inter, const mpid_comm *local);
int coll_inter_bcast_run(void *buf, size_t count, const cu_dtype *dt, int root,
                         const mpid_comm *inter, const mpid_comm *local);
int coll_inter_reduce_run(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                          const coll_op *op, int root, const mpid_comm *inter,
                          const mpid_comm *local);
int coll_inter_allreduce_run(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                             const coll_op *op, const mpid_comm *inter, const mpid_comm *local);
int coll_inter_reduce_scatter_run(const void *sbuf, void *rbuf, const int *rcounts,
                                  const cu_dtype *dt, const coll_op *op,
                                  const mpid_comm *inter, const mpid_comm *local);

#endif
