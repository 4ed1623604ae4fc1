/*
 * shm.c — the intra-node shared-memory channel (mpid_channel_shm).
 *
 * Small packets (header + payload <= 24 bytes) travel inline in one 32-byte
 * unit of the receiver's queue (queue.h), two to a cache line, up to 236
 * bytes in up to 9 consecutive units; bigger ones up to max_payload go in
 * a bulk fragment of the sender's pool (bulk.c) that the unit points at;
 * rendezvous data moves with one process_vm_readv (cma.c). Control packets
 * have their own queue, drained first, so CTS/FIN always get through even when
 * the data queue is full.
 *
 * Tunables (CLUMPI_* environment variables, read at init):
 *   CLUMPI_SHM_QUEUE_CELLS  64-byte lines in each rank's data queue, two
 *                           32-byte units each (default 1024, rounded up to a
 *                           power of two, at least 9 x local ranks)
 *   CLUMPI_SHM_CTRL_CELLS   64-byte lines in each rank's control queue
 *                           (default 256, same rounding)
 *   CLUMPI_SHM_FRAGS        bulk fragments of SHM_FRAG_SIZE (32 KiB) in each
 *                           sender's pool (default 16: 512 KiB in flight)
 *   CLUMPI_SHM_CMA          1 (default) single-copy rendezvous with
 *                           process_vm_readv; 0 makes rma_read return -ENOTSUP
 *                           so the device pipelines fragments instead
 * The eager limit is max_payload = SHM_FRAG_SIZE, or SHM_EAGER_IDLE
 * (eager_idle_max) while every local rank has a core and single-copy reads
 * work.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "shmmod/shm_internal.h"
#include "src/util/log.h"
#include "src/util/param.h"

struct shm_state shm_st;

static uint32_t pow2_at_least(long x, uint32_t min)
{
    uint32_t n = 2;
    if (x < (long)min)
        x = min;
    if (x > (1L << 24))
        x = 1L << 24;
    while (n < (uint32_t)x)
        n <<= 1;
    return n;
}

/* With Yama ptrace_scope=1 (Ubuntu's default) only an ancestor may use
 * process_vm_readv on us; local peers are siblings. Let them, as Open MPI
 * does: same-user processes could ptrace us anyway without Yama. */
static void shm_allow_cma(void)
{
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    int scope = 0;
    if (!f)
        return;
    if (fscanf(f, "%d", &scope) != 1)
        scope = 0;
    fclose(f);
    if (scope == 1)
        prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
}

/*
 * Sleeping with network peers too. A rank that also waits on the network
 * polls the CQ's wait fd, which a futex wake cannot interrupt; napping in
 * bounded slices instead costs up to the nap (200 us) per shm message to a
 * sleeping rank and a wakeup every nap while idle. So such a rank has an
 * eventfd, and each local peer takes a copy of it at init with pidfd_open +
 * pidfd_getfd (the ptrace-attach permission CMA needs too). The sleep word
 * tells the waker how its target sleeps: SHM_SLEEP_FUTEX (futex wait) or
 * SHM_SLEEP_FD (in poll with the eventfd); the waker's exchange of the word
 * picks one wake, still only when the queue's sleep bit was set. A peer
 * that cannot get the copy marks efd_bad and the owner keeps the bounded
 * nap: peers finish this before the network channel's init returns (its
 * address exchange is collective), before anyone sleeps.
 */
#define SHM_SLEEP_FUTEX 1u
#define SHM_SLEEP_FD    2u

static void shm_efd_open(const mpid_chan_info *info)
{
    shm_st.efd = -1;
    for (int i = 0; i < info->world_size; i++)
        if (info->node_of[i] != info->node) {
            shm_st.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
            break;
        }
}

/* After the segment's barriers: every peer's pid and eventfd number are
 * published. */
static void shm_efd_connect(void)
{
    for (int r = 0; r < shm_st.local_size; r++) {
        shm_peer *p = &shm_st.peers[r];
        p->efd = -1;
        int32_t n = atomic_load(&p->blk->efd);
        if (r == shm_st.local_rank || n <= 0)
            continue;
        int pfd = (int)syscall(SYS_pidfd_open, (pid_t)atomic_load(&p->blk->pid), 0);
        if (pfd >= 0) {
            p->efd = (int)syscall(SYS_pidfd_getfd, pfd, n - 1, 0);
            close(pfd);
        }
        if (p->efd < 0) {
            cu_debug("shm: no eventfd of local rank %d (%s): it naps instead", r,
                     strerror(errno));
            atomic_store(&p->blk->efd_bad, 1);
        }
    }
}

