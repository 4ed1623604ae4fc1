/*
 * agent_rma.c — one-sided operations served by the target node's agent
 * (Bilas: remote deposit, remote fetch and NI locks, served
 * without interrupting the target host). A request (RMA packet: the
 * agt_rma_hdr header, then (offset, len) pairs, then the origin's
 * packed data) goes from the origin rank's tx slot to the target's agent,
 * which applies it to the target rank's window memory with process_vm_
 * readv/writev on the rank's pid and turns the packet into the answer in
 * place (ACK, RESP with the fetched bytes, or GRANT), sent back to the
 * origin's agent and up to the origin rank. The target rank is never
 * involved after it opened the window's line.
 *
 * The words: each (rank, window index) has one line in the node's
 * rank<->agent segment (agt_rma_lines): the passive-target lock word, the
 * accumulate word, and the window's base and size. Ranks of this node take
 * the same words with the same atomics (src/util/rma_apply.c) when they
 * access the window themselves, so accumulates stay atomic per element
 * and locks exclusive across every origin, local or remote.
 *
 * Credits: requests and answers share the credit flow control between
 * agents, and a target answers from the request's own slot, so requests
 * alone must never hold every credit (both directions full of requests
 * whose answers wait for credits is a deadlock). Each agent keeps at most
 * W/2 requests unanswered per target node; more wait here, in their rank's
 * tx slot (the rank feels it as a full tx ring). Then answers, at most
 * W/2 per direction, always find credits that come back: an answer is
 * delivered to its rank unconditionally. Lock requests are not counted
 * (one may wait for a lock as long as its holder likes, and the holder's
 * unlock must still pass); they are single small packets.
 *
 * Waiting: a request for a line not open yet (the origin finished creating
 * the window before the target did) waits in arrival order; a lock that
 * cannot be granted waits in a FIFO and is retried after every unlock we
 * serve and from the event loop (a local holder releases with a plain
 * store: agt_rma_waiting() keeps the agent's sleeps short meanwhile).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "netmod/agent/agent.h"
#include "netmod/agent/agent_mc.h"
#include "netmod/agent/agent_rma.h"
#include "src/util/op.h"
#include "src/util/rma_apply.h"

#define SEGS_MAX 64   /* the device never sends more per packet (AM_SEGS, mpid/rma_am.c) */

static agt_wire *wire_of(uint32_t k) { return (agt_wire *)agt_slot_mem(&A.pool, k); }
static agt_rma_hdr *hdr_of(uint32_t k) { return (agt_rma_hdr *)(wire_of(k) + 1); }

/* Requests waiting: for their line to open (in arrival order), for a lock. */
typedef struct fifo { uint32_t *k; uint32_t n, cap; } fifo;
static fifo early, locks;

static void push(fifo *f, uint32_t k)
{
    if (f->n == f->cap) {
        uint32_t cap = f->cap ? 2 * f->cap : 64;
        uint32_t *nk = realloc(f->k, cap * sizeof *nk);
        if (!nk)
            agt_die("out of memory");
        f->k = nk, f->cap = cap;
    }
    f->k[f->n++] = k;
}

/* Requests sent per target node and not answered yet; those held back. */
static int *unanswered;
typedef struct txq { agt_tx **t; uint32_t h, n, cap; } txq;
static txq *held;

static int gate(void) { return A.flow.W / 2 > 0 ? A.flow.W / 2 : 1; }

static void hold(txq *q, agt_tx *t)
{
    if (q->n == q->cap) {
        uint32_t cap = q->cap ? 2 * q->cap : 16;
        agt_tx **nt = malloc(cap * sizeof *nt);
        if (!nt)
            agt_die("out of memory");
        for (uint32_t i = 0; i < q->n; i++)
            nt[i] = q->t[(q->h + i) % q->cap];
        free(q->t);
        q->t = nt, q->h = 0, q->cap = cap;
    }
    q->t[(q->h + q->n++) % q->cap] = t;
}

static void send_request(agt_tx *t)
{
    if (((agt_rma_hdr *)(t->pkt + sizeof(agt_wire)))->kind != AGT_RMA_LOCK)
        unanswered[t->node]++;
    agt_net_send(t);   /* the tx slot is freed when sent */
}

/* An answer from node came in: held requests to it may go. */
static void answered(int node)
{
    txq *q = &held[node];
    unanswered[node]--;
    while (q->n && unanswered[node] < gate()) {
        agt_tx *t = q->t[q->h];
        q->h = (q->h + 1) % q->cap;
        q->n--;
        send_request(t);
    }
}

