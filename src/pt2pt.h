/*
 * pt2pt.h — hooks between the MPI layer's point-to-point files (send, recv,
 * probe, request, persistent, bsend, status). The shared contract stays in
 * mpir.h; nothing outside these files needs this header.
 */
#ifndef MPIR_PT2PT_H
#define MPIR_PT2PT_H

#include "src/mpir.h"

/* mpid_request.mpir_kind */
enum { MPIR_REQ_PLAIN = 0, MPIR_REQ_PERSISTENT = 1,
       MPIR_REQ_NBC = 2 /* a nonblocking collective's schedule (src/coll_nb_entry.c) */,
       MPIR_REQ_GREQ = 3,       /* a generalized request (src/grequest.c) */
       MPIR_REQ_GREQ_FREED = 4  /* one freed before completion: no longer the user's */ };

/* Persistent request (mpid_request.user): the arguments, and the device
 * request of the current round (NULL while inactive). */
enum { MPIR_P_SEND, MPIR_P_SSEND, MPIR_P_RSEND, MPIR_P_BSEND, MPIR_P_RECV };
typedef struct mpir_preq {
    int op;
    void *buf;
    int count;
    cu_dtype *dt;
    int rank, tag;
    MPI_Comm comm;
    mpid_request *inner;
} mpir_preq;

/* The argument checks of every point-to-point call on one buffer: count,
 * datatype, buffer, tag and the peer ("source" for receives, where
 * MPI_ANY_SOURCE/MPI_ANY_TAG are allowed, else "dest"). *dt on success.
 * Valid arguments cost one inline test; mpir_p2p_check_error (cold, out of
 * line) names the first bad one. */
int mpir_p2p_check_error(const char *fn, const void *buf, int count, MPI_Datatype type,
                         int peer, int tag, int recv, const mpir_comm *c) MPIR_COLD;

static inline int mpir_p2p_checks(const char *fn, const void *buf, int count,
                                  MPI_Datatype type, int peer, int tag, int recv,
                                  mpir_comm *c, cu_dtype **dt)
{
    cu_dtype *d = mpir_dtype_get(type);   /* NULL for MPI_DATATYPE_NULL too */
    *dt = d;
    if (MPIR_LIKELY(mpir_buf_args_ok(d, count, buf) &&
                    (tag >= 0 || (recv && tag == MPI_ANY_TAG)) &&
                    ((unsigned)peer < (unsigned)c->dev.size || peer == MPI_PROC_NULL ||
                     (recv && peer == MPI_ANY_SOURCE))))
        return MPI_SUCCESS;
    return mpir_p2p_check_error(fn, buf, count, type, peer, tag, recv, c);
}

/* Gives req an MPI_Request handle (errors reported on comm). */
int mpir_req_handle(const char *fn, mpid_request *req, MPI_Comm comm, MPI_Request *out);

/* An empty status (MPI-3.1 §3.7.3: MPI_ANY_SOURCE, MPI_ANY_TAG, no data). */
static inline void mpir_status_empty(MPI_Status *st)
{
    if (st) {
        st->MPI_SOURCE = MPI_ANY_SOURCE;
        st->MPI_TAG = MPI_ANY_TAG;
        st->MPI_ERROR = MPI_SUCCESS;
        st->clumpi_cancelled = 0;
        st->clumpi_count = 0;
    }
}

/* The error of a completed device request as a reportable code (naming fn),
 * or MPI_SUCCESS. */
int mpir_req_error(const char *fn, const mpid_request *r);

/* Generalized requests (grequest.c), for the completion calls.
 * mpir_greq_finish completes a done one: query_fn fills *st (a scratch
 * status when st is NULL), free_fn runs, the request and handle *h go and
 * *h becomes MPI_REQUEST_NULL; returns free_fn's code, else query_fn's.
 * mpir_greq_query runs query_fn only (MPI_Request_get_status).
 * mpir_greq_free is MPI_Request_free: free_fn now when done, else at
 * MPI_Grequest_complete; *h becomes MPI_REQUEST_NULL.
 * mpir_greq_cancel runs cancel_fn with complete = whether it is done.
 * Each returns the callback's error code unchanged. */
int mpir_greq_finish(mpid_request *r, MPI_Request *h, MPI_Status *st);
int mpir_greq_query(mpid_request *r, MPI_Status *st);
int mpir_greq_free(mpid_request *r, MPI_Request *h);
int mpir_greq_cancel(mpid_request *r);

/* Buffered send (bsend.c): copies the message into the attached buffer and
 * starts it; *out is a request that is already complete. */
int mpir_bsend(const char *fn, const void *buf, int count, cu_dtype *dt, int dest, int tag,
               mpir_comm *c, mpid_request **out);

/* The MPI_Message object (probe.c). */
typedef struct mpir_msg {
    mpid_message *m;
    MPI_Comm comm;
} mpir_msg;

#endif
