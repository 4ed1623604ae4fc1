/*
 * ni.h — NI-level collectives (Verstoep et al. §4.2, §5.3): algorithms whose
 * forwarding and combining run in the node's agent (CLUMPI_NET=agent),
 * selectable by name through coll/select.c. Without an agent (direct mode,
 * or a job on one node) each falls back to the host algorithm of the same
 * tree shape, on every rank alike, saying so once under CLUMPI_COLL_VERBOSE.
 * So does a reduction the agent cannot compute (a user op: the agent runs
 * no user code); non-commutative ops never get here (the selection table
 * gives them an order-keeping algorithm, not these).
 */
#ifndef COLL_NI_H
#define COLL_NI_H

#include "coll/algos.h"
#include "mpid/offload.h"

coll_bcast_fn     coll_bcast_ni_binary, coll_bcast_ni_binomial;
/* the same packets forwarded by one rank per node (Verstoep et al.'s l-sdma-hmc) */
coll_bcast_fn     coll_bcast_host_packet_binary, coll_bcast_host_packet_binomial;
coll_reduce_fn    coll_reduce_ni_binary, coll_reduce_ni_binomial;
coll_allreduce_fn coll_allreduce_ni_binary, coll_allreduce_ni_binomial;
coll_barrier_fn   coll_barrier_ni_binary, coll_barrier_ni_binomial;

/* Fetch-and-add held by the agent of the owner's node (coll/fadd_ni.c),
 * for MPIX_Counter: whether it is there (the same answer on every rank),
 * and the counter (comm rank owner, id) set, added to, forgotten. Each
 * returns an MPI error class; MPI_ERR_ARG: no such counter. */
int coll_fadd_ni_up(void);
int coll_fadd_ni_init(const mpid_comm *comm, int owner, uint32_t id, long long value);
int coll_fadd_ni(const mpid_comm *comm, int owner, uint32_t id, long long add, long long *old);
int coll_fadd_ni_free(const mpid_comm *comm, int owner, uint32_t id);

/* ---- shared by the *_ni.c files (coll/ni.c) ---------------------------- */
/* Under CLUMPI_COLL_VERBOSE, once per process and operation, on comm rank
 * `who`: that `what` (e.g. "reduce") ran the host's algorithm, and why. */
void coll_ni_fallback_note(const char *what, int shape, const mpid_comm *comm, int who,
                           const char *why);
/* Why comm's operations cannot run in the agents, for that note. */
const char *coll_ni_why_not(const mpid_comm *comm);
/* The agents' errors as MPI error classes. */
int coll_ni_err(int rc);

#endif
