/*
 * test_shm.c — the whole shared-memory channel (shmmod/) across forked
 * processes: segment set-up through a stand-in PMI (put/get/barrier in an
 * anonymous shared mapping), inline/bulk/control packets, ordering, replies
 * sent from inside the packet handler, CMA reads, sleep and wake-up, and that
 * nothing is left in /dev/shm.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "mpid/channel.h"
#include "shmmod/shm_internal.h"
#include "src/util/pmi.h"

/* ---- stand-in PMI over a shared mapping --------------------------------- */
#define KV_MAX 16
struct fake_pmi {
    _Atomic int lock;
    int nkv;
    char key[KV_MAX][CU_PMI_KEYLEN_MAX], val[KV_MAX][CU_PMI_VALLEN_MAX];
    _Atomic int bar_count, bar_gen, size;
    _Atomic int barriers[64];       /* barrier calls per rank */
    _Atomic long results[64];       /* per-rank numbers reported to the parent */
};
static struct fake_pmi *pmi;
static int my_rank;

int cu_pmi_put(const char *key, const char *value)
{
    while (atomic_exchange(&pmi->lock, 1))
        ;
    snprintf(pmi->key[pmi->nkv], CU_PMI_KEYLEN_MAX, "%s", key);
    snprintf(pmi->val[pmi->nkv], CU_PMI_VALLEN_MAX, "%s", value);
    pmi->nkv++;
    atomic_store(&pmi->lock, 0);
    return 0;
}

int cu_pmi_get(const char *key, char *value, size_t len)
{
    for (int i = 0; i < pmi->nkv; i++)
        if (!strcmp(pmi->key[i], key)) {
            snprintf(value, len, "%s", pmi->val[i]);
            return 0;
        }
    return -1;
}

int cu_pmi_barrier(void)
{
    atomic_fetch_add(&pmi->barriers[my_rank], 1);
    int gen = atomic_load(&pmi->bar_gen);
    if (atomic_fetch_add(&pmi->bar_count, 1) + 1 == atomic_load(&pmi->size)) {
        atomic_store(&pmi->bar_count, 0);
        atomic_fetch_add(&pmi->bar_gen, 1);
    } else {
        time_t t0 = time(NULL);
        while (atomic_load(&pmi->bar_gen) == gen) {
            sched_yield();
            if (time(NULL) - t0 > 20)
                return -1;
        }
    }
    return 0;
}

/* ---- harness ------------------------------------------------------------ */
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: %s:%d: ", my_rank, __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); _exit(1); } } while (0)

static void (*on_packet)(int src, const void *hdr, size_t hdrlen, const void *p, size_t len);

void mpid_on_packet(int src, const void *hdr, size_t hdrlen, const void *payload, size_t len)
{
    on_packet(src, hdr, hdrlen, payload, len);
}

/* The channel alone: nothing is kept, every payload is handled in place. */
int mpid_on_packet_lent(int src, const void *hdr, size_t hdrlen, const void *payload, size_t len)
{
    on_packet(src, hdr, hdrlen, payload, len);
    return 0;
}

static int node_of[64], local_ranks[64];
static char job[32];
static const mpid_channel *ch = &mpid_channel_shm;

/* Start size ranks, nodes as given by nodes[] (NULL: all on node 0), each
 * running body(); the parent waits and checks every exit status. */
static void run_ranks(int size, const int *nodes, void (*body)(const mpid_chan_info *))
{
    pmi = mmap(NULL, sizeof *pmi, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert(pmi != MAP_FAILED);
    atomic_store(&pmi->size, size);
    snprintf(job, sizeof job, "ut%d", (int)getpid());
    pid_t pids[64];
    for (int r = 0; r < size; r++) {
        pids[r] = fork();
        cr_assert(pids[r] >= 0);
        if (pids[r])
            continue;
        prctl(PR_SET_PDEATHSIG, SIGKILL);   /* no orphans if the test is killed */
        my_rank = r;
        for (int i = 0; i < size; i++)
            node_of[i] = nodes ? nodes[i] : 0;
        mpid_chan_info info = { .world_rank = r, .world_size = size, .node = node_of[r],
                                .node_of = node_of, .local_ranks = local_ranks, .job_id = job };
        for (int i = 0; i < size; i++) {
            if (node_of[i] != node_of[r])
                continue;
            if (i == r)
                info.local_rank = info.local_size;
            local_ranks[info.local_size++] = i;
        }
        CHECK(ch->init(&info) == 0, "init failed");
        body(&info);
        CHECK(ch->finalize() == 0, "finalize failed");
        _exit(0);
    }
    for (int left = size; left > 0; left--) {
        int st;
        pid_t w = waitpid(-1, &st, 0);
        cr_assert(w > 0);
        int r = 0;
        while (r < size && pids[r] != w)
            r++;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            for (int k = 0; k < size; k++)   /* the others may wait for it forever */
                if (k != r)
                    kill(pids[k], SIGKILL);
            cr_assert_fail("rank %d failed (status %#x)", r, st);
        }
    }
    for (int r = 1; r < size; r++)
        cr_assert_eq(atomic_load(&pmi->barriers[r]), atomic_load(&pmi->barriers[0]),
                     "ranks made different numbers of PMI barriers");
    /* the segment was unlinked: nothing of this job is left in /dev/shm */
    char prefix[64];
    snprintf(prefix, sizeof prefix, "clumpi-%s-", job);
    DIR *d = opendir("/dev/shm");
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            cr_assert(strncmp(e->d_name, prefix, strlen(prefix)), "left behind: %s", e->d_name);
        closedir(d);
    }
}

