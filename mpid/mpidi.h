/*
 * mpidi.h — device internals shared by the files of mpid/: packet formats,
 * the private part of requests, unexpected-message records, the routing
 * table and the work lists progress drains. Not for use outside mpid/.
 *
 * Hot path: the static inline helpers here run for every message.
 */
#ifndef MPIDI_H
#define MPIDI_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include "mpid/mpid.h"
#include "mpid/channel.h"
#include "src/util/biglock.h"
#include "mpid/match.h"
#include "mpid/counters.h"

/* The matching engine has its own wildcards (match.h stands alone); the
 * device passes MPI's through unchanged, so they must be the same values. */
_Static_assert(MPID_ANY_SOURCE == MPI_ANY_SOURCE && MPID_ANY_TAG == MPI_ANY_TAG,
               "match.h's wildcards differ from mpi.h's");

/* ---- packets -------------------------------------------------------------
 * The first byte of every header is its type. Message headers (eager, RTS)
 * start with the 16-byte envelope, so a 64-byte shm cell keeps ~40 bytes for
 * inline payload. Request ids are addresses in the process that owns the
 * request: they only ever come back to it. */
enum {
    MPID_PKT_EAGER = 1,    /* envelope + payload (the whole message) */
    MPID_PKT_EAGER_SYNC,   /* same, and the receiver acks the match (Ssend) */
    MPID_PKT_RTS,          /* rendezvous request: size and the sender's memory */
    MPID_PKT_CTS,          /* ctrl: no single copy, send DATA packets please */
    MPID_PKT_DATA,         /* pipelined rendezvous data at an offset */
    MPID_PKT_FIN,          /* ctrl: receiver has read everything (rma path) */
    MPID_PKT_ACK,          /* ctrl: a sync eager message matched */
    MPID_PKT_RMA,          /* one-sided: request or answer (mpid/rma_impl.h) */
    MPID_PKT_COOP,         /* ctrl: receiver -> sender, write this part of it */
    MPID_PKT_WDONE,        /* ctrl: sender -> receiver, COOP write done (status) */
    MPID_PKT_CANCEL,       /* sender -> receiver, in order after the message: drop
                              it if unmatched (cancel.c) */
    MPID_PKT_CANCEL_ACK,   /* ctrl: receiver -> sender, whether it was dropped */
};

typedef struct mpid_pkt_msg {
    uint8_t  type;
    uint8_t  pad0;
    uint16_t pad1;
    uint32_t ctx;          /* context id (+ offset) */
    int32_t  src;          /* sender's communicator rank */
    int32_t  tag;
} mpid_pkt_msg;            /* 16 bytes; payload length = message size */

typedef struct mpid_pkt_esync {
    mpid_pkt_msg m;
    uint64_t sreq;
} mpid_pkt_esync;          /* 24 bytes */

typedef struct mpid_pkt_rts {
    mpid_pkt_msg m;
    uint64_t sreq;
    uint64_t size;         /* message bytes */
    uint64_t addr;         /* niov == 0: the data, contiguous at addr;
                              else addr of a struct iovec[niov] in the sender */
    uint64_t niov;
} mpid_pkt_rts;            /* 48 bytes == MPID_HDR_MAX */

typedef struct mpid_pkt_cts {
    uint8_t  type, pad[7];
    uint64_t sreq;
    uint64_t rreq;
    uint64_t len;          /* bytes the receiver takes (truncation) */
} mpid_pkt_cts;

typedef struct mpid_pkt_coop {   /* COOP and WDONE */
    uint8_t  type, pad[3];
    int32_t  status;       /* WDONE: 0 or -errno (then the receiver reads it) */
    uint64_t sreq;
    uint64_t rreq;
    uint64_t raddr;        /* COOP: receiver's memory for bytes [off, off+len) */
    uint64_t off, len;
} mpid_pkt_coop;

typedef struct mpid_pkt_data {
    uint8_t  type, pad[7];
    uint64_t rreq;
    uint64_t offset;
} mpid_pkt_data;

typedef struct mpid_pkt_ack {   /* FIN and ACK */
    uint8_t  type, pad[7];
    uint64_t sreq;
} mpid_pkt_ack;

typedef struct mpid_pkt_cancel {   /* CANCEL and CANCEL_ACK */
    uint8_t  type;
    uint8_t  dropped;      /* CANCEL_ACK: 1 the message is gone, 0 it matched */
    uint16_t pad;
    uint32_t ctx;          /* the message's context */
    uint64_t sreq;
} mpid_pkt_cancel;

