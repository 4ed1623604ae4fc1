/*
 * queue.h — the inbound queue of one local rank: many producers (every local
 * peer), one consumer (the owner). After Lumetta, Mainwaring and Culler: no send
 * queues, the sender writes straight into the receiver's queue, one packet per
 * cache line, and the receiver reads only the head packet, so an empty poll is
 * one cache-resident load.
 *
 * Cells carry a lap-stamped sequence word (after Vyukov's bounded queue): the
 * producer with ticket t fills the cell and stores seq = t+1, "ready for
 * ticket t"; any other value (t+1-N from the last lap, or the initial index)
 * reads as not ready, so laps are told apart and there is no ABA. Lumetta
 * et al. took a slot with one CAS on the tail and claimed it with a second;
 * a fetch-add on the tail does both in one atomic and never fails.
 *
 * Freeing: Vyukov's consumer writes seq = t+N into each cell it frees. Here
 * the "free" state travels in the published head instead (cell of ticket t is
 * free once head > t-N), so the consumer never writes a cell: cells move one
 * way only, producer to consumer, and the consumer's next send does not stall
 * on the ownership request for a line it just read (a fifth of the 1-byte
 * latency). The head store is release, after the handler's reads, so a
 * producer that saw the head may overwrite the cell.
 *
 * Packets up to SHM_INLINE_MAX bytes span up to K = SHM_CELL_MAXN consecutive
 * cells, taken with one fetch-add of k tickets: the first cell has the
 * header and the ready stamp (written last), continuation cells keep their
 * own seq word and carry 60 payload bytes after it, so no payload byte ever
 * lands where a later lap looks for a ready stamp.
 *
 * A producer never holds a ticket on a full queue: it takes k <= K tickets
 * only when tail - head < N - K*P, P >= the number of producers. Proof: each
 * producer is between its check and its fetch-add at most once at a time, so
 * tail + K*(producers in that window) <= head + N is invariant, and every
 * ticket taken lands on a cell the consumer has already freed. Producers
 * compare against a cached copy of head (never newer than the real one, so the
 * check stays safe) and re-read the shared head only when the copy says full:
 * the head line stays in the consumer's cache.
 *
 * Sleep: bit 0 of the tail word says "the consumer is about to block". The
 * consumer sets it with fetch-or and blocks only if no ticket is outstanding;
 * a producer's fetch-add returns the bit, so it learns for free whether to
 * wake the consumer — the fast path needs no extra fence.
 *
 * Self-contained (no library headers) so test/unit/test_queue.c can drive it
 * on a plain shared mapping. It lives in src/util because two channels use
 * it: shmmod for the ranks' inbound queues and netmod/agent for the
 * rank<->agent command and completion queues (channels never include each
 * other). The shm_ prefix names the shared-memory queue, not the channel.
 */
#ifndef SHM_QUEUE_H
#define SHM_QUEUE_H

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#define SHM_CACHELINE 64
#define SHM_CELL_DATA 56          /* header + inline payload bytes, first cell */
#define SHM_CONT_DATA 60          /* payload bytes of a continuation cell */
#define SHM_CELL_MAXN 4           /* cells one inline packet may span */
#define SHM_INLINE_MAX (SHM_CELL_DATA + (SHM_CELL_MAXN - 1) * SHM_CONT_DATA)  /* 236 */
#define SHM_CELL_BULK 0xff        /* ilen value: payload is in a bulk fragment */

typedef struct shm_cell {
    _Atomic uint32_t seq;         /* lap stamp (low 32 bits of the ticket) */
    uint16_t src;                 /* sender's local rank */
    uint8_t  hdrlen;
    uint8_t  ilen;                /* inline payload bytes, or SHM_CELL_BULK */
    unsigned char data[SHM_CELL_DATA];  /* header, then payload or bulk ref */
} __attribute__((aligned(SHM_CACHELINE))) shm_cell;

_Static_assert(sizeof(shm_cell) == SHM_CACHELINE, "one packet per cache line");

/* A bulk reference sits at a fixed place at the end of the cell data. */
typedef struct shm_bulk_ref { uint32_t len; uint32_t frag; } shm_bulk_ref;
#define SHM_BULK_REF_OFF (SHM_CELL_DATA - sizeof(shm_bulk_ref))

