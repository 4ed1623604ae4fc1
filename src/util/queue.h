/*
 * queue.h — the inbound queue of one local rank: many producers (every local
 * peer), one consumer (the owner). After Lumetta, Mainwaring and Culler: no send
 * queues, the sender writes straight into the receiver's queue, and the
 * receiver reads only the head packet, so an empty poll is one cache-resident
 * load. Where Lumetta et al. give each packet a cache line, the ticket unit
 * here is half a line (32 bytes), as Open MPI's vader fast boxes round packets
 * to 32 bytes: a packet of 8 + header + payload <= 32 bytes (an 8-byte
 * message: 8 + 16 + 8) takes one unit, two such packets share a line, and a
 * stream of small messages moves half the lines.
 *
 * The format, a ring of N units (N a power of two), two to a 64-byte line:
 *
 *   first unit   | seq 4 | src 2 | hdrlen 1 | ilen 1 | data 24               |
 *   continuation | seq 4 | data 28                                           |
 *
 * A packet's bytes are its header (hdrlen) then its inline payload (ilen):
 * 24 in the first unit, 28 in each continuation unit, so up to
 * SHM_UNIT_MAXN = 9 units carry SHM_INLINE_MAX = 236 bytes (24 + 8 x 28 =
 * 248 fit). A header may cross into continuation units (the device's are up
 * to 48 bytes): the consumer then copies header and payload out together
 * (shm_q_gather). A bulk packet (ilen == SHM_UNIT_BULK) carries its header
 * then an 8-byte shm_bulk_ref the same way. Units of one packet are consecutive tickets, not
 * consecutive memory: at the ring's end they wrap to unit 0.
 *
 * Units carry a lap-stamped sequence word (after Vyukov's bounded queue): the
 * producer with ticket t fills the unit and stores seq = t+1, "ready for
 * ticket t"; any other value (t+1-N from the last lap, or the initial index)
 * reads as not ready, so laps are told apart and there is no ABA. Lumetta
 * et al. took a slot with one CAS on the tail and claimed it with a second;
 * one atomic on the tail does both (for most packets a fetch-add, which never
 * fails).
 *
 * Freeing: Vyukov's consumer writes seq = t+N into each unit it frees. Here
 * the "free" state travels in the published head instead (unit of ticket t is
 * free once head > t-N), so the consumer never writes a unit: units move one
 * way only, producer to consumer, and the consumer's next send does not stall
 * on the ownership request for a line it just read (a fifth of the 1-byte
 * latency). The head store is release, after the handler's reads, so a
 * producer that saw the head may overwrite the unit.
 *
 * A packet of k units takes k consecutive tickets in one atomic: the first
 * unit has src, lengths and the ready stamp (written last); continuation
 * units keep their own seq word, stamped with their own ticket (relaxed,
 * before the first unit's release), so no packet byte ever lands where a
 * later lap looks for a ready stamp, and no seq word grows older than a lap.
 * A one-unit packet takes its ticket with a fetch-add. A longer one has its
 * lines to itself, so a packet of up to 52 bytes is read and written as one
 * line as with whole-line cells, and its producer never writes into a line
 * the consumer is reading: it takes its tickets with a compare-and-swap that
 * sees the next ticket's parity, and takes one more at either end that would
 * fall in a line's middle, stamped a skip, which the consumer steps over.
 *
 * A producer never holds a ticket on a full queue: it takes k <= K tickets
 * (K = SHM_CLAIM_MAX, the longest packet and its skips) only when
 * tail - head < N - K*P, P >= the number of producers. Proof: each producer
 * is between its check and its atomic at most once at a time, so
 * tail + K*(producers in that window) <= head + N is invariant, and every
 * ticket taken lands on a unit the consumer has already freed. Producers
 * compare against a cached copy of head (never newer than the real one, so
 * the check stays safe) and re-read the shared head only when the copy says
 * full. A consumer that falls behind keeps the ring full, and the producer
 * then re-reads head before every packet: published after every packet,
 * the head line would cross between the cores twice a message. So the
 * consumer publishes once per batch it drains (shm_q_consume, then one
 * shm_q_release), and a producer finds room for a batch at each look.
 *
 * Sleep: bit 0 of the tail word says "the consumer is about to block". The
 * consumer sets it with fetch-or and blocks only if no ticket is outstanding;
 * a producer's atomic on the tail returns the bit, so it learns for free
 * whether to wake the consumer — the fast path needs no extra fence.
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
#define SHM_UNIT 32               /* bytes of a ticket unit: two per line */
#define SHM_UNIT_DATA 24          /* header + payload bytes, first unit */
#define SHM_CONT_DATA 28          /* packet bytes of a continuation unit */
#define SHM_UNIT_MAXN 9           /* units one packet may span */
#define SHM_INLINE_MAX 236        /* header + inline payload bytes */
#define SHM_UNIT_BULK 0xff        /* ilen value: payload is in a bulk fragment */
#define SHM_UNIT_SKIP 0xfe        /* ilen value: no packet, the consumer steps over */
#define SHM_CLAIM_MAX (SHM_UNIT_MAXN + 2)  /* tickets of one claim: units + skips */

