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

static shm_queue *new_queue(uint32_t ncells, uint32_t reserve)
{
    void *m = mmap(NULL, shm_q_bytes(ncells), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert(m != MAP_FAILED);
    cr_assert_eq(shm_q_init(m, ncells, reserve), 0);
    return m;
}

/* Payload bytes of message (p, s): a length that takes 1..4 cells, and a
 * pattern. */
static size_t pay_len(uint32_t p, uint32_t s) { return (p * 7u + s * 13u) % (SHM_INLINE_MAX - sizeof(msg_hdr) + 1); }
static unsigned char pay_byte(uint32_t p, uint32_t s, size_t i) { return (unsigned char)(p * 31u + s * 17u + i); }

static void produce(shm_queue *q, uint32_t id, uint32_t count)
{
    uint64_t hc = 0;
    unsigned char buf[SHM_INLINE_MAX];
    for (uint32_t s = 0; s < count; s++) {
        msg_hdr h = { id, s };
        size_t n = pay_len(id, s);
        for (size_t i = 0; i < n; i++)
            buf[i] = pay_byte(id, s, i);
        struct iovec iov[2] = { { buf, n / 2 }, { buf + n / 2, n - n / 2 } };
        int wake, rc;
        /* yield when full: 16 producers share 2 cores with the consumer */
        while ((rc = shm_q_send_inline(q, &hc, (uint16_t)id, &h, sizeof h, iov, 2, &wake)) == -EAGAIN)
            sched_yield();
        if (rc != 0)
            _exit(3);
    }
}

/* Consume until total messages arrived; check each. */
static void consume(shm_queue *q, uint32_t producers, uint32_t per, uint64_t *head)
{
    uint32_t *next = calloc(producers, sizeof *next);
    uint64_t total = (uint64_t)producers * per, got = 0;
    time_t start = time(NULL);
    while (got < total) {
        shm_cell *c = shm_q_peek(q, *head);
        if (!c) {
            cr_assert(time(NULL) - start < 60, "queue stalled after %lu messages", (unsigned long)got);
            sched_yield();
            continue;
        }
        msg_hdr h;
        cr_assert_eq(c->hdrlen, sizeof h);
        memcpy(&h, c->data, sizeof h);
        cr_assert_lt(h.producer, producers);
        cr_assert_eq(c->src, h.producer);
        cr_assert_eq(h.seq, next[h.producer], "producer %u: got %u, expected %u (lost, duplicated or reordered)",
                     h.producer, h.seq, next[h.producer]);
        size_t n = pay_len(h.producer, h.seq);
        cr_assert_eq(c->ilen, n);
        unsigned char buf[SHM_INLINE_MAX];
        const unsigned char *p = c->data + sizeof h;
        if (shm_cell_count(c) > 1) {
            shm_q_gather(q, *head, c, buf);
            p = buf;
        }
        for (size_t i = 0; i < n; i++)
            cr_assert_eq(p[i], pay_byte(h.producer, h.seq, i), "corrupt payload");
        next[h.producer]++;
        shm_q_free(q, c, head);
        got++;
    }
    for (uint32_t p = 0; p < producers; p++)
        cr_assert_eq(next[p], per);
    cr_assert_null(shm_q_peek(q, *head), "extra message");
    free(next);
}

static void run_producers(uint32_t producers, uint32_t per, uint32_t ncells)
{
    shm_queue *q = new_queue(ncells, producers);
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
    munmap(q, shm_q_bytes(ncells));
}

Test(queue, init_rejects_bad_sizes)
{
    static _Alignas(64) unsigned char mem[sizeof(shm_queue) + 16 * sizeof(shm_cell)];
    cr_assert_eq(shm_q_init((shm_queue *)mem, 12, 1), -EINVAL);
    cr_assert_eq(shm_q_init((shm_queue *)mem, 16, 0), -EINVAL);
    /* SHM_CELL_MAXN cells per producer must stay in reserve */
    cr_assert_eq(shm_q_init((shm_queue *)mem, 16, 16 / SHM_CELL_MAXN), -EINVAL);
    cr_assert_eq(shm_q_init((shm_queue *)mem, 16, 16 / SHM_CELL_MAXN - 1), 0);
    cr_assert_eq(shm_cells_for(SHM_CELL_DATA), 1);
    cr_assert_eq(shm_cells_for(SHM_CELL_DATA + 1), 2);
    cr_assert_eq(shm_cells_for(SHM_INLINE_MAX), SHM_CELL_MAXN);
}

Test(queue, single_producer_in_order)
{
    run_producers(1, 100000, 64);
}

Test(queue, many_producers, .timeout = 120)
{
    run_producers(8, 50000, 256);
}

/* Few cells, many producers: the room check and lap stamps under pressure;
 * 16 x 20000 messages of ~2.5 cells through 128 cells is ~6000 laps. */
Test(queue, many_producers_tiny_queue, .timeout = 120)
{
    run_producers(16, 20000, 128);
}

Test(queue, full_returns_eagain_and_recovers)
{
    const uint32_t N = 64, P = 4, R = P * SHM_CELL_MAXN;
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
    shm_cell *c = shm_q_peek(q, head);
    cr_assert_not_null(c);
    shm_q_free(q, c, &head);
    h.seq = N - R;
    cr_assert_eq(shm_q_send_inline(q, &hc, 0, &h, sizeof h, &iov, 1, &wake), 0);
    cr_assert_eq(shm_q_send_inline(q, &hc, 0, &h, sizeof h, &iov, 1, &wake), -EAGAIN);
    for (uint32_t i = 1; i <= N - R; i++) {
        c = shm_q_peek(q, head);
        cr_assert_not_null(c);
        memcpy(&h, c->data, sizeof h);
        cr_assert_eq(h.seq, i);
        shm_q_free(q, c, &head);
    }
    cr_assert_null(shm_q_peek(q, head));
    /* 4-cell packets: the room check counts cells, not packets */
    unsigned char big[SHM_INLINE_MAX];
    memset(big, 9, sizeof big);
    struct iovec biov = { big, SHM_INLINE_MAX - sizeof h };
    uint32_t sent = 0;
    while (shm_q_send_inline(q, &hc, 0, &h, sizeof h, &biov, 1, &wake) == 0)
        sent++;
    cr_assert_eq(sent, (N - R + SHM_CELL_MAXN - 1) / SHM_CELL_MAXN);
    for (uint32_t i = 0; i < sent; i++) {
        c = shm_q_peek(q, head);
        cr_assert_not_null(c);
        cr_assert_eq(shm_cell_count(c), SHM_CELL_MAXN);
        shm_q_free(q, c, &head);
    }
    cr_assert_null(shm_q_peek(q, head));
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
    cr_assert_eq(atomic_load(&q->tail) >> 1, SHM_CELL_MAXN);
}

/* The lap stamp tells laps apart: a cell from the previous lap is never
 * mistaken for a ready one, over many wrap-arounds of an 8-cell queue, with
 * packets of 1..4 cells that also wrap around the ring's end. Payload bytes
 * equal to the next lap's ready stamps must not fool the consumer. */
Test(queue, lap_wraparound)
{
    shm_queue *q = new_queue(8, 1);
    uint64_t hc = 0, head = 0, cells = 0;
    int wake;
    for (uint32_t i = 0; i < 100000; i++) {
        msg_hdr h = { 0, i };
        /* a payload of little-endian words that look like ready stamps */
        uint32_t words[SHM_INLINE_MAX / 4];
        for (size_t w = 0; w < sizeof words / 4; w++)
            words[w] = (uint32_t)(head + w + 1);
        size_t len = (i * 37u) % (SHM_INLINE_MAX - sizeof h + 1);
        struct iovec iov = { words, len };
        cr_assert_null(shm_q_peek(q, head));
        cr_assert_eq(shm_q_send_inline(q, &hc, 0, &h, sizeof h, &iov, 1, &wake), 0);
        /* room while tail - head < 8 - SHM_CELL_MAXN */
        if (shm_cells_for(sizeof h + len) >= 8 - SHM_CELL_MAXN)
            cr_assert_eq(shm_q_send_inline(q, &hc, 0, &h, sizeof h, NULL, 0, &wake), -EAGAIN);
        else {
            /* room for a second one; take it back out below */
            cr_assert_eq(shm_q_send_inline(q, &hc, 0, &h, sizeof h, NULL, 0, &wake), 0);
        }
        shm_cell *c = shm_q_peek(q, head);
        cr_assert_not_null(c);
        memcpy(&h, c->data, sizeof h);
        cr_assert_eq(h.seq, i);
        cr_assert_eq(c->ilen, len);
        unsigned char buf[SHM_INLINE_MAX];
        const unsigned char *p = c->data + sizeof h;
        if (shm_cell_count(c) > 1) {
            shm_q_gather(q, head, c, buf);
            p = buf;
        }
        cr_assert_eq(memcmp(p, words, len), 0, "message %u corrupt", i);
        cells += shm_cell_count(c);
        shm_q_free(q, c, &head);
        if ((c = shm_q_peek(q, head)) != NULL) {
            cells += shm_cell_count(c);
            shm_q_free(q, c, &head);
        }
        cr_assert_null(shm_q_peek(q, head));
    }
    cr_assert_eq(head, cells);
    cr_assert_gt(cells / 8, 20000, "laps");
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
    shm_q_free(q, shm_q_peek(q, head), &head);
    cr_assert_eq(shm_q_arm(q, head), 0);
    /* claimed but not yet published: arm must still refuse */
    shm_cell *c = shm_q_claim(q, &hc, 1, &t, &wake);
    cr_assert_not_null(c);
    cr_assert_eq(wake, 1, "producer must learn the consumer sleeps");
    shm_q_disarm(q);
    cr_assert_neq(shm_q_arm(q, head), 0);
    shm_q_disarm(q);
    shm_cell_fill(q, t, 0, &h, sizeof h, NULL, 0, 0);
    shm_q_publish(c, t);
    cr_assert_eq(shm_q_send_inline(q, &hc, 0, &h, sizeof h, NULL, 0, &wake), 0);
    cr_assert_eq(wake, 0, "no wake after disarm");
    cr_assert_eq(atomic_load(&q->tail) >> 1, 3);
}
