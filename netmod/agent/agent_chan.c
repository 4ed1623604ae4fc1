/*
 * agent_chan.c — the rank side of offload mode (mpid_channel_agent): ranks
 * never open the fabric; packets to other nodes go to the node's NI agent
 * through the command queue, packets from them come back through the
 * rank's completion queue (agent_ring.h).
 *
 * Two send paths, as Verstoep et al. §5.2: PIO (payloads up to
 * CLUMPI_AGENT_PIO_MAX bytes: the rank copies the packet into its tx slots
 * and is done) and DMA (the rank posts its buffer's addresses; the agent
 * pulls them with process_vm_readv). PIO is the default for every size
 * (AGT_MSG_MAX): here the "I/O bus" is a memcpy into shared memory, and a
 * DMA send that must free the buffer before it returns waits one agent
 * round trip (2 KiB ping-pong 17-19 us DMA vs 12-17 PIO, 64 KiB no
 * clear difference; Verstoep et al.'s 1 KiB crossover was its PCI bus's). A
 * device packet of up to AGT_MSG_MAX bytes leaves as up to AGT_FRAG_MAX
 * DATA packets (one PIO command or one DMA pull for all of them) and is
 * put together again here before the device sees it. A DMA send
 * "completes later" (Verstoep et al.): through send_later the rank posts up to
 * AGT_DMA_MAX of them and goes on, and progress reports each pull back to
 * the device (mpid_on_send_done) when the agent's dma_done count passes
 * it. Plain send() promises a free buffer on return, so there the DMA path
 * waits for its own pull (taking arrived packets aside meanwhile, so no
 * agent ever waits on a rank that waits on it). Rendezvous does not take
 * this path: one round trip to the agent per 2 KiB packet crawls under
 * load (each side waits for the other with sched_yield, ~2 ms per yield
 * next to other busy processes).
 * CLUMPI_AGENT_PIO_BW (MB/s) throttles PIO copies, to emulate a slow I/O
 * bus. Rendezvous messages do not come through here: the device reads
 * them by key through the agents' bulk path (agent_bulk_rank.c).
 *
 * Agent death: a rank blocked notices its socket close; a rank spinning
 * checks the socket every few thousand empty polls. Either ends the job.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "mpid/channel.h"
#include "netmod/agent/agent_chan.h"
#include "netmod/agent/agent_coll.h"
#include "netmod/agent/agent_hrel.h"
#include "netmod/agent/agent_launch.h"
#include "netmod/agent/agent_ring.h"
#include "src/util/biglock.h"
#include "src/util/clock.h"
#include "src/util/fdshare.h"
#include "src/util/log.h"
#include "src/util/param.h"
#include "src/util/pmi.h"

typedef struct stash { struct stash *next; uint32_t src, hdrlen, len, kind, more; char data[]; } stash;

/* A DATA message arriving in several packets (AGT_MSG_MAX), per source:
 * the device header and the payload so far. */
typedef struct reasm { size_t hdrlen, len; char data[AGT_HDR_MAX + AGT_MSG_MAX]; } reasm;

static struct {
    agt_seg_hdr *h;
    size_t size;
    int li, rank, node, sock, up, closing, in_progress, rx_hold;
    int hrel;                        /* CLUMPI_AGENT_REL=host (agent_hrel.c) */
    pid_t agent;                     /* first rank only */
    shm_queue *cmdq, *cq;
    agt_rank_blk *b;
    uint64_t cmd_hc, cq_head, tx_next, tx_freed, dma_posted, dma_seen, rx_taken;
    void *dma_ck[AGT_DMA_MAX];       /* send_later cookies by DMA number; &own_wait: a send()'s */
    size_t pio_max;
    double pio_ns_per_byte;
    unsigned idle;
    stash *sh, *st;
    reasm **frag;                    /* [world size], made on first use */
    int nworld;
    int (*progress)(void);           /* the device's, from init */
    int (*progress_until)(int (*)(void *), void *);
} R = { .sock = -1 };

static void agent_died(void)
{
    if (R.closing)
        return;
    char msg[256];
    snprintf(msg, sizeof msg,
             "the NI agent of node %d is gone (CLUMPI_NET=agent); ending the job", R.node);
    cu_pmi_abort(1, msg);
}

/* Nonzero if the agent closed our socket; swallows wake-up bytes. */
static int sock_drain(void)
{
    char b[64];
    for (;;) {
        ssize_t n = recv(R.sock, b, sizeof b, MSG_DONTWAIT);
        if (n == 0)
            return 1;
        if (n < 0)
            return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
    }
}