typedef struct shm_queue {
    /* read-only after init: stays shared in every cache */
    _Alignas(SHM_CACHELINE) uint64_t mask;   /* ncells - 1 */
    uint64_t limit;                          /* ncells - K * producers */
    /* written by producers (fetch-add): (ticket << 1) | sleeping */
    _Alignas(SHM_CACHELINE) _Atomic uint64_t tail;
    /* written by the consumer after each free */
    _Alignas(SHM_CACHELINE) _Atomic uint64_t head;
    _Alignas(SHM_CACHELINE) shm_cell cells[];
} shm_queue;

static inline size_t shm_q_bytes(uint32_t ncells)
{
    return sizeof(shm_queue) + (size_t)ncells * sizeof(shm_cell);
}

/* ncells a power of two, producers * SHM_CELL_MAXN < ncells. */
static inline int shm_q_init(shm_queue *q, uint32_t ncells, uint32_t producers)
{
    if (ncells < 2 || (ncells & (ncells - 1)) || producers == 0 ||
        (uint64_t)producers * SHM_CELL_MAXN >= ncells)
        return -EINVAL;
    q->mask = ncells - 1;
    q->limit = ncells - (uint64_t)producers * SHM_CELL_MAXN;
    atomic_init(&q->tail, 0);
    atomic_init(&q->head, 0);
    for (uint32_t i = 0; i < ncells; i++)
        atomic_init(&q->cells[i].seq, i);
    return 0;
}

static inline void shm_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* ---- producer side: HOT PATH (every send) ------------------------------ */

/* Cells for a packet of this many header + payload bytes (<= SHM_INLINE_MAX). */
static inline uint32_t shm_cells_for(size_t bytes)
{
    return bytes <= SHM_CELL_DATA ? 1 : 1 + (uint32_t)((bytes - SHM_CELL_DATA + SHM_CONT_DATA - 1) / SHM_CONT_DATA);
}

/* Room for one more packet? Uses and refreshes the producer's cached head. */
static inline int shm_q_room(shm_queue *q, uint64_t *head_cache)
{
    uint64_t t = atomic_load_explicit(&q->tail, memory_order_relaxed) >> 1;
    if (__builtin_expect(t - *head_cache < q->limit, 1))
        return 1;
    /* head before tail: a head older than the tail we compare with only
     * makes the check stricter */
    *head_cache = atomic_load_explicit(&q->head, memory_order_acquire);
    t = atomic_load_explicit(&q->tail, memory_order_relaxed) >> 1;
    return t - *head_cache < q->limit;
}

/* Take k consecutive tickets (k <= SHM_CELL_MAXN) and return the first cell,
 * or NULL when full (no ticket taken then). *wake is set when the consumer
 * announced it will sleep. */
static inline shm_cell *shm_q_claim(shm_queue *q, uint64_t *head_cache, uint32_t k,
                                    uint64_t *ticket, int *wake)
{
    if (!shm_q_room(q, head_cache))
        return NULL;
    uint64_t old = atomic_fetch_add_explicit(&q->tail, 2 * (uint64_t)k, memory_order_acq_rel);
    uint64_t t = old >> 1;
    /* free by the room check (the head we compared with was loaded with
     * acquire, after the consumer's reads): write without reading first, so
     * the line comes over once, already owned */
    shm_cell *c = &q->cells[t & q->mask];
    *ticket = t;
    *wake = (int)(old & 1);
    return c;
}

static inline void shm_q_publish(shm_cell *c, uint64_t ticket)
{
    atomic_store_explicit(&c->seq, (uint32_t)(ticket + 1), memory_order_release);
}

/* Copy header and a gather list into the k = shm_cells_for(hdrlen + len)
 * cells of ticket t (caller checked it fits). */
