/*
 * agent_ring.h — the node's rank<->agent segment, shared by the rank side
 * (agent_chan.c) and the agent (agent_main.c). After Verstoep et al. §4.1: the
 * host posts send descriptors to the NI and the NI reports completions and
 * received packets back through host memory.
 *
 * Per local rank:
 *   cmd  queue (src/util/queue.h, one producer: the rank, consumer: the agent)
 *        of agt_cmd descriptors: PIO (the packet is already in tx slot k) or
 *        DMA (device header + the rank's buffer addresses; the agent pulls
 *        the payload with process_vm_readv).
 *   tx   slots: the rank's PIO send buffers ("NI SRAM" the host writes):
 *        taken in order by the rank, freed by the agent when sent (out of
 *        order across destinations; the agent publishes the freed prefix).
 *   cq   queue (one producer: the agent, consumer: the rank): received
 *        packets, small ones inline, bigger ones in an rx slot.
 *   rx   slots: filled by the agent in order, freed by the rank in order.
 * Sleeping: queue.h's consumer sleep bit on both queues; the wake-up itself
 * is one byte on the rank's unix socket to the agent (either way). The
 * other two things a sleeper may wait for use the same bit and byte: a
 * rank waiting for its DMA pulls is woken by the agent when dma_done moves
 * while the rank's cq bit is set; an agent waiting for room in a rank's
 * cq/rx slots sets want_room, and the rank rings once it freed some.
 */
#ifndef AGT_RING_H
#define AGT_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "src/util/queue.h"

#define AGT_MAGIC      0x636c756d70694147ull   /* "clumpiAG" */
#define AGT_MTU_DEF    2048u                   /* Verstoep et al.: 2 KB is the best trade-off */
#define AGT_HDR_MAX    48u                     /* = MPID_HDR_MAX */
#define AGT_ADDR_HEX   256u                    /* hex endpoint name, NUL included */
#define AGT_NAME_MAX   128u

/* Packet kinds on the wire. Phase 2 adds MCAST (forwarded along a
 * (communicator, root) tree from a refcounted slot), RED (partial results
 * up a tree, agent_red.c) and FADD (fetch-and-add requests and replies,
 * agent_fadd.c). */
enum { AGT_K_DATA = 1, AGT_K_ACK = 2, AGT_K_MCAST = 3, AGT_K_RED = 4, AGT_K_FADD = 5,
       AGT_K_TREE = 6, AGT_K_RMA = 7, AGT_K_BULK = 8, AGT_K_NKINDS = 9 };

/* Agent-to-agent header, first in every packet; then the device header,
 * then the payload. */
typedef struct agt_wire {
    uint8_t  kind;
    unsigned hdrlen : 7;  /* <= AGT_HDR_MAX */
    unsigned more : 1;    /* DATA: the message goes on in this rank's next packet */
    uint16_t credits;     /* slots the sender of this packet released for us */
    uint16_t src_node;
    uint16_t len;         /* payload bytes */
    uint32_t src;         /* world rank (MCAST: tree id) */
    uint32_t dst;         /* world rank */
} agt_wire;

#define AGT_PKT_OVERHEAD (sizeof(agt_wire) + AGT_HDR_MAX)
/* Largest device payload: the default MTU's packet. A larger MTU only wastes
 * slot space; a smaller one is refused at start (the device's packet size
 * is fixed when the library is built). */
#define AGT_MAX_PAYLOAD (AGT_MTU_DEF - AGT_PKT_OVERHEAD)
/* Largest device packet (the channel's max_payload: eager limit and
 * rendezvous chunk): a DATA message of up to AGT_FRAG_MAX packets, sent
 * back to back and put together again by the receiving rank (packets of
 * one rank to one rank stay in order all the way). One packet per message
 * made 2-16 KiB messages go rendezvous, a round trip more through two
 * agents, and rendezvous move 2 KiB per device packet. */
#define AGT_FRAG_MAX 16
#define AGT_MSG_MAX (AGT_FRAG_MAX * AGT_MAX_PAYLOAD)
/* Payload of one DATA packet of such a message: what a slot of this run's
 * MTU holds (CLUMPI_AGENT_MTU), so a larger MTU means fewer packets. */
