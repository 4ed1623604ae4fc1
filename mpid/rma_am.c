/*
 * rma_am.c — the active-message path: each operation is cut into chunks
 * that fit one packet of the channel reaching the target (target segments
 * as (offset, len) pairs, then the origin's packed data) and applied by the
 * target's progress engine (rma_target.c), which answers every chunk. Locks
 * are LOCK/GRANT/UNLOCK packets against the target's lock word. The origin
 * side (chunks, lazy locks) is shared with the agent path (rma_agent.c),
 * whose packets the target's NI agent serves instead.
 *
 * Packets that cannot be sent from inside a handler (full queue) wait in a
 * per-rank FIFO drained by a polled request, as do lock requests the target
 * cannot grant yet.
 */
#include <stdlib.h>
#include "mpid/rma_impl.h"
#include "src/util/log.h"
#include "src/util/op.h"

#define AM_SEGS 64   /* target segments per chunk */

/* ---- sending --------------------------------------------------------------- */
typedef struct mpid_am_pkt {
    struct mpid_am_pkt *next;
    int world;
    mpid_pkt_rma h;
    size_t len;
    char data[];
} am_pkt;


typedef struct mpid_lock_wait {
    struct mpid_lock_wait *next;
    int src, type;
} lock_wait;

static int drain(void)
{
    int n = 0;
    am_pkt **pp = &mpid_st.rma.am_head, *prev = NULL;
    while (*pp) {
        am_pkt *p = *pp;
        struct iovec iov = { p->data, p->len };
        int rc = -EAGAIN;
        /* Keep per-destination order: skip a destination once it blocked
         * (marked by a negative count until the pass ends). */
        if (mpid_st.rma.am_queued[p->world] > 0)
            rc = mpid_st.dests[p->world].ch->send(p->world, &p->h, sizeof p->h, &iov,
                                               p->len ? 1 : 0, 0);
        if (rc == -EAGAIN) {
            if (mpid_st.rma.am_queued[p->world] > 0)
                mpid_st.rma.am_queued[p->world] = -mpid_st.rma.am_queued[p->world];
            prev = p;
            pp = &p->next;
            continue;
        }
        if (rc < 0)
            cu_warn("RMA packet to rank %d lost: %s", p->world, strerror(-rc));
        *pp = p->next;
        if (mpid_st.rma.am_tail == p)
            mpid_st.rma.am_tail = prev;
        mpid_st.rma.am_queued[p->world]--;
        free(p);
        n++;
    }
    for (am_pkt *p = mpid_st.rma.am_head; p; p = p->next)
        if (mpid_st.rma.am_queued[p->world] < 0)
            mpid_st.rma.am_queued[p->world] = -mpid_st.rma.am_queued[p->world];
    return n;
}

static int poll_fn(mpid_request *req)
{
    int moved = drain();
    if (mpid_st.rma.lock_waiting)
        mpid_rma_retry_waiters();
    if (!mpid_st.rma.am_head && !mpid_st.rma.lock_waiting) {
        /* Nothing waits: leave progress's polled list (free releases an
         * OTHER request at once). */
        mpid_st.rma.am_poller = NULL;
        req->done = 1;
        mpid_request_free(req);
    }
    return moved > 0;
}

static void need_poller(void)
{
    if (mpid_st.rma.am_poller)
        return;
    mpid_st.rma.am_poller = mpid_request_new_other();
    if (!mpid_st.rma.am_poller) {
        cu_warn("RMA: out of requests for the packet queue");
        return;
    }
    mpid_st.rma.am_poller->poll = poll_fn;
}

static int queue(int world, const mpid_pkt_rma *h, const struct iovec *iov, int n)
{
    size_t len = 0;
    for (int i = 0; i < n; i++)
        len += iov[i].iov_len;
    am_pkt *p = malloc(sizeof *p + len);
    if (!p)
        return -ENOMEM;
    p->next = NULL;
    p->world = world;
    p->h = *h;
    p->len = len;
    char *o = p->data;
    for (int i = 0; i < n; i++) {
        memcpy(o, iov[i].iov_base, iov[i].iov_len);
        o += iov[i].iov_len;
    }
    if (mpid_st.rma.am_tail)
        mpid_st.rma.am_tail->next = p;
    else
        mpid_st.rma.am_head = p;
    mpid_st.rma.am_tail = p;
    mpid_st.rma.am_queued[world]++;
    need_poller();
    return 0;
}

