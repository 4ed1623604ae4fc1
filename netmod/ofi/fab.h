/*
 * fab.h — state shared by the files of the libfabric channel (netmod/ofi).
 *
 * Model: one FI_EP_RDM endpoint per rank, plain FI_MSG (the device matches
 * by itself). A packet on the wire is [fab_wire][device header][payload];
 * receive buffers are pre-posted (one FI_MULTI_RECV slab holds many
 * packets, or one fixed buffer per packet where multi-recv is not offered)
 * and packets are handed to mpid_on_packet in place. Small packets go with
 * fi_inject; bigger ones are copied into a send buffer of a small pool that
 * the send completion returns.
 */
#ifndef NETMOD_OFI_H
#define NETMOD_OFI_H

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <stddef.h>
#include <stdint.h>
#include "mpid/channel.h"
#include "netmod/common/cq_wait.h"

/* Largest device payload of one packet (the eager limit and the size of
 * pipelined rendezvous chunks). 64 KiB: see fab.c for the measurement. */
#define OFI_MAX_PAYLOAD (64u * 1024)

typedef struct fab_wire {
    uint32_t src;        /* sender's world rank */
    uint16_t hdrlen;     /* device header bytes that follow */
    uint16_t kind;       /* OFI_WIRE_*: a device packet, or the channel's own */
} fab_wire;

#define OFI_WIRE_DATA  0 /* for the device */
#define OFI_WIRE_PROBE 1 /* liveness probe (alive.c): dropped */
#define OFI_WIRE_BYE   2 /* the sender finalized: its endpoint goes away */

#define OFI_PKT_MAX (sizeof(fab_wire) + MPID_HDR_MAX + OFI_MAX_PAYLOAD)

/* A posted receive: a multi-recv slab or one fixed packet buffer. */
typedef struct fab_rxbuf {
    struct fi_context2 ctx;  /* first: completions return &ctx */
    char *buf;
    size_t size;
    void *desc;
    struct fid_mr *mr;
    /* multi-recv: what came back of the slab since it was posted (see
     * rx_slab_done in progress.c) */
    size_t done;             /* bytes of completed packets */
    size_t end;              /* end of the furthest packet seen */
    int released;            /* the provider said it carves no more */
} fab_rxbuf;

/* A send buffer (packets above the inject size). */
typedef struct fab_txbuf {
    struct fi_context2 ctx;  /* first */
    struct fab_txbuf *next;
    int dest;                /* for error messages */
    void *desc;
    struct fid_mr *mr;
    char data[];
} fab_txbuf;

/* Reads in flight at once (rendezvous, fab.c); each owns a context. */
#define OFI_RD_MAX 64

/* One-sided window accesses in flight at once (rma.c). */
#define OFI_WOP_MAX 256
struct fab_wop {
    struct fi_context2 ctx;  /* first */
    void *cookie;            /* the device's, for mpid_on_rma_done */
    int parts;               /* provider operations not completed (+1 posting) */
    int failed;
    int peer;
    struct fid_mr *lmr[3];   /* FI_MR_LOCAL: in, cmp, out */
    void *desc[3];
};

#define OFI_TAG_RX 1
#define OFI_TAG_TX 2

struct fab_state {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_ep *ep;
    struct fid_av *av;
    struct fid_cq *cq;
    int rank, size, node;
    int cap;                  /* peer slots: the world ranks, then MPID_DYN_MAX dynamic peers */
    int up;
    fi_addr_t *addr;          /* [cap]: FI_ADDR_NOTAVAIL until first send (world) or added */
    uint32_t *dyn_src;        /* [cap - size]: the source id a dynamic peer knows us by */
    size_t inject_max;        /* whole packets up to this go with fi_inject */
    int multi_recv;           /* slabs posted with FI_MULTI_RECV */
    int mr_local;             /* provider wants local buffers registered */
    fab_rxbuf *rx;
    int nrx;
    fab_txbuf *tx_free;
    int tx_count, tx_max;     /* send buffers made so far / at most */
    netc_cq_wait cqw;           /* how to block on cq (fd -1: nap) */
    int in_progress;          /* no nested delivery from a handler */
    int got_cqe;              /* a completion was read since the last arm */
    int spurious;             /* sleeps in a row that ended at once, empty */
    long long armed_ns;       /* when the current sleep was armed */
    unsigned long ncqe;       /* completion batches read so far */
    unsigned long rx_waited;  /* slabs released with packets still filling */
    /* liveness (alive.c) */
    unsigned long quiet_cqe;  /* ncqe when quiet_ns was taken */
    long long quiet_ns;       /* no completion since */
    long long probe_ns;       /* last probe round */
    unsigned char *bye;       /* [cap]: the peer said it finalized */
    int *tx_out;              /* [cap]: our sends in flight to each peer */
    long long *probe_at;      /* [cap]: when the probe in flight was posted, or 0 */
    long long *probe_again;   /* [cap]: since when posting one says EAGAIN, or 0 */
    unsigned char *probe_judged; /* [cap]: it went out with nothing queued before it */
    struct fi_context2 *probe_ctx; /* [cap] */
    int dyn_top;              /* dynamic peer slots below it may be in the AV */
    unsigned char *lost;      /* [cap]: a dynamic peer is gone (1), and the device was
                                 told (2) */
    int lost_news;            /* some lost[] is 1: tell the device from progress */
    void (*peer_lost)(int peer);   /* the device's (mpid_chan_info) */
    fab_wire probe_msg;
    struct fid_mr *probe_mr;
    void *probe_desc;
    long long probe_limit_ns; /* a probe not sent after this: lost peer; 0: off */
    long long dyn_limit_ns;   /* the same for dynamic peers */
    /* RMA reads (fab.c): rendezvous data exposed per message (mr.c) */
    int rd_on;                /* 0: no reads (pipelined rendezvous) */
    int win_on;               /* one-sided window access (rma.c) */
    int atomic_on;            /* the provider has FI_ATOMIC */
    size_t rd_iov;            /* local segments per read */
    size_t rd_max;            /* bytes per read */
    int rd_pending;           /* reads posted, not completed */
    long long rd_yield_ns;    /* a read's wait yields this long without a completion, */
    long rd_sleep_us;         /* then blocks on the CQ's wait fd at most this long at a time */
    int rd_failed;            /* a read of the current fab_rma_read completed in error */
    unsigned rd_call;         /* numbers the fab_rma_read calls */
    int rd_free[OFI_RD_MAX], rd_nfree;
    int rd_src[OFI_RD_MAX];   /* the peer each read slot reads from */
    unsigned rd_of[OFI_RD_MAX];       /* the rd_call that posted the slot */
    unsigned char rd_busy[OFI_RD_MAX];   /* posted, not completed */
    /* random keys for exposed memory (mr.c), refilled a page at a time
     * (one syscall per 512 keys) */
    uint64_t rnd_pool[512];
    unsigned rnd_left;
    /* one-sided accesses (rma.c): free entries of fab_wops */
    int wop_free[OFI_WOP_MAX], wop_nfree;
};