static inline size_t agt_frag_payload(uint32_t mtu)
{
    size_t p = mtu - AGT_PKT_OVERHEAD;
    return p > UINT16_MAX ? UINT16_MAX : p;   /* agt_wire.len */
}
/* Packets of the largest DATA message at this MTU (AGT_FRAG_MAX at the
 * default one, fewer at a larger one). */
static inline uint32_t agt_frag_count(uint32_t mtu)
{
    size_t p = agt_frag_payload(mtu);
    return (uint32_t)((AGT_MSG_MAX + p - 1) / p);
}

/* Multicast (Verstoep et al. §4.2): a MCAST packet's device header is this, its
 * wire dst the root's world rank. A tree is named by (ctx, root, shape,
 * members), so a communicator id reused for other members is a new tree. */
/* AGT_TREE_HOST (host-packet, Verstoep et al.'s l-sdma-hmc): the agents only
 * deliver; one rank per node forwards each packet to its children's agents
 * (to_node), in its own progress. */
enum { AGT_TREE_BINARY = 1, AGT_TREE_BINOMIAL = 2, AGT_TREE_SHAPE = 0x0f, AGT_TREE_HOST = 0x10 };
typedef struct agt_mc_hdr {
    uint32_t ctx, root, hash;   /* communicator context, root's comm rank, members' hash */
    uint32_t seq;               /* the tree's broadcast number */
    uint32_t off, total;        /* this packet's bytes within the message */
    uint8_t  shape, pad;
    uint16_t to_node;           /* from a rank: send to node to_node - 1 only; 0: multicast */
} agt_mc_hdr;
/* AGT_CMD_TREE's body, in the rank's tx slot: the key, then the members'
 * world ranks in communicator order. */
typedef struct agt_tree_cmd {
    agt_mc_hdr key;
    uint32_t   n;
    uint32_t   world[];
} agt_tree_cmd;
/* It also travels as a TREE packet (agent to agent): one MTU holds both. */
#define AGT_TREE_MAX ((AGT_MTU_DEF - sizeof(agt_wire) - sizeof(agt_tree_cmd)) / sizeof(uint32_t))
/* agt_rx.pad: what kind of packet a cq entry holds */
enum { AGT_RXK_DATA = 0, AGT_RXK_MCAST = 1, AGT_RXK_FADD = 2, AGT_RXK_RMA = 3 };

/* Command descriptors (the "send descriptors" of Verstoep et al.). PIO packets
 * of kind MCAST start a multicast at the root's agent; TREE installs a
 * forwarding table (tx slot = its agt_tree_cmd). */
enum { AGT_CMD_PIO = 1, AGT_CMD_DMA = 2, AGT_CMD_TREE = 3 };
#define AGT_DMA_IOV 8
/* DMA commands a rank may have posted and not yet seen pulled (each an
 * asynchronous send until then, Verstoep et al.: the NI "completes later") */
#define AGT_DMA_MAX 64
typedef struct agt_cmd {
    uint8_t  op;
    uint8_t  hdrlen;      /* DMA: device header bytes after the command */
    uint8_t  niov;        /* DMA: iovec pairs after the header */
    uint8_t  pad;
    uint32_t slot;        /* PIO: (first) tx slot; DMA: unused */
    uint32_t dst;         /* DMA: world rank */
    uint32_t len;         /* DMA: payload bytes; PIO: DATA packets in consecutive slots (0: 1) */
} agt_cmd;

/* Header of a cq entry (then the device header, then inline payload). */
#define AGT_RX_INLINE 0xffffu
typedef struct agt_rx {
    uint32_t src;
    uint16_t len;
    unsigned hdrlen : 7;
    unsigned more : 1;    /* as agt_wire's */
    uint8_t  pad;         /* AGT_RXK_* */
    uint32_t slot;        /* rx slot, or AGT_RX_INLINE */
} agt_rx;
_Static_assert(sizeof(agt_wire) == 16 && sizeof(agt_rx) == 12, "agent ring layout");
#define AGT_CQ_INLINE_MAX (SHM_INLINE_MAX - sizeof(agt_rx) - AGT_HDR_MAX)