static agt_rma_line *line_of(uint32_t k, int *li)
{
    agt_wire *w = wire_of(k);
    agt_rma_hdr *h = hdr_of(k);
    if ((*li = agt_find_local(w->dst)) < 0)
        agt_die("one-sided request for a rank not on this node");
    if (h->win >= AGT_RMA_WINS)
        agt_die("one-sided request for a window index out of range");
    return (agt_rma_line *)agt_rma_lines(A.h, *li) + h->win;
}

/* The request in slot k becomes its answer (payload bytes of data) and goes
 * back to the origin's node; the slot is ours (agt_mc_keep). */
static void answer(uint32_t k, int kind, int err, size_t bytes)
{
    agt_wire *w = wire_of(k);
    agt_rma_hdr *h = hdr_of(k);
    uint32_t origin = w->src;
    h->kind = (uint8_t)kind;
    h->nseg = (uint32_t)err;
    w->src = w->dst;
    w->dst = origin;
    w->len = (uint16_t)bytes;
    agt_mc_send(k, (int)agt_nodes(A.h)[origin]);
}

/* The answer's outcome of one process_vm_* transfer: OK when it moved all
 * `want` bytes, else EACCESS (said once on stderr). */
static int cma_err(ssize_t got, size_t want)
{
    static int warned;
    if (got == (ssize_t)want)
        return 0;
    if (!warned++)
        fprintf(stderr, "clumpi-agent[node %d]: one-sided access to a rank's window failed: %s\n",
                A.node, got < 0 ? strerror(errno) : "short transfer");
    return AGT_RMA_EACCESS;
}

/* A put, get or accumulate kind: apply it, answer. */
static void serve_op(uint32_t k, int li, agt_rma_line *l)
{
    agt_wire *w = wire_of(k);
    agt_rma_hdr *h = hdr_of(k);
    char *pay = (char *)h + w->hdrlen;
    size_t len = h->len, nseg = h->nseg ? h->nseg : 1;
    int kind = h->kind, fetch = cu_rma_fetches(kind);
    int nodata = kind == CU_RMA_GET ||
                 (h->op == CU_OP_NO_OP && (kind == CU_RMA_GACC || kind == CU_RMA_FOP));
    size_t dlen = kind == CU_RMA_CAS ? 2 * len : nodata ? 0 : len;
    struct iovec segs[SEGS_MAX];
    int err = 0;
    if (nseg > SEGS_MAX || len > AGT_MAX_PAYLOAD ||
        (h->nseg ? nseg * sizeof *segs : 0) + dlen > w->len) {
        err = AGT_RMA_EBADREQ;
        goto done;
    }
    if (h->nseg) {
        memcpy(segs, pay, nseg * sizeof *segs);   /* (offset, len) pairs, LP64 iovec layout */
        pay += nseg * sizeof *segs;
    } else {
        segs[0] = (struct iovec){ (void *)(uintptr_t)h->addr, len };
    }
    /* Offsets to addresses in the target, nothing outside the window ever. */
    uint64_t base = l->base, size = l->size;
    for (size_t i = 0; i < nseg; i++) {
        uint64_t o = (uintptr_t)segs[i].iov_base, n = segs[i].iov_len;
        if (o > size || n > size - o) {
            err = AGT_RMA_ERANGE;
            goto done;
        }
        segs[i].iov_base = (void *)(uintptr_t)(base + o);
    }
    /* The op kernels load whole elements: aligned copies of the data. */
    alignas(max_align_t) char in[2 * AGT_MAX_PAYLOAD], out[AGT_MAX_PAYLOAD], t[AGT_MAX_PAYLOAD];
    memcpy(in, pay, dlen);
    pid_t pid = agt_rank(A.h, li)->pid;
    struct iovec lo = { in, len };
    if (kind == CU_RMA_PUT) {
        err = cma_err(process_vm_writev(pid, &lo, 1, segs, (unsigned long)nseg, 0), len);
    } else if (kind == CU_RMA_GET) {
        lo.iov_base = out;
        err = cma_err(process_vm_readv(pid, &lo, 1, segs, (unsigned long)nseg, 0), len);
    } else {
        /* Read, combine here, write back, under the target's accumulate word. */
        lo.iov_base = t;
        cu_rma_acc_lock(&l->acc);
        err = cma_err(process_vm_readv(pid, &lo, 1, segs, (unsigned long)nseg, 0), len);
        if (!err && cu_rma_apply_packed(kind, h->op, h->basic, t, in, out, len))
            err = cma_err(process_vm_writev(pid, &lo, 1, segs, (unsigned long)nseg, 0), len);
        cu_rma_acc_unlock(&l->acc);
    }
done:
    if (fetch && !err)
        memcpy((char *)h + w->hdrlen, out, len);
    answer(k, fetch ? AGT_RMA_RESP : AGT_RMA_ACK, err, fetch && !err ? len : 0);
}

static int retry_locks(void);

