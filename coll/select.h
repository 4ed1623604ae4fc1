/*
 * select.h — which algorithm runs a collective call. One table (select.c)
 * holds, per operation, the algorithms a user may force by name and the
 * default rules by message size, ranks and nodes.
 *
 * Defaults: the measured table (coll/tuning.h) where it has a row for the
 * call, else the hand-written rules.
 *
 * Overrides: CLUMPI_COLL_<OP>=<algorithm> (OP as in coll_op_names, upper
 * case: CLUMPI_COLL_BCAST=binary). The variables are read once per process,
 * at the first collective call, so every rank of a job sees the same choice
 * (mpirun passes one environment to all ranks). CLUMPI_COLL_VERBOSE=1 prints
 * the algorithm of every call on the communicator's rank 0, =2 on every rank.
 *
 * Each coll_select_<op> returns the function to call and sets *name to the
 * algorithm's name. It returns NULL when the override names no algorithm of
 * that operation; *name is then a message that lists the valid names, for
 * the caller to report as MPI_ERR_ARG.
 *
 * `bytes` is the size the defaults are keyed on: the whole buffer for bcast
 * and the reductions, one rank's block for gather/scatter/alltoall, the
 * whole result for allgather.
 */
#ifndef COLL_SELECT_H
#define COLL_SELECT_H

#include "coll/sched.h"

/* Operations, in the order of the table. */
enum coll_opid {
    COLL_OP_BARRIER, COLL_OP_BCAST, COLL_OP_GATHER, COLL_OP_GATHERV, COLL_OP_SCATTER,
    COLL_OP_SCATTERV, COLL_OP_ALLGATHER, COLL_OP_ALLGATHERV, COLL_OP_ALLTOALL,
    COLL_OP_ALLTOALLV, COLL_OP_ALLTOALLW,
    /* reductions: rows maintained with src/coll_reduce_entry.c */
    COLL_OP_REDUCE, COLL_OP_ALLREDUCE, COLL_OP_REDUCE_SCATTER,
    COLL_OP_REDUCE_SCATTER_BLOCK, COLL_OP_SCAN, COLL_OP_EXSCAN,
    /* nonblocking forms with a choice of schedules (coll/nbc_*.c) */
    COLL_OP_IBARRIER, COLL_OP_IBCAST, COLL_OP_IREDUCE, COLL_OP_IALLREDUCE,
    COLL_OP_IALLGATHER, COLL_OP_IALLGATHERV,
    COLL_OP_COUNT
};

/* Algorithm flags. */
#define COLL_ALGO_ORDERED 1u  /* combines operands in rank order: valid for
                                 non-commutative ops */
#define COLL_ALGO_NODES 2u    /* hierarchical: needs several nodes, several
                                 ranks on one of them */
#define COLL_ALGO_AREA 4u     /* works in the node area (a shm form): the
                                 measured table picks it only where the
                                 rules may, on this job's processes */

/* Any algorithm function, stored untyped in the table and cast back by the
 * typed coll_select_<op> of its operation. */
typedef void (*coll_anyfn)(void);

typedef struct coll_algo {
    const char *name;
    coll_anyfn  fn;
    unsigned    flags;
} coll_algo;

/* A default rule: the first rule whose bounds all hold wins. */
typedef struct coll_rule {
    size_t      max_bytes;  /* bytes <= max_bytes (SIZE_MAX: any) */
    int         max_ranks;  /* comm size <= max_ranks (INT_MAX: any) */
    int         min_nodes;  /* nodes spanned >= min_nodes (1: any) */
    int         pow2;       /* 1: only when comm size is a power of two */
    const char *algo;
    int         oversub;    /* 1: only when this host's ranks outnumber its cores */
} coll_rule;

coll_barrier_fn   *coll_select_barrier(const mpid_comm *comm, const char **name);
coll_bcast_fn     *coll_select_bcast(size_t bytes, const mpid_comm *comm, const char **name);
coll_gather_fn    *coll_select_gather(size_t bytes, const mpid_comm *comm, const char **name);
coll_gatherv_fn   *coll_select_gatherv(const mpid_comm *comm, const char **name);
coll_scatter_fn   *coll_select_scatter(size_t bytes, const mpid_comm *comm, const char **name);
coll_scatterv_fn  *coll_select_scatterv(const mpid_comm *comm, const char **name);
coll_allgather_fn *coll_select_allgather(size_t bytes, const mpid_comm *comm, const char **name);
coll_allgatherv_fn *coll_select_allgatherv(size_t bytes, const mpid_comm *comm,
                                           const char **name);
coll_alltoall_fn  *coll_select_alltoall(size_t bytes, const mpid_comm *comm, const char **name);
coll_alltoallv_fn *coll_select_alltoallv(const mpid_comm *comm, const char **name);
coll_alltoallw_fn *coll_select_alltoallw(const mpid_comm *comm, const char **name);

/* Reductions: non-commutative ops get only COLL_ALGO_ORDERED algorithms (a
 * forced unordered one falls back to the default ordered choice). */
coll_reduce_fn    *coll_select_reduce(size_t bytes, const coll_op *op, const mpid_comm *comm,
                                      const char **name);
coll_allreduce_fn *coll_select_allreduce(size_t bytes, const coll_op *op,
                                         const mpid_comm *comm, const char **name);
coll_reduce_scatter_fn *coll_select_reduce_scatter(size_t bytes, const coll_op *op,
                                                   const mpid_comm *comm, const char **name);
coll_reduce_scatter_block_fn *coll_select_reduce_scatter_block(size_t bytes,
                                                               const coll_op *op,
                                                               const mpid_comm *comm,
                                                               const char **name);
coll_scan_fn      *coll_select_scan(size_t bytes, const coll_op *op, const mpid_comm *comm,
                                    const char **name);
coll_scan_fn      *coll_select_exscan(size_t bytes, const coll_op *op, const mpid_comm *comm,
                                      const char **name);

/* Nonblocking forms: the schedule builder to run (same rules, overrides
 * CLUMPI_COLL_IBCAST=... and messages as the blocking ones). */
coll_nbc_barrier_fn   *coll_select_ibarrier(const mpid_comm *comm, const char **name);
coll_nbc_bcast_fn     *coll_select_ibcast(size_t bytes, const mpid_comm *comm,
                                          const char **name);
coll_nbc_reduce_fn    *coll_select_ireduce(size_t bytes, const coll_op *op,
                                           const mpid_comm *comm, const char **name);
coll_nbc_allreduce_fn *coll_select_iallreduce(size_t bytes, const coll_op *op,
                                              const mpid_comm *comm, const char **name);
coll_nbc_allgather_fn *coll_select_iallgather(size_t bytes, const mpid_comm *comm,
                                              const char **name);
coll_nbc_allgather_fn *coll_select_iallgatherv(size_t bytes, const mpid_comm *comm,
                                               const char **name);

/* A communicator is being freed: the selection's memos forget every
 * communicator they remember (coll_comm_free). */
void coll_select_comm_freed(void);

/* Number of nodes the communicator spans (1 on one machine). */
int coll_comm_nodes(const mpid_comm *comm);

#endif