/* The bulk path (agent_bulk.c, agent_bulk_rank.c): rendezvous reads of
 * large messages in chunks, not slots. A rank exposes its send buffer in
 * its table (expo, key = random bits above the entry's index); the
 * receiving rank posts a REQ (BULK packet from a tx slot: this header,
 * then nseg (address, length) pairs of the sender's memory) that its agent
 * forwards with a first grant of chunks; the sending agent checks the key,
 * pulls each granted chunk with process_vm_readv into a bounce buffer and
 * sends it as one message on its bulk endpoint (agt_bulk_chunk first)
 * into a landing buffer of the receiving node (in this segment); the
 * receiving agent hands the landing buffer to the rank through its land
 * ring, the rank copies the chunk out and takes it, and the agent grants
 * the next chunk (GRANT). */
#define AGT_BULK_EXPOSE 64u   /* exposures a rank holds at once; more go through CTS */
#define AGT_BULK_RING   16u   /* landed chunks a rank may hold (>= the per-read window) */
#define AGT_BULK_SEGS   64u   /* the sender's segments per REQ (the device reads 64 at once) */
#define AGT_BULK_HDR    64u   /* landing/bounce buffer: chunk header, then the data */
/* Over datagrams (CLUMPI_AGENT_TRANSPORT=dgram) agent_rel's header sits at
 * this offset of AGT_BULK_HDR, and a chunk with its header is one UDP
 * datagram (65507 bytes at most). */
#define AGT_BULK_REL_OFF 32u
#define AGT_BULK_DGRAM_MAX 61440L
enum { AGT_BULK_REQ = 1, AGT_BULK_GRANT = 2 };
typedef struct agt_bulk_hdr {   /* BULK packet's device header */
    uint8_t  op, pad[3];
    uint32_t id;        /* the reading rank's read number */
    uint32_t grant;     /* chunks the sender may send now (more) */
    uint32_t nseg;      /* REQ: pairs in the payload */
    uint32_t chunk;     /* REQ: the reader's chunk size (the owner's must match) */
    uint32_t pad2;
    uint64_t key, total;
} agt_bulk_hdr;
_Static_assert(sizeof(agt_bulk_hdr) <= AGT_HDR_MAX &&
                   16 + sizeof(agt_bulk_hdr) + 16 * AGT_BULK_SEGS <= AGT_MTU_DEF,
               "a REQ is one packet");
typedef struct agt_bulk_chunk {   /* first in every bulk message */
    uint32_t reader, id;  /* the reading rank (world), its read number */
    int32_t  err;         /* nonzero: the read failed here (len 0, the last chunk) */
    uint32_t len;
    uint64_t off;         /* within the read */
} agt_bulk_chunk;
/* key 0: free. The owner writes base and len, then the key (release); the
 * agent reads the key, base, len, and the key again (a seqlock: keys are
 * never reused). */
typedef struct agt_bulk_expo { _Atomic uint64_t key, base, len; } agt_bulk_expo;
typedef struct agt_bulk_land { uint32_t buf; int32_t err; uint32_t len, pad; uint64_t off; } agt_bulk_land;

enum { AGT_ST_INIT = 0, AGT_ST_READY = 1, AGT_ST_ADDRS = 2, AGT_ST_QUIESCE = 3,
       AGT_ST_QUIT = 4, AGT_ST_FAILED = 5 };

typedef struct agt_rank_blk {
    _Alignas(SHM_CACHELINE) int32_t pid;            /* for process_vm_readv */
    uint32_t world_rank;
    _Alignas(SHM_CACHELINE) _Atomic uint64_t tx_freed;   /* agent -> rank */
    _Alignas(SHM_CACHELINE) _Atomic uint64_t rx_freed;   /* rank -> agent */
    _Alignas(SHM_CACHELINE) _Atomic uint64_t dma_done;   /* agent -> rank: DMA commands pulled */
    _Atomic int32_t dma_err[AGT_DMA_MAX];   /* pull n's result (0 or -errno) at n % AGT_DMA_MAX */
    /* agent -> rank: deliveries wait for room in this rank's cq / rx slots
     * and the agent is about to block: ring the doorbell after freeing some */
    _Alignas(SHM_CACHELINE) _Atomic uint32_t want_room;
    /* bulk path: chunks landed for this rank (agent -> rank, land[n %
     * AGT_BULK_RING]), taken by it (rank -> agent), its exposures */
    _Alignas(SHM_CACHELINE) _Atomic uint64_t bulk_posted;
    agt_bulk_land land[AGT_BULK_RING];
    _Alignas(SHM_CACHELINE) _Atomic uint64_t bulk_taken;
    _Alignas(SHM_CACHELINE) agt_bulk_expo expo[AGT_BULK_EXPOSE];
} agt_rank_blk;