static void send_retry(int dest, const void *hdr, size_t hdrlen, const struct iovec *iov,
                       int iovcnt, unsigned flags)
{
    int rc;
    while ((rc = ch->send(dest, hdr, hdrlen, iov, iovcnt, flags)) == -EAGAIN)
        ch->progress(16);
    CHECK(rc == 0, "send to %d failed: %d", dest, rc);
}

/* ---- ping-pong: echo from inside the handler, all sizes ----------------- */
typedef struct { uint32_t seq, size, ctrl; char pad[20]; } pp_hdr;   /* 32 bytes, like the device's */
static volatile int pp_got;
static pp_hdr pp_last;
static unsigned char pp_buf[SHM_FRAG_SIZE];

static unsigned char pat(uint32_t seq, size_t i) { return (unsigned char)(seq * 131u + i * 7u + 1); }

static void pp_echo(int src, const void *hdr, size_t hdrlen, const void *p, size_t len)
{
    CHECK(hdrlen == sizeof(pp_hdr), "hdrlen %zu", hdrlen);
    memcpy(&pp_last, hdr, sizeof pp_last);
    CHECK(len == pp_last.size, "len %zu != %u", len, pp_last.size);
    /* reply from the handler, as the device does with a CTS */
    struct iovec iov = { (void *)p, len };
    int rc = ch->send(src, hdr, hdrlen, &iov, 1, pp_last.ctrl ? MPID_CH_CTRL : 0);
    CHECK(rc == 0, "reply failed: %d", rc);
    /* a nested progress call from a handler must not deliver (or break) */
    CHECK(ch->progress(16) == 0, "nested progress delivered");
    pp_got++;
}

static void pp_check(int src, const void *hdr, size_t hdrlen, const void *p, size_t len)
{
    memcpy(&pp_last, hdr, sizeof pp_last);
    CHECK(len == pp_last.size, "len %zu != %u", len, pp_last.size);
    for (size_t i = 0; i < len; i++)
        CHECK(((const unsigned char *)p)[i] == pat(pp_last.seq, i), "corrupt byte %zu of %zu", i, len);
    pp_got++;
}

static void pingpong_body(const mpid_chan_info *info)
{
    /* 32-byte header: longer than a first unit (24), so every inline size spans
     * units; 204 fills nine (SHM_INLINE_MAX), 205 goes bulk */
    static const uint32_t sizes[] = { 0, 1, 8, 24, 25, 100, 204, 205, 4096, SHM_FRAG_SIZE - 1, SHM_FRAG_SIZE };
    int peer = 1 - info->world_rank;
    on_packet = info->world_rank ? pp_echo : pp_check;
    if (info->world_rank == 1) {
        while (pp_got < 3 * 11 * 50)
            ch->progress(8);
        return;
    }
    uint32_t seq = 0;
    for (int ctrl = 0; ctrl < 2; ctrl++)
        for (int rep = 0; rep < (ctrl ? 1 : 2); rep++)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
                for (int k = 0; k < 50; k++, seq++) {
                    pp_hdr h = { seq, sizes[s], (uint32_t)ctrl, { 0 } };
                    for (size_t i = 0; i < sizes[s]; i++)
                        pp_buf[i] = pat(seq, i);
                    /* two iovec pieces to exercise the gather */
                    struct iovec iov[2] = { { pp_buf, sizes[s] / 3 },
                                            { pp_buf + sizes[s] / 3, sizes[s] - sizes[s] / 3 } };
                    int before = pp_got;
                    send_retry(peer, &h, sizeof h, iov, 2, ctrl ? MPID_CH_CTRL : 0);
                    while (pp_got == before)
                        ch->progress(8);
                    CHECK(pp_last.seq == seq, "got seq %u want %u", pp_last.seq, seq);
                }
}

