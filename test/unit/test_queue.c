/*
 * test_queue.c — the shared-memory inbound queue (src/util/queue.h) on its own:
 * producer processes forked onto a MAP_SHARED anonymous mapping, one consumer.
 */
#include <criterion/criterion.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "src/util/queue.h"

typedef struct msg_hdr { uint32_t producer, seq; } msg_hdr;

static shm_queue *new_queue(uint32_t nunits, uint32_t reserve)
{
    void *m = mmap(NULL, shm_q_bytes(nunits), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert(m != MAP_FAILED);
    cr_assert_eq(shm_q_init(m, nunits, reserve), 0);
    return m;
}

/* Message (p, s): a header of 8 bytes ({p, s}), every fifth one longer (up
 * to 48, past the first unit), then a payload; a third of the packets fit
 * one unit or two, the rest take 1..9 units. The extra header bytes and the
 * payload follow a pattern. */
static size_t hdr_len(uint32_t p, uint32_t s) { return s % 5 == 4 ? 8 + (p * 5u + s * 3u) % 41 : 8; }
static size_t pay_len(uint32_t p, uint32_t s)
{
    return s % 3 == 0 ? (p + s) % 17 : (p * 7u + s * 13u) % (SHM_INLINE_MAX - hdr_len(p, s) + 1);
}
static unsigned char pay_byte(uint32_t p, uint32_t s, size_t i) { return (unsigned char)(p * 31u + s * 17u + i); }

static void produce(shm_queue *q, uint32_t id, uint32_t count)
{
    uint64_t hc = 0;
    unsigned char hbuf[64], buf[SHM_INLINE_MAX];
    for (uint32_t s = 0; s < count; s++) {
        msg_hdr h = { id, s };
        size_t hl = hdr_len(id, s), n = pay_len(id, s);
        memcpy(hbuf, &h, sizeof h);
        for (size_t i = sizeof h; i < hl; i++)
            hbuf[i] = pay_byte(s, id, i);
        for (size_t i = 0; i < n; i++)
            buf[i] = pay_byte(id, s, i);
        struct iovec iov[2] = { { buf, n / 2 }, { buf + n / 2, n - n / 2 } };
        int wake, rc;
        /* yield when full: 16 producers share 2 cores with the consumer */
        while ((rc = shm_q_send_inline(q, &hc, (uint16_t)id, hbuf, hl, iov, 2, &wake)) == -EAGAIN)
            sched_yield();
        if (rc != 0)
            _exit(3);
    }
}

/* Consume until total messages arrived; check each, and the room invariant:
 * no ticket is ever more than a ring ahead of the consumer. Units are
 * released in batches, as the channel's drain does: producers meanwhile
 * see the ring full. */
static void consume(shm_queue *q, uint32_t producers, uint32_t per, uint64_t *head)
{
    uint32_t *next = calloc(producers, sizeof *next);
    uint64_t total = (uint64_t)producers * per, got = 0, n_units = q->mask + 1;
    time_t start = time(NULL);
    int batch = 0;
    while (got < total) {
        cr_assert_leq((atomic_load(&q->tail) >> 1) - *head, n_units, "tail more than a ring ahead");
        shm_unit *u = shm_q_peek(q, head);
        if (!u) {
            shm_q_release(q, *head);
            batch = 0;
            cr_assert(time(NULL) - start < 60, "queue stalled after %lu messages", (unsigned long)got);
            sched_yield();
            continue;
        }
        msg_hdr h;
        /* the first 8 header bytes are always in the first unit */
        memcpy(&h, u->data, sizeof h);
        cr_assert_lt(h.producer, producers);
        cr_assert_eq(u->src, h.producer);
        cr_assert_eq(h.seq, next[h.producer], "producer %u: got %u, expected %u (lost, duplicated or reordered)",
                     h.producer, h.seq, next[h.producer]);
        size_t hl = hdr_len(h.producer, h.seq), n = pay_len(h.producer, h.seq);
        cr_assert_eq(u->hdrlen, hl);
        cr_assert_eq(u->ilen, n);
        cr_assert_eq(shm_unit_count(u), shm_units_for(hl + n));
        unsigned char buf[SHM_INLINE_MAX];
        const unsigned char *b = u->data;
        if (shm_unit_count(u) > 1) {
            shm_q_gather(q, *head, u, buf);
            b = buf;
            cr_assert_eq(memcmp(b, &h, sizeof h), 0, "gathered header");
        }
        for (size_t i = sizeof h; i < hl; i++)
            cr_assert_eq(b[i], pay_byte(h.seq, h.producer, i), "corrupt header");
        for (size_t i = 0; i < n; i++)
            cr_assert_eq(b[hl + i], pay_byte(h.producer, h.seq, i), "corrupt payload");
        next[h.producer]++;
        shm_q_consume(u, head);
        if (++batch == 7) {
            shm_q_release(q, *head);
            batch = 0;
        }
        got++;
    }
    shm_q_release(q, *head);
    for (uint32_t p = 0; p < producers; p++)
        cr_assert_eq(next[p], per);
    cr_assert_null(shm_q_peek(q, head), "extra message");
    free(next);
}

static void run_producers(uint32_t producers, uint32_t per, uint32_t nunits)
{
    shm_queue *q = new_queue(nunits, producers);
    pid_t pids[64];
    for (uint32_t p = 0; p < producers; p++) {
        pids[p] = fork();
        cr_assert(pids[p] >= 0);
        if (pids[p] == 0) {
            produce(q, p, per);
            _exit(0);
        }
    }
    uint64_t head = 0;
    consume(q, producers, per, &head);
    for (uint32_t p = 0; p < producers; p++) {
        int st;
        cr_assert_eq(waitpid(pids[p], &st, 0), pids[p]);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "producer %u failed", p);
    }
    munmap(q, shm_q_bytes(nunits));
}

