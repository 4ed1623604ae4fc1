/*
 * agent_main.c — clumpi-agent: the per-node NI agent of offload mode
 * (CLUMPI_NET=agent), after Verstoep et al.'s NI control program. Started by the
 * node's first rank (fork + exec, argv[1] = the inherited segment fd) and ended by it;
 * dies with it (PR_SET_PDEATHSIG). Its event loop:
 *   - fabric completions: received packets go to the destination rank's
 *     completion queue (or wait, holding their slot, while it is full),
 *     credits come back, finished sends free their slots;
 *   - command queues (looked at first: a rank that posted one just gave
 *     us its core): PIO descriptors (packets already in the rank's tx
 *     slots) and DMA descriptors (payload pulled with process_vm_readv into
 *     pool slots) go out through credit flow control;
 *   - after handing a rank something, yield once: it may share our core;
 *   - idle: spin CLUMPI_AGENT_SPIN_US (yielding), then block in epoll on
 *     the CQ wait fd and the ranks' sockets after setting the sleep bit of
 *     every command queue, so a rank rings the doorbell only when we sleep
 *     (busy 0.1-2% of an idle wait; netmod/common/cq_wait.c keeps the
 *     net provider's wait fd from staying readable).
 * Knobs: CLUMPI_AGENT_WINDOW (W), CLUMPI_AGENT_POOL (slots),
 * CLUMPI_AGENT_DELAY_NS (per packet, a slow NI), CLUMPI_AGENT_STATS=1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>
#include "netmod/agent/agent.h"
#include "src/util/param.h"
#include "src/util/sigfault.h"

struct agt A;

/* A fatal inconsistency (a corrupt packet or request): the job cannot go
 * on; the ranks see this agent die and end the job naming the node. */
void agt_die(const char *what)
{
    fprintf(stderr, "clumpi-agent[node %d]: %s\n", A.node, what);
    exit(1);
}

void agt_delay(void)
{
    if (A.delay_ns <= 0)
        return;
    uint64_t end = agt_now_ns() + (uint64_t)A.delay_ns;
    while (agt_now_ns() < end)
        shm_cpu_relax();
}

/* Never blocks: a rank that has not drained its socket yet (descheduled,
 * stopped in a debugger) has wake-ups pending already, and a blocking
 * write would stall the whole node's traffic behind that one rank. */