_Static_assert(sizeof(mpid_pkt_msg) == 16, "envelope must stay 16 bytes");
_Static_assert(sizeof(mpid_pkt_rts) <= MPID_HDR_MAX, "RTS too large");

/* ---- requests ------------------------------------------------------------ */
enum {
    MPID_ST_NONE = 0,
    /* sends */
    MPID_ST_QUEUED,        /* first packet waits in the destination's queue */
    MPID_ST_SYNC_WAIT,     /* sync eager sent, waiting for ACK */
    MPID_ST_RTS_SENT,      /* waiting for FIN or CTS */
    MPID_ST_PUMP,          /* sending DATA packets after CTS */
    /* receives */
    MPID_ST_POSTED,        /* in the posted queue */
    MPID_ST_RNDV_MATCHED,  /* matched an RTS from a channel callback; progress reads */
    MPID_ST_RNDV_DATA,     /* CTS sent, DATA arriving */
    MPID_ST_COOP_WRITE,    /* send: COOP arrived, progress writes our part */
    MPID_ST_COOP_WAIT,     /* recv: read our part, waiting for WDONE */
    MPID_ST_COOP_REST,     /* recv: the sender's write failed, progress reads it */
};

typedef struct mpid_req mpid_req;

struct mpid_request_priv {
    mpid_mq_elem q;           /* posted queue link (receives) */
    mpid_req *next;           /* free list, destination queue, work lists */
    void *buf;
    size_t count;
    const cu_dtype *dt;
    size_t bytes;             /* send: message bytes; recv: buffer capacity */
    uint32_t ctx;
    int rank;                 /* send: destination comm rank; recv: source */
    int tag;
    int my_rank;              /* send: my comm rank (the envelope's src) */
    int peer;                 /* world rank of the other side */
    uint8_t state, mode, user_freed, dt_held, in_olist;
    uint64_t peer_req;        /* the other side's request id */
    size_t offset, limit;     /* rendezvous progress */
    uint32_t inflight;        /* send: DATA packets a channel still reads (send_later) */
    int32_t late_err;         /* send: first error while packets were in flight */
    size_t msg_size;          /* recv: size of the matched message */
    uint64_t raddr, rniov;    /* recv: the sender's memory (from RTS) */
    union {
        uint64_t rkey[2];     /* recv: its keys (net_rma->read_key): data, iovec list */
        void *exposed[2];     /* send: the channel's exposures of them */
    } x;
    struct iovec *iovs;       /* send: iovec list of non-contiguous data (RTS) */
    size_t niov;
    void *bounce;             /* send: packing buffer for DATA packets */
    mpid_req *poll_next, *poll_prev;  /* OTHER requests polled by progress */
};

struct mpid_req {
    mpid_request pub;
    struct mpid_request_priv p;
};

static inline mpid_req *mpid_req_of(mpid_request *pub) { return (mpid_req *)pub; }
static inline mpid_req *mpid_req_of_q(mpid_mq_elem *e)
{
    return (mpid_req *)((char *)e - offsetof(mpid_req, p.q));
}

/* ---- the device's state ---------------------------------------------------
 * One instance, mpid_st (init.c). */