int mpid_rma_send(int world, const mpid_pkt_rma *h, const struct iovec *iov, int n, int reply)
{
    if (!mpid_st.rma.am_queued &&
        !(mpid_st.rma.am_queued = calloc((size_t)mpid_st.world_size, sizeof(int))))
        return -ENOMEM;
    const mpid_channel *ch = mpid_st.dests[world].ch;
    if (reply) {
        if (mpid_st.rma.am_queued[world] == 0) {
            int rc = ch->send(world, h, sizeof *h, iov, n, 0);
            if (rc != -EAGAIN)
                return rc;
        }
        return queue(world, h, iov, n);
    }
    /* From the user's call: wait for room rather than copy (progress also
     * drains what the target sends us, so two origins never deadlock). */
    while (mpid_st.rma.am_queued[world] > 0) {
        mpid_progress();
        mpid_pass_done();
    }
    for (;;) {
        int rc = ch->send(world, h, sizeof *h, iov, n, 0);
        if (rc != -EAGAIN)
            return rc;
        mpid_progress();
        mpid_pass_done();
    }
}

/* ---- lock requests waiting at the target ------------------------------ */
void mpid_rma_lock_wait_add(mpid_win *w, int src, int type)
{
    lock_wait *l = malloc(sizeof *l), **pp = &w->waiters;
    if (!l) {
        cu_warn("RMA: out of memory queueing a lock request");
        return;
    }
    l->next = NULL;
    l->src = src;
    l->type = type;
    if (!*pp)
        mpid_st.rma.lock_waiting++;
    while (*pp)
        pp = &(*pp)->next;
    *pp = l;
    need_poller();
}

/* First come, first served: a waiting exclusive request holds back the
 * shared ones behind it, so it is not starved. */
void mpid_rma_lock_wait_retry(mpid_win *w)
{
    while (w->waiters && mpid_rma_try_lock(w->my_ts, w->waiters->type)) {
        lock_wait *l = w->waiters;
        w->waiters = l->next;
        mpid_pkt_rma a;
        memset(&a, 0, sizeof a);
        a.type = MPID_PKT_RMA;
        a.kind = MPID_RMA_GRANT;
        a.win = (uint32_t)w->peers[l->src].win_index;
        a.src = w->comm->rank;
        mpid_rma_send(w->comm->world_ranks[l->src], &a, NULL, 0, 1);
        free(l);
        if (!w->waiters)
            mpid_st.rma.lock_waiting--;
    }
}

/* ---- the path ------------------------------------------------------------ */
static void hdr_init(mpid_pkt_rma *h, const mpid_win *w, int target, int kind)
{
    memset(h, 0, sizeof *h);
    h->type = MPID_PKT_RMA;
    h->kind = (uint8_t)kind;
    h->win = (uint32_t)w->peers[target].win_index;
    h->src = w->comm->rank;
}

static int err_of(int rc)
{
    return rc == -ENOMEM ? MPI_ERR_NO_MEM : MPI_ERR_OTHER;
}

struct grant_arg { mpid_win *w; int target, want; };
static int granted(void *arg)
{
    struct grant_arg *g = arg;
    return g->w->granted[g->target] >= g->want;
}

static void wait_grant(mpid_win *w, int target);