_Static_assert(SHM_INLINE_MAX <= SHM_UNIT_DATA + (SHM_UNIT_MAXN - 1) * SHM_CONT_DATA &&
                   SHM_INLINE_MAX < SHM_UNIT_SKIP,
               "an inline packet fits its units and its ilen");

typedef struct shm_unit {
    _Atomic uint32_t seq;         /* lap stamp (low 32 bits of the ticket) */
    uint16_t src;                 /* sender's local rank (first unit) */
    uint8_t  hdrlen;
    uint8_t  ilen;                /* inline payload bytes, or SHM_UNIT_BULK */
    unsigned char data[SHM_UNIT_DATA];  /* header, then payload or bulk ref */
} __attribute__((aligned(SHM_UNIT))) shm_unit;

_Static_assert(sizeof(shm_unit) == SHM_UNIT && 2 * SHM_UNIT == SHM_CACHELINE,
               "two units per cache line");

/* A bulk packet's bytes after its header: its fragment. */
typedef struct shm_bulk_ref { uint32_t len; uint32_t frag; } shm_bulk_ref;

typedef struct shm_queue {
    /* read-only after init: stays shared in every cache */
    _Alignas(SHM_CACHELINE) uint64_t mask;   /* nunits - 1 */
    uint64_t limit;                          /* nunits - SHM_CLAIM_MAX * producers */
    /* written by producers (fetch-add or CAS): (ticket << 1) | sleeping */
    _Alignas(SHM_CACHELINE) _Atomic uint64_t tail;
    /* written by the consumer after each free */
    _Alignas(SHM_CACHELINE) _Atomic uint64_t head;
    _Alignas(SHM_CACHELINE) shm_unit units[];
} shm_queue;

static inline size_t shm_q_bytes(uint32_t nunits)
{
    return sizeof(shm_queue) + (size_t)nunits * sizeof(shm_unit);
}

