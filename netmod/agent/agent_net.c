/*
 * agent_net.c — the agent's libfabric endpoint: the node's only one in
 * offload mode. The provider is chosen exactly as in direct mode
 * (netmod/common/fabric_select.c, same CLUMPI_OFI_* knobs). Every data packet
 * leaves through agent_flow's credits, W per sending node (Verstoep et al. §4.1).
 *
 * Trains: a DATA message of several packets leaves in one fabric send when
 * the credits allow (Verstoep et al.'s NI streams a message's packets back to
 * back; here each send is a socket call, ~4-5 us for 2 KiB on loopback).
 * So receive buffers are runs of agt_frag_count(MTU) slot-sized places (16
 * at the default MTU): packet i of a train sits at i * MTU. An arriving
 * packet goes straight to its rank, or is copied into a pool slot to wait,
 * and the run is posted again at once: the pool keeps a slot free for
 * each credit peers hold (its reserve: down by one per arriving packet,
 * up by one per credit given back), so that copy always finds one.
 *
 * Over datagrams (CLUMPI_AGENT_TRANSPORT=dgram, the udp provider) every
 * datagram starts with agent_rel's header, runs have room for it in front,
 * and a sent packet stays in its slot until acknowledged (agent_rel.c), so
 * completions of sends do not free slots there. Faults are injected here,
 * on receive (agent_fault.c). A bulk chunk is one datagram there (the ranks
 * cut chunks to AGT_BULK_DGRAM_MAX) with agent_rel's header inside the
 * chunk's, numbered in a stream of its own, and its bounce buffer is held
 * until acknowledged like a slot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include "netmod/agent/agent.h"
#include "netmod/agent/agent_fault.h"
#include "netmod/common/addr_hex.h"
#include "netmod/common/cq_wait.h"
#include "netmod/common/fabric_select.h"
#include "netmod/common/sock_buf.h"

static struct fi_info *info;
static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_ep *ep, *bep;   /* bep: the bulk endpoint (agent_bulk.c) */
static struct fid_av *av;
static struct fid_cq *cq;
static struct fid_mr *seg_mr, *pool_mr, *land_mr, *bounce_mr, *run_mr;
static void *seg_desc, *pool_desc, *land_desc, *bounce_desc, *run_desc;
static char *runs;              /* receive runs, run_bytes each */
static agt_tx *run_tx;          /* their contexts */
static uint32_t nruns;
static size_t run_bytes;
static fi_addr_t *addr, *baddr;
static size_t inject_max;
static netc_cq_wait cqw = { .fd = -1 };
static size_t hsz;             /* dgram: agent_rel's header in front of each datagram */
static char *held;             /* dgram fault injection: a datagram held back */
static size_t held_len;
static uint32_t held_land;     /* held back is landing buffer held_land - 1 (0: a run's copy) */
static uint64_t held_at;
/* sack: datagrams that came after a gap, by peer and stream, at their
 * number mod AGT_REL_SACK_MAX: a main-stream datagram's copy (buf,
 * allocated once), a bulk chunk's landing buffer (kept unposted). */
typedef struct ooo_ent { char *buf; size_t len; uint32_t land; } ooo_ent;
static ooo_ent *ooo;            /* [nnodes][2][AGT_REL_SACK_MAX] */
static ooo_ent *ooo_at(int node, int bulk, uint32_t seq)
{
    return &ooo[((size_t)node * 2 + (size_t)bulk) * AGT_REL_SACK_MAX + seq % AGT_REL_SACK_MAX];
}
/* A held datagram goes after the next one, or after this long without one. */
#define HOLD_NS 500000ull
/* UDP's largest payload: a datagram's runs and trains stay within it. */
#define UDP_MAX 65507u

static int fail(const char *what, int rc)
{
    fprintf(stderr, "clumpi-agent[node %d]: %s failed: %s\n", A.node, what,
            fi_strerror(rc < 0 ? -rc : rc));
    return rc < 0 ? rc : -rc;
}

static void progress_once(void)
{
    struct fi_cq_data_entry e;
    (void)fi_cq_read(cq, &e, 0);   /* drives the provider, takes nothing */
}

/* Post with call; the provider may refuse for now (-FI_EAGAIN): drive it
 * and retry. Any other error ends the agent. */