Test(queue, init_rejects_bad_sizes)
{
    enum { N = 64, K = SHM_CLAIM_MAX };
    static _Alignas(64) unsigned char mem[sizeof(shm_queue) + N * sizeof(shm_unit)];
    cr_assert_eq(shm_q_init((shm_queue *)mem, 48, 1), -EINVAL);
    cr_assert_eq(shm_q_init((shm_queue *)mem, N, 0), -EINVAL);
    /* SHM_CLAIM_MAX units per producer must stay in reserve */
    cr_assert_eq(shm_q_init((shm_queue *)mem, N, (N + K - 1) / K), -EINVAL);
    cr_assert_eq(shm_q_init((shm_queue *)mem, N, (N - 1) / K), 0);
    cr_assert_eq(shm_units_for(0), 1);
    cr_assert_eq(shm_units_for(SHM_UNIT_DATA), 1);
    cr_assert_eq(shm_units_for(SHM_UNIT_DATA + 1), 2);
    cr_assert_eq(shm_units_for(SHM_UNIT_DATA + SHM_CONT_DATA), 2);
    cr_assert_eq(shm_units_for(SHM_UNIT_DATA + SHM_CONT_DATA + 1), 3);
    cr_assert_eq(shm_units_for(SHM_INLINE_MAX), SHM_UNIT_MAXN);
    cr_assert_eq(shm_units_for(SHM_INLINE_MAX - SHM_CONT_DATA), SHM_UNIT_MAXN - 1);
    /* the device's 8-byte message: 16-byte header + 8 = one unit */
    cr_assert_eq(shm_units_for(16 + 8), 1);
}

Test(queue, single_producer_in_order)
{
    run_producers(1, 100000, 128);
}

Test(queue, many_producers, .timeout = 120)
{
    run_producers(8, 50000, 512);
}

/* Few units, many producers: the room check and lap stamps under pressure;
 * 16 x 20000 messages of ~4 units through 256 units is ~5000 laps, with
 * 16 x 11 = 176 units in reserve. */
Test(queue, many_producers_tiny_queue, .timeout = 120)
{
    run_producers(16, 20000, 256);
}

/* One-unit packets: two to a cache line, each with its own stamp, and the
 * ticket advances by one. */