/* Serve the request in slot k; 0 when done, -EAGAIN when it must wait. */
static int serve(uint32_t k)
{
    int li;
    agt_rma_line *l = line_of(k, &li);
    agt_rma_hdr *h = hdr_of(k);
    if (!atomic_load_explicit((_Atomic uint32_t *)&l->open, memory_order_acquire))
        return -EAGAIN;
    switch (h->kind) {
    case AGT_RMA_LOCK:
        if (!cu_rma_try_lock(&l->lock, h->ltype))
            return -EAGAIN;
        answer(k, AGT_RMA_GRANT, 0, 0);
        return 0;
    case AGT_RMA_UNLOCK:
        cu_rma_release_lock(&l->lock, h->ltype);
        answer(k, AGT_RMA_ACK, 0, 0);
        retry_locks();
        return 0;
    case CU_RMA_PUT: case CU_RMA_GET: case CU_RMA_ACC: case CU_RMA_GACC: case CU_RMA_FOP:
    case CU_RMA_CAS:
        serve_op(k, li, l);
        return 0;
    }
    agt_die("bad one-sided request");
    return 0;
}

/* First come, first served: a waiting exclusive request holds back the
 * requests behind it (as the active-message path's target does). */
static int retry_locks(void)
{
    uint32_t i = 0;
    while (i < locks.n && serve(locks.k[i]) == 0)
        i++;
    if (i && i < locks.n)   /* locks.k is NULL while nothing ever waited */
        memmove(locks.k, locks.k + i, (locks.n - i) * sizeof *locks.k);
    locks.n -= i;
    return (int)i;
}

/* A request behind one of the same line that waits for the line to open
 * waits too: accumulates from one origin apply in order. */
static int behind_early(uint32_t k, uint32_t upto)
{
    agt_wire *w = wire_of(k);
    agt_rma_hdr *h = hdr_of(k);
    for (uint32_t i = 0; i < upto; i++)
        if (wire_of(early.k[i])->dst == w->dst && hdr_of(early.k[i])->win == h->win)
            return 1;
    return 0;
}

static void take(uint32_t k)
{
    int li;
    agt_rma_line *l = line_of(k, &li);
    if (behind_early(k, early.n) ||
        !atomic_load_explicit((_Atomic uint32_t *)&l->open, memory_order_acquire)) {
        push(&early, k);
    } else if (hdr_of(k)->kind == AGT_RMA_LOCK && locks.n) {
        push(&locks, k);   /* behind the waiting ones */
        retry_locks();
    } else if (serve(k) != 0) {
        push(&locks, k);
    }
}

int agt_rma_poll(void)
{
    int work = 0;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < early.n; i++) {
        uint32_t k = early.k[i];
        int li;
        agt_rma_line *l = line_of(k, &li);
        if (behind_early(k, kept) ||
            !atomic_load_explicit((_Atomic uint32_t *)&l->open, memory_order_acquire)) {
            early.k[kept++] = k;
            continue;
        }
        if (serve(k) != 0)
            push(&locks, k);   /* open now; a lock that must wait */
        work++;
    }
    early.n = kept;
    if (locks.n)
        work += retry_locks();
    return work;
}

int agt_rma_waiting(void) { return early.n + locks.n > 0; }

int agt_rma_origin(agt_tx *t)
{
    agt_wire *w = (agt_wire *)t->pkt;
    if (w->hdrlen != sizeof(agt_rma_hdr) || w->dst >= A.h->nworld)
        agt_die("bad one-sided command");
    t->node = (int)agt_nodes(A.h)[w->dst];
    if (t->node == A.node)
        agt_die("one-sided request for a rank of this node (the device serves those itself)");
    if (!unanswered) {
        unanswered = calloc((size_t)A.nnodes, sizeof *unanswered);
        held = calloc((size_t)A.nnodes, sizeof *held);
        if (!unanswered || !held)
            agt_die("out of memory");
    }
    int lock = ((agt_rma_hdr *)(w + 1))->kind == AGT_RMA_LOCK;
    if (!lock && (held[t->node].n || unanswered[t->node] >= gate()))
        hold(&held[t->node], t);   /* in order behind the others */
    else
        send_request(t);
    return 0;
}

void agt_rma_arrive(uint32_t k)
{
    agt_wire *w = wire_of(k);
    if (w->hdrlen != sizeof(agt_rma_hdr))
        agt_die("corrupt one-sided packet");
    agt_mc_keep(k, (uint32_t)A.flow.W);
    int kind = hdr_of(k)->kind;
    if (kind == AGT_RMA_GRANT || kind == AGT_RMA_ACK || kind == AGT_RMA_RESP) {
        if (kind != AGT_RMA_GRANT)
            answered(w->src_node);
        agt_mc_deliver_one(k, w->dst);   /* to the origin rank */
    } else {
        take(k);
    }
}