/* nunits a power of two, producers * SHM_CLAIM_MAX < nunits. */
static inline int shm_q_init(shm_queue *q, uint32_t nunits, uint32_t producers)
{
    if (nunits < 2 || (nunits & (nunits - 1)) || producers == 0 ||
        (uint64_t)producers * SHM_CLAIM_MAX >= nunits)
        return -EINVAL;
    q->mask = nunits - 1;
    q->limit = nunits - (uint64_t)producers * SHM_CLAIM_MAX;
    atomic_init(&q->tail, 0);
    atomic_init(&q->head, 0);
    for (uint32_t i = 0; i < nunits; i++)
        atomic_init(&q->units[i].seq, i);
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

/* Units for a packet of this many header + payload bytes (<= SHM_INLINE_MAX). */
static inline uint32_t shm_units_for(size_t bytes)
{
    if (bytes <= SHM_UNIT_DATA)
        return 1;
    return 1 + (uint32_t)((bytes - SHM_UNIT_DATA + SHM_CONT_DATA - 1) / SHM_CONT_DATA);
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

/* Mark the unit of ticket t, taken by a claim, as no packet. */
static inline void shm_q_skip(shm_queue *q, uint64_t t)
{
    shm_unit *u = &q->units[t & q->mask];
    u->ilen = SHM_UNIT_SKIP;
    atomic_store_explicit(&u->seq, (uint32_t)(t + 1), memory_order_release);
}

/* The tickets of a packet of k > 1 units (shm_q_claim): the parity of the
 * next ticket decides the claim, so a compare-and-swap takes them. Out of
 * line, so the one-unit claim stays small enough to inline. */
static __attribute__((noinline)) uint64_t shm_q_claim_lines(shm_queue *q, uint64_t *head_cache,
                                                            uint32_t k, uint64_t *ticket)
{
    uint64_t old = atomic_load_explicit(&q->tail, memory_order_relaxed), t;
    for (;;) {
        t = old >> 1;
        if (t - *head_cache >= q->limit) {
            if (!shm_q_room(q, head_cache))
                return UINT64_MAX;
            old = atomic_load_explicit(&q->tail, memory_order_relaxed);
            continue;
        }
        uint64_t n = k + (t & 1);
        n += (t + n) & 1;
        if (atomic_compare_exchange_weak_explicit(&q->tail, &old, old + 2 * n,
                                                  memory_order_acq_rel, memory_order_relaxed))
            break;
    }
    if (t & 1)
        shm_q_skip(q, t++);
    if ((t + k) & 1)
        shm_q_skip(q, t + k);
    *ticket = t;
    return old;
}

/* Take k consecutive tickets (k <= SHM_UNIT_MAXN) and return the first unit,
 * or NULL when full (no ticket taken then). *wake is set when the consumer
 * announced it will sleep. A packet of more than one unit has its lines to
 * itself: where it would start or end in a line's middle it takes one more
 * ticket there and marks that unit a skip. */
static inline shm_unit *shm_q_claim(shm_queue *q, uint64_t *head_cache, uint32_t k,
                                    uint64_t *ticket, int *wake)
{
    if (!shm_q_room(q, head_cache))
        return NULL;
    uint64_t old;
    if (__builtin_expect(k == 1, 1)) {
        old = atomic_fetch_add_explicit(&q->tail, 2, memory_order_acq_rel);
        *ticket = old >> 1;
    } else if ((old = shm_q_claim_lines(q, head_cache, k, ticket)) == UINT64_MAX) {
        return NULL;
    }
    /* free by the room check (the head we compared with was loaded with
     * acquire, after the consumer's reads): write without reading first, so
     * the line comes over once, already owned */
    *wake = (int)(old & 1);
    return &q->units[*ticket & q->mask];
}

static inline void shm_q_publish(shm_unit *u, uint64_t ticket)
{
    atomic_store_explicit(&u->seq, (uint32_t)(ticket + 1), memory_order_release);
}

/* memcpy, with a whole continuation unit's bytes (the common piece of a
 * long packet) copied inline rather than by a call. */
static inline void shm_q_copy(void *d, const void *s, size_t m)
{
    if (m == SHM_CONT_DATA)
        memcpy(d, s, SHM_CONT_DATA);
    else
        memcpy(d, s, m);
}

/* Where the next packet bytes go: a cursor over the units of one packet. */
typedef struct shm_q_cursor {
    unsigned char *d;
    size_t room;
    uint64_t t;                   /* ticket of the unit d points into */
} shm_q_cursor;

/* Append n bytes at the cursor, stamping each continuation unit it opens. */
static inline void shm_q_put(shm_queue *q, shm_q_cursor *cur, const void *src, size_t n)
{
    const unsigned char *p = src;
    while (n) {
        if (cur->room == 0) {
            shm_unit *cu = &q->units[++cur->t & q->mask];
            /* a stamp of its own ticket: never a later lap's ready value */
            atomic_store_explicit(&cu->seq, (uint32_t)(cur->t + 1), memory_order_relaxed);
            cur->d = (unsigned char *)cu + sizeof(uint32_t);
            cur->room = SHM_CONT_DATA;
        }
        size_t m = n < cur->room ? n : cur->room;
        shm_q_copy(cur->d, p, m);
        cur->d += m, p += m, n -= m, cur->room -= m;
    }
}

/* Copy header and a gather list into the k = shm_units_for(hdrlen + len)
 * units of ticket t (caller checked it fits). */
static inline void shm_unit_fill(shm_queue *q, uint64_t t, uint16_t src, const void *hdr,
                                 size_t hdrlen, const struct iovec *iov,
                                 int iovcnt, size_t len)
{
    shm_unit *u = &q->units[t & q->mask];
    u->src = src;
    u->hdrlen = (uint8_t)hdrlen;
    u->ilen = (uint8_t)len;
    if (__builtin_expect(hdrlen + len <= SHM_UNIT_DATA, 1)) {
        memcpy(u->data, hdr, hdrlen);
        unsigned char *d = u->data + hdrlen;
        for (int i = 0; i < iovcnt; i++) {
            memcpy(d, iov[i].iov_base, iov[i].iov_len);
            d += iov[i].iov_len;
        }
        return;
    }
    shm_q_cursor cur = { u->data, SHM_UNIT_DATA, t };
    shm_q_put(q, &cur, hdr, hdrlen);
    for (int i = 0; i < iovcnt; i++)
        shm_q_put(q, &cur, iov[i].iov_base, iov[i].iov_len);
}

/* One inline packet: 0, -EAGAIN (full), -EMSGSIZE (too big for the units). */
static inline int shm_q_send_inline(shm_queue *q, uint64_t *head_cache,
                                    uint16_t src, const void *hdr, size_t hdrlen,
                                    const struct iovec *iov, int iovcnt, int *wake)
{
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (hdrlen + len > SHM_INLINE_MAX)
        return -EMSGSIZE;
    uint64_t t;
    shm_unit *u = shm_q_claim(q, head_cache, shm_units_for(hdrlen + len), &t, wake);
    if (!u)
        return -EAGAIN;
    shm_unit_fill(q, t, src, hdr, hdrlen, iov, iovcnt, len);
    shm_q_publish(u, t);
    return 0;
}

/* ---- consumer side: HOT PATH (every poll) ------------------------------ */

/* The head packet's first unit if it is ready, else NULL. *head is the
 * consumer's own copy; it steps over skip units (published with the next
 * free). */
static inline shm_unit *shm_q_peek(shm_queue *q, uint64_t *head)
{
    for (;;) {
        shm_unit *u = &q->units[*head & q->mask];
        if (atomic_load_explicit(&u->seq, memory_order_acquire) != (uint32_t)(*head + 1))
            return NULL;
        if (__builtin_expect(u->ilen != SHM_UNIT_SKIP, 1))
            return u;
        ++*head;
    }
}

/* Header + payload (or bulk ref) bytes of the packet whose first unit is u. */
static inline size_t shm_unit_bytes(const shm_unit *u)
{
    return (size_t)u->hdrlen + (u->ilen == SHM_UNIT_BULK ? sizeof(shm_bulk_ref) : u->ilen);
}

/* Units taken by the packet whose first unit is u. */
static inline uint32_t shm_unit_count(const shm_unit *u)
{
    return shm_units_for(shm_unit_bytes(u));
}

/* Copy n bytes from offset off of the packet (header then payload) whose
 * first unit u is at head into buf: continuation units have holes for their
 * seq. */
static inline void shm_q_copyout(shm_queue *q, uint64_t head, const shm_unit *u,
                                 size_t off, size_t n, unsigned char *buf)
{
    const unsigned char *s;
    size_t room;
    if (off < SHM_UNIT_DATA) {
        s = u->data + off;
        room = SHM_UNIT_DATA - off;
    } else {
        size_t rest = off - SHM_UNIT_DATA, j = rest / SHM_CONT_DATA, in = rest % SHM_CONT_DATA;
        head += 1 + j;
        s = (const unsigned char *)&q->units[head & q->mask] + sizeof(uint32_t) + in;
        room = SHM_CONT_DATA - in;
    }
    for (;;) {
        size_t m = n < room ? n : room;
        shm_q_copy(buf, s, m);
        buf += m, n -= m;
        if (!n)
            return;
        s = (const unsigned char *)&q->units[++head & q->mask] + sizeof(uint32_t);
        room = SHM_CONT_DATA;
    }
}

/* Copy a multi-unit packet's header and payload (or bulk ref), contiguous,
 * into buf (SHM_INLINE_MAX bytes). */
static inline void shm_q_gather(shm_queue *q, uint64_t head, const shm_unit *u,
                                unsigned char *buf)
{
    shm_q_copyout(q, head, u, 0, shm_unit_bytes(u), buf);
}

/* The header and payload (or bulk ref) of the packet at head, contiguous:
 * in place when they fit its first unit, else gathered into buf. */
static inline const unsigned char *shm_q_contig(shm_queue *q, uint64_t head, const shm_unit *u,
                                                unsigned char *buf)
{
    if (shm_unit_bytes(u) <= SHM_UNIT_DATA)
        return u->data;
    shm_q_gather(q, head, u, buf);
    return buf;
}

/* Done with the packet at head: step the consumer's own head past it. Its
 * units stay taken until the next shm_q_release. */
static inline void shm_q_consume(const shm_unit *u, uint64_t *head)
{
    *head += shm_unit_count(u);
}

/* Publish the consumer's head, which frees every unit consumed so far for
 * the next lap (release: after the handlers' reads of the units). Due
 * before the consumer stops draining: producers wait on it. */
static inline void shm_q_release(shm_queue *q, uint64_t head)
{
    atomic_store_explicit(&q->head, head, memory_order_release);
}

/* shm_q_consume and shm_q_release of one packet. */
static inline void shm_q_free(shm_queue *q, shm_unit *u, uint64_t *head)
{
    shm_q_consume(u, head);
    shm_q_release(q, *head);
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
