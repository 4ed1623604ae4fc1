/*
 * sched.h — the schedule engine of the nonblocking (and neighborhood)
 * collectives. An operation is built once, at the call, as a list of steps:
 * sends, receives, local copies and reductions, and barriers that separate
 * rounds. The request's poll callback (run by the ordinary progress engine,
 * no helper thread) issues one round at a time: local steps run when
 * reached, sends and receives are posted, and a barrier waits until every
 * posted one has completed. Buffers computed at build time (temporaries, the
 * swapped accumulators of the reductions) live until the request completes.
 *
 * Tags: each operation gets COLL_NBC_TAGS_PER_OP tags of its own from a
 * per-communicator sequence number, below every blocking collective tag
 * (coll_impl.h uses -16 .. -47), so any number of outstanding operations on
 * one communicator, and blocking collectives meanwhile, never cross-match.
 */
#ifndef COLL_SCHED_H
#define COLL_SCHED_H

#include "coll/algos.h"

#define COLL_NBC_TAG_FIRST   (-4096)
#define COLL_NBC_TAGS_PER_OP 2
#define COLL_NBC_SEQ_MASK    0xffffff   /* 16M operations before a tag repeats */

/* The first tag of the operation numbered seq on its communicator. */
static inline int coll_nbc_tag(unsigned seq)
{
    return COLL_NBC_TAG_FIRST - COLL_NBC_TAGS_PER_OP * (int)(seq & COLL_NBC_SEQ_MASK);
}

typedef struct coll_sched coll_sched;

/* A new, empty schedule over comm (whose rank map it copies: the user may
 * free the communicator before completion) with tags tag, tag-1, ... NULL
 * when memory runs out. */
coll_sched *coll_sched_new(const mpid_comm *comm, int tag);
/* Builders. Failures (no memory) are remembered and reported by start. */
void coll_sched_send(coll_sched *s, const void *buf, size_t count, const cu_dtype *dt, int peer);
void coll_sched_recv(coll_sched *s, void *buf, size_t count, const cu_dtype *dt, int peer);
void coll_sched_copy(coll_sched *s, const void *src, size_t scount, const cu_dtype *sdt,
                     void *dst, size_t dcount, const cu_dtype *ddt);
/* inout = in op inout (count elements of dt); the op is the schedule's. */
void coll_sched_reduce(coll_sched *s, const void *in, void *inout, size_t count,
                       const cu_dtype *dt);
/* Later steps start once every earlier send and receive has completed. */
void coll_sched_barrier(coll_sched *s);
/* Sends and receives built from now on use tag - sub (sub < COLL_NBC_TAGS_PER_OP). */
void coll_sched_subtag(coll_sched *s, int sub);
/* The op of the reduce steps (copied: the user may free theirs). */
void coll_sched_set_op(coll_sched *s, const coll_op *op);
const coll_op *coll_sched_op(const coll_sched *s);
/* Keeps dt alive until completion (the user may free it after the call). */
void coll_sched_keep(coll_sched *s, const cu_dtype *dt);
/* A work buffer of count elements of dt (user layout), or of `bytes` raw
 * bytes, freed at completion. NULL when memory ran out (start reports it). */
void *coll_sched_tmp(coll_sched *s, size_t count, const cu_dtype *dt);
void *coll_sched_bytes(coll_sched *s, size_t bytes);
int   coll_sched_failed(const coll_sched *s);
/* The view that steps built now address (see coll_sched_view). */
const mpid_comm *coll_sched_comm(const coll_sched *s);

/* Intercommunicator schedules hold two views: the intercommunicator's own
 * (COLL_VIEW_MAIN: its ranks name the remote group) and its local group's
 * intracommunicator (COLL_VIEW_LOCAL, added with its rank map copied).
 * Steps built after coll_sched_view(s, v) address view v, and so does
 * coll_sched_comm: the intracommunicator builders below serve unchanged as
 * the local phases. Both views use the schedule's tags, each on its own
 * context. */
enum { COLL_VIEW_MAIN = 0, COLL_VIEW_LOCAL = 1 };
void coll_sched_add_local(coll_sched *s, const mpid_comm *local);
void coll_sched_view(coll_sched *s, int view);

/* Turns the schedule into a request (MPID_REQ_OTHER, user = the schedule)
 * and issues its first round; the request completes, with the first error
 * in status.MPI_ERROR, when the last step has. On a build failure the
 * schedule is freed and the error returned. */
