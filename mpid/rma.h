/*
 * rma.h — the device's one-sided communication: what the MPI layer's window
 * files (src/win.c, src/rma.c, src/win_sync.c) call. The MPI layer keeps
 * the epochs and checks arguments; the device moves data, applies
 * accumulates, keeps lock words and counts what is still in flight.
 *
 * Each (window, target) is served by one *path*, the RMA target service
 * (mpid_rma_path): how a chunk of an operation, a lock or an unlock reaches
 * the target's memory.
 *   - direct: the target's memory is mapped here (the window's per-node
 *     shared segment, or our own memory): loads, stores and atomics, with
 *     accumulates serialized by the target's accumulate lock word.
 *   - cma: a same-node Win_create window: the origin moves the data with
 *     the channel's single-copy calls (process_vm_readv/writev); lock and
 *     accumulate words in the window's per-node lock segment.
 *   - am: active messages (MPID_PKT_RMA) applied by the target's progress
 *     engine, over whatever channel reaches the target (self, shm, ofi);
 *     locks are acquired lazily (the first access waits for the grant).
 *   - agent: offload mode, a target on another node: the target node's NI
 *     agent serves the same calls without the target rank, as the NI did
 *     in Bilas's thesis (remote deposit, remote fetch, NI locks); the
 *     node's ranks take that window's words from the agent's lines.
 *
 * Completion: every chunk is answered (an ack, or the fetched data), and
 * the window counts unanswered chunks per target; flush waits for zero.
 */
#ifndef MPID_RMA_H
#define MPID_RMA_H

#include <stddef.h>
#include <stdint.h>
#include "mpid/mpid.h"
#include "src/util/rma_apply.h"

/* Operation kinds (also the packet sub-kinds, rma_impl.h). */
enum {
    MPID_RMA_PUT = CU_RMA_PUT, MPID_RMA_GET = CU_RMA_GET, MPID_RMA_ACC = CU_RMA_ACC,
    MPID_RMA_GACC = CU_RMA_GACC, MPID_RMA_FOP = CU_RMA_FOP, MPID_RMA_CAS = CU_RMA_CAS,
};

/* Lock types as MPI numbers them. */
enum { MPID_LOCK_NONE = 0, MPID_LOCK_SHARED_T = CU_LOCK_SHARED, MPID_LOCK_EXCL_T = CU_LOCK_EXCL };

/* Lock and accumulate words of one target; in the window's shared segment
 * when it has one (so same-node origins take them with atomics), else in
 * the target's private memory (only the target itself touches them, on
 * behalf of active messages). One cache line each. */
typedef struct mpid_rma_tstate {
    int lock;       /* 0 free, n > 0: n shared holders, -1: exclusive */
    int acc;        /* accumulate spin lock: 0 free, 1 held */
    char pad[56];
} mpid_rma_tstate;

/* What the window knows of each rank of its group. */
typedef struct mpid_win_peer {
    uint64_t base;          /* base address in the peer's address space */
    uint64_t size;          /* bytes */
    int32_t  disp_unit;
    int32_t  win_index;     /* the peer's device window index */
    char    *direct;        /* the peer's window memory mapped here, or NULL */
    mpid_rma_tstate *ts;    /* the peer's lock words when mapped, else NULL */
    const struct mpid_rma_path *path;
} mpid_win_peer;

typedef struct mpid_win_region {   /* dynamic windows: attached memory */
    struct mpid_win_region *next;
    uintptr_t base;
    size_t len;
} mpid_win_region;

typedef struct mpid_win {
    int index;                 /* device window table index (packets name it) */
    const mpid_comm *comm;     /* the window's private communicator */
    int dynamic;               /* target displacements are addresses */
    char *base;                /* my window memory */
    size_t size;
    mpid_win_peer *peers;      /* [comm->size] */
    mpid_rma_tstate *my_ts;    /* my lock words (shared segment or private) */
    mpid_rma_tstate priv_ts;
    mpid_win_region *regions;  /* dynamic windows */
    /* the shared segment (Win_allocate, Win_allocate_shared), or NULL */
    void *seg;
    size_t seg_len;
    /* origin side */
    int64_t *pending;          /* [size] chunks not yet answered, per target */
    int64_t pending_total;
    int *granted;              /* [size] lock grants received (am path) */
    int *grant_want;           /* [size] grants the next access must wait for (am
                                  path: Win_lock returns before the grant) */
    int err;                   /* first error a target reported (MPI class) */
    /* target side: lock requests waiting (am path) */
    struct mpid_lock_wait *waiters;
    struct mpid_rma_ofi_win *ofi;   /* network RMA state (rma_ofi.c), or NULL */
    const struct mpid_chan_agent_rma *agent;   /* agent path: who serves my words, or NULL */
} mpid_win;

/* ---- window life cycle ----------------------------------------------- */
/* Registers w (index, per-peer arrays); comm is the window's communicator. */
int  mpid_win_register(mpid_win *w, const mpid_comm *comm);
/* After the MPI layer exchanged everyone's base/size/disp_unit/index into
 * w->peers (and mapped the shared segment if any): choose each target's path. */
void mpid_win_set_paths(mpid_win *w);
void mpid_win_unregister(mpid_win *w);

/* The per-node shared segment. Layout: local_size lock lines, then each
 * local rank's memory in local-rank order, contiguous (MPI's default for
 * Win_allocate_shared). It has no name: the node's leader makes it and
 * passes key (two random words) to the node's other ranks, which fetch it
 * while the leader serves them (mpid_chan_area in mpid/channel.h). */
void *mpid_win_seg_make(size_t len, uint64_t key[2], void **share);
int   mpid_win_seg_serve(void *share, int n);
void  mpid_win_seg_drop(void *share);
void *mpid_win_seg_fetch(const uint64_t key[2], size_t len);
void  mpid_win_seg_unmap(void *seg, size_t len);

/* ---- operations -------------------------------------------------------- */
typedef struct mpid_rma_args {
    int kind;                  /* MPID_RMA_* */
    int target;                /* rank in the window's communicator */
    const void *obuf;          /* origin data (PUT/ACC/GACC/FOP/CAS) */
    size_t ocount;
    const cu_dtype *odt;
    void *rbuf;                /* GET: destination; GACC/FOP/CAS: result */
    size_t rcount;
    const cu_dtype *rdt;
    const void *cbuf;          /* CAS: compare value (one element of odt) */
    uint64_t tdisp;            /* target displacement in bytes (dynamic: address) */
    size_t tcount;
    const cu_dtype *tdt;
    int op;                    /* CU_OP_* for ACC/GACC/FOP */
    int basic;                 /* element type index for ACC/GACC/FOP/CAS */
    mpid_request *req;         /* completed with the operation, or NULL */
} mpid_rma_args;

/* Starts an operation; arguments, ranges and epochs are already checked.
 * Returns MPI_SUCCESS or an MPI error class. */
int mpid_rma_issue(mpid_win *w, const mpid_rma_args *a);

/* Waits until every chunk sent to target (-1: to every target) is answered.
 * Returns the first error a target reported since the last call (and
 * clears it), or MPI_SUCCESS. */
int mpid_win_flush(mpid_win *w, int target);

/* Passive-target locks (blocking until granted) and unlocks (flush first). */
int mpid_win_lock(mpid_win *w, int target, int type);
int mpid_win_unlock(mpid_win *w, int target, int type);

/* A request completed by the device (Rput & co.). */
mpid_request *mpid_rma_request_new(void);

#endif
