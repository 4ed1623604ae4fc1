/*
 * channel.h — the interface between the device and its channels (self, shm,
 * ofi, agent): a core every channel implements (mpid_channel), then one
 * optional table per capability. This is the only device header a channel
 * includes: a channel never reaches up into mpid or src, nor sideways into
 * another channel.
 *
 * Model (active messages, after Lumetta et al.): the device hands a channel a packet
 * — a small opaque header plus a payload gather list — for a destination world
 * rank. On the receiving side the channel calls mpid_on_packet() in place, from
 * its progress function, with pointers into its own buffers; the handler
 * copies out what it keeps, and the channel frees the slot when it returns
 * (or, through mpid_on_packet_lent, lends it to the device until give_back).
 * Packets from one sender to one receiver on one queue arrive in order.
 */
#ifndef MPID_CHANNEL_H
#define MPID_CHANNEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
/* the device's counters, which channels increment too (offload mode's
 * hand-offs to the agent) */
#include "mpid/counters.h"

#define MPID_HDR_MAX 48      /* largest header the device ever sends */

/* Flags for send. */
#define MPID_CH_CTRL 0x1     /* control packet (CTS, FIN, acks): travels on
                                the control queue, which is always drained */
#define MPID_CH_NOBUFS 0x2   /* say -ENOBUFS, not -EAGAIN, when the buffers
                                for the payload are out on loan */

/* One-sided operations served by the target node's NI agent
 * (mpid_chan_agent_rma; Bilas's remote deposit, remote fetch and NI
 * locks): one request to a target's agent, or its answer. A request names
 * the target's window by the target's device window index; segments are
 * offsets from the window's base. Kinds are src/util/rma_apply.h's
 * CU_RMA_* and these: */
enum { MPID_AGENT_LOCK = 16, MPID_AGENT_UNLOCK, MPID_AGENT_GRANT, MPID_AGENT_ACK,
       MPID_AGENT_RESP };
/* An answer's outcome (its nseg): done; a malformed request; segments
 * outside the window; the target's memory could not be read or written. */
enum { MPID_AGENT_OK = 0, MPID_AGENT_EBADREQ, MPID_AGENT_ERANGE, MPID_AGENT_EACCESS };
typedef struct mpid_chan_agent_op {
    int      kind;
    int      op, basic, ltype;  /* op: CU_OP_*; basic: element type; lock type */
    uint32_t win;        /* the target's window index */
    uint32_t nseg;       /* request: (offset, len) pairs first in the payload (0: one
                            segment at addr); answer: MPID_AGENT_OK or an error */
    uint32_t len;        /* target bytes of this chunk */
    uint64_t addr;
    uint64_t oreq, ooff; /* the origin's, echoed in the answer */
    uint32_t owin;       /* the origin's window index, echoed */
    int32_t  osrc;       /* the target's rank in the window, echoed */
} mpid_chan_agent_op;
/* The bytes of a window's lock words where the agent serves them: the lock
 * and accumulate words (int each, src/util/rma_apply.h's locks) first,
 * then the agent's own. */
#define MPID_AGENT_WORDS 64

/* What a channel learns at init. */
typedef struct mpid_chan_info {
    int        world_rank, world_size;
    int        node;            /* my node index */
    const int *node_of;         /* [world_size]: node index of each rank */
    int        local_rank;      /* my index among the ranks of my node */
    int        local_size;
    const int *local_ranks;     /* [local_size]: world ranks on my node, ascending */
    const char *job_id;         /* unique per job; names shared segments */
    int        dynamic;         /* opened later, for peers beyond the world only:
                                   no address exchange with the world ranks */
    /* The device's progress, for a channel that blocks inside an operation
     * of its own (offloaded collectives): one pass (returns the events
     * handled), and passes until done(arg) is nonzero (may sleep). */
    int        (*progress)(void);
    int        (*progress_until)(int (*done)(void *arg), void *arg);
    /* A peer of another job (a slot >= world_size) is gone: the channel
     * sends it nothing more (send returns -EHOSTUNREACH) and calls this
     * once, from its progress, never from inside send or a read. The loss
     * of a world rank still ends the job. */
    void       (*peer_lost)(int peer);
} mpid_chan_info;

/* Peers beyond MPI_COMM_WORLD (other jobs: spawned, connected, joined) take
 * the device's slots world_size .. world_size + MPID_DYN_MAX - 1. */
#define MPID_DYN_MAX 4096

/* One remote access (mpid_chan_net_rma's post). Atomics name element types and ops with
 * the channel's own codes below (the device maps MPI's to them). */