int  coll_sched_start(coll_sched *s, mpid_request **out);
/* Frees a schedule that was never started. */
void coll_sched_free(coll_sched *s);

/* ---- the nonblocking algorithms (coll/nbc_*.c): each builds its steps into
 * s. Arguments are checked; MPI_IN_PLACE arrives as is. The operations with
 * several algorithms have a signature each, for the selection table
 * (coll/select.c: CLUMPI_COLL_IBCAST=... and friends). ------------------ */
typedef int coll_nbc_barrier_fn(coll_sched *s);
typedef int coll_nbc_bcast_fn(coll_sched *s, void *buf, size_t count, const cu_dtype *dt,
                              int root);
typedef int coll_nbc_reduce_fn(coll_sched *s, const void *sbuf, void *rbuf, size_t count,
                               const cu_dtype *dt, int root);
typedef int coll_nbc_allreduce_fn(coll_sched *s, const void *sbuf, void *rbuf, size_t count,
                                  const cu_dtype *dt);
/* rcounts/displs NULL: the plain form (rcount each). */
typedef int coll_nbc_allgather_fn(coll_sched *s, const void *sbuf, size_t scount,
                                  const cu_dtype *sdt, void *rbuf, const int *rcounts,
                                  const int *displs, size_t rcount, const cu_dtype *rdt);
/* Ibarrier: dissemination (coll_nbc_barrier), binomial tree. */
coll_nbc_barrier_fn coll_nbc_barrier, coll_nbc_barrier_binomial;
/* Ibcast: binomial (coll_nbc_bcast), scatter+allgather. */
coll_nbc_bcast_fn coll_nbc_bcast, coll_nbc_bcast_scatter_allgather;
/* Ireduce: binomial (coll_nbc_reduce), linear; both keep the order. */
coll_nbc_reduce_fn coll_nbc_reduce, coll_nbc_reduce_linear;
/* Iallreduce: recursive doubling (coll_nbc_allreduce), reduce+bcast; both
 * keep the order. */
coll_nbc_allreduce_fn coll_nbc_allreduce, coll_nbc_allreduce_reduce_bcast;
/* Iallgather(v): ring (coll_nbc_allgather), linear. */
coll_nbc_allgather_fn coll_nbc_allgather, coll_nbc_allgather_linear;
int coll_nbc_gather(coll_sched *s, const void *sbuf, size_t scount, const cu_dtype *sdt,
                    void *rbuf, const int *rcounts, const int *displs, size_t rcount,
                    const cu_dtype *rdt, int root);
int coll_nbc_scatter(coll_sched *s, const void *sbuf, const int *scounts, const int *displs,
                     size_t scount, const cu_dtype *sdt, void *rbuf, size_t rcount,
                     const cu_dtype *rdt, int root);
/* Alltoall, -v and -w in one: per-peer counts, displacements in bytes and
 * types (the entry points expand the plain forms). */
int coll_nbc_alltoallw(coll_sched *s, const void *sbuf, const size_t *scounts,
                       const ptrdiff_t *sdispls, const cu_dtype *const *sdts, void *rbuf,
                       const size_t *rcounts, const ptrdiff_t *rdispls,
                       const cu_dtype *const *rdts);
int coll_nbc_reduce_scatter(coll_sched *s, const void *sbuf, void *rbuf, const int *rcounts,
                            const cu_dtype *dt);
int coll_nbc_scan(coll_sched *s, const void *sbuf, void *rbuf, size_t count,
                  const cu_dtype *dt, int exclusive);

/* Neighborhood exchange (coll/neighbor.c): nin in-neighbors and nout
 * out-neighbors (MPI_PROC_NULL entries keep their slots but move nothing);
 * blocks as for alltoallw. sub_in/sub_out (or NULL): the sub-tag per block,
 * which keeps apart two blocks exchanged with one peer (Cartesian dimensions
 * of size 1 or 2). Allgather passes the same send block for every out. */
int coll_neighbor_build(coll_sched *s, int nin, const int *in, int nout, const int *out,
                        const void *sbuf, const size_t *scounts, const ptrdiff_t *sdispls,
                        const cu_dtype *const *sdts, void *rbuf, const size_t *rcounts,
                        const ptrdiff_t *rdispls, const cu_dtype *const *rdts,
                        const int *sub_in, const int *sub_out);

#endif