static void shm_efd_close(void)
{
    for (int r = 0; shm_st.peers && r < shm_st.local_size; r++)
        if (shm_st.peers[r].efd >= 0) {
            close(shm_st.peers[r].efd);
            shm_st.peers[r].efd = -1;
        }
    if (shm_st.efd >= 0)
        close(shm_st.efd);
    shm_st.efd = -1;
}

static int shm_init(const mpid_chan_info *info)
{
    memset(&shm_st, 0, sizeof shm_st);
    shm_st.efd = -1;
    shm_st.world_rank = info->world_rank;
    shm_st.world_size = info->world_size;
    shm_st.local_rank = info->local_rank;
    shm_st.local_size = info->local_size;
    shm_st.local_of = malloc(sizeof(int) * (size_t)info->world_size);
    shm_st.peers = calloc((size_t)(info->local_size > 0 ? info->local_size : 1), sizeof(shm_peer));
    if (!shm_st.local_of || !shm_st.peers) {
        free(shm_st.local_of);
        free(shm_st.peers);
        return -ENOMEM;
    }
    for (int i = 0; i < info->world_size; i++)
        shm_st.local_of[i] = -1;
    for (int i = 0; i < info->local_size; i++)
        shm_st.peers[i].efd = -1;
    for (int i = 0; i < info->local_size; i++)
        shm_st.local_of[info->local_ranks[i]] = i;

    uint32_t nlocal = (uint32_t)info->local_size;
    /* the params count 64-byte lines, two queue units each; a queue keeps
     * SHM_CLAIM_MAX units per producer in reserve: make that at most half */
    uint32_t nunits = 2 * pow2_at_least(cu_param_int("SHM_QUEUE_CELLS"), SHM_CLAIM_MAX * nlocal);
    uint32_t nctrl = 2 * pow2_at_least(cu_param_int("SHM_CTRL_CELLS"), SHM_CLAIM_MAX * nlocal);
    long frags_wanted = cu_param_int("SHM_FRAGS");
    uint32_t nfrags = (uint32_t)(frags_wanted < 2 ? 2 : frags_wanted > 1024 ? 1024 : frags_wanted);
    shm_st.cma = cu_param_int("SHM_CMA") ? 1 : 0;
    shm_st.lend_max = nlocal > 1 && nfrags > SHM_LEND_SPARE
                          ? (nfrags - SHM_LEND_SPARE) / (nlocal - 1) : 0;

    if (info->local_size > 1)
        shm_efd_open(info);
    if ((shm_st.cma || shm_st.efd >= 0) && info->local_size > 1)
        shm_allow_cma();

    int rc = shm_segment_setup(info, nunits, nctrl, nfrags);
    if (rc) {
        shm_efd_close();
        free(shm_st.local_of);
        free(shm_st.peers);
        shm_st.local_of = NULL;
        shm_st.peers = NULL;
        return rc < 0 ? rc : -EIO;
    }
    if (shm_st.base)
        shm_efd_connect();
    else
        shm_efd_close();
    if (shm_st.base)
        cu_debug("shm: segment of %zu KiB, %d local ranks, %u+%u units, %u x %u KiB fragments",
                 shm_st.size >> 10, shm_st.local_size, nunits, nctrl, nfrags, SHM_FRAG_SIZE >> 10);
    return 0;
}

static int shm_finalize(void)
{
    shm_efd_close();
    shm_segment_teardown();
    free(shm_st.local_of);
    free(shm_st.peers);
    shm_st.local_of = NULL;
    shm_st.peers = NULL;
    return 0;
}

/* Wakes the sleeper whose sleep word is *word (its eventfd: efd) */
static void wake_sleeper(_Atomic uint32_t *word, int efd)
{
    /* only the first waker pays for the syscall */
    if (!atomic_load_explicit(word, memory_order_relaxed))
        return;
    uint32_t how = atomic_exchange(word, 0);
    if (how == SHM_SLEEP_FD && efd >= 0) {
        uint64_t one = 1;
        if (write(efd, &one, sizeof one) < 0) {
            /* EAGAIN only: the counter is already non-zero, it wakes */
        }
    } else if (how) {
        syscall(SYS_futex, word, FUTEX_WAKE, 1, NULL, NULL, 0);
    }
}