enum { MPID_CH_PUT, MPID_CH_GET, MPID_CH_ATOMIC, MPID_CH_FETCH, MPID_CH_CSWAP };
enum { MPID_CH_I8, MPID_CH_U8, MPID_CH_I16, MPID_CH_U16, MPID_CH_I32, MPID_CH_U32,
       MPID_CH_I64, MPID_CH_U64, MPID_CH_F32, MPID_CH_F64 };
enum { MPID_CH_MIN, MPID_CH_MAX, MPID_CH_SUM, MPID_CH_PROD, MPID_CH_LOR, MPID_CH_LAND,
       MPID_CH_BOR, MPID_CH_BAND, MPID_CH_LXOR, MPID_CH_BXOR, MPID_CH_WRITE, MPID_CH_READ,
       MPID_CH_OP_CSWAP };
typedef struct mpid_chan_rma {
    int kind;             /* MPID_CH_PUT .. MPID_CH_CSWAP */
    int op, type;         /* atomics: MPID_CH_<op>, MPID_CH_<type> */
    const void *in;       /* PUT, atomics: len bytes of origin data */
    const void *cmp;      /* CSWAP: the compare value (len bytes) */
    void *out;            /* GET, FETCH, CSWAP: len bytes of result */
    size_t len;
    uint64_t addr;        /* target address */
    uint64_t key, base;   /* the target's exposure (mem_expose): key, start */
} mpid_chan_rma;

/* Offloaded collectives: operations over nodes whose forwarding and
 * combining run in the network agents. A tree over nodes has a shape, and
 * MPID_TREE_HOST has one rank per node forward instead of its agent. A
 * communicator is named by its collective context ctx, my rank in it and
 * its members' world ranks world[size]. Each returns 0 or a negative errno
 * and blocks until its part is done, progressing through the device's
 * progress of mpid_chan_info. */
enum { MPID_TREE_BINARY = 1, MPID_TREE_BINOMIAL = 2, MPID_TREE_SHAPE = 0x0f,
       MPID_TREE_HOST = 0x10 };
/* fetch-and-add: set a counter, add to it (the value before back), forget it */
enum { MPID_FADD_INIT = 1, MPID_FADD_ADD = 2, MPID_FADD_FREE = 3 };
typedef struct mpid_chan_coll {
    /* nonzero while the agents run (the same answer on every rank) */
    int    (*up)(void);
    size_t max_ranks;      /* the largest communicator a tree takes */
    /* whether reduce can apply op (src/util/op.h index) to the predefined
     * element type basic on its packed stream */
    int    (*red_ok)(int op, int basic);
    /* nonzero while the agents run but may lose a tree's packets, keeping
     * no copies (CLUMPI_AGENT_REL=host): then only bcast is offered, with
     * `have`, and the caller repairs it end to end */
    int    (*lossy)(void);
    size_t pkt_bytes;      /* a broadcast's bytes per packet (the last may be short) */
    /* broadcast of len contiguous bytes from root; with have (a bit per
     * packet, zeroed, at the ranks but the root) it returns once every
     * packet came or none came for a while, the bits of those that came
     * set, and the number missing */
    int    (*bcast)(void *buf, size_t len, int root, int shape, uint32_t ctx, int rank, int size,
                    const int *world, uint8_t *have);
    /* op over every member's `bytes` of packed elements in `in`, into out at
     * root (all == 0) or at every rank (all != 0); bytes == 0 with all set
     * is a barrier */
    int    (*reduce)(const void *in, void *out, size_t bytes, int op, int basic, int all,
                     int root, int shape, uint32_t ctx, int rank, int size, const int *world);
    /* fetch-and-add (MPID_FADD_*) on counter (owner, id), both world ranks;
     * -ENOENT: no such counter */
    int    (*fadd)(int op, uint32_t owner, uint32_t id, int64_t value, int64_t *old,
                   uint32_t me);
} mpid_chan_coll;

/* Single copy between processes of one host (optional table). read: from
 * a peer's address space (rendezvous); returns the bytes read, or -ENOTSUP
 * / -EPERM when this channel or the kernel does not allow it (the device
 * then falls back to pipelined packets). write: the reverse, into a peer's
 * memory (cooperative rendezvous: the sender copies part of a large
 * message while the receiver reads the rest), used only toward peers read
 * already worked with; NULL: none. */
typedef struct mpid_chan_copy {
    ssize_t (*read)(int src, const struct iovec *local, int nlocal,
                    const struct iovec *remote, int nremote);
    ssize_t (*write)(int dst, const struct iovec *local, int nlocal,
                     const struct iovec *remote, int nremote);
} mpid_chan_copy;