void agt_wake_rank(int li)
{
    if (A.conn[li] >= 0) {
        char c = 1;
        (void)!send(A.conn[li], &c, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
    }
}

/* ---- delivery to the host (Verstoep et al.: "DMA to host") ------------------- */

int agt_find_local(uint32_t world)
{
    for (int li = 0; li < A.nlocal; li++)
        if (agt_rank(A.h, li)->world_rank == world)
            return li;
    return -1;
}

/* Set when a rank got something from us (a packet, a finished pull): the
 * loop then yields once, so a rank waiting on our core runs now rather
 * than after our next fabric poll. */
static int handed;
void agt_handed(void) { handed = 1; }

/* The local rank a received packet is for. */
static int local_of(const agt_wire *w)
{
    int li = agt_find_local(w->dst);
    if (li < 0) {
        fprintf(stderr, "clumpi-agent[node %d]: packet for rank %u, not on this node\n", A.node,
                w->dst);
        exit(1);
    }
    return li;
}

/* Local rank li's rx slots: room for `need` more from rx_next on. */
static int rx_room(int li, uint64_t need)
{
    if (A.rx_next[li] + need - A.rx_freed_c[li] <= A.h->nrx)
        return 1;
    A.rx_freed_c[li] =
        atomic_load_explicit(&agt_rank(A.h, li)->rx_freed, memory_order_acquire);
    return A.rx_next[li] + need - A.rx_freed_c[li] <= A.h->nrx;
}

/* An entry went into li's cq: yield once after this pass, and ring the
 * rank if it sleeps. Its sleep bit is cleared before the byte goes: the
 * packets after this one (a train's) need no byte of their own, and any
 * clear is followed by a byte, so a sleeper is never left without. */
static void pushed(int li, shm_queue *q, int wake)
{
    handed = 1;
    if (wake) {
        shm_q_disarm(q);
        agt_wake_rank(li);
    }
}

static int push(int li, const char *pkt)
{
    const agt_wire *w = (const agt_wire *)pkt;
    const char *hdr = pkt + sizeof *w, *pay = hdr + w->hdrlen;
    shm_queue *q = agt_cq(A.h, li);
    agt_rx r = { .src = w->src, .len = w->len, .hdrlen = w->hdrlen, .more = w->more,
                 .slot = AGT_RX_INLINE,
                 .pad = w->kind == AGT_K_DATA   ? AGT_RXK_DATA
                        : w->kind == AGT_K_FADD ? AGT_RXK_FADD
                        : w->kind == AGT_K_RMA  ? AGT_RXK_RMA
                                                : AGT_RXK_MCAST };
    struct iovec iov[2] = { { (void *)hdr, w->hdrlen }, { (void *)pay, w->len } };
    int wake = 0, rc;
    if (sizeof r + w->hdrlen + w->len <= SHM_INLINE_MAX) {
        rc = shm_q_send_inline(q, &A.cq_hc[li], 0, &r, sizeof r, iov, 2, &wake);
    } else {
        if (!rx_room(li, 1) || !shm_q_room(q, &A.cq_hc[li]))
            return -EAGAIN;
        r.slot = (uint32_t)(A.rx_next[li] % A.h->nrx);
        memcpy(agt_rxslot(A.h, li, r.slot), pay, w->len);
        rc = shm_q_send_inline(q, &A.cq_hc[li], 0, &r, sizeof r, iov, 1, &wake);
        if (rc == 0)
            A.rx_next[li]++;
    }
    if (rc == 0)
        pushed(li, q, wake);
    return rc;
}

/* A train's message as one cq entry: the rank neither puts it together
 * nor copies it once more. Its payload takes ceil(len / MTU) consecutive
 * rx slots; where that would wrap, the slots up to the ring's end are
 * skipped (the rank sees the entry's slot is not its next and skips them
 * too). */
int agt_deliver_train(const agt_wire *const *w, uint32_t n)
{
    const agt_wire *w0 = w[0];
    int li = local_of(w0);
    if (A.dq_h[li] != A.dq_t[li])   /* FIFO per rank */
        return -EAGAIN;
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += w[i]->len;
    uint32_t nrx = A.h->nrx, k = (uint32_t)((total + A.mtu - 1) / A.mtu);
    uint32_t at = (uint32_t)(A.rx_next[li] % nrx), skip = at + k > nrx ? nrx - at : 0;
    shm_queue *q = agt_cq(A.h, li);
    if (total > UINT16_MAX || k > nrx || !rx_room(li, skip + k) ||
        !shm_q_room(q, &A.cq_hc[li]))
        return -EAGAIN;
    uint32_t slot = (at + skip) % nrx;
    char *dst = agt_rxslot(A.h, li, slot);
    for (uint32_t i = 0; i < n; i++) {
        memcpy(dst, (const char *)(w[i] + 1) + w[i]->hdrlen, w[i]->len);
        dst += w[i]->len;
    }
    agt_rx r = { .src = w0->src, .len = (uint16_t)total, .hdrlen = w0->hdrlen, .more = 0,
                 .slot = slot, .pad = AGT_RXK_DATA };
    struct iovec iov = { (void *)(w0 + 1), w0->hdrlen };
    int wake = 0;
    if (shm_q_send_inline(q, &A.cq_hc[li], 0, &r, sizeof r, &iov, 1, &wake))
        return -EAGAIN;
    A.rx_next[li] += skip + k;
    agt_st.trains_in++;
    pushed(li, q, wake);
    return 0;
}

void agt_released(uint32_t k)
{
    int src = ((agt_wire *)agt_slot_mem(&A.pool, k))->src_node;
    agt_slot_put(&A.pool, k);
    agt_net_credit_back(src);
}

int agt_deliver(const char *pkt, int *lip)
{
    int li = *lip = local_of((const agt_wire *)pkt);
    /* FIFO per rank: nothing overtakes a packet waiting for room */
    if (A.dq_h[li] == A.dq_t[li] && push(li, pkt) == 0)
        return 0;
    agt_st.ring_full++;
    return -EAGAIN;
}

void agt_queue_delivery(int li, uint32_t k)
{
    A.dq[li][A.dq_t[li]++ % A.pool.n] = k;
}

static int flush_deliveries(int li)
{
    int n = 0;
    while (A.dq_h[li] != A.dq_t[li]) {
        uint32_t k = A.dq[li][A.dq_h[li] % A.pool.n];
        agt_wire *w = (agt_wire *)agt_slot_mem(&A.pool, k);
        if (push(li, (char *)w) != 0)
            break;
        A.dq_h[li]++;
        if (w->kind == AGT_K_DATA)
            agt_released(k);
        else
            agt_mc_put(k);   /* NI collectives: refcounted by agent_mc.c */
        n++;
    }
    return n;
}

/* ---- commands from the host ------------------------------------------- */

void agt_tx_done(agt_tx *t)
{
    if (t->type == AGT_TX_POOL) {
        agt_slot_put(&A.pool, t->k);
        return;
    }
    if (t->type == AGT_TX_MC) {
        agt_mc_put(t->k);
        free(t);
        return;
    }
    if (t->type == AGT_TX_BULK) {
        agt_bulk_sent(t->k);
        return;
    }
    /* rank tx slots are freed out of order; publish the freed prefix */
    int li = t->li;
    uint32_t ntx = A.h->ntx;
    for (uint32_t i = 0; i < (t->npkt ? t->npkt : 1u); i++)   /* a train: all its slots */
        A.txdone[(size_t)li * ntx + t->k + i] = 1;
    uint64_t f = A.tx_freed[li];
    while (A.txdone[(size_t)li * ntx + f % ntx]) {
        A.txdone[(size_t)li * ntx + f % ntx] = 0;
        f++;
    }
    if (f != A.tx_freed[li]) {
        A.tx_freed[li] = f;
        atomic_store_explicit(&agt_rank(A.h, li)->tx_freed, f, memory_order_release);
    }
}

static int node_of_dst(uint32_t dst, int *node);

/* A DMA command: pull the payload (the rank's iovecs after the device
 * header) into as many pool slots as its packets need, all or none, with
 * one process_vm_readv, then send them in order. */
static int do_dma(int li, const agt_cmd *c, const unsigned char *body)
{
    agt_rank_blk *b = agt_rank(A.h, li);
    size_t fp = agt_frag_payload(A.mtu);
    uint32_t nfrag = c->len ? (uint32_t)((c->len + fp - 1) / fp) : 1;
    if (nfrag > AGT_FRAG_MAX || c->niov > AGT_DMA_IOV) {
        fprintf(stderr, "clumpi-agent[node %d]: bad DMA command from local rank %d\n", A.node, li);
        exit(1);
    }
    if (agt_slot_avail(&A.pool) < nfrag)
        return -EAGAIN;
    uint32_t k[AGT_FRAG_MAX];
    struct iovec local[AGT_FRAG_MAX], remote[AGT_DMA_IOV];
    for (uint32_t f = 0; f < nfrag; f++) {
        k[f] = (uint32_t)agt_slot_get(&A.pool);
        char *p = agt_slot_mem(&A.pool, k[f]);
        agt_wire *w = (agt_wire *)p;
        size_t off = (size_t)f * fp;
        memset(w, 0, sizeof *w);
        w->kind = AGT_K_DATA, w->more = f + 1 < nfrag;
        w->hdrlen = f ? 0 : c->hdrlen;
        w->len = (uint16_t)(c->len - off < fp ? c->len - off : fp);
        w->src = b->world_rank, w->dst = c->dst;
        memcpy(p + sizeof *w, body, w->hdrlen);
        local[f] = (struct iovec){ p + sizeof *w + w->hdrlen, w->len };
    }
    for (int i = 0; i < c->niov; i++) {
        uint64_t ad, ln;
        memcpy(&ad, body + c->hdrlen + 16 * i, 8);
        memcpy(&ln, body + c->hdrlen + 16 * i + 8, 8);
        remote[i] = (struct iovec){ (void *)(uintptr_t)ad, (size_t)ln };
    }
    ssize_t got = c->len ? process_vm_readv(b->pid, local, nfrag, remote, c->niov, 0) : 0;
    int err = got == (ssize_t)c->len ? 0 : got < 0 ? -errno : -EIO;
    agt_st.dma++;
    agt_st.dma_bytes += c->len;
    /* the rank's buffer is free again: complete before sending. A rank
     * asleep waiting for its pulls set its cq's sleep bit: seq_cst on both
     * sides (agt_arm_sleep), so it sees the count or we see the bit. */
    uint64_t seq = atomic_load_explicit(&b->dma_done, memory_order_relaxed);   /* ours alone */
    atomic_store_explicit(&b->dma_err[seq % AGT_DMA_MAX], err, memory_order_relaxed);
    atomic_fetch_add_explicit(&b->dma_done, 1, memory_order_seq_cst);
    handed = 1;
    if (atomic_load_explicit(&agt_cq(A.h, li)->tail, memory_order_seq_cst) & 1)
        agt_wake_rank(li);
    int node;
    node_of_dst(c->dst, &node);
    for (uint32_t f = 0; f < nfrag; f++) {
        if (err) {   /* nothing of it leaves: the sender hears of the error */
            agt_slot_put(&A.pool, k[f]);
            continue;
        }
        agt_tx *t = &A.pool_tx[k[f]];
        agt_wire *w = (agt_wire *)agt_slot_mem(&A.pool, k[f]);
        t->type = AGT_TX_POOL, t->k = k[f], t->pkt = (char *)w, t->node = node;
        t->len = sizeof *w + w->hdrlen + w->len;
        agt_net_send(t);
    }
    return 0;
}

/* The destination's node, from the table the first rank wrote. */
static int node_of_dst(uint32_t dst, int *node)
{
    if (dst >= A.h->nworld) {
        fprintf(stderr, "clumpi-agent[node %d]: destination rank %u out of range\n", A.node, dst);
        exit(1);
    }
    *node = (int)agt_nodes(A.h)[dst];
    return 0;
}

/* The context of local rank li's tx slot k, for one packet in it. */
static agt_tx *rank_tx(int li, uint32_t k)
{
    agt_tx *t = &A.rank_tx[(size_t)li * A.h->ntx + k];
    t->type = AGT_TX_RANK, t->li = (uint16_t)li, t->k = k, t->npkt = 1;
    t->pkt = agt_txslot(A.h, li, k);
    agt_wire *w = (agt_wire *)t->pkt;
    t->len = sizeof *w + w->hdrlen + w->len;
    return t;
}

/* DATA packets the rank wrote into its tx slots k.. k+n-1 (no wrap): out
 * they go, as one train when the credits allow. */
static void pio_data(int li, uint32_t k, uint32_t n)
{
    agt_st.pio += n;
    if (n > 1) {
        agt_tx *t = rank_tx(li, k);
        const agt_wire *last = (const agt_wire *)agt_txslot(A.h, li, k + n - 1);
        node_of_dst(((agt_wire *)t->pkt)->dst, &t->node);
        t->len = (size_t)(n - 1) * A.mtu + sizeof *last + last->hdrlen + last->len;
        if (agt_net_send_train(t, n))
            return;
    }
    for (uint32_t f = 0; f < n; f++) {   /* one by one (rank_tx resets the first's length) */
        agt_tx *t = rank_tx(li, k + f);
        node_of_dst(((agt_wire *)t->pkt)->dst, &t->node);
        agt_net_send(t);
    }
}

static int drain_cmds(int li, int budget)
{
    shm_queue *q = agt_cmdq(A.h, li);
    int n = 0;
    unsigned char buf[SHM_INLINE_MAX];
    while (n < budget) {
        shm_unit *u = shm_q_peek(q, &A.cmd_head[li]);
        if (!u)
            break;
        /* the command, then its body (a DMA's header and iovec pairs) */
        const unsigned char *pkt = shm_q_contig(q, A.cmd_head[li], u, buf);
        const unsigned char *body = pkt + sizeof(agt_cmd);
        agt_cmd cmd;
        memcpy(&cmd, pkt, sizeof cmd);
        if ((cmd.op == AGT_CMD_PIO || cmd.op == AGT_CMD_TREE) && cmd.slot >= A.h->ntx) {
            fprintf(stderr, "clumpi-agent[node %d]: bad command from local rank %d\n", A.node, li);
            exit(1);
        }
        if (cmd.op == AGT_CMD_PIO && cmd.len > 1) {   /* a DATA message in several slots */
            if (cmd.len > AGT_FRAG_MAX) {
                fprintf(stderr, "clumpi-agent[node %d]: bad PIO command from local rank %d\n",
                        A.node, li);
                exit(1);
            }
            /* a train, split where the rank's slots wrap around */
            uint32_t n1 = A.h->ntx - cmd.slot < cmd.len ? A.h->ntx - cmd.slot : cmd.len;
            pio_data(li, cmd.slot, n1);
            if (n1 < cmd.len)
                pio_data(li, 0, cmd.len - n1);
        } else if (cmd.op == AGT_CMD_PIO) {
            agt_tx *t = rank_tx(li, cmd.slot);
            agt_wire *w = (agt_wire *)t->pkt;
            if (w->kind == AGT_K_MCAST) {   /* a root's packet: copied to a shared slot */
                if (agt_mc_origin(t->pkt, t->len) < 0)
                    break;   /* no free slot: the descriptor waits */
                agt_st.pio++;
                agt_tx_done(t);
            } else if (w->kind == AGT_K_BULK) {   /* a read's request: agent_bulk.c owns t */
                if (agt_bulk_origin(t) < 0)
                    break;
                agt_st.pio++;
            } else if (w->kind == AGT_K_RED || w->kind == AGT_K_FADD || w->kind == AGT_K_RMA) {
                /* a contribution / a request: agent_red.c, agent_fadd.c, agent_rma.c own t */
                if ((w->kind == AGT_K_RED    ? agt_red_origin(t)
                     : w->kind == AGT_K_FADD ? agt_fadd_origin(t)
                                             : agt_rma_origin(t)) < 0)
                    break;   /* no free slot: the descriptor waits */
                agt_st.pio++;
            } else {
                pio_data(li, cmd.slot, 1);
            }
        } else if (cmd.op == AGT_CMD_TREE) {
            agt_tx *t = rank_tx(li, cmd.slot);
            agt_mc_install((const agt_tree_cmd *)t->pkt);
            agt_tx_done(t);
        } else if (cmd.op == AGT_CMD_DMA) {
            if (do_dma(li, &cmd, body) == -EAGAIN)
                break;   /* no free slot: the descriptor waits in the queue */
        }
        shm_q_free(q, u, &A.cmd_head[li]);
        n++;
    }
    return n;
}

/* ---- sockets: connections and doorbells -------------------------------- */

static int nconn;   /* ranks that connected so far */

static void on_listen(void)
{
    for (;;) {
        int fd = accept4(A.lsock, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            return;
        /* anyone may connect to an abstract socket: only the node's ranks
         * (our uid, the pid in their block) are taken, and a silent
         * connection costs a bounded wait */
        struct ucred cr;
        socklen_t cl = sizeof cr;
        struct pollfd pf = { .fd = fd, .events = POLLIN };
        int32_t li = -1;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) != 0 || cr.uid != geteuid() ||
            poll(&pf, 1, 1000) != 1 || read(fd, &li, sizeof li) != (ssize_t)sizeof li ||
            li < 0 || li >= A.nlocal || agt_rank(A.h, li)->pid != (int32_t)cr.pid) {
            close(fd);
            continue;
        }
        A.conn[li] = fd;
        nconn++;
        char ok = 1;   /* the rank waits for this: its wake-ups can reach it now */
        (void)!write(fd, &ok, 1);
        struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)li + 1 };
        epoll_ctl(A.epfd, EPOLL_CTL_ADD, fd, &ev);
    }
}