typedef struct mpid_state {
    /* this process in MPI_COMM_WORLD */
    int world_rank, world_size;
    /* the job (init.c): nodes, this node's ranks, its name for segments */
    struct {
        int *node_of;                 /* [world size]: each rank's node */
        int *local_ranks;             /* this node's world ranks, ascending */
        int nnodes;
        int appnum;                   /* MPI_APPNUM (PMI) */
        char id[128];                 /* for shm segment names */
        mpid_chan_info info;          /* what the channels are opened with */
        int shm_up, net_up;           /* channels open */
        int dyn_own;                  /* the direct endpoint for other jobs beside the agent */
    } job;
    /* routing (route.c): an entry per world rank and dynamic-process slot */
    struct mpid_dest *dests;          /* [world size + MPID_DYN_MAX] */
    int dyn_top;                      /* slots below it may be in use */
    const mpid_channel *dyn_chan;     /* the channel to other jobs, once open */
    /* the channels progress polls (progress.c, netpoll.c) */
    const mpid_channel *chans[4];
    int nchans;
    const mpid_channel *sleep_chan;   /* the channel that can block us */
    const mpid_channel *net_chan;     /* the network channel (NULL on one node) */
    int net_countdown;                /* progress calls until the next network poll */
    const int *self_busy;             /* the self channel's pending word */
    /* how a rank waits (progress.c; CLUMPI_SPIN, _YIELD_US, ... at init) */
    struct {
        long spin_polls;              /* not oversubscribed: polls before blocking */
        long long yield_ns;           /* oversubscribed: idle time yielding, then block */
        long long yield_long_ns;      /* a yield this long: block instead */
        long long noyield_until;      /* yielding off until then (after long yields) */
        long long long_end;           /* when the last long yield ended */
        long long off_ns;             /* the last switch's off time */
        int long_run;                 /* long yields in a row (progress.c) */
        int run_foreign;              /* one of them saw more runnable tasks than ours */
        long host_tasks;              /* the job's processes on this host */
        long sleep_us;                /* blocking timeout: a safety net only */
        int oversubscribed;           /* this host's ranks outnumber its cores */
        int job_oversubscribed;       /* some host's do: the same in every process */
    } wait;
    /* when the network is polled and how an idle rank blocks (netpoll.c) */
    struct {
        uint32_t hit_bits;            /* bit k: the poll k polls ago found packets */
        int ival_min, ival_max;       /* poll interval bounds, in progress calls */
        long nap_us;                  /* bounded sleep when a channel has no wait fd */
        int kick_fd;                  /* MPI_THREAD_MULTIPLE: wakes the blocked thread */
    } net;
    /* work lists drained by progress, all empty in the steady state */
    struct mpid_dest *dirty;          /* destinations with queued packets */
    mpid_req *rndv_work;              /* receives matched to an RTS in a callback */
    mpid_req *streams;                /* sends streaming DATA packets */
    mpid_req *polled;                 /* OTHER requests with a poll function */
    /* request pool (request.c) */
    mpid_req *req_pool;
    long detached;                    /* requests freed by the user before completion */
    struct mpid_slab *slabs;          /* every slab of requests, for mpid_req_finalize */
    mpid_message *msg_pool;           /* free unexpected-message records */
    /* routing limits (route.c; CLUMPI_EAGER_LIMIT, CLUMPI_NO_RMA) */
    long eager_cap;                   /* < 0: none */
    int no_rma_all;
    /* processes of other jobs (dynpeer.c) */
    struct {
        struct mpid_dyn_slot *slots;  /* [cap]: routing slot world size + i */
        int cap;
        int nlost;                    /* slots whose process is gone (peer_lost.c) */
    } dyn;
    /* node areas handed out (node_area.c) */
    struct mpid_node_area *areas;
    /* one-sided (rma.c, rma_am.c, rma_ofi.c) */
    struct {
        struct mpid_win **wins;       /* [nwins]: by window index, NULL when free */
        int nwins;
        struct mpid_am_pkt *am_head, *am_tail; /* active messages waiting for room: one
                                                  FIFO, so order per destination holds */
        int *am_queued;               /* [world size]: of them, per destination */
        mpid_request *am_poller;
        int lock_waiting;             /* windows with lock requests waiting */
        struct mpid_rma_rec *issuing; /* the operation being issued (rma_ofi.c: run_chunks
                                         calls chunk without it) */
    } rma;
    /* matching (match.c): the posted and unexpected queues of each context;
     * last, being large */
    mpid_ctxq_table ctxqs;
} mpid_state;
extern mpid_state mpid_st;

/* Requests come in slabs (request.c), all kept until MPI_Finalize: a
 * walk over them finds every request in flight (peer_lost.c). */
#define MPID_SLAB 64
struct mpid_slab {
    struct mpid_slab *next;   /* every slab, for mpid_req_finalize */
    mpid_req          r[MPID_SLAB];
};

mpid_req *mpid_req_alloc_slow(int kind);
void      mpid_req_release(mpid_req *r);   /* back to the pool */
void      mpid_olist_remove(mpid_req *r);
void      mpid_req_finalize(void);         /* frees every slab; at MPI_Finalize */

/* Pool pop: the common case is one load and one store. */
static inline mpid_req *mpid_req_alloc(int kind)
{
    mpid_req *r = mpid_st.req_pool;
    if (__builtin_expect(r == NULL, 0))
        return mpid_req_alloc_slow(kind);
    mpid_st.req_pool = r->p.next;
    r->pub.kind = kind;
    r->pub.done = 0;
    r->pub.status.MPI_ERROR = 0;
    r->pub.status.clumpi_cancelled = 0;
    r->pub.status.clumpi_count = 0;
    r->pub.handle = MPI_REQUEST_NULL;
    r->pub.user = NULL;
    r->pub.poll = NULL;
    r->pub.comm = 0;
    r->pub.mpir_kind = 0;
    r->p.state = MPID_ST_NONE;
    r->p.user_freed = 0;
    r->p.dt_held = 0;
    r->p.iovs = NULL;
    r->p.bounce = NULL;
    return r;
}