Test(queue, two_small_packets_per_line)
{
    shm_queue *q = new_queue(32, 1);
    uint64_t hc = 0, head = 0;
    int wake;
    cr_assert_eq(sizeof(shm_unit), 32);
    cr_assert_eq((uintptr_t)q->units % SHM_CACHELINE, 0);
    unsigned char hdr[16], pay[9] = { 0 };
    for (uint32_t i = 0; i < 20; i++) {
        memset(hdr, (int)i, sizeof hdr);
        memset(pay, (int)(100 + i), 8);
        struct iovec iov = { pay, 8 };
        cr_assert_eq(shm_q_send_inline(q, &hc, 3, hdr, sizeof hdr, &iov, 1, &wake), 0);
        cr_assert_eq(atomic_load(&q->tail) >> 1, i + 1, "one unit per packet");
    }
    for (uint32_t i = 0; i < 20; i++) {
        shm_unit *u = shm_q_peek(q, &head);
        cr_assert_not_null(u);
        cr_assert_eq((uintptr_t)u / SHM_CACHELINE, (uintptr_t)&q->units[i & ~1u] / SHM_CACHELINE,
                     "packet %u shares the line of %u", i, i & ~1u);
        cr_assert_eq(atomic_load(&u->seq), i + 1);
        cr_assert_eq(u->src, 3);
        cr_assert_eq(u->hdrlen, 16);
        cr_assert_eq(u->ilen, 8);
        cr_assert_eq(shm_unit_count(u), 1);
        for (int b = 0; b < 16; b++)
            cr_assert_eq(u->data[b], (unsigned char)i);
        for (int b = 0; b < 8; b++)
            cr_assert_eq(u->data[16 + b], (unsigned char)(100 + i));
        shm_q_free(q, u, &head);
        cr_assert_eq(atomic_load(&q->head), i + 1);
    }
    cr_assert_null(shm_q_peek(q, &head));
    /* one byte more takes a second unit */
    struct iovec iov = { pay, 9 };
    cr_assert_eq(shm_q_send_inline(q, &hc, 3, hdr, sizeof hdr, &iov, 1, &wake), 0);
    cr_assert_eq(atomic_load(&q->tail) >> 1, 22);
    shm_q_free(q, shm_q_peek(q, &head), &head);
    cr_assert_eq(head, 22);
    /* after an odd number of one-unit packets a two-unit one skips the
     * line's second half and takes the next line whole */
    iov.iov_len = 8;
    cr_assert_eq(shm_q_send_inline(q, &hc, 3, hdr, sizeof hdr, &iov, 1, &wake), 0);
    iov.iov_len = 9;
    cr_assert_eq(shm_q_send_inline(q, &hc, 3, hdr, sizeof hdr, &iov, 1, &wake), 0);
    cr_assert_eq(atomic_load(&q->tail) >> 1, 26, "1 + skip + 2");
    shm_q_free(q, shm_q_peek(q, &head), &head);
    cr_assert_eq(head, 23);
    shm_unit *u = shm_q_peek(q, &head);
    cr_assert_eq(u, &q->units[24], "stepped over the skip");
    cr_assert_eq(u->ilen, 9);
    shm_q_free(q, u, &head);
    cr_assert_eq(atomic_load(&q->head), 26);
    cr_assert_null(shm_q_peek(q, &head));
    munmap(q, shm_q_bytes(32));
}

/* Headers of every length the device sends (and up to a whole packet),
 * crossing into continuation units: gather hands back header and payload
 * contiguous, and copyout any slice of them; the ring is 32 units, so the
 * packets also wrap at its end. */
Test(queue, headers_across_units)
{
    const uint32_t N = 32;
    shm_queue *q = new_queue(N, 1);
    uint64_t hc = 0, head = 0;
    int wake;
    unsigned char hdr[SHM_INLINE_MAX], pay[SHM_INLINE_MAX], want[SHM_INLINE_MAX], got[SHM_INLINE_MAX];
    uint32_t n = 0;
    for (size_t hl = 0; hl <= SHM_INLINE_MAX; hl++)
        for (size_t pl = 0; hl + pl <= SHM_INLINE_MAX; pl += 1 + pl / 3, n++) {
            for (size_t i = 0; i < hl; i++)
                hdr[i] = want[i] = (unsigned char)(n + 3 * i);
            for (size_t i = 0; i < pl; i++)
                pay[i] = want[hl + i] = (unsigned char)(n * 7 + i);
            struct iovec iov[3] = { { pay, pl / 4 }, { pay + pl / 4, 0 }, { pay + pl / 4, pl - pl / 4 } };
            cr_assert_eq(shm_q_send_inline(q, &hc, 1, hdr, hl, iov, 3, &wake), 0);
            shm_unit *u = shm_q_peek(q, &head);
            cr_assert_not_null(u);
            cr_assert_eq(u->hdrlen, hl);
            cr_assert_eq(u->ilen, pl);
            cr_assert_eq(shm_unit_bytes(u), hl + pl);
            cr_assert_eq(shm_unit_count(u), shm_units_for(hl + pl));
            memset(got, 0xee, sizeof got);
            shm_q_gather(q, head, u, got);
            cr_assert_eq(memcmp(got, want, hl + pl), 0, "header %zu payload %zu", hl, pl);
            if (hl + pl <= SHM_UNIT_DATA)
                cr_assert_eq(memcmp(u->data, want, hl + pl), 0);
            for (size_t off = 0; off <= hl + pl; off += 5) {
                size_t len = (hl + pl - off) / 2 + 1 > hl + pl - off ? hl + pl - off : (hl + pl - off) / 2 + 1;
                memset(got, 0xee, sizeof got);
                shm_q_copyout(q, head, u, off, len, got);
                cr_assert_eq(memcmp(got, want + off, len), 0, "copyout %zu+%zu of %zu", off, len, hl + pl);
                cr_assert_eq(got[len], 0xee, "copyout wrote past its end");
            }
            /* each continuation unit carries its own ticket's stamp */
            for (uint32_t j = 1; j < shm_unit_count(u); j++)
                cr_assert_eq(atomic_load(&q->units[(head + j) & q->mask].seq), (uint32_t)(head + j + 1));
            shm_q_free(q, u, &head);
            cr_assert_null(shm_q_peek(q, &head));
        }
    cr_assert_gt(head / N, 100, "laps");
    munmap(q, shm_q_bytes(N));
}

