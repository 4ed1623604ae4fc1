/*
 * mpid.h — the device: what the MPI layer (src/) and the collectives (coll/)
 * call to move messages. Requests, matching, eager/rendezvous protocols, the
 * progress engine and routing live behind it; channels live below it.
 *
 * Threading: one thread at a time is in the device. Under
 * MPI_THREAD_MULTIPLE the MPI layer's lock (src/util/biglock.h) makes it
 * so; the device's wait loops give that lock away between passes and while
 * they block, so other threads go on meanwhile. Below MULTIPLE nothing is
 * locked.
 */
#ifndef MPID_H
#define MPID_H

#include <stddef.h>
#include <stdint.h>
#include "mpi.h"
#include "src/util/dtype.h"

/* What the device knows of a communicator: its context, the caller's rank and
 * the map from communicator rank to world rank. Embedded in the MPI layer's
 * communicator object. */
typedef struct mpid_comm {
    uint32_t   context_id;   /* even; +MPID_CTX_COLL is the collective context:
                                what receives and probes match on */
    int        rank;         /* my rank in the communicator */
    int        size;
    const int *world_ranks;  /* [size]: communicator rank -> world rank */
    int        foreign;      /* some world_ranks are processes of other jobs (routing
                                slots past the world): choices that rest on this job's
                                node map or load must not differ between the jobs */
    uint32_t   remote_context_id;  /* what sends carry: the context the destination
                                      receives on; context_id but where one process
                                      stands on both sides of a connection (its two
                                      communicators then receive apart); with
                                      MPID_CTX_BY_RANK see mpid_ctx_of_rank */
    unsigned char *ctx_hi;   /* MPID_CTX_BY_RANK: [size], 1 for the ranks receiving on
                                +2; owned by the MPI layer's communicator */
} mpid_comm;

/* In remote_context_id: rank r receives on the context in the other bits
 * plus 2 * ctx_hi[r]: an intracommunicator over two groups that share
 * processes (merged from an intercommunicator whose sides receive apart,
 * and the communicators made from it). */
#define MPID_CTX_BY_RANK 0x80000000u

/* The context a send to rank dest of comm carries (ctx_off added). */
static inline uint32_t mpid_ctx_of_rank(const mpid_comm *comm, int dest, unsigned ctx_off)
{
    uint32_t ctx = comm->remote_context_id + ctx_off;
    if (__builtin_expect(ctx & MPID_CTX_BY_RANK, 0))
        ctx = (ctx & ~MPID_CTX_BY_RANK) + 2u * comm->ctx_hi[dest];
    return ctx;
}

/* Context offsets: point-to-point traffic and collective traffic of one
 * communicator never match each other. */
#define MPID_CTX_PT2PT 0u
#define MPID_CTX_COLL  1u

/* Send modes. */
enum { MPID_SEND_STANDARD = 0, MPID_SEND_SYNC = 1, MPID_SEND_READY = 2 };

enum mpid_req_kind {
    MPID_REQ_SEND = 1,
    MPID_REQ_RECV,
    MPID_REQ_OTHER,      /* completed by a layer above (persistent, bsend, collectives) */
};

typedef struct mpid_request mpid_request;

/* The public part of a request: the device sets done and status; the MPI
 * layer owns handle and user. */
struct mpid_request {
    int          kind;
    volatile int done;       /* set once when the operation completes */
    MPI_Status   status;     /* MPI_SOURCE/MPI_TAG/MPI_ERROR, clumpi_count = bytes */
    int          handle;     /* MPI_Request handle, or MPI_REQUEST_NULL */
    void        *user;       /* owner's data (persistent/collective requests) */
    /* For MPID_REQ_OTHER: called by progress until it sets done. */
    int        (*poll)(mpid_request *req);
    struct mpid_request_priv *priv;  /* device-private state */
    /* Owned by the MPI layer (the device only zeroes them at allocation). */
    int          comm;       /* MPI_Comm whose error handler reports errors */
    int          mpir_kind;  /* MPI layer's kind of request (0 = plain) */
};

/* The status of a communication with MPI_PROC_NULL (MPI-3.1 §3.11): source
 * MPI_PROC_NULL, tag MPI_ANY_TAG, no data, not cancelled. */
static inline void mpid_status_proc_null(MPI_Status *st)
{
    st->MPI_SOURCE = MPI_PROC_NULL;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    st->clumpi_count = 0;
    st->clumpi_cancelled = 0;
}