#define POST(what, call)                                                       \
    do {                                                                       \
        ssize_t rc_;                                                           \
        while ((rc_ = (call)) == -FI_EAGAIN)                                   \
            progress_once();                                                   \
        if (rc_) {                                                             \
            fail(what, (int)rc_);                                              \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

static void post_run(uint32_t r)
{
    agt_tx *t = &run_tx[r];
    t->type = AGT_TX_RUN;
    t->k = r;
    POST("posting a receive run",
         fi_recv(ep, runs + r * run_bytes, run_bytes, run_desc, FI_ADDR_UNSPEC, &t->ctx));
}

/* An endpoint on the agent's address vector and completion queue. */
static int open_ep(struct fid_ep **e)
{
    int rc;
    if ((rc = fi_endpoint(domain, info, e, NULL)))
        return fail("fi_endpoint", rc);
    if ((rc = fi_ep_bind(*e, &av->fid, 0)) || (rc = fi_ep_bind(*e, &cq->fid, FI_TRANSMIT | FI_RECV)))
        return fail("fi_ep_bind", rc);
    if ((rc = fi_enable(*e)))
        return fail("fi_enable", rc);
    return 0;
}

int agt_net_open(void)
{
    int rc;
    if (A.dgram) {
        hsz = sizeof(agt_rel_hdr);
        if (A.mtu + hsz > UDP_MAX) {
            fprintf(stderr, "clumpi-agent[node %d]: CLUMPI_AGENT_MTU=%u is more than a datagram "
                    "holds (%zu with the header): use at most %zu with "
                    "CLUMPI_AGENT_TRANSPORT=dgram\n", A.node, A.mtu, A.mtu + hsz,
                    UDP_MAX - hsz);
            return -EINVAL;
        }
        if (agt_rel_init())
            return -ENOMEM;
        agt_fault_init(A.node);
    }
    if (!(info = A.dgram ? netc_fabric_choose_dgram() : netc_fabric_choose(A.mtu)))
        return -ENODEV;
    if (A.dgram && (info->domain_attr->mr_mode & FI_MR_LOCAL)) {
        fprintf(stderr, "clumpi-agent[node %d]: the datagram provider wants local memory "
                "registration, which the dgram transport does not do\n", A.node);
        return -ENODEV;
    }
    if ((rc = fi_fabric(info->fabric_attr, &fabric, NULL)))
        return fail("fi_fabric", rc);
    if ((rc = fi_domain(fabric, info, &domain, NULL)))
        return fail("fi_domain", rc);
    struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_DATA };
    cqa.size = info->tx_attr->size + info->rx_attr->size;
    /* without a wait object (cqw.fd -1) the agent naps instead of blocking */
    if ((rc = netc_cq_wait_open(fabric, domain, &cqa, &cq, &cqw)))
        return fail("fi_cq_open", rc);
    struct fi_av_attr ava = { .type = info->domain_attr->av_type != FI_AV_UNSPEC ?
                                      info->domain_attr->av_type : FI_AV_TABLE };
    if ((rc = fi_av_open(domain, &ava, &av, NULL)))
        return fail("fi_av_open", rc);
    /* Bulk chunks arrive on an endpoint of their own: its receives are
     * landing buffers (a chunk each), the main one's are MTU slots, and a
     * message takes whichever receive is posted next. */
    if ((rc = open_ep(&ep)) || (rc = open_ep(&bep)))
        return rc;
    inject_max = info->tx_attr->inject_size;
    if (info->domain_attr->mr_mode & FI_MR_LOCAL) {
        if ((rc = fi_mr_reg(domain, A.h, A.h->size, FI_SEND, 0, 0, 0, &seg_mr, NULL)) ||
            (rc = fi_mr_reg(domain, A.pool.mem, (size_t)A.pool.n * A.pool.size, FI_SEND | FI_RECV,
                            0, 0, 0, &pool_mr, NULL)))
            return fail("fi_mr_reg", rc);
        seg_desc = fi_mr_desc(seg_mr);
        pool_desc = fi_mr_desc(pool_mr);
        if ((rc = fi_mr_reg(domain, agt_landing(A.h, 0),
                            (size_t)A.h->nbulk * (AGT_BULK_HDR + A.h->bulk_chunk), FI_RECV, 0, 0,
                            0, &land_mr, NULL)) ||
            (rc = fi_mr_reg(domain, A.bounce,
                            (size_t)A.nbounce * (AGT_BULK_HDR + A.h->bulk_chunk), FI_SEND, 0, 0,
                            0, &bounce_mr, NULL)))
            return fail("fi_mr_reg (bulk)", rc);
        land_desc = fi_mr_desc(land_mr);
        bounce_desc = fi_mr_desc(bounce_mr);
    }
    /* One run per packet the peers may have on their way (credits) plus
     * acks: none may arrive without a posted receive, where libfabric 1.17's
     * net provider can stall a connection (ofiwg/libfabric#8252). */
    nruns = A.nrx_post;
    uint32_t nfrag = agt_frag_count(A.mtu);
    if (A.dgram && nfrag * A.mtu + hsz > UDP_MAX)
        nfrag = (uint32_t)((UDP_MAX - hsz) / A.mtu);   /* shorter trains */
    run_bytes = hsz + (size_t)nfrag * A.mtu;
    if (posix_memalign((void **)&runs, 4096, nruns * run_bytes) ||
        !(run_tx = calloc(nruns, sizeof *run_tx)) || (A.dgram && !(held = malloc(run_bytes))) ||
        (A.dgram && !(ooo = calloc((size_t)A.nnodes * 2 * AGT_REL_SACK_MAX, sizeof *ooo))))
        return -ENOMEM;
    if ((info->domain_attr->mr_mode & FI_MR_LOCAL) &&
        (rc = fi_mr_reg(domain, runs, nruns * run_bytes, FI_RECV, 0, 0, 0, &run_mr, NULL)))
        return fail("fi_mr_reg (runs)", rc);
    run_desc = run_mr ? fi_mr_desc(run_mr) : NULL;
    addr = malloc((size_t)A.nnodes * sizeof *addr);
    baddr = malloc((size_t)A.nnodes * sizeof *baddr);
    if (!addr || !baddr)
        return -ENOMEM;
    for (int n = 0; n < A.nnodes; n++)
        addr[n] = baddr[n] = FI_ADDR_NOTAVAIL;
    for (uint32_t r = 0; r < nruns; r++)
        post_run(r);
    unsigned char a[AGT_ADDR_HEX / 2 - 1];
    size_t alen = sizeof a;
    if ((rc = fi_getname(&ep->fid, a, &alen)))
        return fail("fi_getname", rc);
    netc_hex_encode(a, alen, A.h->my_addr);
    if (A.dgram && netc_sock_bufs(a, alen, 4 << 20))
        fprintf(stderr, "clumpi-agent[node %d]: note: no socket found for the datagram "
                "endpoint; its kernel buffers stay small (more retransmissions)\n", A.node);
    alen = sizeof a;
    if ((rc = fi_getname(&bep->fid, a, &alen)))
        return fail("fi_getname (bulk)", rc);
    netc_hex_encode(a, alen, A.h->my_bulk_addr);
    if (A.dgram && A.h->nbulk)   /* a few chunks in flight per read */
        (void)netc_sock_bufs(a, alen, 4 << 20);
    return 0;
}

/* The udp provider says 1472 (one Ethernet frame) but sends what the
 * socket takes: a datagram of UDP_MAX, which the trains already use. */
size_t agt_net_max_msg(void) { return A.dgram ? UDP_MAX : info->ep_attr->max_msg_size; }

void agt_net_close(void)
{
    if (bep)
        fi_close(&bep->fid);
    if (ep)
        fi_close(&ep->fid);
    if (land_mr)
        fi_close(&land_mr->fid);
    if (bounce_mr)
        fi_close(&bounce_mr->fid);
    if (seg_mr)
        fi_close(&seg_mr->fid);
    if (pool_mr)
        fi_close(&pool_mr->fid);
    if (run_mr)
        fi_close(&run_mr->fid);
    if (av)
        fi_close(&av->fid);
    if (cq)
        fi_close(&cq->fid);
    netc_cq_wait_close(&cqw);
    if (domain)
        fi_close(&domain->fid);
    if (fabric)
        fi_close(&fabric->fid);
    if (info)
        fi_freeinfo(info);
    free(addr);
    free(baddr);
    free(runs);
    free(run_tx);
    free(held);
    for (size_t i = 0; ooo && i < (size_t)A.nnodes * 2 * AGT_REL_SACK_MAX; i++)
        free(ooo[i].buf);
    free(ooo);
    if (A.dgram)
        agt_rel_fini();
}

/* The peer agent's address, from the table the node's first rank filled
 * in from PMI before any rank could send. */
static fi_addr_t resolve_in(fi_addr_t *tab, const char *hex, int node)
{
    if (tab[node] != FI_ADDR_NOTAVAIL)
        return tab[node];
    unsigned char a[AGT_ADDR_HEX / 2];
    int n = netc_hex_decode(hex, a, sizeof a);
    if (n <= 0 || fi_av_insert(av, a, 1, &tab[node], 0, NULL) != 1) {
        fprintf(stderr, "clumpi-agent[node %d]: no usable address for the agent of node %d\n",
                A.node, node);
        exit(1);
    }
    return tab[node];
}

static fi_addr_t resolve(int node) { return resolve_in(addr, agt_addr(A.h, node), node); }

_Static_assert(AGT_BULK_REL_OFF >= sizeof(agt_bulk_chunk) &&
                   AGT_BULK_REL_OFF + sizeof(agt_rel_hdr) <= AGT_BULK_HDR &&
                   AGT_BULK_HDR + AGT_BULK_DGRAM_MAX <= UDP_MAX,
               "a bulk chunk with agent_rel's header is one datagram");

static fi_addr_t bulk_addr(int node) { return resolve_in(baddr, agt_bulk_addr(A.h, node), node); }

void agt_net_bulk_send(int node, void *buf, size_t len, agt_tx *t)
{
    if (A.dgram) {
        t->node = node, t->pkt = buf, t->len = len;
        agt_rel_queue(t);
        agt_net_bulk_out(t);
        return;
    }
    POST("sending a chunk to a peer agent",
         fi_send(bep, buf, len, bounce_desc, bulk_addr(node), &t->ctx));
}

void agt_net_bulk_out(agt_tx *t)
{
    agt_rel_fill(&t->rh, t->node, AGT_REL_DATA | AGT_REL_BULK);
    memcpy(t->pkt + AGT_BULK_REL_OFF, &t->rh, sizeof t->rh);
    POST("sending a chunk to a peer agent",
         fi_send(bep, t->pkt, t->len, bounce_desc, bulk_addr(t->node), &t->ctx));
    t->inflight++;   /* its completion comes back to agt_rel_send_done */
}

void agt_net_bulk_recv(void *buf, size_t len, agt_tx *t)
{
    POST("posting a landing buffer", fi_recv(bep, buf, len, land_desc, FI_ADDR_UNSPEC, &t->ctx));
}

/* Post a send; -FI_EAGAIN: drive the provider and retry, another error
 * ends the agent. */
static void send_or_die(const char *what, ssize_t (*call)(void *), void *arg)
{
    ssize_t rc;
    while ((rc = call(arg)) == -FI_EAGAIN)
        progress_once();
    if (rc) {
        fail(what, (int)rc);
        exit(1);
    }
}

struct dg_send { agt_tx *t; const agt_rel_hdr *h; fi_addr_t a; };

static ssize_t dg_inject(void *arg)
{
    struct dg_send *d = arg;
    static char buf[UDP_MAX];
    memcpy(buf, d->h, hsz);
    if (d->t)
        memcpy(buf + hsz, d->t->pkt, d->t->len);
    return fi_inject(ep, buf, hsz + (d->t ? d->t->len : 0), d->a);
}

static ssize_t dg_sendv(void *arg)
{
    struct dg_send *d = arg;
    struct iovec iov[2] = { { (void *)d->h, hsz }, { d->t->pkt, d->t->len } };
    return fi_sendv(ep, iov, NULL, 2, d->a, &d->t->ctx);
}

void agt_net_dgram_out(agt_tx *t)
{
    agt_rel_fill(&t->rh, t->node, AGT_REL_DATA);
    struct dg_send d = { t, &t->rh, resolve(t->node) };
    if (hsz + t->len <= inject_max) {
        send_or_die("sending to a peer agent", dg_inject, &d);
    } else {
        send_or_die("sending to a peer agent", dg_sendv, &d);
        t->inflight++;   /* its completion comes back to agt_rel_send_done */
    }
}

void agt_net_ctl(int node, int flags)
{
    agt_rel_hdr h;
    memset(&h, 0, sizeof h);
    agt_rel_fill(&h, node, flags);
    struct dg_send d = { NULL, &h, resolve(node) };
    send_or_die("sending an ack to a peer agent", dg_inject, &d);
    agt_st.acks_sent++;
}

static void xmit(agt_tx *t)
{
    agt_wire *w = (agt_wire *)t->pkt;
    if (t->type != AGT_TX_MC) {   /* a shared multicast slot is never rewritten */
        /* over datagrams credits go in agent_rel's header */
        w->credits = A.dgram ? 0 : (uint16_t)agt_flow_take_owed(&A.flow, t->node);
        w->src_node = (uint16_t)A.node;
    }
    fi_addr_t a = resolve(t->node);
    agt_delay();
    agt_st.sent[w->kind]++;
    if (A.dgram) {
        agt_rel_queue(t);
        agt_net_dgram_out(t);
        agt_rel_sent(t);
    } else if (t->len <= inject_max) {
        POST("sending to a peer agent", fi_inject(ep, t->pkt, t->len, a));
        agt_tx_done(t);   /* inject copied it: the slot is free at once */
    } else {
        POST("sending to a peer agent",
             fi_send(ep, t->pkt, t->len, t->type == AGT_TX_RANK ? seg_desc : pool_desc, a,
                     &t->ctx));
    }
}

void agt_net_send(agt_tx *t)
{
    t->npkt = 1;
    if (agt_flow_admit(&A.flow, t->node, &t->link))
        xmit(t);
    else
        agt_st.stalls++;
}

int agt_net_send_train(agt_tx *t, uint32_t n)
{
    if (n < 2 || hsz + (size_t)n * A.mtu > run_bytes || !agt_flow_admit_n(&A.flow, t->node, (int)n))
        return 0;
    for (uint32_t i = 1; i < n; i++) {   /* the first one's are set by xmit */
        agt_wire *w = (agt_wire *)(t->pkt + (size_t)i * A.mtu);
        w->credits = 0;
        w->src_node = (uint16_t)A.node;
        agt_delay();
    }
    agt_st.sent[AGT_K_DATA] += n - 1;
    agt_st.trains_out++;
    t->npkt = (uint8_t)n;
    xmit(t);
    return 1;
}

void agt_net_ack(int node)
{
    agt_wire w = { .kind = AGT_K_ACK, .src_node = (uint16_t)A.node };
    /* a retried ack whose credits went piggybacked meanwhile is not owed
     * any more: left set, ack_owed kept the agent from ever blocking */
    A.ack_owed[node] = 0;
    if (A.dgram) {   /* credits are a running total there: never lost with an ack */
        agt_net_ctl(node, 0);
        return;
    }
    if (A.quiesce)
        return;
    w.credits = (uint16_t)agt_flow_take_owed(&A.flow, node);
    if (!w.credits)
        return;
    ssize_t rc = fi_inject(ep, &w, sizeof w, resolve(node));
    if (rc == -FI_EAGAIN) {
        A.flow.owed[node] += w.credits;   /* retried from the loop */
        A.ack_owed[node] = 1;
        return;
    }
    if (rc) {
        fail("sending an ack", (int)rc);
        exit(1);
    }
    agt_st.sent[AGT_K_ACK]++;
}

void agt_net_credit_back(int node)
{
    A.pool.reserve++;
    if (agt_flow_released(&A.flow, node))
        agt_net_ack(node);
}

static void on_credits(int node, int n)
{
    if (!n)
        return;
    agt_flow_credit(&A.flow, node, n);
    agt_pend *p;
    while ((p = agt_flow_next(&A.flow, node)))
        xmit((agt_tx *)((char *)p - offsetof(agt_tx, link)));
}

/* Nothing here is ever canceled, so even FI_ECANCELED means a packet, a
 * chunk or a posted buffer is gone: ignored, it left the job waiting for
 * good with nothing said. */
static void on_error(void)
{
    struct fi_cq_err_entry err;
    memset(&err, 0, sizeof err);
    if (fi_cq_readerr(cq, &err, 0) <= 0 || A.quiesce)
        return;
    fprintf(stderr, "clumpi-agent[node %d]: network error (%s, on a %s): a peer agent vanished "
            "or a packet was lost; ending the job\n", A.node, fi_strerror(err.err),
            err.flags & FI_RECV ? "receive" : "send");
    exit(1);
}

/* Packet i of a run of len bytes (they sit A.mtu apart), checked. */
static const agt_wire *packet(const char *run, size_t len, uint32_t i)
{
    size_t off = (size_t)i * A.mtu, plen = len - off < A.mtu ? len - off : A.mtu;
    const agt_wire *w = (const agt_wire *)(run + off);
    if (plen < sizeof *w || sizeof *w + w->hdrlen + (size_t)w->len > plen ||
        w->src_node >= A.nnodes || w->kind == 0 || w->kind >= AGT_K_NKINDS) {
        fprintf(stderr, "clumpi-agent[node %d]: corrupt packet (%zu bytes)\n", A.node, plen);
        exit(1);
    }
    return w;
}

/* The n (> 1) checked packets of a run are one whole DATA message (a train
 * from its first packet, the one with the device header, to its last). */
static int whole_message(const agt_wire *const *w, uint32_t n)
{
    if (w[0]->kind != AGT_K_DATA || !w[0]->hdrlen)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (w[i]->kind != AGT_K_DATA || w[i]->src != w[0]->src || w[i]->dst != w[0]->dst ||
            (i > 0 && w[i]->hdrlen) || w[i]->more != (i + 1 < n))
            return 0;
    return 1;
}

/* One arriving packet: its credits, then to its rank (or it went there
 * already, with its train) or into a pool slot for whoever handles its
 * kind (ACKs carry only credits). The slow-NI delay is per packet, before
 * the rank can see it (delayed: done for the whole train already). */
static void arrive(const agt_wire *w, int delivered, int delayed)
{
    const char *pkt = (const char *)w;
    agt_st.recv[w->kind]++;
    if (!delayed)
        agt_delay();
    int src = w->src_node, kind = w->kind, cred = w->credits, li = 0;
    if (kind != AGT_K_ACK) {
        if (A.pool.reserve == 0)   /* every such packet holds one of our credits */
            agt_die("a peer agent sent beyond its credits");
        A.pool.reserve--;
    }
    if (delivered || (kind == AGT_K_DATA && agt_deliver(pkt, &li) == 0)) {
        agt_net_credit_back(src);   /* delivered from the run: no slot taken */
    } else if (kind != AGT_K_ACK) {
        int k = agt_slot_get_rx(&A.pool);
        if (k < 0)   /* more packets held than credits given out */
            agt_die("no pool slot for an arriving packet");
        memcpy(agt_slot_mem(&A.pool, (uint32_t)k), pkt, sizeof *w + w->hdrlen + w->len);
        uint32_t u = (uint32_t)k;
        if (kind == AGT_K_DATA)
            agt_queue_delivery(li, u);   /* flush_deliveries frees it */
        else if (kind == AGT_K_MCAST)
            agt_mc_arrive(u);
        else if (kind == AGT_K_RED)
            agt_red_arrive(u);
        else if (kind == AGT_K_FADD)
            agt_fadd_arrive(u);
        else if (kind == AGT_K_RMA)
            agt_rma_arrive(u);
        else if (kind == AGT_K_TREE)
            agt_mc_tree_arrive(u);
        else if (kind == AGT_K_BULK)
            agt_bulk_arrive(u);
    }
    on_credits(src, cred);
}

/* The packets in a run of len bytes (at most AGT_FRAG_MAX, A.mtu apart);
 * a length no sender makes ends the agent. */
static uint32_t run_packets(size_t len)
{
    if (len == 0 || len + hsz > run_bytes) {
        fprintf(stderr, "clumpi-agent[node %d]: corrupt packet (%zu bytes)\n", A.node, len);
        exit(1);
    }
    return (uint32_t)((len + A.mtu - 1) / A.mtu);
}

/* The packets of one message of len bytes (over datagrams after agent_rel's
 * header, from node src; -1: a reliable endpoint's), A.mtu apart. Returns
 * the packets taken. */
static int take_packets(int src, const char *run, size_t len)
{
    uint32_t np = run_packets(len);
    const agt_wire *w[AGT_FRAG_MAX];
    for (uint32_t p = 0; p < np; p++)
        w[p] = packet(run, len, p);
    /* REL=host: each packet carries its rank-level header, so each goes
     * to its rank on its own */
    int train = !A.hrel && np > 1 && whole_message(w, np), whole = 0;
    if (train) {
        for (uint32_t p = 0; p < np; p++)
            agt_delay();
        whole = agt_deliver_train(w, np) == 0;
    }
    for (uint32_t p = 0; p < np; p++)
        arrive(w[p], whole, train);
    if (src >= 0)
        agt_rel_accepted(src, np);
    return (int)np;
}

/* REL=host: the packets of a datagram that came after a later one, taken
 * for lost then (agent_rel.c): each goes to its rank if its ring has room
 * now; it holds no credit any more, so it takes no slot, and one that
 * finds no room is lost after all (its rank sends it again). */
static int take_late(const char *run, size_t len)
{
    uint32_t np = run_packets(len);
    for (uint32_t p = 0; p < np; p++) {
        const agt_wire *w = packet(run, len, p);
        int li;
        agt_st.recv[w->kind]++;
        agt_delay();
        if (w->kind == AGT_K_DATA && agt_deliver((const char *)w, &li) == 0)
            agt_st.host_late++;
        else
            agt_st.host_late_drop++;
    }
    return (int)np;
}

/* One datagram (or, over a reliable endpoint, one message) of len bytes;
 * over datagrams, then the ones held behind it that are now in order.
 * Returns the packets taken. */
static int take(const char *run, size_t len)
{
    if (!A.dgram)
        return take_packets(-1, run, len);
    int cred;
    if (len < hsz) {
        fprintf(stderr, "clumpi-agent[node %d]: corrupt datagram (%zu bytes)\n", A.node, len);
        exit(1);
    }
    const agt_rel_hdr *h = (const agt_rel_hdr *)run;
    int src = h->src_node, fresh = agt_rel_input(h, &cred);
    on_credits(src, cred);
    if (fresh == AGT_REL_LATE)
        return len > hsz ? take_late(run + hsz, len - hsz) : 0;
    if (fresh == AGT_REL_HOLD) {
        ooo_ent *e = ooo_at(src, 0, h->seq);
        if (!e->buf && !(e->buf = malloc(run_bytes)))
            agt_die("out of memory");
        memcpy(e->buf, run, len);
        e->len = len;
        return 0;
    }
    int n = fresh && len > hsz ? take_packets(src, run + hsz, len - hsz) : 0;
    uint32_t seq;
    while (fresh && agt_rel_pop(src, 0, &seq)) {
        ooo_ent *e = ooo_at(src, 0, seq);
        if (e->len > hsz)
            n += take_packets(src, e->buf + hsz, e->len - hsz);
    }
    return n;
}

/* A bulk chunk in landing buffer j (dgram): agent_rel's header sits inside
 * the chunk's header; a copy or one after a gap goes back to be posted
 * (sack: one after a gap waits in its buffer for the gap to fill). */
static int take_land(uint32_t j, size_t len)
{
    char *p = agt_landing(A.h, j);
    if (len < AGT_BULK_HDR) {
        fprintf(stderr, "clumpi-agent[node %d]: corrupt bulk datagram (%zu bytes)\n", A.node,
                len);
        exit(1);
    }
    agt_rel_hdr h;
    memcpy(&h, p + AGT_BULK_REL_OFF, sizeof h);
    /* checked before agt_rel_input: numbered as a main datagram, it would
     * take the place of the real one, later dropped as a copy */
    if (!(h.flags & AGT_REL_BULK))
        agt_die("a datagram on the bulk socket without the bulk flag");
    int cred;
    int fresh = agt_rel_input(&h, &cred);
    on_credits(h.src_node, cred);
    if (!fresh) {
        agt_bulk_unlanded(j);
        return 0;
    }
    if (fresh == AGT_REL_HOLD) {
        *ooo_at(h.src_node, 1, h.seq) = (ooo_ent){ .len = len, .land = j };
        return 0;
    }
    agt_bulk_landed(j, len);
    agt_rel_accepted(h.src_node, 1);
    int n = 1;
    uint32_t seq;
    while (agt_rel_pop(h.src_node, 1, &seq)) {
        ooo_ent *e = ooo_at(h.src_node, 1, seq);
        agt_bulk_landed(e->land, e->len);
        agt_rel_accepted(h.src_node, 1);
        n++;
    }
    return n;
}

static int take_held(void)
{
    size_t len = held_len;
    held_len = 0;
    if (held_land) {
        uint32_t j = held_land - 1;
        held_land = 0;
        return take_land(j, len);
    }
    return take(held, len);
}

/* A datagram in a receive run, through fault injection. */
static int take_faulty(const char *run, size_t len)
{
    int f = agt_fault_pick(), n = 0;
    if (f == AGT_FAULT_DROP)
        return 0;
    if (f == AGT_FAULT_HOLD && !held_len) {
        memcpy(held, run, len);
        held_len = len;
        held_at = agt_now_ns();
        return 0;
    }
    n = take(run, len);
    if (f == AGT_FAULT_DUP)
        n += take(run, len);
    if (held_len)
        n += take_held();
    return n;
}

/* A bulk datagram in landing buffer j, through fault injection: held back,
 * the buffer itself waits (not posted again) until it is taken. */
static int land_faulty(uint32_t j, size_t len)
{
    int f = agt_fault_pick(), n = 0;
    if (f == AGT_FAULT_DROP) {
        agt_bulk_unlanded(j);
        return 0;
    }
    if (f == AGT_FAULT_HOLD && !held_len) {
        held_land = j + 1;
        held_len = len;
        held_at = agt_now_ns();
        return 0;
    }
    agt_rel_hdr copy;
    memcpy(&copy, agt_landing(A.h, j) + AGT_BULK_REL_OFF, sizeof copy);
    n = take_land(j, len);
    if (f == AGT_FAULT_DUP) {   /* the copy: its header only, the chunk went on */
        int cred;
        if (agt_rel_input(&copy, &cred))
            agt_die("a bulk datagram taken twice");
        on_credits(copy.src_node, cred);
    }
    if (held_len)
        n += take_held();
    return n;
}

int agt_net_poll(int budget)
{
    int n = 0;
    struct fi_cq_data_entry e[16];
    while (n < budget) {
        ssize_t got = fi_cq_read(cq, e, 16);
        if (got == -FI_EAGAIN)
            break;
        if (got == -FI_EAVAIL) {
            on_error();
            continue;
        }
        if (got < 0) {
            fail("fi_cq_read", (int)got);
            exit(1);
        }
        for (ssize_t i = 0; i < got; i++) {
            agt_tx *t = (agt_tx *)e[i].op_context;
            if (!(e[i].flags & FI_RECV)) {
                if (A.dgram)
                    agt_rel_send_done(t);
                else
                    agt_tx_done(t);
                continue;
            }
            if (t->type == AGT_TX_LAND) {
                if (A.dgram) {
                    n += land_faulty(t->k, e[i].len);
                } else {
                    agt_bulk_landed(t->k, e[i].len);
                    n++;
                }
                continue;
            }
            /* a run: one packet, or a train of them A.mtu apart */
            const char *run = runs + t->k * run_bytes;
            n += A.dgram ? take_faulty(run, e[i].len) : take(run, e[i].len);
            post_run(t->k);
        }
        if (got < 16)
            break;
    }
    if (A.dgram) {
        if (held_len && agt_now_ns() - held_at > HOLD_NS)
            n += take_held();
        agt_rel_poll();
    }
    for (int d = 0; d < A.nnodes; d++)
        if (A.ack_owed[d])
            agt_net_ack(d);
    return n;
}

long agt_net_sleep_ms(long dflt)
{
    if (!A.dgram)
        return dflt;
    if (held_len && dflt > 1)
        dflt = 1;
    return agt_rel_sleep_ms(dflt);
}

int agt_net_wait_fd(void) { return cqw.fd; }

int agt_net_trywait(void)
{
    return netc_cq_wait_try(fabric, cq, &cqw);
}