extern struct fab_state fab_st;

/* init.c */
int  fab_open(const mpid_chan_info *info);
void fab_close(void);
int  fab_resolve(int dest);      /* fills fab_st.addr[dest] from the KVS */
int  fab_mr_reg(void *buf, size_t len, uint64_t access, struct fid_mr **mr, void **desc);

/* dyn.c: peers beyond the world (mpid_channel's dyn_* entries) */
int  fab_dyn_addr(void *buf, size_t *len);
int  fab_dyn_peer_add(int peer, const void *addr, size_t len, int my_id);
void fab_dyn_peer_del(int peer);

/* mr.c: remote access under unguessable keys (see there) */
int  fab_mr_remote_ok(void);     /* the provider's MR mode allows it */
int  fab_mr_expose(const void *base, size_t len, uint64_t access, const char *what,
                   uint64_t *key, void **handle);
void fab_mr_unexpose(void *handle);   /* ends either kind of exposure */
int  fab_mr_local(const struct iovec *v, size_t n, uint64_t access, struct fid_mr **mr,
                  void **desc);  /* descriptors for local buffers (FI_MR_LOCAL) */
void fab_mr_local_end(struct fid_mr **mr, size_t n);
int  fab_rma_expose(int dest, const void *base, size_t len, uint64_t *key, void **handle);
/* The remote address of addr in a peer's registration starting at base. */
static inline uint64_t fab_raddr(uint64_t addr, uint64_t base)
{
    return (fab_st.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? addr : addr - base;
}

/* fab.c */
extern struct fi_context2 fab_rd_ctx[OFI_RD_MAX];
int  fab_rma_open(void);         /* expose our memory if the provider allows */
void fab_rd_done(void *ctx, int ok);
int  fab_rd_peer(const void *ctx);
static inline int fab_is_rd(const void *ctx)
{
    return (const char *)ctx >= (const char *)fab_rd_ctx &&
           (const char *)ctx < (const char *)(fab_rd_ctx + OFI_RD_MAX);
}

/* rma.c: one-sided window access */
extern struct fab_wop fab_wops[OFI_WOP_MAX];
int  fab_rma_win_open(void);
int  fab_mem_expose(void *base, size_t len, uint64_t *key, void **handle);
int  fab_rma_post(int peer, const mpid_chan_rma *op, void *cookie);
int  fab_rma_atomic_ok(int kind, int op, int type);
void fab_wop_done(void *ctx, int ok);
int  fab_wop_peer(const void *ctx);
static inline int fab_is_wop(const void *ctx)
{
    return (const char *)ctx >= (const char *)fab_wops &&
           (const char *)ctx < (const char *)(fab_wops + OFI_WOP_MAX);
}

/* progress.c */
int  fab_post_rx(fab_rxbuf *b);
int  fab_poll(int budget);
fab_txbuf *fab_tx_get(void);
void fab_tx_put(fab_txbuf *t);
void fab_tx_release_all(void);
/* Ends the job for a world rank; a dynamic peer is marked lost instead
 * (fab_lost returns 1 from then on) and the call returns. */
void fab_lost_peer(int rank, int err, const char *detail);
static inline int fab_lost(int rank)
{
    return rank >= fab_st.size && fab_st.lost[rank];
}
void fab_lost_report(void);      /* progress: tell the device of the peers lost */

/* alive.c */
int  fab_alive_open(void);
void fab_alive_close(void);
void fab_alive_check(int only);
int  fab_alive_probing(void);     /* a probe is out: nap, don't block */  /* waiting: probe peers (or one) if quiet long */
int  fab_alive_probe_peer(const void *ctx);   /* a probe's context: its peer, else -1 */
void fab_alive_probe_done(int rank);
void fab_alive_bye(void);        /* finalizing: tell the peers we talked to */
void fab_alive_reset(int peer);  /* a dynamic peer's slot starts or ends */
int  fab_alive_said_bye(int rank);
int  fab_alive_packet(const fab_wire *w);   /* the channel's own packet? */

/* wait.c */
int  fab_arm_sleep(void);
void fab_sleep(long timeout_us);
void fab_disarm_sleep(void);
int  fab_wait_fd(void);

#endif