static void on_conn(int li)
{
    char b[64];
    ssize_t n = recv(A.conn[li], b, sizeof b, MSG_DONTWAIT);
    if (n == 0) {   /* the rank closed (finalize, or it died: mpirun ends the job) */
        epoll_ctl(A.epfd, EPOLL_CTL_DEL, A.conn[li], NULL);
        close(A.conn[li]);
        A.conn[li] = -1;
    }
}

static int setup_socket(void)
{
    A.lsock = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    size_t n = strlen(A.h->sock);
    memcpy(sa.sun_path + 1, A.h->sock, n);   /* abstract: nothing on disk */
    if (A.lsock < 0 || bind(A.lsock, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) ||
        listen(A.lsock, 64))
        return -errno;
    A.epfd = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 0 };
    epoll_ctl(A.epfd, EPOLL_CTL_ADD, A.lsock, &ev);
    return 0;
}

/* Block until a rank rings, the fabric has completions, or the timeout.
 * Everything we could wait for must be able to wake us: commands (the
 * cmd queues' sleep bits), the fabric (its wait fd), and room in a rank's
 * cq / rx slots for deliveries that wait (want_room; without it the agent
 * slept its whole timeout while the rank, having drained its queue,
 * slept too). Credits we owe go back first, even fewer than the W/2 an
 * ack waits for otherwise: a sender out of credits may be what the
 * packets we hold wait for (an NI reduction's partial results here,
 * waiting for the rest from children with 0 credits: 7 nodes hung so,
 * the children holding 33-36 packets for us while we owed them 4-5). An
 * ack that could not go yet keeps us polling. */