static void doorbell(void)
{
    char c = 1;
    mpid_cnt.agent_doorbells++;
    (void)!send(R.sock, &c, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

static int connect_agent(void)
{
    R.sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    size_t n = strlen(R.h->sock);
    memcpy(sa.sun_path + 1, R.h->sock, n);
    if (R.sock < 0 || connect(R.sock, (struct sockaddr *)&sa,
                              (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)))
        return -errno;
    int32_t li = R.li;
    if (write(R.sock, &li, sizeof li) != (ssize_t)sizeof li)
        return -EIO;
    /* The agent answers once it has accepted us: before that its wake-ups
     * would have nowhere to go (a rank asleep then waited for its timeout). */
    struct pollfd p = { .fd = R.sock, .events = POLLIN };
    char ok;
    if (poll(&p, 1, 30000) != 1 || recv(R.sock, &ok, 1, 0) != 1)
        return -ETIMEDOUT;
    return 0;
}

/* A node's first rank published "-" for its agent: the agent did not
 * start (or was never tried), and that rank said why; the others say
 * which one is missing rather than failing on its missing address. */
static int agent_missing(int node)
{
    cu_warn("agent: the NI agent of node %d did not start (its first rank says why)", node);
    return -ESRCH;
}

#define AGT_SERVE_MS 60000   /* the node's ranks fetch the segment right after the barrier */

static int agt_init(const mpid_chan_info *info)
{
    int err = 0, nnodes = 0;
    char key[64], val[CU_PMI_VALLEN_MAX] = "";
    int segfd = -1, served = 0;
    cu_fdshare share = { .lfd = -1 };
    memset(&R, 0, sizeof R);
    R.sock = -1;
    R.li = info->local_rank, R.rank = info->world_rank, R.node = info->node;
    R.nworld = info->world_size;
    R.progress = info->progress, R.progress_until = info->progress_until;
    const char *transport = cu_param_str("AGENT_TRANSPORT"), *rel = cu_param_str("AGENT_REL");
    int dgram = transport && !strcmp(transport, "dgram");
    R.hrel = rel && !strcmp(rel, "host");
    if (R.hrel && !dgram) {
        /* the reliable transport loses nothing: there is nothing to
         * retransmit. Every rank says so: mpirun ends the job when the
         * first one exits, which need not be rank 0. */
        cu_warn("CLUMPI_AGENT_REL=host needs CLUMPI_AGENT_TRANSPORT=dgram (over the "
                "reliable transport nothing is lost, so nothing is retransmitted)");
        return -EINVAL;
    }
    if (R.hrel && agt_hrel_init(info->world_size, info->world_rank))
        return -ENOMEM;
    if (!(R.frag = calloc((size_t)info->world_size, sizeof *R.frag)))
        return -ENOMEM;
    for (int r = 0; r < info->world_size; r++)
        if (info->node_of[r] + 1 > nnodes)
            nnodes = info->node_of[r] + 1;
    long pio_max = cu_param_int("AGENT_PIO_MAX");
    R.pio_max = pio_max < 0 ? AGT_MSG_MAX : (size_t)pio_max;
    long bw = cu_param_int("AGENT_PIO_BW");   /* MB/s; 0: unthrottled */
    R.pio_ns_per_byte = bw > 0 ? 1000.0 / (double)bw : 0;
    long mtu = cu_param_int("AGENT_MTU");
    if (info->local_rank == 0) {
        if (mtu < (long)AGT_MTU_DEF || mtu > 65536) {
            cu_warn("CLUMPI_AGENT_MTU=%ld: must be %u..65536 (packets of this build need %u)",
                    mtu, AGT_MTU_DEF, AGT_MTU_DEF);
            err = -EINVAL;
        }
        /* the bulk path's landing buffers (agent_bulk.c); 0 turns it off */
        long nbulk = cu_param_int("AGENT_BULK");
        long bchunk = cu_param_int("AGENT_BULK_CHUNK");
        if (nbulk < 0 || nbulk > 1024 || bchunk < 4096 || bchunk > (1L << 26)) {
            cu_warn("CLUMPI_AGENT_BULK=%ld / CLUMPI_AGENT_BULK_CHUNK=%ld: must be 0..1024 "
                    "buffers of 4096..%ld bytes", nbulk, bchunk, 1L << 26);
            err = -EINVAL;
        }
        /* over datagrams a chunk is one datagram (agent_rel.c numbers it);
         * cut to that, a node gets twice the landing buffers (and the agents
         * twice the chunks in flight, agent_bulk.c): a 1 MiB read is 17
         * chunks there against 4 */
        if (dgram && bchunk > AGT_BULK_DGRAM_MAX) {
            bchunk = AGT_BULK_DGRAM_MAX;
            nbulk = nbulk > 512 ? 1024 : 2 * nbulk;
        }
        /* REL=host: the agents would have to keep the chunks they send (the
         * rank never sees them), so rendezvous goes in DATA packets */
        if (R.hrel)
            nbulk = 0;
        agt_layout l = { .nlocal = (uint32_t)info->local_size, .nnodes = (uint32_t)nnodes,
                         .mtu = (uint32_t)mtu, .ncmd = 512, .ncq = 1024, .ntx = 64, .nrx = 64,
                         .nworld = (uint32_t)info->world_size, .nbulk = (uint32_t)nbulk,
                         .bulk_chunk = (uint32_t)(bchunk & ~63L) };
        if (!err)
            R.h = agt_seg_create(&l, &segfd, &err);
        if (R.h) {
            R.h->node = (uint32_t)info->node;
            for (int r = 0; r < info->world_size; r++)
                agt_nodes(R.h)[r] = (uint32_t)info->node_of[r];
            /* the agent's socket: abstract, a random name (it checks who connects) */
            uint64_t tok;
            if (getrandom(&tok, sizeof tok, 0) != (ssize_t)sizeof tok)
                err = -EIO;
            snprintf(R.h->sock, sizeof R.h->sock, "clumpi-agent-%016llx", (unsigned long long)tok);
            if (!err)
                err = cu_fdshare_open(&share);
            R.agent = err ? -1 : agt_spawn(segfd);
            /* CLUMPI_AGENT_START_TIMEOUT: seconds; an agent under valgrind
             * on a loaded machine can take longer than the default */
            long start_s = cu_param_int("AGENT_START_TIMEOUT");
            err = err ? err : R.agent < 0 ? (int)R.agent
                              : agt_wait_state(&R.h->state, AGT_ST_READY, R.agent,
                                               (start_s < 1 ? 1 : start_s) * 1000);
            if (err)
                cu_warn("agent: the NI agent of node %d did not start (%s)", info->node,
                        strerror(-err));
        }
        char text[CU_FDSHARE_KEYTEXT];
        cu_fdshare_key_text(&share.key, text);
        snprintf(key, sizeof key, "agt-%d", info->node);
        if (cu_pmi_put(key, err ? "-" : text))
            err = err ? err : -EIO;
        else
            served = !err;   /* the others fetch the segment as soon as they see the key */
        if (
            (snprintf(key, sizeof key, "agtaddr-%d", info->node),
             cu_pmi_put(key, err ? "-" : R.h->my_addr)) ||
            (snprintf(key, sizeof key, "agtbulk-%d", info->node),
             cu_pmi_put(key, err ? "-" : R.h->my_bulk_addr)))
            err = err ? err : -EIO;
    }
    if (cu_pmi_barrier() && !err)
        err = -EIO;
    if (!err && info->local_rank == 0) {
        for (int n = 0; n < nnodes && !err; n++) {
            for (int b = 0; b < 2 && !err && n != info->node; b++) {
                snprintf(key, sizeof key, b ? "agtbulk-%d" : "agtaddr-%d", n);
                if (cu_pmi_get(key, val, sizeof val))
                    err = -EIO;
                else if (val[0] == '-')
                    err = agent_missing(n);
                else if (strlen(val) >= AGT_ADDR_HEX)
                    err = -EPROTO;
                else
                    strcpy(b ? agt_bulk_addr(R.h, n) : agt_addr(R.h, n), val);
            }
        }
        if (!err)
            atomic_store_explicit(&R.h->state, AGT_ST_ADDRS, memory_order_release);
    } else if (!err) {
        cu_fdshare_key k;
        snprintf(key, sizeof key, "agt-%d", info->node);
        if (cu_pmi_get(key, val, sizeof val)) {
            err = -EIO;
        } else if (val[0] == '-') {
            err = agent_missing(info->node);
        } else if (cu_fdshare_key_parse(val, &k)) {
            err = -EPROTO;
        } else {
            int fd = cu_fdshare_fetch(&k, AGT_SERVE_MS);
            R.h = fd < 0 ? (err = fd, NULL) : agt_seg_attach(fd, &R.size, &err);
        }
    }
    if (served) {
        int rc = cu_fdshare_serve(&share, segfd, info->local_size - 1, AGT_SERVE_MS);
        if (rc && !err)
            err = rc;
    }
    /* the agent and the node's ranks hold it now: it has no name to leave behind */
    cu_fdshare_close(&share);
    if (segfd >= 0)
        close(segfd);
    if (R.h && !err) {
        R.size = R.h->size;
        R.b = agt_rank(R.h, R.li);
        R.b->pid = (int32_t)getpid();
        R.b->world_rank = (uint32_t)info->world_rank;
        R.cmdq = agt_cmdq(R.h, R.li);
        R.cq = agt_cq(R.h, R.li);
        prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);   /* the agent pulls DMA sends */
        err = connect_agent();
    }
    if (cu_pmi_barrier() && !err)
        err = -EIO;
    if (err) {
        if (R.hrel)
            agt_hrel_fini();
        return err;
    }
    R.up = 1;
    return 0;
}

static int agt_finalize(void)
{
    if (!R.up)
        return 0;
    /* the device's barrier is behind us: no packet still matters. Agents
     * stop treating a vanished peer as an error before any of them ends. */
    R.closing = 1;
    if (R.li == 0) {
        atomic_store_explicit(&R.h->state, AGT_ST_QUIESCE, memory_order_release);
        doorbell();
    }
    cu_pmi_barrier();
    if (R.li == 0) {
        atomic_store_explicit(&R.h->state, AGT_ST_QUIT, memory_order_release);
        doorbell();
        agt_stop(&R.h->state, R.agent);
    }
    close(R.sock);
    munmap(R.h, R.size);
    while (R.sh) {
        stash *s = R.sh;
        R.sh = s->next;
        free(s);
    }
    for (int i = 0; i < R.nworld; i++)
        free(R.frag[i]);
    free(R.frag);
    if (R.hrel) {
        if (cu_param_int("AGENT_STATS")) {
            agt_hrel_stats(R.rank);
            agt_coll_stats(R.rank);
        }
        agt_hrel_fini();
    }
    memset(&R, 0, sizeof R);
    R.sock = -1;
    return 0;
}

static void throttle(size_t bytes)
{
    if (R.pio_ns_per_byte <= 0)
        return;
    long long t0 = cu_now_ns();
    long long want = (long long)(R.pio_ns_per_byte * (double)bytes);
    do
        shm_cpu_relax();
    while (cu_now_ns() - t0 < want);
}

static int take_aside(void);
static int dma_status(uint64_t seq);

/* The cookie of a send() waiting for its own pull: progress's reaping
 * stops at it until that send has read its result, so no later DMA
 * command takes its place in dma_err meanwhile (under
 * MPI_THREAD_MULTIPLE other threads post and reap while it waits). */
static char own_wait;

static int pulled(void *seq)
{
    return atomic_load_explicit(&R.b->dma_done, memory_order_acquire) > *(uint64_t *)seq;
}

/* Post a DMA command. cookie != NULL (send_later): returns 1 at once, the
 * device hears of the pull from progress (dma_reap). NULL (send): waits for
 * the pull, the buffer is free on return. */
static int send_dma(int dest, const void *hdr, size_t hdrlen, const struct iovec *iov, int iovcnt,
                    size_t len, void *cookie)
{
    if (R.dma_posted - R.dma_seen >= AGT_DMA_MAX)
        return -EAGAIN;   /* progress reaps; the device retries */
    agt_cmd c = { .op = AGT_CMD_DMA, .hdrlen = (uint8_t)hdrlen, .niov = (uint8_t)iovcnt,
                  .dst = (uint32_t)dest, .len = (uint32_t)len };
    uint64_t pairs[2 * AGT_DMA_IOV];
    for (int i = 0; i < iovcnt; i++) {
        pairs[2 * i] = (uint64_t)(uintptr_t)iov[i].iov_base;
        pairs[2 * i + 1] = iov[i].iov_len;
    }
    struct iovec body[2] = { { (void *)hdr, hdrlen }, { pairs, 16 * (size_t)iovcnt } };
    int wake = 0;
    int rc = shm_q_send_inline(R.cmdq, &R.cmd_hc, 0, &c, sizeof c, body, 2, &wake);
    if (rc)
        return rc;
    if (wake)
        doorbell();
    uint64_t seq = R.dma_posted++;
    R.dma_ck[seq % AGT_DMA_MAX] = cookie ? cookie : &own_wait;
    mpid_cnt.agent_dma++;
    if (cookie)
        return 1;
    agt_chan_wait(pulled, &seq);
    int err = dma_status(seq);
    R.dma_ck[seq % AGT_DMA_MAX] = NULL;
    if (R.dma_seen == seq)
        R.dma_seen++;   /* nothing of send_later's before it: seen here */
    return err;
}

/* Result of pull seq (its dma_done already passed): 0 or -EIO, told once. */
static int dma_status(uint64_t seq)
{
    int err = atomic_load_explicit(&R.b->dma_err[seq % AGT_DMA_MAX], memory_order_relaxed);
    if (!err)
        return 0;
    cu_warn("agent: the NI agent could not read rank %d's send buffer: %s", R.rank,
            strerror(-err));
    return -EIO;
}

/* Pulls the agent finished: tell the device about the send_later ones, in
 * order (the agent pulls one rank's commands in order). */
static int dma_reap(void)
{
    uint64_t done = atomic_load_explicit(&R.b->dma_done, memory_order_acquire);
    int n = 0;
    for (; R.dma_seen < done; R.dma_seen++) {
        void *ck = R.dma_ck[R.dma_seen % AGT_DMA_MAX];
        if (ck == &own_wait)
            break;   /* its sender reads it first (send_dma) */
        if (ck) {
            mpid_on_send_done(ck, dma_status(R.dma_seen));
            n++;
        }
    }
    return n;
}

/* HOT PATH: the next n free PIO slots of this rank (consecutive, modulo
 * ntx; the first one's index in *k), or NULL while they are still with
 * the agent. */
static inline char *tx_take(uint32_t n, uint32_t *k)
{
    if (R.tx_next + n - R.tx_freed > R.h->ntx) {
        R.tx_freed = atomic_load_explicit(&R.b->tx_freed, memory_order_acquire);
        if (R.tx_next + n - R.tx_freed > R.h->ntx)
            return NULL;
    }
    *k = (uint32_t)(R.tx_next % R.h->ntx);
    return agt_txslot(R.h, R.li, *k);
}

/* HOT PATH: hands the n filled slots from k (bytes in all) to the agent as
 * one command op. */
static inline int tx_post(uint8_t op, uint32_t k, uint32_t n, size_t bytes)
{
    throttle(bytes);
    agt_cmd c = { .op = op, .slot = k, .len = n > 1 ? n : 0 };
    int wake = 0;
    int rc = shm_q_send_inline(R.cmdq, &R.cmd_hc, 0, &c, sizeof c, NULL, 0, &wake);
    if (rc)
        return rc;
    R.tx_next += n;
    if (wake)
        doorbell();
    return 0;
}

/* A gather list read from the front. */
typedef struct gcur { const struct iovec *iov; const char *src; size_t left; int i; } gcur;

/* HOT PATH: the next n bytes of g to p; returns p + n. */
static inline char *gather(gcur *g, char *p, size_t n)
{
    while (n) {
        while (!g->left) {
            g->i++;
            g->src = g->iov[g->i].iov_base;
            g->left = g->iov[g->i].iov_len;
        }
        size_t c = n < g->left ? n : g->left;
        memcpy(p, g->src, c);
        p += c, g->src += c, g->left -= c, n -= c;
    }
    return p;
}

/* REL=host: as send_pkt's PIO path, each packet's payload led by its
 * agt_hrel_hdr (it fits in the room a device header leaves in every
 * packet after the first) and kept until dest acknowledges it. */
static int send_pkt_host(int dest, const void *hdr, size_t hdrlen, const struct iovec *iov,
                         int iovcnt, size_t len)
{
    const size_t hh = sizeof(agt_hrel_hdr);
    size_t cap = R.h->mtu - sizeof(agt_wire) - hh;
    if (cap > UINT16_MAX - hh)
        cap = UINT16_MAX - hh;   /* agt_wire.len */
    size_t cap0 = cap - hdrlen;
    uint32_t nfrag = len <= cap0 ? 1 : 1 + (uint32_t)((len - cap0 + cap - 1) / cap), k;
    if (!agt_hrel_room(dest, nfrag) || !tx_take(nfrag, &k)) {
        mpid_cnt.agent_slot_waits++;
        return -EAGAIN;
    }
    gcur g = { iov, iovcnt ? iov[0].iov_base : NULL, iovcnt ? iov[0].iov_len : 0, 0 };
    size_t left = len;
    for (uint32_t f = 0; f < nfrag; f++) {
        char *p0 = agt_txslot(R.h, R.li, (k + f) % R.h->ntx), *p = p0;
        size_t hl = f ? 0 : hdrlen, fl = left < cap - hl ? left : cap - hl;
        agt_wire w = { .kind = AGT_K_DATA, .hdrlen = hl & 0x7f, .more = f + 1 < nfrag,
                       .len = (uint16_t)(hh + fl), .src = (uint32_t)R.rank,
                       .dst = (uint32_t)dest };
        agt_hrel_hdr h = agt_hrel_next(dest, 0);
        memcpy(p, &w, sizeof w);
        p += sizeof w;
        memcpy(p, hdr, hl);
        p += hl;
        memcpy(p, &h, hh);
        p = gather(&g, p + hh, fl);
        left -= fl;
        agt_hrel_keep(dest, p0, (size_t)(p - p0));
    }
    int rc = tx_post(AGT_CMD_PIO, k, nfrag, nfrag * (sizeof(agt_wire) + hh) + hdrlen + len);
    if (rc) {
        agt_hrel_unkeep(dest, nfrag);
        return rc;
    }
    agt_hrel_posted(dest);
    mpid_cnt.agent_pio++;
    mpid_cnt.agent_pio_slots += nfrag;
    return 0;
}

/* HOT PATH: every packet to another node. cookie: see send_dma. */
static int send_pkt(int dest, const void *hdr, size_t hdrlen, const struct iovec *iov, int iovcnt,
                    void *cookie)
{
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (__builtin_expect(hdrlen > AGT_HDR_MAX || len > AGT_MSG_MAX, 0))
        return -EMSGSIZE;
    if (R.hrel)   /* every send a PIO copy: the rank keeps it (agent_hrel.c) */
        return send_pkt_host(dest, hdr, hdrlen, iov, iovcnt, len);
    if (len > R.pio_max && iovcnt <= AGT_DMA_IOV)
        return send_dma(dest, hdr, hdrlen, iov, iovcnt, len, cookie);
    size_t fp = agt_frag_payload(R.h->mtu);
    uint32_t nfrag = len ? (uint32_t)((len + fp - 1) / fp) : 1, k;
    if (!tx_take(nfrag, &k)) {
        mpid_cnt.agent_slot_waits++;
        return -EAGAIN;
    }
    /* packet f: the wire header, the device header (first only), then
     * the next fp bytes of the gather list */
    gcur g = { iov, iovcnt ? iov[0].iov_base : NULL, iovcnt ? iov[0].iov_len : 0, 0 };
    size_t left = len;
    for (uint32_t f = 0; f < nfrag; f++) {
        char *p = agt_txslot(R.h, R.li, (k + f) % R.h->ntx);
        size_t fl = left < fp ? left : fp, hl = f ? 0 : hdrlen;
        agt_wire w = { .kind = AGT_K_DATA, .hdrlen = hl & 0x7f, .more = f + 1 < nfrag,
                       .len = (uint16_t)fl, .src = (uint32_t)R.rank, .dst = (uint32_t)dest };
        memcpy(p, &w, sizeof w);
        p += sizeof w;
        memcpy(p, hdr, hl);
        p += hl;
        left -= fl;
        gather(&g, p, fl);
    }
    int rc = tx_post(AGT_CMD_PIO, k, nfrag, nfrag * sizeof(agt_wire) + hdrlen + len);
    if (rc == 0) {
        mpid_cnt.agent_pio++;
        mpid_cnt.agent_pio_slots += nfrag;
    }
    return rc;
}

static int agt_send(int dest, const void *hdr, size_t hdrlen, const struct iovec *iov, int iovcnt,
                    unsigned flags)
{
    (void)flags;
    return send_pkt(dest, hdr, hdrlen, iov, iovcnt, NULL);
}

static int agt_send_later(int dest, const void *hdr, size_t hdrlen, const struct iovec *iov,
                          int iovcnt, void *cookie)
{
    return send_pkt(dest, hdr, hdrlen, iov, iovcnt, cookie);
}

int agt_chan_up(void) { return R.up; }
int agt_chan_progress(void) { return R.progress(); }
void agt_chan_progress_until(int (*done)(void *), void *arg) { R.progress_until(done, arg); }
struct agt_rank_blk *agt_chan_blk(void) { return R.up ? R.b : NULL; }
const uint32_t *agt_chan_nodes(void) { return R.up ? agt_nodes(R.h) : NULL; }
struct agt_seg_hdr *agt_chan_seg(void) { return R.up ? R.h : NULL; }
uint32_t agt_chan_world(void) { return (uint32_t)R.rank; }

int agt_chan_hrel(void) { return R.hrel; }
int agt_chan_ni_up(void) { return R.up && !R.hrel; }

int agt_chan_raw(const char *pkt, size_t len)
{
    struct iovec v = { (void *)pkt, len };
    return agt_chan_post(AGT_CMD_PIO, &v, 1);
}

int agt_chan_post(uint8_t op, const struct iovec *iov, int iovcnt)
{
    if (!R.up)
        return -ENOTCONN;
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (len > R.h->mtu)
        return -EMSGSIZE;
    uint32_t k;
    char *p = tx_take(1, &k);
    if (!p)
        return -EAGAIN;
    for (int i = 0; i < iovcnt; i++) {
        memcpy(p, iov[i].iov_base, iov[i].iov_len);
        p += iov[i].iov_len;
    }
    return tx_post(op, k, 1, len);
}

/* Take the packet at the cq head: its agt_rx, and its device header and
 * inline payload copied into buf (SHM_INLINE_MAX bytes); the units are
 * freed at once, so a handler that sends and waits in send_dma (taking
 * packets aside) never meets this packet again. A payload in an rx slot
 * stays there until rx_release(). */
static int take(agt_rx *r, unsigned char *buf, const char **pay)
{
    shm_unit *u = shm_q_peek(R.cq, &R.cq_head);
    if (!u)
        return 0;
    if (shm_unit_bytes(u) <= SHM_UNIT_DATA) {
        memcpy(r, u->data, sizeof *r);
        memcpy(buf, u->data + sizeof *r, u->ilen);
    } else {
        shm_q_copyout(R.cq, R.cq_head, u, 0, sizeof *r, (unsigned char *)r);
        shm_q_copyout(R.cq, R.cq_head, u, sizeof *r, u->ilen, buf);
    }
    shm_q_free(R.cq, u, &R.cq_head);
    if (r->slot == AGT_RX_INLINE) {
        *pay = (const char *)buf + r->hdrlen;
    } else {
        /* a train's whole message spans ceil(len / MTU) slots; the agent
         * skipped the ring's tail rather than wrap one */
        uint32_t nrx = R.h->nrx, at = (uint32_t)(R.rx_taken % nrx);
        if (r->slot != at)
            R.rx_taken += nrx - at;
        *pay = agt_rxslot(R.h, R.li, r->slot);
        R.rx_taken += r->len > R.h->mtu ? (r->len + R.h->mtu - 1) / R.h->mtu : 1;
    }
    return 1;
}

/* rx slots go back in order: every one taken, unless a handler still
 * reads one (rx_hold; slots taken aside meanwhile wait behind it). */
static void rx_release(void)
{
    if (!R.rx_hold)
        atomic_store_explicit(&R.b->rx_freed, R.rx_taken, memory_order_release);
}

/* We freed cq units or rx slots: if the agent sleeps waiting for room
 * here, ring. The fence orders our frees before the load of its flag,
 * against its flag store before its last look at our room. */
static void room_made(void)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&R.b->want_room, memory_order_relaxed)) {
        atomic_store_explicit(&R.b->want_room, 0, memory_order_relaxed);
        doorbell();
    }
}