/* The largest inline packet with the device's longest header, placed so it
 * wraps at the ring's end: nine units, four before the end, five after. */
Test(queue, largest_packet_wraps_ring_end)
{
    const uint32_t N = 16;
    shm_queue *q = new_queue(N, 1);
    uint64_t hc = 0, head = 0;
    int wake;
    msg_hdr h = { 0, 0 };
    for (uint32_t i = 0; i < N - 4; i++) {
        cr_assert_eq(shm_q_send_inline(q, &hc, 0, &h, sizeof h, NULL, 0, &wake), 0);
        shm_q_free(q, shm_q_peek(q, &head), &head);
    }
    unsigned char hdr[48], pay[SHM_INLINE_MAX - 48], got[SHM_INLINE_MAX];
    for (size_t i = 0; i < sizeof hdr; i++)
        hdr[i] = (unsigned char)(200 - i);
    for (size_t i = 0; i < sizeof pay; i++)
        pay[i] = (unsigned char)(i * 11);
    struct iovec iov = { pay, sizeof pay };
    cr_assert_eq(shm_q_send_inline(q, &hc, 5, hdr, sizeof hdr, &iov, 1, &wake), 0);
    cr_assert_eq((atomic_load(&q->tail) >> 1) - head, SHM_UNIT_MAXN + 1, "9 units and a skip");
    shm_unit *u = shm_q_peek(q, &head);
    cr_assert_eq(u, &q->units[N - 4]);
    cr_assert_eq(shm_unit_count(u), SHM_UNIT_MAXN);
    for (uint32_t j = 1; j < SHM_UNIT_MAXN; j++)
        cr_assert_eq(atomic_load(&q->units[(head + j) & q->mask].seq), (uint32_t)(head + j + 1));
    shm_q_gather(q, head, u, got);
    cr_assert_eq(memcmp(got, hdr, sizeof hdr), 0);
    cr_assert_eq(memcmp(got + sizeof hdr, pay, sizeof pay), 0);
    shm_q_free(q, u, &head);
    cr_assert_eq(head, N - 4 + SHM_UNIT_MAXN);
    cr_assert_null(shm_q_peek(q, &head));
    /* one byte more does not fit */
    unsigned char big[SHM_INLINE_MAX + 1];
    struct iovec biov = { big, sizeof pay + 1 };
    cr_assert_eq(shm_q_send_inline(q, &hc, 5, hdr, sizeof hdr, &biov, 1, &wake), -EMSGSIZE);
    munmap(q, shm_q_bytes(N));
}