/* An unexpected message taken out of matching by Mprobe/Improbe. */
typedef struct mpid_message mpid_message;

/* ---- life cycle -------------------------------------------------------- */
/* Bootstraps through PMI (or as a singleton without a launcher), opens the
 * channels and fills the routing table. */
int  mpid_init(void);
int  mpid_finalize(void);
void mpid_abort(int errorcode, const char *msg) __attribute__((noreturn));

int  mpid_world_rank(void);
int  mpid_world_size(void);
int  mpid_appnum(void);              /* PMI appnum (MPMD program index), for MPI_APPNUM */
int  mpid_node_of(int world_rank);   /* node index of a world rank */
int  mpid_node_count(void);
const char *mpid_job_id(void);

/* ---- peers of other jobs (dynamic processes) -----------------------------
 * They take routing slots after the world ranks (dynpeer.c) and stand in
 * communicators' rank maps like world ranks. */
#define MPID_DYN_ADDR_MAX 120   /* bytes of a network address, at most */
/* This process's network address for other jobs (opening a direct
 * endpoint when the job has run without one, or in offload mode beside
 * the agent): *len is buf's capacity in, the bytes out.
 * MPI_ERR_UNSUPPORTED_OPERATION when no endpoint can be opened. */
int  mpid_dyn_addr(void *buf, size_t *len);
/* A slot for the process at addr (len bytes): the one it has while that
 * lives (when share), else a free one (never shared when !share), with one
 * more reference (mpid_dyn_unref gives it up). MPI_ERR_NO_MEM when every
 * slot (CLUMPI_DYN_SLOTS) is in use. */
int  mpid_dyn_acquire(const void *addr, size_t len, int share, int *slot);
/* One reference more or less to slot (no-ops for world ranks). The last
 * one gone frees the slot once nothing for it waits in the device. */
void mpid_dyn_ref(int slot);
void mpid_dyn_unref(int slot);
/* Slot (from mpid_dyn_acquire) routes to the process at addr; our packets
 * carry my_id, the slot it gave us. */
int  mpid_dyn_add(int slot, const void *addr, size_t len, int my_id);
/* Progress until nothing for slot waits in the device (its queued packets
 * left, its rendezvous answered). */
int  mpid_dyn_drain(int slot);
/* Nonzero when slot's process is gone (the network channel lost it):
 * operations with it fail with MPI_ERR_OTHER (mpid/peer_lost.c). */
int  mpid_dyn_lost(int slot);
/* The MPI layer's answer to "does the communicator receiving on context
 * ctx (even: point-to-point) hold slot?", for its MPI_ANY_SOURCE receives
 * when a process of another job is lost. */
void mpid_set_ctx_holds(int (*holds)(uint32_t ctx, int slot));

/* ---- point-to-point ---------------------------------------------------- */
/* dest/src are communicator ranks (or MPI_PROC_NULL / MPI_ANY_SOURCE);
 * ctx_off is MPID_CTX_PT2PT or MPID_CTX_COLL. Arguments are already checked.
 * On success *req is a new request the caller releases with mpid_request_free. */
int mpid_isend(const void *buf, size_t count, const cu_dtype *dt, int dest, int tag,
               const mpid_comm *comm, unsigned ctx_off, int mode, mpid_request **req);
/* The start of a blocking send: as mpid_isend, but a message that went out
 * at once (one eager packet) or to MPI_PROC_NULL leaves *req NULL, with no
 * request made; else *req is the request to wait for and free. */
int mpid_send(const void *buf, size_t count, const cu_dtype *dt, int dest, int tag,
              const mpid_comm *comm, unsigned ctx_off, int mode, mpid_request **req);
int mpid_irecv(void *buf, size_t count, const cu_dtype *dt, int src, int tag,
               const mpid_comm *comm, unsigned ctx_off, mpid_request **req);

/* Probe: *flag set when a matching message is waiting; status filled. With
 * msg non-NULL the message is removed from matching (Mprobe). */
int mpid_iprobe(int src, int tag, const mpid_comm *comm, unsigned ctx_off,
                int *flag, MPI_Status *status, mpid_message **msg);
int mpid_imrecv(void *buf, size_t count, const cu_dtype *dt, mpid_message *msg,
                mpid_request **req);