/* A DATA packet with more to come, or the rest of such a message: put
 * together per source (its packets arrive in order, none of another
 * message between them). Returns the whole message once its last packet
 * is in, else NULL. */
static reasm *reassemble(uint32_t src, const char *hdr, size_t hdrlen, const char *pay,
                         size_t len, int more)
{
    if (src >= (uint32_t)R.nworld)
        cu_fatal("agent: packet from rank %u, out of range", src);
    reasm *m = R.frag[src];
    if (!m && !(m = R.frag[src] = malloc(sizeof *m)))
        cu_fatal("agent: out of memory");
    if (hdrlen) {   /* a first packet */
        memcpy(m->data, hdr, hdrlen);
        m->hdrlen = hdrlen, m->len = 0;
    }
    if (m->len + len > AGT_MSG_MAX)
        cu_fatal("agent: message from rank %u longer than %u bytes", src, (unsigned)AGT_MSG_MAX);
    memcpy(m->data + m->hdrlen + m->len, pay, len);
    m->len += len;
    return more ? NULL : m;
}

static void deliver_data(uint32_t src, const char *hdr, size_t hdrlen, const char *pay,
                         size_t len, int more)
{
    if (more || !hdrlen) {
        reasm *m = reassemble(src, hdr, hdrlen, pay, len, more);
        if (m)
            mpid_on_packet((int)src, m->data, m->hdrlen, m->data + m->hdrlen, m->len);
    } else {
        mpid_on_packet((int)src, hdr, hdrlen, pay, len);
    }
}