Test(shm, pingpong_all_sizes_and_handler_replies, .timeout = 60)
{
    run_ranks(2, NULL, pingpong_body);
}

/* ---- many senders to one: order per sender and queue, data intact ------- */
#define STORM_N 3000
static uint32_t storm_next[64][2];
static int storm_got;

static size_t storm_len(int src, uint32_t seq) { return (seq % 7 == 3) ? 1000 + (seq * 37 + (unsigned)src) % 20000 : (seq * 5 + (unsigned)src) % 240; }

static void storm_check(int src, const void *hdr, size_t hdrlen, const void *p, size_t len)
{
    uint32_t h[2];
    CHECK(hdrlen == sizeof h, "hdrlen");
    memcpy(h, hdr, sizeof h);
    uint32_t seq = h[0], q = h[1];
    CHECK(seq == storm_next[src][q], "from %d queue %u: seq %u, expected %u", src, q, seq, storm_next[src][q]);
    storm_next[src][q]++;
    CHECK(len == storm_len(src, seq), "len");
    for (size_t i = 0; i < len; i++)
        CHECK(((const unsigned char *)p)[i] == pat(seq + (uint32_t)src, i), "corrupt");
    storm_got++;
}

static void storm_body(const mpid_chan_info *info)
{
    static unsigned char buf[SHM_FRAG_SIZE];
    on_packet = storm_check;
    int me = info->world_rank, size = info->local_size;
    if (size == 1) {     /* alone on its node: nothing to reach over shm */
        CHECK(ch->progress(8) == 0, "progress");
        CHECK(ch->arm_sleep() == 0, "arm");
        ch->sleep(1000);
        ch->disarm_sleep();
        return;
    }
    if (me == 0) {
        while (storm_got < (size - 1) * STORM_N) {
            if (!ch->progress(32))
                sched_yield();
        }
        CHECK(ch->progress(32) == 0, "extra packets");
        return;
    }
    for (uint32_t seq = 0, n[2] = { 0, 0 }; seq < STORM_N; seq++) {
        uint32_t q = (seq % 5 == 1);   /* some on the control queue */
        uint32_t h[2] = { n[q]++, q };
        /* sequence numbers count per queue: the two queues are separate orders */
        size_t len = storm_len(me, h[0]);
        for (size_t i = 0; i < len; i++)
            buf[i] = pat(h[0] + (uint32_t)me, i);
        struct iovec iov = { buf, len };
        int rc;
        while ((rc = ch->send(0, h, sizeof h, &iov, 1, q ? MPID_CH_CTRL : 0)) == -EAGAIN)
            sched_yield();
        CHECK(rc == 0, "send: %d", rc);
    }
}

Test(shm, storm_many_senders_one_receiver, .timeout = 120)
{
    run_ranks(6, NULL, storm_body);
}

/* Two nodes, one of them with a single rank: same barriers, no segment for
 * the lone rank, traffic on the other node works. */
Test(shm, lone_rank_on_a_node, .timeout = 60)
{
    static const int nodes[] = { 0, 0, 0, 1 };
    run_ranks(4, nodes, storm_body);
}

/* ---- CMA: rank 1 reads a scattered buffer of rank 0 --------------------- */
#define RMA_LEN (3u << 20)
static struct { uintptr_t addr; } rma_info;
static volatile int rma_flag;

static void rma_on(int src, const void *hdr, size_t hdrlen, const void *p, size_t len)
{
    memcpy(&rma_info, hdr, sizeof rma_info);
    rma_flag++;
}