static void shm_wake(shm_peer *p)
{
    wake_sleeper(&p->blk->futex, p->efd);
}

/* A local peer waiting on a store into a node area, or ourselves (another
 * thread of this process blocked in sleep(), with our own eventfd). */
static void shm_wake_rank(int dest)
{
    int l = shm_st.local_of && dest >= 0 && dest < shm_st.world_size ? shm_st.local_of[dest] : -1;
    if (l >= 0 && l != shm_st.local_rank)
        shm_wake(&shm_st.peers[l]);
    else if (l >= 0 && shm_st.me)
        wake_sleeper(&shm_st.me->futex, shm_st.efd);
}

/* HOT PATH: every send to a local peer. The device guarantees what is not
 * checked here: the channel is up, dest is a world rank on this node (its
 * route), hdrlen <= MPID_HDR_MAX and the payload is at most max_payload
 * (the eager limit and the DATA packets' size). 0, or -EAGAIN when the
 * queue or the pool has no room. */
static int shm_send(int dest, const void *hdr, size_t hdrlen,
                    const struct iovec *iov, int iovcnt, unsigned flags)
{
    shm_peer *p = &shm_st.peers[shm_st.local_of[dest]];
    shm_queue *q = (flags & MPID_CH_CTRL) ? p->ctrl : p->data;
    uint64_t *hc = (flags & MPID_CH_CTRL) ? &p->ctrl_head : &p->data_head;
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;

    uint64_t t;
    int wake;
    shm_unit *u;
    if (hdrlen + len <= SHM_INLINE_MAX) {
        u = shm_q_claim(q, hc, shm_units_for(hdrlen + len), &t, &wake);
        if (!u)
            return -EAGAIN;
        shm_unit_fill(q, t, (uint16_t)shm_st.local_rank, hdr, hdrlen, iov, iovcnt, len);
    } else {
        shm_pool *pool = shm_st.my_pool;
        /* cheap checks first so a full queue does not cost a copy; the copy
         * happens before the ticket, so the receiver never waits on it */
        if (!shm_q_room(q, hc))
            return -EAGAIN;
        int f = shm_pool_alloc(pool);
        if (f < 0)
            return f == -2 && (flags & MPID_CH_NOBUFS) ? -ENOBUFS : -EAGAIN;
        shm_pool_copyin(pool, f, iov, iovcnt);
        u = shm_q_claim(q, hc, shm_units_for(hdrlen + sizeof(shm_bulk_ref)), &t, &wake);
        if (!u) {
            shm_pool_free(pool, (uint32_t)f);
            return -EAGAIN;
        }
        shm_bulk_ref ref = { (uint32_t)len, (uint32_t)f };
        struct iovec riov = { &ref, sizeof ref };
        shm_unit_fill(q, t, (uint16_t)shm_st.local_rank, hdr, hdrlen, &riov, 1, sizeof ref);
        u->ilen = SHM_UNIT_BULK;
    }
    shm_q_publish(u, t);
    if (__builtin_expect(wake, 0))
        shm_wake(p);
    return 0;
}

/* A packet whose payload is in a fragment of p's pool. Lending: the device
 * may keep the payload of an unexpected message where it is (no copy, no
 * allocation) until give_back. A sender streaming messages that nobody has
 * asked for yet then runs out of fragments, and its sends go by
 * rendezvous (MPID_CH_NOBUFS), which waits for the receiver: the stream
 * slows to the receiver's pace, where copying every message out let it run
 * ahead without bound. Only while single copy works (the rendezvous must
 * not need fragments), each receiver holds at most lend_max of one
 * sender's fragments, so SHM_LEND_SPARE always circulate, and only
 * payloads of SHM_LEND_MIN bytes or more: a smaller one is copied out
 * faster than a rendezvous can go. */
static void on_bulk(shm_peer *p, const unsigned char *hdr, size_t hdrlen, shm_bulk_ref ref)
{
    const unsigned char *payload = shm_pool_frag(&p->pool, ref.frag);
    if (ref.len < SHM_LEND_MIN || p->lent >= shm_st.lend_max || shm_st.cma <= 0) {
        mpid_on_packet(p->world, hdr, hdrlen, payload, ref.len);
    } else {
        /* marked before the upcall: a give_back from inside it then frees it */
        atomic_store_explicit(&p->pool.busy[ref.frag], SHM_FRAG_LENT, memory_order_relaxed);
        p->lent++;
        if (mpid_on_packet_lent(p->world, hdr, hdrlen, payload, ref.len))
            return;
        p->lent--;
    }
    shm_pool_free(&p->pool, ref.frag);
}