static void deliver(int kind, uint32_t src, const char *hdr, size_t hdrlen, const char *pay,
                    size_t len, int more)
{
    if (R.hrel && kind == AGT_RXK_DATA) {   /* in order, each once (agent_hrel.c) */
        if ((pay = agt_hrel_in(src, hdr, hdrlen, pay, &len, more)))
            deliver_data(src, hdr, hdrlen, pay, len, more);
        for (agt_hrel_pkt *q; pay && (q = agt_hrel_ready(src)); free(q))
            deliver_data(src, q->data, q->hdrlen, q->data + q->hdrlen, q->len, q->more);
        return;
    }
    if (kind == AGT_RXK_RMA) {
        agt_rma_rank_packet(hdr, hdrlen, pay, len);
    } else if (kind != AGT_RXK_DATA) {
        agt_coll_rank_packet(kind, hdr, hdrlen, pay, len);
    } else {
        deliver_data(src, hdr, hdrlen, pay, len, more);
    }
}

/* While a DMA send waits: copy arrived packets aside so the agent can
 * always deliver (it may need our queue to free the slot it sends from). */
static int take_aside(void)
{
    agt_rx r;
    const char *pay;
    unsigned char buf[SHM_INLINE_MAX];
    if (!take(&r, buf, &pay))
        return 0;
    stash *s = malloc(sizeof *s + r.hdrlen + r.len);
    if (!s)
        cu_fatal("agent: out of memory");
    s->next = NULL, s->src = r.src, s->hdrlen = r.hdrlen, s->len = r.len, s->kind = r.pad;
    s->more = r.more;
    memcpy(s->data, buf, r.hdrlen);
    memcpy(s->data + r.hdrlen, pay, r.len);
    if (r.slot != AGT_RX_INLINE)
        rx_release();
    room_made();
    if (R.st)
        R.st->next = s;
    else
        R.sh = s;
    R.st = s;
    return 1;
}

