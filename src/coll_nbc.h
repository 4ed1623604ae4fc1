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
 * rank must number the same operations. */
coll_sched *mpir_nbc_new(mpir_comm *c);
/* Starts s (built with result rc; s may be NULL: no memory) and gives it a
 * request handle, or reports the failure on comm. */
int mpir_nbc_start(const char *fn, MPI_Comm comm, coll_sched *s, int rc, MPI_Request *request);
/* Blocking: starts s and waits for it. */
int mpir_nbc_run(const char *fn, MPI_Comm comm, coll_sched *s, int rc);

/* Entry-point prologue of the request-returning calls. */
#define MPIR_NBC_ENTER(fn, comm, c, request)                                          \
    do {                                                                              \
        MPIR_ENTER(fn);                                                               \
        MPIR_GET_COMM(fn, comm, c);                                                   \
        if (!(request))                                                               \
            return mpir_err_comm(comm, mpir_err(MPI_ERR_ARG, fn, "request is NULL")); \
        *(request) = MPI_REQUEST_NULL;                                                \
    } while (0)

#endif
