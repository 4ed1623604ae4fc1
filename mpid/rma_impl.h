/*
 * rma_impl.h — internals of the device's one-sided files (mpid/rma*.c):
 * the MPID_PKT_RMA packet, the target service (path) table, the window
 * table and the helpers the paths share. Not for use outside mpid/.
 */
#ifndef MPID_RMA_IMPL_H
#define MPID_RMA_IMPL_H

#include "mpid/mpidi.h"
#include "mpid/rma.h"

/* Sub-kinds of MPID_PKT_RMA beyond the operations (MPID_RMA_PUT..CAS);
 * the agent path's packets (channel.h) number them alike. */
enum {
    MPID_RMA_LOCK = MPID_AGENT_LOCK,     /* origin -> target: op = lock type */
    MPID_RMA_UNLOCK = MPID_AGENT_UNLOCK, /* origin -> target: op = lock type; acked */
    MPID_RMA_GRANT = MPID_AGENT_GRANT,   /* target -> origin: the lock is yours */
    MPID_RMA_ACK = MPID_AGENT_ACK,       /* target -> origin: chunk applied (nseg = error) */
    MPID_RMA_RESP = MPID_AGENT_RESP,     /* target -> origin: fetched data (nseg = error) */
};

/* One packet of the active-message path. Requests: win is the target's
 * window index, src the origin's rank in the window, the target memory is
 * one segment (nseg == 0: len bytes at addr) or nseg (offset, len) pairs at
 * the start of the payload, followed by the origin data. Answers: win is the
 * origin's window index, src the target's rank, nseg the error class. */
typedef struct mpid_pkt_rma {
    uint8_t  type;        /* MPID_PKT_RMA */
    uint8_t  kind;
    uint8_t  op;          /* CU_OP_* or lock type */
    uint8_t  basic;       /* element type index */
    uint32_t win;
    uint64_t oreq;        /* origin's record (0: none), echoed */
    uint64_t ooff;        /* position in the origin's packed stream, echoed */
    uint64_t len;         /* target bytes this chunk covers */
    uint32_t nseg;
    int32_t  src;
    uint64_t addr;        /* nseg == 0: target offset (dynamic: address) */
} mpid_pkt_rma;
_Static_assert(sizeof(mpid_pkt_rma) <= MPID_HDR_MAX, "RMA header too large");

/* An operation's origin record: where answers go and what they complete. */
typedef struct mpid_rma_rec {
    mpid_win *w;
    void *rbuf;
    size_t rcount;
    const cu_dtype *rdt;
    mpid_request *req;
    int pending;          /* chunks unanswered (+1 while still issuing) */
    int err;
} mpid_rma_rec;

/* The RMA target service of one (window, target): see rma.h. */
typedef struct mpid_rma_path {
    const char *name;
    int (*issue)(mpid_win *w, const mpid_rma_args *a, mpid_rma_rec *rec);
    /* Acquire (blocking) and release a passive-target lock. */
    int (*lock)(mpid_win *w, int target, int type);
    int (*unlock)(mpid_win *w, int target, int type);
} mpid_rma_path;

extern const mpid_rma_path mpid_rma_path_direct;   /* rma_direct.c */
extern const mpid_rma_path mpid_rma_path_am;       /* rma_am.c */
extern const mpid_rma_path mpid_rma_path_cma;      /* rma_cma.c */
extern const mpid_rma_path mpid_rma_path_ofi;      /* rma_ofi.c */
/* rma_ofi.c: collective, after the other paths are chosen: a window that
 * spans nodes takes the network's RMA where it can (see there). */
void mpid_rma_ofi_setup(mpid_win *w);
void mpid_rma_ofi_free(mpid_win *w);
/* Counters (tests check registrations end and the path is taken). */
typedef struct mpid_rma_ofi_stats_t {
    unsigned long windows;   /* windows that took the path */
    long live;               /* of them, not yet freed (registrations open) */
    unsigned long posted;    /* network accesses posted */
    unsigned long nic_acc;   /* of them, accumulates by NIC atomics */
} mpid_rma_ofi_stats_t;
extern mpid_rma_ofi_stats_t mpid_rma_ofi_stats;

/* rma_direct.c: operations completed in the caller, chunk by chunk.
 * run_chunks cuts the target data (segments are addresses: tbase plus the
 * displacement) into chunks on element boundaries, packs the origin data
 * into in (CAS: value then compare value) and unpacks what chunk leaves in
 * out; chunk moves one chunk and returns 0 or an MPI error class. */
typedef int mpid_rma_chunk_fn(mpid_win *w, const mpid_rma_args *a, const struct iovec *segs,
                              int n, const void *in, void *out, size_t len);