static void shm_give_back(int src, const void *payload)
{
    shm_peer *p = &shm_st.peers[shm_st.local_of[src]];
    size_t frag = (size_t)((const unsigned char *)payload - p->pool.frags) / p->pool.fragsize;
    p->lent--;
    shm_pool_free(&p->pool, (uint32_t)frag);
}

/* HOT PATH: deliver up to budget packets of one queue in place, and free
 * their units for the producers at once at the end. */
static int drain(shm_queue *q, uint64_t *head, int budget)
{
    int n = 0;
    shm_unit *u;
    while (n < budget && (u = shm_q_peek(q, head)) != NULL) {
        uint32_t src = u->src;
        if (__builtin_expect(src >= (uint32_t)shm_st.local_size, 0))
            cu_fatal("shm: corrupt unit from local rank %u", src);
        shm_peer *p = &shm_st.peers[src];
        if (__builtin_expect((size_t)u->hdrlen + u->ilen <= SHM_UNIT_DATA, 1)) {
            mpid_on_packet(p->world, u->data, u->hdrlen, u->data + u->hdrlen, u->ilen);
        } else {
            /* spans units: header and payload (or bulk ref) gathered around
             * their seq words, so the handler sees contiguous bytes */
            const unsigned char *b = shm_q_contig(q, *head, u, shm_st.bounce);
            if (u->ilen != SHM_UNIT_BULK) {
                mpid_on_packet(p->world, b, u->hdrlen, b + u->hdrlen, u->ilen);
            } else {
                shm_bulk_ref ref;
                memcpy(&ref, b + u->hdrlen, sizeof ref);
                on_bulk(p, b, u->hdrlen, ref);
            }
        }
        shm_q_consume(u, head);
        n++;
    }
    if (n)
        shm_q_release(q, *head);
    return n;
}

static int shm_progress(int budget)
{
    /* A handler may send (a CTS reply): that only touches peers' queues. A
     * nested progress call would see our head unit still in use, so it
     * delivers nothing. */
    if (!shm_st.base || shm_st.in_progress)
        return 0;
    /* Most polls find nothing: a look at both head units, no drain. */
    if (!shm_q_peek(shm_st.my_ctrl, &shm_st.ctrl_head) &&
        !shm_q_peek(shm_st.my_data, &shm_st.data_head))
        return 0;
    shm_st.in_progress = 1;
    int n = drain(shm_st.my_ctrl, &shm_st.ctrl_head, budget);
    if (n < budget)
        n += drain(shm_st.my_data, &shm_st.data_head, budget - n);
    shm_st.in_progress = 0;
    return n;
}

/* The pid of world rank `world` for a single copy, or a negative errno:
 * the kernel's refusal once seen, -ENOTSUP with single copy off, -EINVAL
 * for a rank not on this node. */
static pid_t cma_peer(int world)
{
    if (shm_st.cma <= 0)
        return shm_st.cma < 0 ? shm_st.cma : -ENOTSUP;
    if ((unsigned)world >= (unsigned)shm_st.world_size || !shm_st.base)
        return -EINVAL;
    int l = shm_st.local_of[world];
    if (l < 0)
        return -EINVAL;
    return atomic_load_explicit(&shm_st.peers[l].blk->pid, memory_order_relaxed);
}

/* The sender's half of a cooperative rendezvous copy: only once reads from
 * that peer worked (the device checks), so no refusal bookkeeping here. */
static ssize_t shm_rma_write(int dst, const struct iovec *local, int nlocal,
                             const struct iovec *remote, int nremote)
{
    pid_t pid = cma_peer(dst);
    return pid < 0 ? pid : shm_cma_write(pid, local, nlocal, remote, nremote);
}