/* Keep a derived datatype alive while an operation is pending on it. */
static inline void mpid_req_hold_dt(mpid_req *r)
{
    if (!r->p.dt->builtin && !r->p.dt_held) {
        cu_dtype_retain((cu_dtype *)r->p.dt);
        r->p.dt_held = 1;
    }
}

void mpid_req_complete_slow(mpid_req *r);
static inline void mpid_req_complete(mpid_req *r)
{
    if (__builtin_expect(r->p.dt_held | r->p.user_freed | (r->p.iovs != NULL) |
                         (r->p.bounce != NULL), 0)) {
        mpid_req_complete_slow(r);
        return;
    }
    r->p.state = MPID_ST_NONE;
    r->pub.done = 1;
}

/* ---- unexpected messages (struct mpid_message is the record) ------------- */
#define MPID_UNEXP_INLINE 256
struct mpid_message {
    mpid_uq_elem q;           /* unexpected queues' links (match.h) */
    struct mpid_message *next_free;
    uint8_t  type;            /* EAGER, EAGER_SYNC or RTS */
    int      peer;            /* world rank of the sender */
    uint32_t ctx;
    size_t   size;            /* message bytes */
    uint64_t sreq;
    uint64_t addr, niov;      /* RTS: sender's memory */
    uint64_t rkey[2];         /* RTS: its keys, when the channel uses them */
    void    *data;            /* eager payload: inl, malloc'd or lent */
    uint8_t  lent;            /* data is the channel's (give it back) */
    char     inl[MPID_UNEXP_INLINE];
};

static inline mpid_message *mpid_msg_of_q(mpid_mq_elem *e)
{
    return (mpid_message *)((char *)e - offsetof(mpid_message, q));
}
mpid_message *mpid_msg_alloc(size_t payload);
void mpid_msg_free(mpid_message *m);

/* ---- routing ------------------------------------------------------------- */
typedef struct mpid_ctrl {   /* a control packet waiting for room */
    struct mpid_ctrl *next;
    size_t len;
    uint64_t hdr[MPID_HDR_MAX / 8];
} mpid_ctrl;

typedef struct mpid_dest {
    const mpid_channel *ch;    /* NULL: no channel reaches this rank */
    size_t eager_max;          /* payload limit for eager messages */
    mpid_req *qhead, *qtail;   /* sends whose first packet waits (in order) */
    mpid_ctrl *chead, *ctail;  /* control packets waiting */
    struct mpid_dest *dnext;   /* on the dirty list */
    int dirty;
    int no_rma;                /* rma_read refused once: use CTS/DATA */
    int rma_ok;                /* rma_read worked once: cooperative copy allowed */
    int rts_out;               /* our RTS to this rank awaiting FIN or CTS */
    int lost;                  /* a process of another job that is gone (peer_lost.c) */
    int cnt_kind;              /* MPID_CNT_*: which counters its messages go to */
} mpid_dest;

void mpid_node_area_finalize(void);   /* node_area.c: unmaps every area */
int  mpid_route_init(const int *node_of, int my_node, int shm_up);
void mpid_route_finalize(void);
void mpid_dyn_finalize(void);   /* dynpeer.c: forgets the slots' table */
/* peer_lost.c: the channels' peer_lost (mpid_chan_info): what waits for
 * slot fails; and whether a receive from src of comm (a rank or
 * MPI_ANY_SOURCE) would wait for a lost process (then it fails at once). */
void mpid_on_peer_lost(int slot);
int  mpid_recv_from_lost(const mpid_comm *comm, int src);
/* init.c: the network channel for peers of other jobs, opened on demand;
 * NULL when it cannot be had. */
const mpid_channel *mpid_net_open_dynamic(void);
/* route.c: an entry's channel and eager limit (the caps of CLUMPI_*). */
void mpid_dest_set(mpid_dest *d, const mpid_channel *ch);
void mpid_dest_no_single_copy(mpid_dest *d);

/* ---- work lists drained by progress (mpid_st) ----------------------------
 * All empty in the steady state, so progress tests one word. */