static inline void shm_cell_fill(shm_queue *q, uint64_t t, uint16_t src, const void *hdr,
                                 size_t hdrlen, const struct iovec *iov,
                                 int iovcnt, size_t len)
{
    shm_cell *c = &q->cells[t & q->mask];
    c->src = src;
    c->hdrlen = (uint8_t)hdrlen;
    c->ilen = (uint8_t)len;
    memcpy(c->data, hdr, hdrlen);
    unsigned char *d = c->data + hdrlen;
    if (__builtin_expect(hdrlen + len <= SHM_CELL_DATA, 1)) {
        for (int i = 0; i < iovcnt; i++) {
            memcpy(d, iov[i].iov_base, iov[i].iov_len);
            d += iov[i].iov_len;
        }
        return;
    }
    size_t room = SHM_CELL_DATA - hdrlen;
    for (int i = 0; i < iovcnt; i++) {
        const unsigned char *p = iov[i].iov_base;
        size_t n = iov[i].iov_len;
        while (n) {
            if (room == 0) {
                shm_cell *cc = &q->cells[++t & q->mask];
                /* a stamp of its own ticket: never a later lap's ready value */
                atomic_store_explicit(&cc->seq, (uint32_t)(t + 1), memory_order_relaxed);
                d = (unsigned char *)cc + sizeof(uint32_t);
                room = SHM_CONT_DATA;
            }
            size_t m = n < room ? n : room;
            memcpy(d, p, m);
            d += m, p += m, n -= m, room -= m;
        }
    }
}

/* One inline packet: 0, -EAGAIN (full), -EMSGSIZE (too big for the cells). */
static inline int shm_q_send_inline(shm_queue *q, uint64_t *head_cache,
                                    uint16_t src, const void *hdr, size_t hdrlen,
                                    const struct iovec *iov, int iovcnt, int *wake)
{
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (hdrlen + len > SHM_INLINE_MAX || hdrlen > SHM_CELL_DATA)
        return -EMSGSIZE;
    uint64_t t;
    shm_cell *c = shm_q_claim(q, head_cache, shm_cells_for(hdrlen + len), &t, wake);
    if (!c)
        return -EAGAIN;
    shm_cell_fill(q, t, src, hdr, hdrlen, iov, iovcnt, len);
    shm_q_publish(c, t);
    return 0;
}

/* ---- consumer side: HOT PATH (every poll) ------------------------------ */

/* The head cell if it is ready, else NULL. head is the consumer's own copy. */
static inline shm_cell *shm_q_peek(shm_queue *q, uint64_t head)
{
    shm_cell *c = &q->cells[head & q->mask];
    if (atomic_load_explicit(&c->seq, memory_order_acquire) == (uint32_t)(head + 1))
        return c;
    return NULL;
}

/* Cells taken by an inline packet whose first cell is c. */
static inline uint32_t shm_cell_count(const shm_cell *c)
{
    return c->ilen == SHM_CELL_BULK ? 1 : shm_cells_for((size_t)c->hdrlen + c->ilen);
}

/* Copy the payload of a multi-cell packet (first cell c, at head) into buf
 * (SHM_INLINE_MAX bytes): continuation cells have holes for their seq. */
static inline void shm_q_gather(shm_queue *q, uint64_t head, const shm_cell *c,
                                unsigned char *buf)
{
    size_t len = c->ilen, m = SHM_CELL_DATA - c->hdrlen;
    memcpy(buf, c->data + c->hdrlen, m);
    for (size_t off = m; off < len; off += m) {
        const shm_cell *cc = &q->cells[++head & q->mask];
        m = len - off < SHM_CONT_DATA ? len - off : SHM_CONT_DATA;
        memcpy(buf + off, (const unsigned char *)cc + sizeof(uint32_t), m);
    }
}

/* Done with the packet at head: publish the new head, which frees its cells
 * for the next lap (release: after the handler's reads of the cells). */
static inline void shm_q_free(shm_queue *q, shm_cell *c, uint64_t *head)
{
    *head += shm_cell_count(c);
    atomic_store_explicit(&q->head, *head, memory_order_release);
}

/* ---- consumer sleep announcement --------------------------------------- */

/* Set the sleeping bit; returns nonzero if tickets are outstanding (a packet
 * is ready or being written), in which case the consumer must not block. */
static inline int shm_q_arm(shm_queue *q, uint64_t head)
{
    uint64_t old = atomic_fetch_or_explicit(&q->tail, 1, memory_order_seq_cst);
    return (old >> 1) != head;
}

static inline void shm_q_disarm(shm_queue *q)
{
    atomic_fetch_and_explicit(&q->tail, ~(uint64_t)1, memory_order_relaxed);
}

/* Tickets taken but not yet consumed (for idle checks, not the fast path). */
static inline int shm_q_pending(shm_queue *q, uint64_t head)
{
    return (atomic_load_explicit(&q->tail, memory_order_acquire) >> 1) != head;
}

#endif