static void rma_body(const mpid_chan_info *info)
{
    on_packet = rma_on;
    int me = info->world_rank;
    unsigned char *buf = malloc(RMA_LEN);
    CHECK(buf, "malloc");
    if (me == 0) {
        for (size_t i = 0; i < RMA_LEN; i++)
            buf[i] = pat(7, i);
        rma_info.addr = (uintptr_t)buf;
        send_retry(1, &rma_info, sizeof rma_info, NULL, 0, 0);
        while (!rma_flag)          /* "FIN" */
            ch->progress(8);
    } else {
        while (!rma_flag)
            ch->progress(8);
        memset(buf, 0, RMA_LEN);
        /* remote in 3 pieces, local in 2 of other sizes: pieces do not line up */
        unsigned char *r = (unsigned char *)rma_info.addr;
        struct iovec rem[3] = { { r, 1000 }, { r + 1000, RMA_LEN / 2 }, { r + 1000 + RMA_LEN / 2, RMA_LEN / 2 - 1000 } };
        struct iovec loc[2] = { { buf, 12345 }, { buf + 12345, RMA_LEN - 12345 } };
        ssize_t n = ch->copy->read(0, loc, 2, rem, 3);
        if (getenv("CLUMPI_SHM_CMA") && !strcmp(getenv("CLUMPI_SHM_CMA"), "0")) {
            CHECK(n == -ENOTSUP, "CMA disabled but rma_read returned %zd", n);
        } else if (n == -EPERM || n == -ENOTSUP) {
            fprintf(stderr, "note: the kernel refuses process_vm_readv here (%zd)\n", n);
        } else {
            CHECK(n == (ssize_t)RMA_LEN, "rma_read returned %zd", n);
            for (size_t i = 0; i < RMA_LEN; i++)
                CHECK(buf[i] == pat(7, i), "byte %zu", i);
        }
        send_retry(0, &rma_info, sizeof rma_info, NULL, 0, MPID_CH_CTRL);
    }
    free(buf);
}

Test(shm, rma_read_scattered, .timeout = 60)
{
    unsetenv("CLUMPI_SHM_CMA");
    run_ranks(2, NULL, rma_body);
}

Test(shm, rma_read_disabled, .timeout = 60)
{
    setenv("CLUMPI_SHM_CMA", "0", 1);
    run_ranks(2, NULL, rma_body);
    unsetenv("CLUMPI_SHM_CMA");
}

/* ---- sleep: a blocked receiver is woken by a send, not by the timeout ---- */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile int wake_got;
static void wake_on(int src, const void *hdr, size_t hdrlen, const void *p, size_t len) { wake_got++; }

static void sleep_body(const mpid_chan_info *info)
{
    on_packet = wake_on;
    int me = info->world_rank;
    for (int round = 0; round < 5; round++) {
        if (me == 0) {
            double t0 = now();
            int before = wake_got;
            while (wake_got == before) {
                if (ch->progress(8))
                    continue;
                if (!ch->arm_sleep())
                    ch->sleep(5000000);   /* 5 s: a missed wake-up fails below */
                ch->disarm_sleep();
            }
            CHECK(now() - t0 < 2.0, "round %d: woke only after %.2f s", round, now() - t0);
            send_retry(1, &round, sizeof round, NULL, 0, MPID_CH_CTRL);
        } else {
            usleep(20000);    /* let rank 0 block */
            send_retry(0, &round, sizeof round, NULL, 0, round & 1 ? MPID_CH_CTRL : 0);
            while (wake_got == round)
                ch->progress(8);
        }
    }
}

Test(shm, sleep_and_wake, .timeout = 60)
{
    run_ranks(2, NULL, sleep_body);
}

/* ---- 8 ranks pass a token round a ring, blocking while they wait: a lost
 * wake-up sleeps to the 3 s timeout and fails the check ------------------- */
#define RING_LAPS 200
static volatile int ring_got;
static void ring_on(int src, const void *hdr, size_t hdrlen, const void *p, size_t len) { ring_got++; }

static void ring_body(const mpid_chan_info *info)
{
    on_packet = ring_on;
    int me = info->world_rank, n = info->world_size;
    double t0 = now();
    for (int lap = 0; lap < RING_LAPS; lap++) {
        if (me == 0)
            send_retry(1, &lap, sizeof lap, NULL, 0, lap & 1 ? MPID_CH_CTRL : 0);
        while (ring_got == lap) {
            if (ch->progress(8))
                continue;
            if (!ch->arm_sleep()) {
                double s0 = now();
                ch->sleep(3000000);
                CHECK(now() - s0 < 2.5, "lap %d: slept to the timeout: a wake-up was lost", lap);
            }
            ch->disarm_sleep();
        }
        if (me != 0)
            send_retry((me + 1) % n, &lap, sizeof lap, NULL, 0, lap & 1 ? MPID_CH_CTRL : 0);
    }
    CHECK(now() - t0 < 10.0, "ring took %.2f s", now() - t0);
}

Test(shm, oversubscribed_ring_blocks_and_wakes, .timeout = 60)
{
    run_ranks(8, NULL, ring_body);
}