/* Remote memory access across a network (optional table).
 * Message reads: a peer reads only memory its owner exposed for it.
 * expose makes [base, base+len) readable by dest under a fresh,
 * unguessable key (0, or -ENOTSUP and the device pipelines); unexpose ends
 * it (the message is done). read_key reads as mpid_chan_copy's read,
 * remote addresses inside the range the peer exposed at rbase under key.
 * One-sided access to registered memory (NULL members: none; the device
 * then uses active messages): mem_expose registers [base, base+len) for
 * remote reads, writes and atomics under a fresh key (len 0: nothing to
 * register, key 0). post starts one access to peer and returns 0, after
 * which the channel calls mpid_on_rma_done(cookie, status) from its
 * progress once it completed at the target; or a negative errno (nothing
 * started). atomic_ok says whether the channel does (kind, op, type)
 * natively (MPID_CH_ATOMIC..CSWAP). */
typedef struct mpid_chan_net_rma {
    int     (*expose)(int dest, const void *base, size_t len, uint64_t *key, void **handle);
    void    (*unexpose)(void *handle);
    ssize_t (*read_key)(int src, uint64_t key, uint64_t rbase, const struct iovec *local,
                        int nlocal, const struct iovec *remote, int nremote);
    int     (*mem_expose)(void *base, size_t len, uint64_t *key, void **handle);
    void    (*mem_unexpose)(void *handle);
    int     (*post)(int peer, const struct mpid_chan_rma *op, void *cookie);
    int     (*atomic_ok)(int kind, int op, int type);
} mpid_chan_net_rma;

/* Node-level shared memory (optional table; the device's node areas,
 * mpid/node_area.c, and window segments). The memory has no name: make
 * creates `bytes` zeroed, returns its mapping and opens a share whose key
 * (two random words) the maker passes to the other users by job-private
 * messages; serve hands the memory to n users as they fetch it (bounded
 * wait; 0 or -errno) and drop ends the share (after serve, or instead of
 * it); fetch maps `bytes` of the memory behind a key; unmap ends one
 * mapping. make and fetch return NULL on failure. None of them needs the
 * channel started (a job of one rank has node areas too). */
typedef struct mpid_chan_area {
    void *(*make)(size_t bytes, uint64_t key[2], void **share);
    int   (*serve)(void *share, int n);
    void  (*drop)(void *share);
    void *(*fetch)(const uint64_t key[2], size_t bytes);
    void  (*unmap)(void *base, size_t bytes);
} mpid_chan_area;

/* Agent-served one-sided operations (optional table). words: the lock
 * words (MPID_AGENT_WORDS bytes) of window index win of world rank `world`
 * on this node, or NULL (the window is not served). open: my window index
 * win is [base, base+size) and the agent may serve it from now on; close:
 * no longer, its words free again (every epoch is over). post: a request
 * to the target's agent, with payload iov (at most max bytes); -EAGAIN: no
 * room now. Answers come back through mpid_on_agent_rma_answer. */
typedef struct mpid_chan_agent_rma {
    void  *(*words)(int world, uint32_t win);
    void   (*open)(uint32_t win, const void *base, size_t size);
    void   (*close)(uint32_t win);
    int    (*post)(int world, const mpid_chan_agent_op *op, const struct iovec *iov,
                   int iovcnt);
    size_t max;
} mpid_chan_agent_rma;

/* Peers of other jobs (optional table). addr: this process's address on
 * the channel into buf (*len: its capacity in, the address's bytes out).
 * peer_add: slot peer (>= world size) is the process at addr; packets to
 * it carry my_id as their source, the slot the peer gave us (a slot
 * added already only takes the new my_id). peer_del: forget it (its
 * address leaves the channel; the slot may name another process later). */
typedef struct mpid_chan_dyn {
    int  (*addr)(void *buf, size_t *len);
    int  (*peer_add)(int peer, const void *addr, size_t len, int my_id);
    void (*peer_del)(int peer);
} mpid_chan_dyn;

/* A channel: the core every channel implements, then its capabilities,
 * each an optional table (NULL: the channel lacks it, the device takes its
 * fallback). */