static int agt_progress(int budget)
{
    if (R.in_progress)
        return 0;
    R.in_progress = 1;
    int n = 0;
    unsigned char buf[SHM_INLINE_MAX];
    int took = 0;
    while (n < budget) {
        /* packets taken aside come first (order): also those a handler
         * took aside while it waited (a bulk read, a DMA send) */
        if (R.sh) {
            stash *s = R.sh;
            R.sh = s->next;
            if (!R.sh)
                R.st = NULL;
            deliver((int)s->kind, s->src, s->data, s->hdrlen, s->data + s->hdrlen, s->len,
                    (int)s->more);
            free(s);
            n++;
            continue;
        }
        agt_rx r;
        const char *pay;
        if (!take(&r, buf, &pay))
            break;
        took = 1;
        R.rx_hold = r.slot != AGT_RX_INLINE;
        deliver(r.pad, r.src, (const char *)buf, r.hdrlen, pay, r.len, r.more);
        if (R.rx_hold) {
            R.rx_hold = 0;
            rx_release();
        }
        n++;
    }
    if (took)
        room_made();
    if (R.dma_seen != R.dma_posted)
        n += dma_reap();
    if (R.hrel)
        agt_hrel_poll();
    R.in_progress = 0;
    if (n)
        R.idle = 0;
    else if (++R.idle >= 1u << 14) {   /* spinning: is the agent still there? */
        R.idle = 0;
        if (sock_drain())
            agent_died();
    }
    return n;
}