static ssize_t shm_rma_read(int src, const struct iovec *local, int nlocal,
                            const struct iovec *remote, int nremote)
{
    pid_t pid = cma_peer(src);
    if (pid < 0)
        return pid;
    ssize_t n = shm_cma_read(pid, local, nlocal, remote, nremote);
    if (n == -EPERM || n == -ENOTSUP) {
        /* remember: the kernel will refuse every time */
        cu_debug("shm: process_vm_readv refused (%s); using fragments", strerror((int)-n));
        shm_st.cma = (int)n;
    }
    return n;
}

static void shm_disarm_sleep(void)
{
    if (!shm_st.base) {
        atomic_store(&shm_st.solo_futex, 0);
        return;
    }
    if (shm_st.efd_armed) {
        /* drain whatever a waker wrote (even late, after another wakeup),
         * else the next poll returns at once */
        uint64_t v;
        shm_st.efd_armed = 0;
        if (read(shm_st.efd, &v, sizeof v) < 0) {
            /* EAGAIN: nobody wrote */
        }
    }
    shm_q_disarm(shm_st.my_data);
    shm_q_disarm(shm_st.my_ctrl);
    atomic_store_explicit(&shm_st.me->futex, 0, memory_order_relaxed);
}

static int shm_arm_sleep(void)
{
    if (!shm_st.base) {
        atomic_store(&shm_st.solo_futex, 1);
        return 0;
    }
    /* futex word first: a producer that sees the tail bit must see it set */
    atomic_store(&shm_st.me->futex, SHM_SLEEP_FUTEX);
    int busy = shm_q_arm(shm_st.my_ctrl, shm_st.ctrl_head);
    busy |= shm_q_arm(shm_st.my_data, shm_st.data_head);
    if (busy) {
        shm_disarm_sleep();
        /* a ticket taken but not yet ready: its sender may be preempted
         * mid-send (oversubscribed node), give it the core */
        if (!shm_q_peek(shm_st.my_ctrl, &shm_st.ctrl_head) &&
            !shm_q_peek(shm_st.my_data, &shm_st.data_head))
            sched_yield();
        return 1;
    }
    return 0;
}

static void shm_sleep(long timeout_us)
{
    _Atomic uint32_t *w = shm_st.base ? &shm_st.me->futex : &shm_st.solo_futex;
    struct timespec ts, *tp = NULL;
    if (timeout_us >= 0) {
        ts.tv_sec = timeout_us / 1000000;
        ts.tv_nsec = (timeout_us % 1000000) * 1000;
        tp = &ts;
    }
    /* the segment's word is shared between processes: no FUTEX_PRIVATE */
    if (atomic_load(w) == SHM_SLEEP_FUTEX)
        syscall(SYS_futex, w, shm_st.base ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE, 1, tp, NULL, 0);
}

/* Called between arm_sleep and disarm_sleep by a rank that also waits on
 * the network: from now on wakers write the eventfd instead of the futex. */
static int shm_wait_fd(void)
{
    if (!shm_st.base || shm_st.efd < 0 || atomic_load_explicit(&shm_st.me->efd_bad,
                                                               memory_order_relaxed))
        return -1;
    uint32_t how = SHM_SLEEP_FUTEX;
    shm_st.efd_armed = 1;
    if (!atomic_compare_exchange_strong(&shm_st.me->futex, &how, SHM_SLEEP_FD)) {
        /* a waker took the word already and will FUTEX_WAKE, which poll
         * does not see: make the fd ready ourselves */
        uint64_t one = 1;
        if (write(shm_st.efd, &one, sizeof one) < 0) {
            /* EAGAIN: already ready */
        }
    }
    return shm_st.efd;
}

static const mpid_chan_copy shm_copy = { .read = shm_rma_read, .write = shm_rma_write };
static const mpid_chan_area shm_areas = {
    .make = shm_area_make, .serve = shm_area_serve, .drop = shm_area_drop,
    .fetch = shm_area_fetch, .unmap = shm_area_unmap
};

const mpid_channel mpid_channel_shm = {
    .name = "shm",
    .max_payload = SHM_FRAG_SIZE,
    .eager_idle_max = SHM_EAGER_IDLE,
    .init = shm_init,
    .finalize = shm_finalize,
    .send = shm_send,
    .progress = shm_progress,
    .give_back = shm_give_back,
    .arm_sleep = shm_arm_sleep,
    .sleep = shm_sleep,
    .disarm_sleep = shm_disarm_sleep,
    .wait_fd = shm_wait_fd,
    .wake = shm_wake_rank,
    .copy = &shm_copy,
    .area = &shm_areas,
};