Test(queue, full_returns_eagain_and_recovers)
{
    const uint32_t N = 64, P = 4, R = P * SHM_CLAIM_MAX;
    shm_queue *q = new_queue(N, P);
    uint64_t hc = 0, head = 0;
    int wake;
    char b = 'x';
    struct iovec iov = { &b, 1 };
    msg_hdr h = { 0, 0 };
    for (uint32_t i = 0; i < N - R; i++) {
        h.seq = i;
        cr_assert_eq(shm_q_send_inline(q, &hc, 0, &h, sizeof h, &iov, 1, &wake), 0, "send %u", i);
    }
    cr_assert_eq(shm_q_send_inline(q, &hc, 0, &h, sizeof h, &iov, 1, &wake), -EAGAIN);
    cr_assert_eq(shm_q_send_inline(q, &hc, 0, &h, sizeof h, &iov, 1, &wake), -EAGAIN);
    /* a refused send took no ticket */
    cr_assert_eq(atomic_load(&q->tail) >> 1, N - R);
    shm_unit *u = shm_q_peek(q, &head);
    cr_assert_not_null(u);
    shm_q_free(q, u, &head);
    h.seq = N - R;
    cr_assert_eq(shm_q_send_inline(q, &hc, 0, &h, sizeof h, &iov, 1, &wake), 0);
    cr_assert_eq(shm_q_send_inline(q, &hc, 0, &h, sizeof h, &iov, 1, &wake), -EAGAIN);
    for (uint32_t i = 1; i <= N - R; i++) {
        u = shm_q_peek(q, &head);
        cr_assert_not_null(u);
        memcpy(&h, u->data, sizeof h);
        cr_assert_eq(h.seq, i);
        shm_q_free(q, u, &head);
    }
    cr_assert_null(shm_q_peek(q, &head));
    /* 9-unit packets: the room check counts units, not packets */
    unsigned char big[SHM_INLINE_MAX];
    memset(big, 9, sizeof big);
    struct iovec biov = { big, SHM_INLINE_MAX - sizeof h };
    uint32_t sent = 0;
    /* the model: a claim is refused once tail - head reaches N - R, and a
     * 9-unit packet takes a skip unit at each end that is mid-line */
    uint32_t want = 0;
    for (uint64_t t = atomic_load(&q->tail) >> 1; t - head < N - R; t += SHM_UNIT_MAXN + 1)
        want++;
    cr_assert_eq(head & 1, 1, "the first 9-unit packet needs a skip");
    while (shm_q_send_inline(q, &hc, 0, &h, sizeof h, &biov, 1, &wake) == 0)
        sent++;
    cr_assert_eq(sent, want);
    for (uint32_t i = 0; i < sent; i++) {
        u = shm_q_peek(q, &head);
        cr_assert_not_null(u);
        cr_assert_eq(shm_unit_count(u), SHM_UNIT_MAXN);
        shm_q_free(q, u, &head);
    }
    cr_assert_null(shm_q_peek(q, &head));
    cr_assert_eq(head, atomic_load(&q->tail) >> 1, "every ticket consumed, skips too");
}

Test(queue, oversized_packet_rejected)
{
    shm_queue *q = new_queue(16, 1);
    uint64_t hc = 0;
    int wake;
    char big[SHM_INLINE_MAX];
    memset(big, 1, sizeof big);
    struct iovec iov = { big, sizeof big - 7 };
    cr_assert_eq(shm_q_send_inline(q, &hc, 0, big, 8, &iov, 1, &wake), -EMSGSIZE);
    iov.iov_len = sizeof big - 8;
    cr_assert_eq(shm_q_send_inline(q, &hc, 0, big, 8, &iov, 1, &wake), 0);
    cr_assert_eq(atomic_load(&q->tail) >> 1, SHM_UNIT_MAXN + 1);
}

/* The lap stamp tells laps apart: a unit from the previous lap is never
 * mistaken for a ready one, over many wrap-arounds of a 16-unit queue, with
 * packets of 1..9 units that also wrap around the ring's end. Payload bytes
 * equal to the next lap's ready stamps must not fool the consumer. Run from
 * ticket 0 and from just below 2^32, where the 32-bit stamps wrap. */