static int agt_arm_sleep(void)
{
    if (R.sh || shm_q_arm(R.cq, R.cq_head))
        return 1;
    /* after setting the bit (seq_cst): either we see a pull that finished,
     * or the agent, bumping dma_done (seq_cst), sees the bit and rings */
    return R.dma_seen != R.dma_posted &&
           atomic_load_explicit(&R.b->dma_done, memory_order_seq_cst) != R.dma_seen;
}

static void agt_sleep(long timeout_us)
{
    struct pollfd p = { .fd = R.sock, .events = POLLIN };
    (void)poll(&p, 1, timeout_us < 0 ? -1 : (int)((timeout_us + 999) / 1000));
}

static void agt_disarm_sleep(void)
{
    shm_q_disarm(R.cq);
    if (sock_drain())
        agent_died();
}

static int agt_wait_fd(void) { return R.up ? R.sock : -1; }

/* REL=host: our retransmission and ack timers, and a broadcast's wait */
static long agt_sleep_bound(long timeout_us)
{
    return R.hrel ? agt_coll_sleep_us(agt_hrel_sleep_us(timeout_us)) : timeout_us;
}

static int agt_unacked(void) { return R.hrel ? (int)agt_hrel_held() : -1; }

void agt_chan_room_made(void) { room_made(); }