/* Cancel a receive that has not matched, or a send whose message the
 * receiver has not matched (queued here, a rendezvous RTS or a synchronous
 * eager message still unexpected there): the request completes with
 * status.clumpi_cancelled set, at once for a receive or a queued send, when
 * the receiver's answer comes for the others. Anything else completes
 * normally (see mpid/cancel.c). */
int  mpid_cancel(mpid_request *req);

/* A request completed by a layer above: progress calls its poll function
 * (when set) until it sets done. poll must not call mpid_progress; it returns
 * nonzero when it moved the operation on, 0 when it only looked. */
mpid_request *mpid_request_new_other(void);
/* Releases a request. An incomplete send or receive is released when it
 * completes (the operation still finishes, as after MPI_Request_free;
 * mpid_finalize waits for such sends, not for receives that never match).
 * A request of mpid_request_new_other goes at once, done or not: progress
 * stops polling it, and the layer that made it must not touch it again. */
void mpid_request_free(mpid_request *req);

/* The number of sends freed before completion that are still in flight
 * (mpid_finalize waits for them). */
long mpid_pending_detached(void);

/* ---- progress ---------------------------------------------------------- */
/* One pass over the channels; returns the number of events handled. */
int mpid_progress(void);
/* One pass for a test call that found nothing done yet; oversubscribed,
 * a pass that moved nothing also yields the core (progress.c). */
int mpid_progress_test(void);
/* Progress until done(arg) returns nonzero: spins briefly, then blocks
 * (futex/eventfd) so idle ranks give the core away. */
int mpid_progress_until(int (*done)(void *arg), void *arg);
/* Convenience: progress until req->done. */
int mpid_wait(mpid_request *req);
/* MPI_THREAD_MULTIPLE was granted: blocks become wakeable by the other
 * threads of this process (the lock's kick). Called once, after mpid_init. */
void mpid_thread_multiple(void);
/* Nonzero when on some host of the job the ranks outnumber the cores they
 * may use (mpirun's CLUMPI_HOST_NRANKS and CLUMPI_HOST_CPUS, or
 * CLUMPI_OVERSUBSCRIBED, as each node's first rank saw them). The same
 * answer in every process of the job, so choices made on it (the
 * collectives' algorithms) agree. */
int mpid_oversubscribed(void);

/* ---- node areas: shared memory for the collectives ---------------------
 * A view is a communicator or a sub-view of one (its context, my index and
 * its members' world ranks, as in mpid_comm). */
/* The area of `bytes` bytes shared by the members of view, zeroed when
 * made. The first call on a view is collective over its members (each calls
 * it with the same bytes at the same point; the set-up talks on the view's
 * collective context with tag MPID_TAG_NODE_AREA); later calls return the
 * same memory at once. MPI_ERR_UNSUPPORTED_OPERATION, on every member alike,
 * when the members are not all on this node's shared memory or it cannot be
 * had: the caller then uses messages. Areas last until the communicator is
 * freed (mpid_node_area_release) or MPI_Finalize. *copy (if not NULL) is
 * set, alike on every member, when every member can single-copy from the
 * others (mpid_node_read/write); else the kernel or CLUMPI_SHM_CMA=0
 * forbids it and data must go through the area. */
#define MPID_TAG_NODE_AREA (-64)
int  mpid_node_area(const mpid_comm *view, size_t bytes, void **base, int *copy);
/* Single copy of len bytes between my memory and that of member `rank` of a
 * view whose area allowed it (src / dst: an address in that member; the
 * member itself is a memory move). MPI_SUCCESS, or an error class with a
 * message when the kernel failed (a member gone). */
int  mpid_node_read(const mpid_comm *view, int rank, void *dst, const void *src, size_t len);
int  mpid_node_write(const mpid_comm *view, int rank, void *dst, const void *src, size_t len);
/* Unmaps the areas of every view with this context (a communicator and its
 * sub-views): its communicator is freed. Local; other members keep theirs
 * until they free it too. */
void mpid_node_area_release(uint32_t context_id);
/* Wakes member `rank` of view if it may be blocked in progress: after a
 * store into an area that it may be waiting for (stores wake nobody). */
void mpid_node_wake(const mpid_comm *view, int rank);
/* Progress until done(arg), a condition a store into a node area makes
 * true: the writer calls mpid_node_wake, and as a wake-up that comes between
 * the last look and the block is lost, blocks last 1 ms at most. */
int  mpid_progress_until_store(int (*done)(void *arg), void *arg);

#endif