typedef struct agt_seg_hdr {
    uint64_t magic, size;
    uint32_t nlocal, nnodes, node, mtu;
    uint32_t ncmd, ncq, ntx, nrx, nworld;   /* ncmd, ncq: 32-byte queue units */
    uint32_t nbulk, bulk_chunk;   /* landing buffers of the node, data bytes each */
    uint64_t bulk_off, bulk_addr_off;
    uint64_t nodes_off, rank_off, rank_stride, cmd_off, cq_off, tx_off, rx_off, addr_off;
    uint64_t rma_off;             /* per rank: AGT_RMA_WINS one-sided lines (agent_rma.c) */
    _Atomic uint32_t state;
    _Atomic int32_t agent_pid;
    char my_addr[AGT_ADDR_HEX];   /* the agent's endpoint, hex */
    char my_bulk_addr[AGT_ADDR_HEX];   /* its bulk endpoint (agent_bulk.c), hex */
    char sock[AGT_NAME_MAX];      /* abstract unix socket name */
} agt_seg_hdr;

typedef struct agt_layout {
    uint32_t nlocal, nnodes, mtu, ncmd, ncq, ntx, nrx, nworld;
    uint32_t nbulk, bulk_chunk;
} agt_layout;

/* agent_ring.c */
size_t agt_seg_layout(agt_seg_hdr *h, const agt_layout *l);  /* fills offsets, returns size */
/* create: the mapping, with its memfd in *fd; attach maps fd and closes it */
void  *agt_seg_create(const agt_layout *l, int *fd, int *err);
void  *agt_seg_attach(int fd, size_t *size, int *err);

static inline agt_rank_blk *agt_rank(agt_seg_hdr *h, int li)
{
    return (agt_rank_blk *)((char *)h + h->rank_off + (size_t)li * h->rank_stride);
}
static inline shm_queue *agt_cmdq(agt_seg_hdr *h, int li)
{
    return (shm_queue *)((char *)agt_rank(h, li) + h->cmd_off);
}
static inline shm_queue *agt_cq(agt_seg_hdr *h, int li)
{
    return (shm_queue *)((char *)agt_rank(h, li) + h->cq_off);
}
static inline char *agt_txslot(agt_seg_hdr *h, int li, uint32_t k)
{
    return (char *)agt_rank(h, li) + h->tx_off + (size_t)k * h->mtu;
}
static inline char *agt_rxslot(agt_seg_hdr *h, int li, uint32_t k)
{
    return (char *)agt_rank(h, li) + h->rx_off + (size_t)k * h->mtu;
}
/* Windows of one rank the agent can serve (device window index below
 * this), each one cache line of lock words (agent_rma.h's agt_rma_line). */
#define AGT_RMA_WINS 64u
static inline void *agt_rma_lines(agt_seg_hdr *h, int li)
{
    return (char *)agt_rank(h, li) + h->rma_off;
}
static inline uint32_t *agt_nodes(agt_seg_hdr *h)   /* world rank -> node */
{
    return (uint32_t *)((char *)h + h->nodes_off);
}
static inline char *agt_addr(agt_seg_hdr *h, int node)
{
    return (char *)h + h->addr_off + (size_t)node * AGT_ADDR_HEX;
}
static inline char *agt_bulk_addr(agt_seg_hdr *h, int node)   /* the bulk endpoint's */
{
    return (char *)h + h->bulk_addr_off + (size_t)node * AGT_ADDR_HEX;
}
static inline char *agt_landing(agt_seg_hdr *h, uint32_t j)   /* landing buffer j */
{
    return (char *)h + h->bulk_off + (size_t)j * (AGT_BULK_HDR + h->bulk_chunk);
}

#endif