static void lap_run(uint64_t start)
{
    const uint32_t N = 16;
    shm_queue *q = new_queue(N, 1);
    /* a queue whose tickets so far all were consumed: the units' stamps
     * are init's, which never equal a ready value of the next lap */
    atomic_store(&q->tail, start << 1);
    atomic_store(&q->head, start);
    uint64_t hc = start, head = start, units = 0;
    int wake;
    for (uint32_t i = 0; i < 100000; i++) {
        msg_hdr h = { 0, i };
        /* a payload of little-endian words that look like ready stamps */
        uint32_t words[SHM_INLINE_MAX / 4];
        for (size_t w = 0; w < sizeof words / 4; w++)
            words[w] = (uint32_t)(head + w / 7 + 1);
        size_t len = (i * 37u) % (SHM_INLINE_MAX - sizeof h + 1);
        if (i % 4 == 1)
            len %= SHM_UNIT_DATA - sizeof h + 1;   /* a one-unit packet */
        struct iovec iov = { words, len };
        cr_assert_null(shm_q_peek(q, &head));
        uint64_t before = atomic_load(&q->tail) >> 1;
        cr_assert_eq(shm_q_send_inline(q, &hc, 0, &h, sizeof h, &iov, 1, &wake), 0);
        uint32_t k = shm_units_for(sizeof h + len), taken = (uint32_t)((atomic_load(&q->tail) >> 1) - before);
        cr_assert_eq(taken, k == 1 ? 1 : k + (before & 1) + ((before + k + (before & 1)) & 1),
                     "skips exactly where a long packet would share a line");
        /* room while tail - head < 16 - SHM_CLAIM_MAX, by the published head
         * (a skip the consumer stepped over is published with the next free) */
        if ((atomic_load(&q->tail) >> 1) - atomic_load(&q->head) >= N - SHM_CLAIM_MAX)
            cr_assert_eq(shm_q_send_inline(q, &hc, 0, &h, sizeof h, NULL, 0, &wake), -EAGAIN);
        else {
            /* room for a second one; take it back out below */
            cr_assert_eq(shm_q_send_inline(q, &hc, 0, &h, sizeof h, NULL, 0, &wake), 0);
        }
        shm_unit *u = shm_q_peek(q, &head);
        cr_assert_not_null(u);
        memcpy(&h, u->data, sizeof h);
        cr_assert_eq(h.seq, i);
        cr_assert_eq(u->ilen, len);
        unsigned char buf[SHM_INLINE_MAX];
        const unsigned char *p = u->data + sizeof h;
        if (shm_unit_count(u) > 1) {
            shm_q_gather(q, head, u, buf);
            p = buf + sizeof h;
        }
        cr_assert_eq(memcmp(p, words, len), 0, "message %u corrupt", i);
        if (k > 1)
            cr_assert_eq((uintptr_t)u % SHM_CACHELINE, 0, "a long packet starts on a line");
        units += shm_unit_count(u);
        shm_q_free(q, u, &head);
        if ((u = shm_q_peek(q, &head)) != NULL) {
            units += shm_unit_count(u);
            shm_q_free(q, u, &head);
        }
        cr_assert_null(shm_q_peek(q, &head));
        cr_assert_eq(head, atomic_load(&q->tail) >> 1);
    }
    cr_assert_geq(head - start, units);
    cr_assert_gt(units / N, 20000, "laps");
    munmap(q, shm_q_bytes(N));
}

Test(queue, lap_wraparound)
{
    lap_run(0);
}

Test(queue, lap_wraparound_32bit_stamps)
{
    lap_run(((uint64_t)1 << 32) - 1000);
}

/* Sleep announcement: a producer learns it must wake the consumer; arm
 * refuses while a ticket is outstanding. */
Test(queue, sleep_bit)
{
    shm_queue *q = new_queue(16, 1);
    uint64_t hc = 0, head = 0, t;
    int wake = -1;
    msg_hdr h = { 0, 0 };
    cr_assert_eq(shm_q_send_inline(q, &hc, 0, &h, sizeof h, NULL, 0, &wake), 0);
    cr_assert_eq(wake, 0);
    cr_assert_neq(shm_q_arm(q, head), 0, "arm must see the pending packet");
    shm_q_disarm(q);
    shm_q_free(q, shm_q_peek(q, &head), &head);
    cr_assert_eq(shm_q_arm(q, head), 0);
    /* claimed but not yet published: arm must still refuse */
    shm_unit *u = shm_q_claim(q, &hc, 1, &t, &wake);
    cr_assert_not_null(u);
    cr_assert_eq(wake, 1, "producer must learn the consumer sleeps");
    shm_q_disarm(q);
    cr_assert_neq(shm_q_arm(q, head), 0);
    shm_q_disarm(q);
    shm_unit_fill(q, t, 0, &h, sizeof h, NULL, 0, 0);
    shm_q_publish(u, t);
    cr_assert_eq(shm_q_send_inline(q, &hc, 0, &h, sizeof h, NULL, 0, &wake), 0);
    cr_assert_eq(wake, 0, "no wake after disarm");
    cr_assert_eq(atomic_load(&q->tail) >> 1, 3);
}