typedef struct mpid_channel {
    const char *name;
    size_t max_payload;    /* largest payload of one packet (the eager limit,
                              but see eager_idle_max) */
    /* Optional (0: max_payload). The eager limit while every rank of the
     * host has a core: above it the channel's single-copy rendezvous beats
     * copying through a packet, once the receiver is there to read. */
    size_t eager_idle_max;

    int  (*init)(const mpid_chan_info *info);
    int  (*finalize)(void);
    /* Optional (NULL: none). For a channel that retransmits its packets
     * until its peers acknowledge them: those not yet acknowledged, or -1
     * when this run retransmits nothing. MPI_Finalize progresses until
     * none, then goes on answering the peers' until every rank got there:
     * a rank that left would leave a peer waiting for an ack for good. */
    int  (*unacked)(void);

    /* Send one packet. Returns 0 when the packet is on its way and the
     * header and payload may be reused, -EAGAIN when the destination has no
     * room now (the device retries later, keeping order), with
     * MPID_CH_NOBUFS -ENOBUFS when that is because the buffers for a large
     * payload are out on loan (mpid_on_packet_lent: the device sends a
     * rendezvous instead, which needs none), another negative errno on
     * failure. */
    int  (*send)(int dest, const void *hdr, size_t hdrlen,
                 const struct iovec *iov, int iovcnt, unsigned flags);

    /* Optional (NULL: none). As send, but a DMA-like channel may still read
     * the payload (never the header) after it returns: then it returns 1
     * and calls mpid_on_send_done(cookie, status) from its progress once it
     * no longer needs the payload; 0 when the payload is free already. */
    int  (*send_later)(int dest, const void *hdr, size_t hdrlen,
                       const struct iovec *iov, int iovcnt, void *cookie);

    /* Deliver up to budget arrived packets through mpid_on_packet().
     * Returns the number delivered. */
    int  (*progress)(int budget);
    /* Optional (NULL: the channel never lends). A payload the device kept
     * from mpid_on_packet_lent is done with: the channel may reuse it. */
    void (*give_back)(int src, const void *payload);
    /* Optional (NULL: call progress on every pass): a word that is nonzero
     * while progress has packets to deliver, for a channel whose packets
     * only its own process makes. */
    const int *pending;

    /* Idle support. arm_sleep() announces that this rank will block; it
     * returns nonzero if packets arrived meanwhile (then do not block).
     * sleep(timeout_us) blocks until a peer's send wakes us or the timeout;
     * disarm_sleep() ends the announcement. NULL if the channel cannot block. */
    int  (*arm_sleep)(void);
    void (*sleep)(long timeout_us);
    void (*disarm_sleep)(void);

    /* An fd that becomes readable when a packet for us arrives while armed
     * (between arm_sleep and disarm_sleep), so that a rank idle on several
     * channels can poll() all of them at once instead of calling sleep().
     * Returns -1 when the channel has none. NULL: none either. */
    int  (*wait_fd)(void);

    /* The longest the rank may block (us; <= timeout_us, which < 0 means
     * no limit) before the channel's own timers are due: retransmissions
     * and acks taken in the rank's progress. Applies whichever way the
     * rank blocks (sleep() or a poll of the wait fds). NULL: no timers. */
    long (*sleep_bound)(long timeout_us);

    /* wake(dest): a local peer that may be blocked in sleep() wakes up (it
     * waits on a store into a node area, which wakes nobody by itself); a
     * no-op when it is awake. dest may be this rank: another thread wakes
     * the one blocked in sleep(). NULL: none. */
    void (*wake)(int dest);

    const mpid_chan_copy      *copy;       /* single copy on one host */
    const mpid_chan_net_rma   *net_rma;    /* remote memory across a network */
    const mpid_chan_area      *area;       /* node-level shared memory */
    const mpid_chan_agent_rma *agent_rma;  /* one-sided served by the NI agent */
    const mpid_chan_dyn       *dyn;        /* peers of other jobs */
    const mpid_chan_coll      *coll;       /* offloaded collectives */
} mpid_channel;

/* Upcall into the device, called by channels from progress for each packet. */
void mpid_on_packet(int src, const void *hdr, size_t hdrlen,
                    const void *payload, size_t len);
/* The same, for a payload the channel can lend: returns 1 when the device
 * keeps it (an unexpected eager message, held where it is instead of
 * copied) and will hand it back through the channel's give_back, 0 when it
 * is free at once. A channel lends only what the sender can do without:
 * its sends report -ENOBUFS rather than wait for payloads out on loan, and
 * the device then sends by rendezvous, so a loan never blocks a send. */
int mpid_on_packet_lent(int src, const void *hdr, size_t hdrlen,
                        const void *payload, size_t len);

/* Upcall for agent-served one-sided operations: an answer (GRANT, ACK or
 * RESP with the fetched data) from the target's agent. */
void mpid_on_agent_rma_answer(const mpid_chan_agent_op *op, const void *payload, size_t len);

/* Upcall for send_later: the payload of that send is free again; status 0,
 * or a negative errno when the channel could not read it. */
void mpid_on_send_done(void *cookie, int status);

/* Upcall for mpid_chan_net_rma's post: the access completed at the target (status 0) or
 * failed (negative errno). */
void mpid_on_rma_done(void *cookie, int status);

/* The channels. */
extern const mpid_channel mpid_channel_self;
extern const mpid_channel mpid_channel_shm;
extern const mpid_channel mpid_channel_ofi;   /* netmod/ofi: other nodes */
extern const mpid_channel mpid_channel_agent; /* netmod/agent: other nodes via the NI agent */

#endif