int mpid_rma_run_chunks(mpid_win *w, const mpid_rma_args *a, uintptr_t tbase,
                        mpid_rma_chunk_fn *chunk);
/* Passive-target locks as atomics on the target's lock word (mapped here). */
int mpid_rma_word_lock(mpid_win *w, int target, int type);
int mpid_rma_word_unlock(mpid_win *w, int target, int type);

/* rma.c: the window table and answers at the origin. */
mpid_win *mpid_win_lookup(uint32_t index);
void mpid_rma_retry_waiters(void);   /* every window's waiting lock requests */
void mpid_rma_rec_done(mpid_rma_rec *rec, int n);   /* n chunks answered */
void mpid_rma_rec_data(mpid_rma_rec *rec, size_t off, const void *data, size_t len);
mpid_rma_rec *mpid_rma_rec_new(mpid_win *w, const mpid_rma_args *a);

/* Applying a chunk to memory and the lock words: src/util/rma_apply.h
 * (shared with the NI agent, which serves the agent path's targets). */
static inline void mpid_rma_apply(int kind, int op, int basic, char *base,
                                  const struct iovec *segs, int nseg, const void *in, void *out,
                                  size_t len)
{
    cu_rma_apply(kind, op, basic, base, segs, nseg, in, out, len);
}
static inline int mpid_rma_try_lock(mpid_rma_tstate *ts, int type)
{
    return cu_rma_try_lock(&ts->lock, type);
}
static inline void mpid_rma_release_lock(mpid_rma_tstate *ts, int type)
{
    cu_rma_release_lock(&ts->lock, type);
}
static inline void mpid_rma_acc_lock(mpid_rma_tstate *ts) { cu_rma_acc_lock(&ts->acc); }
static inline void mpid_rma_acc_unlock(mpid_rma_tstate *ts) { cu_rma_acc_unlock(&ts->acc); }
static inline int mpid_rma_is_acc(int kind) { return cu_rma_is_acc(kind); }
static inline int mpid_rma_fetches(int kind) { return cu_rma_fetches(kind); }
/* rma_target.c: every segment inside w's memory (dynamic: an attached region). */
int  mpid_rma_in_window(const mpid_win *w, const struct iovec *s, int n);
/* The target-side handler of request packets (rma_target.c) and the
 * origin-side handler of answers (rma.c). */
void mpid_rma_on_request(int src_world, const mpid_pkt_rma *h, const void *payload,
                         size_t len);
void mpid_rma_on_answer(const mpid_pkt_rma *h, const void *payload, size_t len);

/* rma_am.c: packets out. From a handler (reply != 0) a full queue copies
 * the packet aside (progress sends it later); from the user's call it
 * progresses until the channel takes it. Packets to one rank keep order. */
int  mpid_rma_send(int world, const mpid_pkt_rma *h, const struct iovec *iov, int n,
                   int reply);
/* The message paths' origin side (am, agent): operations cut into chunks
 * of at most maxp payload bytes, and lazily granted locks, each packet
 * handed to post (from the user's call: may progress until it goes). */
typedef int mpid_rma_post_fn(mpid_win *w, int target, const mpid_pkt_rma *h,
                             const struct iovec *iov, int n);
int mpid_rma_msg_issue(mpid_win *w, const mpid_rma_args *a, mpid_rma_rec *rec, size_t maxp,
                       mpid_rma_post_fn *post);
int mpid_rma_msg_lock(mpid_win *w, int target, int type, mpid_rma_post_fn *post);
int mpid_rma_msg_unlock(mpid_win *w, int target, int type, mpid_rma_post_fn *post);
/* rma_agent.c: when every rank's window can be served by the agents (agent
 * mode, a window spanning nodes), take this node's ranks' words from the
 * agent's lines and open mine; the path for other nodes' targets. close:
 * Win_free's side. */
int  mpid_rma_agent_open(mpid_win *w);
void mpid_rma_agent_close(mpid_win *w);
extern const mpid_rma_path mpid_rma_path_agent;

/* Target-side lock requests that wait (retried from progress). */
void mpid_rma_lock_wait_add(mpid_win *w, int src, int type);
void mpid_rma_lock_wait_retry(mpid_win *w);

/* Target segments of the packed bytes [off, off + cap) of a's target data
 * at tb, cut back to whole elements of esz bytes when segments run out.
 * Returns their number (*len: the bytes covered), or -1. */
int mpid_rma_chunk_segs(const void *tb, const mpid_rma_args *a, size_t off, size_t cap,
                        size_t esz, struct iovec *segs, int maxseg, size_t *len);

/* Element sizes: bytes of one element of basic in the packed stream. */
size_t mpid_rma_elem(int basic);

#endif
