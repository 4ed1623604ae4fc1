/*
 * coll_nbc.h — what the nonblocking and neighborhood entry points share:
 * a schedule numbered on its communicator, and turning it into a request.
 */
#ifndef MPIR_COLL_NBC_H
#define MPIR_COLL_NBC_H

#include "src/coll_check.h"
#include "coll/sched.h"

/* A new schedule on c with the communicator's next operation tags; NULL
 * when memory runs out. Call only once the arguments are checked: every
 * rank must number the same operations. On an intercommunicator the
 * schedule also holds the local group's view (COLL_VIEW_LOCAL). */
coll_sched *mpir_nbc_new(mpir_comm *c);
/* Starts s (built with result rc; s may be NULL: no memory) and gives it a
 * request handle, or reports the failure on comm. */
int mpir_nbc_start(const char *fn, MPI_Comm comm, coll_sched *s, int rc, MPI_Request *request);
/* Blocking: starts s and waits for it. */
int mpir_nbc_run(const char *fn, MPI_Comm comm, coll_sched *s, int rc);
/* mpir_nbc_start, or with request NULL mpir_nbc_run: for the operations
 * whose blocking and nonblocking forms run the same schedule. */
int mpir_nbc_finish(const char *fn, MPI_Comm comm, coll_sched *s, int rc, MPI_Request *request);
/* mpir_nbc_new that also keeps the call's types (either may be NULL) and,
 * for reductions, the op. Counts and displacements are read while
 * building: no schedule keeps the user's arrays. */
coll_sched *mpir_nbc_typed(mpir_comm *c, const cu_dtype *a, const cu_dtype *b,
                           const coll_op *op);

/* The three alltoalls as the w form (per-peer counts, byte displacements,
 * types), on either kind of communicator; request NULL runs it to
 * completion (the blocking intercommunicator forms). scounts NULL: the
 * plain form (scount, stride scount); sdts NULL: sdt for all; wform:
 * sdispls/rdispls are in bytes. */
int mpir_nbc_alltoall(const char *fn, MPI_Comm comm, mpir_comm *c, const void *sendbuf,
                      int scount, const int *scounts, const int *sdispls, cu_dtype *sdt,
                      cu_dtype *const *sdts, void *recvbuf, int rcount, const int *rcounts,
                      const int *rdispls, cu_dtype *rdt, cu_dtype *const *rdts, int wform,
                      MPI_Request *request);

/* Entry-point prologue of the request-returning calls. */
#define MPIR_NBC_ENTER(fn, comm, c, request)                                          \
    MPIR_ENTER(fn);                                                                   \
    do {                                                                              \
        MPIR_GET_COMM(fn, comm, c);                                                   \
        if (!(request))                                                               \
            return mpir_err_comm(comm, mpir_err(MPI_ERR_ARG, fn, "request is NULL")); \
        *(request) = MPI_REQUEST_NULL;                                                \
    } while (0)

#endif