static int idle_block(long timeout_ms)
{
    int busy = 0;
    for (int d = 0; d < A.nnodes; d++) {
        if (A.flow.owed[d])
            agt_net_ack(d);
        busy |= A.ack_owed[d];
    }
    for (int li = 0; li < A.nlocal; li++)
        busy |= shm_q_arm(agt_cmdq(A.h, li), A.cmd_head[li]);
    busy |= !busy && agt_bulk_idle();
    for (int li = 0; li < A.nlocal && !busy; li++) {
        if (A.dq_h[li] == A.dq_t[li])
            continue;
        atomic_store_explicit(&agt_rank(A.h, li)->want_room, 1, memory_order_seq_cst);
        atomic_thread_fence(memory_order_seq_cst);
        busy |= flush_deliveries(li) > 0;   /* room made before the flag was seen */
    }
    /* without a CQ wait fd the fabric is looked at again after a short nap */
    if (agt_net_wait_fd() < 0 && timeout_ms > 1)
        timeout_ms = 1;
    if (!busy && agt_net_trywait() == 0) {
        struct epoll_event ev[16];
        agt_stats_sleep();
        int n = epoll_wait(A.epfd, ev, 16, (int)timeout_ms);
        agt_stats_wake();
        for (int i = 0; i < n; i++) {
            uint32_t id = ev[i].data.u32;
            if (id == 0)
                on_listen();
            else if (id <= (uint32_t)A.nlocal)
                on_conn((int)id - 1);
        }
    }
    for (int li = 0; li < A.nlocal; li++) {
        shm_q_disarm(agt_cmdq(A.h, li));
        atomic_store_explicit(&agt_rank(A.h, li)->want_room, 0, memory_order_relaxed);
    }
    return busy;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: clumpi-agent SEGMENT_FD\n"
                        "  The NI agent of clumpi's offload mode; started by MPI ranks.\n");
        return 2;
    }
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);   /* ends with the rank that started it */
    if (getppid() != parent)
        return 1;
    signal(SIGPIPE, SIG_IGN);
    cu_sigfault_reset_foreign();   /* a crash must show as the signal */
    size_t size;
    int err = 0;
    char *end;
    long segfd = strtol(argv[1], &end, 10);
    A.h = *end || segfd < 0 || segfd > 1023 ? (err = -EBADF, NULL)
                                            : agt_seg_attach((int)segfd, &size, &err);
    if (!A.h) {
        fprintf(stderr, "clumpi-agent: cannot map the segment (fd %s): %s\n", argv[1],
                strerror(-err));
        return 1;
    }
    agt_seg_hdr *h = A.h;
    A.node = (int)h->node, A.nnodes = (int)h->nnodes, A.nlocal = (int)h->nlocal, A.mtu = h->mtu;
    A.delay_ns = cu_param_int("AGENT_DELAY_NS");
    const char *transport = cu_param_str("AGENT_TRANSPORT");
    A.dgram = agt_st.dgram = transport && !strcmp(transport, "dgram");
    const char *rel = cu_param_str("AGENT_REL");
    A.hrel = A.dgram && rel && !strcmp(rel, "host");
    long W = cu_param_int("AGENT_WINDOW");
    long spin_us = cu_param_int("AGENT_SPIN_US");
    if (W < 2)
        W = 2;
    A.nrx_post = (uint32_t)(W * (A.nnodes > 1 ? A.nnodes - 1 : 1) + 2 * A.nnodes + 4);
    long credits = W * A.nnodes;   /* every node, this one too, may hold W of ours */
    long npool = cu_param_int("AGENT_POOL");
    if (npool <= 0)
        npool = (long)A.nrx_post + 64;
    if (npool < (credits > (long)A.nrx_post ? credits : (long)A.nrx_post) + 4)
        npool = (credits > (long)A.nrx_post ? credits : (long)A.nrx_post) + 4;
    int nl = A.nlocal;
    uint32_t ntx = h->ntx;
    A.conn = malloc(sizeof *A.conn * (size_t)nl);
    A.cmd_head = calloc((size_t)nl, sizeof(uint64_t));
    A.cq_hc = calloc((size_t)nl, sizeof(uint64_t));
    A.rx_next = calloc((size_t)nl, sizeof(uint64_t));
    A.rx_freed_c = calloc((size_t)nl, sizeof(uint64_t));
    A.tx_freed = calloc((size_t)nl, sizeof(uint64_t));
    A.txdone = calloc((size_t)nl * ntx, 1);
    A.rank_tx = calloc((size_t)nl * ntx, sizeof *A.rank_tx);
    A.dq = calloc((size_t)nl, sizeof *A.dq);
    A.dq_h = calloc((size_t)nl, sizeof *A.dq_h);
    A.dq_t = calloc((size_t)nl, sizeof *A.dq_t);
    A.ack_owed = calloc((size_t)A.nnodes, 1);
    if (agt_slots_init(&A.pool, (uint32_t)npool, A.mtu) || agt_flow_init(&A.flow, A.nnodes, (int)W) ||
        !A.conn || !A.cmd_head || !A.cq_hc || !A.rx_next || !A.rx_freed_c || !A.tx_freed ||
        !A.txdone || !A.rank_tx || !A.dq || !A.dq_h || !A.dq_t || !A.ack_owed) {
        fprintf(stderr, "clumpi-agent: out of memory\n");
        atomic_store(&h->state, AGT_ST_FAILED);
        return 1;
    }
    A.pool.reserve = (uint32_t)credits;   /* arriving packets: see agent_net.c */
    A.pool_tx = calloc(A.pool.n, sizeof *A.pool_tx);
    for (int li = 0; li < nl; li++) {
        A.conn[li] = -1;
        A.dq[li] = malloc(A.pool.n * sizeof(uint32_t));
    }
    if ((err = setup_socket()) || (err = agt_bulk_init()) || (err = agt_net_open())) {
        fprintf(stderr, "clumpi-agent[node %d]: cannot start: %s\n", A.node, strerror(-err));
        atomic_store(&h->state, AGT_ST_FAILED);
        return 1;
    }
    agt_bulk_start();
    if (agt_net_wait_fd() >= 0) {   /* block on the fabric too, not only the host */
        struct epoll_event ev = { .events = EPOLLIN, .data.u32 = UINT32_MAX };
        epoll_ctl(A.epfd, EPOLL_CTL_ADD, agt_net_wait_fd(), &ev);
    }
    atomic_store(&h->agent_pid, getpid());
    atomic_store_explicit(&h->state, AGT_ST_READY, memory_order_release);
    agt_stats_start();
    uint64_t idle_since = 0;
    for (;;) {
        uint32_t st = atomic_load_explicit(&h->state, memory_order_acquire);
        if (st >= AGT_ST_QUIT)
            break;
        if (st == AGT_ST_QUIESCE)
            A.quiesce = 1;
        if (nconn < nl)
            on_listen();   /* busy with other ranks' traffic: accept here too */
        /* commands first: a rank that just posted one yielded its core to
         * us, and the fabric poll is a system call */
        int work = 0;
        for (int li = 0; li < nl; li++)
            work += drain_cmds(li, 16);
        work += agt_net_poll(32);
        for (int li = 0; li < nl; li++)
            work += flush_deliveries(li);
        work += agt_red_poll() + agt_rma_poll() + agt_bulk_poll();
        if (work) {
            idle_since = 0;
            if (handed) {
                handed = 0;
                sched_yield();
            }
            continue;
        }
        uint64_t now = agt_now_ns();
        if (!idle_since)
            idle_since = now;
        if (now - idle_since < (uint64_t)spin_us * 1000) {
            sched_yield();   /* two cores shared with the ranks */
            continue;
        }
        /* a local rank's unlock rings nobody */
        idle_block(agt_net_sleep_ms(agt_rma_waiting() ? 1 : 1000));
        idle_since = 0;
        if (getppid() != parent)
            return 1;   /* the first rank is gone without telling us */
    }
    if (cu_param_int("AGENT_STATS"))
        agt_stats_print(A.node);
    agt_net_close();
    return 0;
}