/* Spin this long (yielding) for an agent's answer before sleeping: a
 * chunk of a read lands every few tens of us while the agents stream, and
 * each sleep costs a wake-up (a socket byte and a scheduler hand-off). */
#define WAIT_SPIN_NS 200000LL

void agt_chan_wait(int (*ready)(void *), void *arg)
{
    long long t0 = 0;
    for (unsigned spins = 0;; spins++) {
        if (ready(arg))
            return;
        if (take_aside()) {
            t0 = 0;
            continue;
        }
        if ((spins & 63) != 63) {
            shm_cpu_relax();
            continue;
        }
        long long now = cu_now_ns();
        if (!t0)
            t0 = now;
        if (now - t0 < WAIT_SPIN_NS) {
            if (cu_mt)
                cu_lock_sched_yield();   /* MPI_THREAD_MULTIPLE: the others go on */
            else
                sched_yield();
            continue;
        }
        /* the agent stores what we wait for, then looks at our sleep bit
         * (both seq_cst): it rings, or we see it here. Under
         * MPI_THREAD_MULTIPLE the other threads wait for the nap's end
         * (it is armed: biglock.h's sleeper). */
        if (!shm_q_arm(R.cq, R.cq_head) && !ready(arg)) {
            int d = cu_lock_sleep_begin();
            agt_sleep(1000);
            cu_lock_sleep_end(d);
        }
        agt_disarm_sleep();
        /* the threads that waited for the lock while we slept go first:
         * napping again at once kept them out for good, one of them
         * perhaps the thread whose bulk read we wait behind */
        if (cu_mt)
            cu_lock_yield();
    }
}

/* rendezvous reads go by key, through the agents' bulk path; one-sided
 * operations through the agents (agent_rma), not registered memory */
static const mpid_chan_net_rma agt_net_rma = {
    .expose = agt_bulk_expose, .unexpose = agt_bulk_unexpose, .read_key = agt_bulk_read
};
static const mpid_chan_agent_rma agt_agent_rma = {
    .words = agt_rma_words, .open = agt_rma_open, .close = agt_rma_close,
    .post = agt_rma_post, .max = AGT_MAX_PAYLOAD
};

const mpid_channel mpid_channel_agent = {
    .name = "agent",
    .max_payload = AGT_MSG_MAX,
    .init = agt_init,
    .finalize = agt_finalize,
    .unacked = agt_unacked,
    .send = agt_send,
    .send_later = agt_send_later,
    .progress = agt_progress,
    .arm_sleep = agt_arm_sleep,
    .sleep = agt_sleep,
    .disarm_sleep = agt_disarm_sleep,
    .wait_fd = agt_wait_fd,
    .sleep_bound = agt_sleep_bound,
    .net_rma = &agt_net_rma,
    .agent_rma = &agt_agent_rma,
    .coll = &agt_coll_table,
};