static inline int mpid_work_pending(void)
{
    return ((uintptr_t)mpid_st.dirty | (uintptr_t)mpid_st.rndv_work |
            (uintptr_t)mpid_st.streams | (uintptr_t)mpid_st.polled) != 0;
}
int  mpid_do_work(void);

void mpid_dest_mark_dirty(mpid_dest *d);
/* Send a control packet now, or queue a copy when there is no room. */
int  mpid_ctrl_send(int peer, const void *hdr, size_t len);
/* Try the first packet of a send (eager, sync eager or RTS). 0, -EAGAIN or
 * another negative errno. */
int  mpid_send_first(mpid_req *r);

/* cancel.c: CANCEL and CANCEL_ACK packets */
void mpid_on_cancel(int src, const mpid_pkt_cancel *h);

/* rndv.c */
int  mpid_rts_send(mpid_req *r, mpid_dest *d);
/* An RTS the receiver dropped unmatched (cancel): end what it exposed. */
void mpid_rts_withdraw(mpid_req *r);
void mpid_rndv_recv_start(mpid_req *r);    /* r->p.{peer,raddr,rniov,msg_size,peer_req} set */
void mpid_on_cts(const mpid_pkt_cts *h);
void mpid_on_data(const mpid_pkt_data *h, const void *payload, size_t len);
void mpid_on_fin(uint64_t sreq);
void mpid_on_coop(const mpid_pkt_coop *h);   /* COOP and WDONE */
void mpid_rndv_work_one(mpid_req *r);        /* an entry of mpid_st.rndv_work */
int  mpid_stream_one(mpid_req *r);           /* 1 when the send completed */
/* Receiver-side rendezvous counters (tests check that fine-grained types do
 * not turn into per-element syscalls; no timing involved). */
typedef struct mpid_rndv_stats_t {
    unsigned long reads;     /* rma_read calls */
    unsigned long rsegs;     /* remote segments passed to them */
    unsigned long lsegs;     /* local segments passed to them */
    unsigned long packed;    /* RTS that asked for the pipelined path */
    unsigned long coop;      /* cooperative copies started */
    unsigned long exposed;   /* sender: channel exposures made (net_rma->expose) */
    long live;               /* sender: exposures not yet ended (leak check) */
} mpid_rndv_stats_t;
extern mpid_rndv_stats_t mpid_rndv_stats;

/* rma.c: one-sided packets (requests to a target, answers to an origin) */
void mpid_rma_on_packet(int src, const void *hdr, size_t hdrlen, const void *payload,
                        size_t len);

/* eager.c */
void mpid_eager_deliver(mpid_req *r, int src, int tag, const void *payload, size_t len);

/* progress / channels: the self channel's pending word
 * (mpid_channel.pending), tested inline before calling its progress */
static inline int mpid_self_pending(void) { return *mpid_st.self_busy; }
/* The channel of this node's other ranks (init.c); its node areas serve
 * every rank, started or not. */
extern const mpid_channel *const mpid_node_chan;
/* Whether this host's ranks (with agents: offload mode, its NI agents)
 * outnumber the cores they may use; *tasks: how many processes that is. */
int mpid_host_oversubscribed(int local_size, int agents, long *tasks);
/* How waits go, by that answer for this host. */
void mpid_progress_init(int oversubscribed, long host_tasks);

/* A local rank that ends before MPI_Finalize ends the job (peer_watch.c)
 * when no mpirun of ours watches: publish our pid before the channels'
 * PMI barriers (under srun: watch the step's siblings from then on),
 * start watching after them, stop before finalize's. */
int  mpid_peer_watch_publish(const mpid_chan_info *info);
void mpid_peer_watch_start(const mpid_chan_info *info);
void mpid_peer_watch_stop(void);

/* netpoll.c: the network channel (NULL on one node), polled adaptively */
void mpid_net_init(const mpid_channel *ch);
int  mpid_net_poll(void);
void mpid_idle_sleep(long timeout_us);   /* block on every channel at once */

/* For wait loops, under MPI_THREAD_MULTIPLE (src/util/biglock.h): after a
 * pass, lets a thread waiting for the library lock have it; and yields the
 * core with the lock released. Below MULTIPLE: nothing, and sched_yield. */
static inline void mpid_pass_done(void)
{
    if (__builtin_expect(cu_mt, 0))
        cu_lock_yield();
}
void mpid_core_yield(void);
void mpid_send_fail(mpid_req *r, int rc);     /* complete a send with an error */

#endif