int mpid_rma_msg_issue(mpid_win *w, const mpid_rma_args *a, mpid_rma_rec *rec, size_t maxp,
                       mpid_rma_post_fn *post)
{
    wait_grant(w, a->target);
    size_t total = a->tdt->size * a->tcount;
    size_t esz = mpid_rma_is_acc(a->kind) ? mpid_rma_elem(a->basic) : 1;
    /* Room for data: the payload less the largest segment list (none for a
     * contiguous target: one segment, in the header). */
    size_t dcap = a->tdt->contig ? maxp : maxp - AM_SEGS * sizeof(struct iovec);
    dcap -= dcap % esz;
    if (a->kind == MPID_RMA_CAS)
        dcap = esz;   /* one element, sent with its compare value */
    struct iovec segs[AM_SEGS + 2];
    char *tmp = NULL;
    int odata = a->kind != MPID_RMA_GET && a->odt;   /* MPI_NO_OP fetches send none */
    if (odata && !a->odt->contig && !(tmp = malloc(a->kind == MPID_RMA_CAS ? 2 * esz : dcap)))
        return MPI_ERR_NO_MEM;
    int rc = 0;
    for (size_t off = 0; off < total;) {
        size_t len = 0;
        int n = mpid_rma_chunk_segs((const void *)(uintptr_t)a->tdisp, a, off, dcap, esz,
                                    segs + 1, AM_SEGS, &len);
        if (n <= 0) {
            rc = MPI_ERR_INTERN;
            break;
        }
        mpid_pkt_rma h;
        hdr_init(&h, w, a->target, a->kind);
        h.op = (uint8_t)a->op;
        h.basic = (uint8_t)a->basic;
        h.oreq = (uint64_t)(uintptr_t)rec;
        h.ooff = off;
        h.len = len;
        struct iovec iov[3];
        int ni = 0;
        if (n == 1) {
            h.addr = (uintptr_t)segs[1].iov_base;
        } else {
            h.nseg = (uint32_t)n;
            iov[ni].iov_base = segs + 1;
            iov[ni++].iov_len = (size_t)n * sizeof *segs;
        }
        if (odata) {
            size_t dl = a->kind == MPID_RMA_CAS ? 2 * len : len;
            if (a->odt->contig) {
                iov[ni].iov_base = (char *)a->obuf + a->odt->true_lb + off;
                iov[ni++].iov_len = len;
                if (a->kind == MPID_RMA_CAS) {
                    iov[ni].iov_base = (char *)a->cbuf + a->odt->true_lb;
                    iov[ni++].iov_len = len;
                }
            } else {
                cu_dtype_pack(a->obuf, a->ocount, a->odt, off, tmp, len);
                if (a->kind == MPID_RMA_CAS)
                    cu_dtype_pack(a->cbuf, 1, a->odt, 0, tmp + len, len);
                iov[ni].iov_base = tmp;
                iov[ni++].iov_len = dl;
            }
        }
        /* Count before sending: a self packet is answered from progress,
         * which the send may run while waiting for room. */
        w->pending[a->target]++;
        w->pending_total++;
        if (rec)
            rec->pending++;
        int sr = post(w, a->target, &h, iov, ni);
        if (sr < 0) {
            w->pending[a->target]--;
            w->pending_total--;
            if (rec)
                rec->pending--;
            rc = err_of(sr);
            break;
        }
        off += len;
    }
    free(tmp);
    return rc;
}

/* Lazy acquisition: Win_lock sends the request and returns (the standard
 * lets it); the first operation or the unlock waits for the grant, so
 * Win_lock_all asks every target at once and computation between Win_lock
 * and the first access overlaps the round trip. */
int mpid_rma_msg_lock(mpid_win *w, int target, int type, mpid_rma_post_fn *post)
{
    mpid_pkt_rma h;
    hdr_init(&h, w, target, MPID_RMA_LOCK);
    h.op = (uint8_t)type;
    int rc = post(w, target, &h, NULL, 0);
    if (rc < 0)
        return err_of(rc);
    w->grant_want[target] = w->granted[target] + 1;
    return MPI_SUCCESS;
}

static void wait_grant(mpid_win *w, int target)
{
    struct grant_arg g = { w, target, w->grant_want[target] };
    if (!granted(&g))
        mpid_progress_until(granted, &g);
}

int mpid_rma_msg_unlock(mpid_win *w, int target, int type, mpid_rma_post_fn *post)
{
    wait_grant(w, target);
    mpid_pkt_rma h;
    hdr_init(&h, w, target, MPID_RMA_UNLOCK);
    h.op = (uint8_t)type;
    w->pending[target]++;
    w->pending_total++;
    int rc = post(w, target, &h, NULL, 0);
    if (rc < 0) {
        w->pending[target]--;
        w->pending_total--;
        return err_of(rc);
    }
    /* Wait for the ack: the target's window may be freed right after. */
    return mpid_win_flush(w, target);
}

/* From the user's call: the packet through the channel reaching the target. */
static int am_post(mpid_win *w, int target, const mpid_pkt_rma *h, const struct iovec *iov,
                   int n)
{
    return mpid_rma_send(w->comm->world_ranks[target], h, iov, n, 0);
}

static int am_issue(mpid_win *w, const mpid_rma_args *a, mpid_rma_rec *rec)
{
    size_t maxp = mpid_st.dests[w->comm->world_ranks[a->target]].ch->max_payload;
    if (maxp > (1u << 20))
        maxp = 1u << 20;   /* the unreachable channel says SIZE_MAX */
    return mpid_rma_msg_issue(w, a, rec, maxp, am_post);
}

static int am_lock(mpid_win *w, int target, int type)
{
    return mpid_rma_msg_lock(w, target, type, am_post);
}

static int am_unlock(mpid_win *w, int target, int type)
{
    return mpid_rma_msg_unlock(w, target, type, am_post);
}

const mpid_rma_path mpid_rma_path_am = {
    .name = "am",
    .issue = am_issue,
    .lock = am_lock,
    .unlock = am_unlock,
};
