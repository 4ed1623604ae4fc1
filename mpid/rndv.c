/*
 * rndv.c — rendezvous for messages above the eager limit.
 *
 * RTS carries the sender's memory: the address of contiguous data, or of an
 * iovec array describing non-contiguous data. On match the receiver reads it
 * with the channel's rma_read straight into the user buffer (one copy, no
 * staging) and returns FIN. When the channel or the kernel refuses
 * (-EPERM/-ENOTSUP, or no rma_read), the receiver sends CTS and the sender
 * streams DATA packets of up to max_payload at offsets.
 *
 * Across a network the receiver reads only what the sender exposed for this
 * message (channel net_rma->expose: a registration per message under a fresh
 * random key, sent in the RTS payload as the 48-byte header is full): the
 * data, or the span of its segments plus the iovec list. FIN or CTS ends
 * the exposure, so memory freed after the send completes is never readable.
 *
 * Fine-grained datatypes do not go through the single-copy read element by
 * element: the kernel pins pages and takes the mm lock once per *remote*
 * segment, so a vector of ints read with process_vm_readv costs ~0.5 us per
 * 4-byte element (an 8-rank allgather into a resized int type took 1.4 s vs
 * 4 ms contiguous). A sparse sender (average segment < RNDV_MIN_RSEG) asks
 * for the pipelined path instead (niov = MPID_RTS_PACKED: it packs into
 * channel fragments, the receiver unpacks, both cores work). A sparse
 * receiver reads the remote stream into a cache-sized bounce buffer and
 * unpacks it (local segments cost little each, but 64 per syscall would
 * make the syscall per 256 bytes).
 *
 * Cooperative copy: for a large contiguous message, a receiver that could
 * read from this sender before sends COOP with the address of the second
 * half of its buffer; the sender (idle in a wait, typically) writes that
 * half (the channel's copy->write) while the receiver reads the first, so
 * two cores copy.
 * The sender answers WDONE (with a status: on failure the receiver reads the
 * rest itself); the receiver sends FIN only after its read and WDONE, so the
 * sender's buffer stays in use until both halves are done, and the receive
 * completes only after the sender stopped writing into it. Like the CTS
 * path, the second half needs the sender to enter MPI (progress) — which a
 * sender waiting for its rendezvous does; CLUMPI_RNDV_COOP=0 turns it off
 * for codes that Isend large messages and compute for long without MPI calls.
 */
#include <stdlib.h>
#include "mpid/mpidi.h"
#include "src/util/log.h"
#include "src/util/param.h"

#define RNDV_IOV 64   /* segments per rma_read call (well under IOV_MAX) */
/* Below this average remote segment the per-segment pin costs more than
 * copying the bytes twice (pack + unpack through fragments). */
#define RNDV_MIN_RSEG 2048
/* Below this average local segment, read into a bounce buffer and unpack. */
#define RNDV_MIN_LSEG 512
#define RNDV_BOUNCE (64 * 1024)   /* bounce chunk: stays in L2 for the unpack */
/* RTS niov: no single copy for this message, send CTS (the sender packs). */
#define MPID_RTS_PACKED UINT64_MAX

mpid_rndv_stats_t mpid_rndv_stats;

/* Smallest message copied cooperatively (CLUMPI_RNDV_COOP bytes, 0 = never).
 * Below it the extra control round trip and the wake-up of the sender cost
 * more than the halved copy saves. */
static size_t coop_min(void)
{
    static long v = -1;
    if (v < 0) {
        v = cu_param_int("RNDV_COOP");
        if (v < 0)
            v = 0;
    }
    return (size_t)v;
}

static inline int sparse(const cu_dtype *dt, size_t count, size_t bytes, size_t min_seg)
{
    if (dt->contig)
        return 0;
    size_t nb = cu_dtype_blocks(dt, count);
    return nb && bytes / nb < min_seg;
}

static inline size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

/* The sender's data as an iovec list (non-contiguous types). */
static int build_iovs(mpid_req *r)
{
    size_t cap = 16, n = 0, off = 0;
    struct iovec *v = malloc(cap * sizeof *v);
    if (!v)
        return -ENOMEM;
    while (off < r->p.bytes) {
        if (n == cap) {
            struct iovec *nv = realloc(v, 2 * cap * sizeof *v);
            if (!nv) {
                free(v);
                return -ENOMEM;
            }
            v = nv;
            cap *= 2;
        }
        size_t len = 0;
        int k = cu_dtype_to_iov(r->p.buf, r->p.count, r->p.dt, off, r->p.bytes - off,
                                v + n, (int)(cap - n), &len);
        if (k <= 0 || len == 0) {
            free(v);
            return -EINVAL;
        }
        n += (size_t)k;
        off += len;
    }
    r->p.iovs = v;
    r->p.niov = n;
    return 0;
}

static int expose(const mpid_req *r, const mpid_dest *d, const mpid_pkt_rts *h,
                  uint64_t key[2], void *exposed[2]);
static void unexpose(const mpid_dest *d, void *exposed[2]);

/* Whether r's data is too scattered for a read: its RTS asks the
 * receiver for the pipelined path. */
static int rts_packed(const mpid_req *r)
{
    return sparse(r->p.dt, r->p.count, r->p.bytes, RNDV_MIN_RSEG);
}

int mpid_rts_send(mpid_req *r, mpid_dest *d)
{
    mpid_pkt_rts h;
    memset(&h, 0, sizeof h);
    h.m.type = MPID_PKT_RTS;
    h.m.ctx = r->p.ctx;
    h.m.src = r->p.my_rank;
    h.m.tag = r->p.tag;
    h.sreq = (uint64_t)(uintptr_t)r;
    h.size = r->p.bytes;
    const cu_dtype *dt = r->p.dt;
    if (dt->contig) {
        h.addr = (uint64_t)(uintptr_t)((char *)r->p.buf + dt->true_lb);
    } else if (rts_packed(r)) {
        h.niov = MPID_RTS_PACKED;
    } else {
        if (!r->p.iovs) {
            int rc = build_iovs(r);
            if (rc < 0)
                return rc;
        }
        if (r->p.niov == 1) {
            h.addr = (uint64_t)(uintptr_t)r->p.iovs[0].iov_base;
        } else {
            h.addr = (uint64_t)(uintptr_t)r->p.iovs;
            h.niov = r->p.niov;
        }
    }
    uint64_t key[2] = { 0, 0 };
    void *exposed[2] = { NULL, NULL };
    struct iovec kv = { key, sizeof key };
    int nkv = 0;
    if (d->ch->net_rma && h.niov != MPID_RTS_PACKED && h.size) {
        nkv = 1;
        if (expose(r, d, &h, key, exposed) != 0)
            h.niov = MPID_RTS_PACKED;   /* the receiver asks for DATA packets */
    }
    /* All that a FIN or CTS uses is in place before the RTS goes: under
     * MPI_THREAD_MULTIPLE a send may give the lock away while it waits for
     * room, and another thread's progress may take the answer meanwhile. */
    uint8_t was = r->p.state;
    d->rts_out++;
    r->p.state = MPID_ST_RTS_SENT;
    r->p.x.exposed[0] = exposed[0];
    r->p.x.exposed[1] = exposed[1];
    mpid_req_hold_dt(r);   /* kept on failure: released at completion */
    int rc = d->ch->send(r->p.peer, &h, sizeof h, &kv, nkv, 0);
    if (rc != 0) {
        d->rts_out--;
        r->p.state = was;
        r->p.x.exposed[0] = r->p.x.exposed[1] = NULL;
        unexpose(d, exposed);   /* a retry exposes afresh */
    }
    return rc;
}

/* Sender, network channels: the receiver reads only what we expose for
 * this message, under keys that travel in the RTS payload (the header is
 * full): the data (contiguous, or the span of its segments) and, for
 * segments, the iovec list. Released at FIN or CTS. */
static void unexpose(const mpid_dest *d, void *exposed[2])
{
    for (int k = 0; k < 2; k++)
        if (exposed[k]) {
            d->ch->net_rma->unexpose(exposed[k]);
            exposed[k] = NULL;
            mpid_rndv_stats.live--;
        }
}

static void count_exposed(int rc)
{
    if (rc == 0) {
        mpid_rndv_stats.exposed++;
        mpid_rndv_stats.live++;
    }
}

static int expose(const mpid_req *r, const mpid_dest *d, const mpid_pkt_rts *h,
                  uint64_t key[2], void *exposed[2])
{
    int peer = r->p.peer, rc;
    if (h->niov == 0) {
        rc = d->ch->net_rma->expose(peer, (const void *)(uintptr_t)h->addr, h->size, &key[0], &exposed[0]);
        count_exposed(rc);
        return rc;
    }
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (size_t i = 0; i < r->p.niov; i++) {
        uintptr_t b = (uintptr_t)r->p.iovs[i].iov_base;
        if (b < lo)
            lo = b;
        if (b + r->p.iovs[i].iov_len > hi)
            hi = b + r->p.iovs[i].iov_len;
    }
    rc = d->ch->net_rma->expose(peer, (const void *)lo, hi - lo, &key[0], &exposed[0]);
    count_exposed(rc);
    if (rc == 0) {
        rc = d->ch->net_rma->expose(peer, r->p.iovs, r->p.niov * sizeof *r->p.iovs, &key[1], &exposed[1]);
        count_exposed(rc);
        if (rc)
            unexpose(d, exposed);
    }
    return rc;
}

/* The receiver's read of the sender's [remote]; base: the start of the
 * exposure key names (channels that read by key), or ignored. */
static ssize_t chan_read(const mpid_req *r, const mpid_dest *d, int which, uint64_t base,
                         const struct iovec *lv, int ln, const struct iovec *rv, int rn)
{
    if (d->ch->net_rma)
        return r->p.x.rkey[which] ? d->ch->net_rma->read_key(r->p.peer, r->p.x.rkey[which],
                                                             base, lv, ln, rv, rn)
                                  : -ENOTSUP;
    return d->ch->copy->read(r->p.peer, lv, ln, rv, rn);
}

/* Single-copy read of bytes [start, want) into the receive buffer (start > 0
 * only when both sides are contiguous: the cooperative copy). Returns 0, or
 * a negative errno from the channel (-EPERM/-ENOTSUP: use CTS instead). */
static int rndv_read(mpid_req *r, mpid_dest *d, size_t start, size_t want)
{
    struct iovec one, *riov = &one;
    size_t rn = 1;
    if (r->p.rniov == 0) {
        one.iov_base = (void *)(uintptr_t)r->p.raddr;
        one.iov_len = r->p.msg_size;
    } else {
        rn = r->p.rniov;
        riov = malloc(rn * sizeof *riov);
        if (!riov)
            return -ENOMEM;
        struct iovec l = { riov, rn * sizeof *riov };
        struct iovec rm = { (void *)(uintptr_t)r->p.raddr, rn * sizeof *riov };
        ssize_t got = chan_read(r, d, 1, r->p.raddr, &l, 1, &rm, 1);
        if (got != (ssize_t)(rn * sizeof *riov)) {
            free(riov);
            return got < 0 ? (int)got : -EIO;
        }
    }
    /* The start of the sender's exposure: the data, or its lowest segment. */
    uint64_t rbase = riov == &one ? r->p.raddr : UINT64_MAX;
    for (size_t i = 0; i < rn && riov != &one; i++)
        if ((uint64_t)(uintptr_t)riov[i].iov_base < rbase)
            rbase = (uint64_t)(uintptr_t)riov[i].iov_base;
    const cu_dtype *dt = r->p.dt;
    size_t off = start, ri = 0, roff = start;
    int rc = 0;
    char *bounce = NULL;
    if (sparse(dt, r->p.count, r->p.bytes, RNDV_MIN_LSEG) &&
        !(bounce = malloc(min_sz(want, RNDV_BOUNCE)))) {
        if (riov != &one)
            free(riov);
        return -ENOMEM;
    }
    while (off < want) {
        struct iovec lv[RNDV_IOV], rv[RNDV_IOV];
        size_t llen;
        int ln;
        if (bounce) {
            lv[0].iov_base = bounce;
            lv[0].iov_len = llen = min_sz(want - off, RNDV_BOUNCE);
            ln = 1;
        } else if (dt->contig) {
            lv[0].iov_base = (char *)r->p.buf + dt->true_lb + off;
            lv[0].iov_len = llen = want - off;
            ln = 1;
        } else {
            ln = cu_dtype_to_iov(r->p.buf, r->p.count, dt, off, want - off, lv, RNDV_IOV, &llen);
            if (ln <= 0 || llen == 0) {
                rc = -EINVAL;
                break;
            }
        }
        /* The matching stretch of the sender's list. */
        size_t got = 0, i = ri, o = roff;
        int rnv = 0;
        while (got < llen && rnv < RNDV_IOV && i < rn) {
            size_t seg = min_sz(riov[i].iov_len - o, llen - got);
            if (seg) {
                rv[rnv].iov_base = (char *)riov[i].iov_base + o;
                rv[rnv].iov_len = seg;
                rnv++;
            }
            got += seg;
            o += seg;
            if (o == riov[i].iov_len) {
                i++;
                o = 0;
            }
        }
        if (got == 0) {
            rc = -EIO;
            break;
        }
        if (got < llen) {
            /* Remote side ran out of slots: shorten the local list to match. */
            size_t acc = 0;
            int k;
            for (k = 0; k < ln; k++) {
                if (acc + lv[k].iov_len >= got) {
                    lv[k].iov_len = got - acc;
                    k++;
                    break;
                }
                acc += lv[k].iov_len;
            }
            ln = k;
        }
        ssize_t n = chan_read(r, d, 0, rbase, lv, ln, rv, rnv);
        mpid_rndv_stats.reads++;
        mpid_rndv_stats.rsegs += (unsigned long)rnv;
        mpid_rndv_stats.lsegs += (unsigned long)ln;
        if (n <= 0) {
            rc = n < 0 ? (int)n : -EIO;
            break;
        }
        if (bounce)
            cu_dtype_unpack(r->p.buf, r->p.count, dt, off, bounce, (size_t)n);
        off += (size_t)n;
        /* Advance the remote cursor by what was read. */
        size_t adv = (size_t)n;
        while (adv && ri < rn) {
            size_t left = riov[ri].iov_len - roff;
            if (adv < left) {
                roff += adv;
                adv = 0;
            } else {
                adv -= left;
                ri++;
                roff = 0;
            }
        }
    }
    if (riov != &one)
        free(riov);
    free(bounce);
    return rc;
}

/* Receiver: the end of a cooperative copy (own read done, WDONE in). */
static void coop_finish(mpid_req *r)
{
    mpid_pkt_ack f = { .type = MPID_PKT_FIN, .sreq = r->p.peer_req };
    mpid_ctrl_send(r->p.peer, &f, sizeof f);
    r->pub.status.clumpi_count = (MPI_Count)r->p.limit;
    mpid_req_complete(r);
}

/* Receiver: split the copy with the sender when it pays. Returns 1 when the
 * cooperative copy took the message (r completes at WDONE), 0 otherwise. */
static int coop_start(mpid_req *r, mpid_dest *d, size_t want)
{
    size_t min = coop_min();
    const cu_dtype *dt = r->p.dt;
    /* rts_out: we are sending large messages to that peer ourselves, so its
     * core is busy reading them (bidirectional traffic): no idle core to use. */
    if (!min || want < min || !d->rma_ok || !d->ch->copy || !d->ch->copy->write || r->p.rniov != 0 ||
        !dt->contig || d->rts_out)
        return 0;
    /* Page-aligned split: the two copies never write the same cache line. */
    size_t split = (want / 2) & ~(size_t)4095;
    char *lbuf = (char *)r->p.buf + dt->true_lb;
    mpid_pkt_coop c = { .type = MPID_PKT_COOP, .sreq = r->p.peer_req,
                        .rreq = (uint64_t)(uintptr_t)r,
                        .raddr = (uint64_t)(uintptr_t)(lbuf + split),
                        .off = split, .len = want - split };
    if (mpid_ctrl_send(r->p.peer, &c, sizeof c) != 0)
        return 0;
    mpid_rndv_stats.coop++;
    r->p.offset = split;
    r->p.limit = want;
    r->p.state = MPID_ST_COOP_WAIT;   /* WDONE is handled from progress, after this */
    int rc = rndv_read(r, d, 0, split);
    if (rc) {
        cu_warn("single-copy read from rank %d failed: %s", r->p.peer, strerror(-rc));
        r->pub.status.MPI_ERROR = MPI_ERR_OTHER;
    }
    return 1;
}

/* Sender: write the part COOP asked for, then tell the receiver. */
static void coop_write(mpid_req *r)
{
    mpid_dest *d = &mpid_st.dests[r->p.peer];
    int st = 0;
    if (r->p.offset + r->p.limit > r->p.bytes || !r->p.dt->contig) {
        st = -EINVAL;
    } else {
        struct iovec l = { (char *)r->p.buf + r->p.dt->true_lb + r->p.offset, r->p.limit };
        struct iovec rm = { (void *)(uintptr_t)r->p.raddr, r->p.limit };
        ssize_t n = d->ch->copy->write(r->p.peer, &l, 1, &rm, 1);
        if (n != (ssize_t)r->p.limit)
            st = n < 0 ? (int)n : -EIO;
    }
    r->p.state = MPID_ST_RTS_SENT;   /* FIN still to come */
    mpid_pkt_coop w = { .type = MPID_PKT_WDONE, .status = st, .rreq = r->p.peer_req };
    mpid_ctrl_send(r->p.peer, &w, sizeof w);
}

void mpid_on_coop(const mpid_pkt_coop *h)
{
    mpid_req *r = (mpid_req *)(uintptr_t)(h->type == MPID_PKT_COOP ? h->sreq : h->rreq);
    if (h->type == MPID_PKT_COOP) {
        r->p.peer_req = h->rreq;
        r->p.raddr = h->raddr;
        r->p.offset = h->off;
        r->p.limit = h->len;
        r->p.state = MPID_ST_COOP_WRITE;
    } else if (h->status == 0) {
        coop_finish(r);
        return;
    } else {
        cu_debug("cooperative write by rank %d failed (%s): reading it", r->p.peer,
                 strerror(-h->status));
        r->p.state = MPID_ST_COOP_REST;
    }
    /* Copy from progress, outside the channel's callback. */
    r->p.next = mpid_st.rndv_work;
    mpid_st.rndv_work = r;
}

void mpid_rndv_work_one(mpid_req *r)
{
    switch (r->p.state) {
    case MPID_ST_COOP_WRITE:
        coop_write(r);
        break;
    case MPID_ST_COOP_REST: {
        int rc = rndv_read(r, &mpid_st.dests[r->p.peer], r->p.offset, r->p.limit);
        if (rc) {
            cu_warn("single-copy read from rank %d failed: %s", r->p.peer, strerror(-rc));
            r->pub.status.MPI_ERROR = MPI_ERR_OTHER;
        }
        coop_finish(r);
        break;
    }
    default:
        mpid_rndv_recv_start(r);
    }
}

void mpid_rndv_recv_start(mpid_req *r)
{
    size_t want = min_sz(r->p.msg_size, r->p.bytes);
    if (r->p.msg_size > r->p.bytes)
        r->pub.status.MPI_ERROR = MPI_ERR_TRUNCATE;
    mpid_dest *d = &mpid_st.dests[r->p.peer];
    if (__builtin_expect(d->lost, 0)) {   /* its sender is gone: nothing to read */
        r->pub.status.MPI_ERROR = MPI_ERR_OTHER;
        mpid_req_complete(r);
        return;
    }
    if (r->p.rniov == MPID_RTS_PACKED) {
        mpid_rndv_stats.packed++;
    } else if ((d->ch->copy || d->ch->net_rma) && !d->no_rma) {
        if (coop_start(r, d, want))
            return;
        int rc = want ? rndv_read(r, d, 0, want) : 0;
        if (rc == 0)
            d->rma_ok = 1;
        if (rc == 0 || (rc != -EPERM && rc != -ENOTSUP && rc != -ENOSYS)) {
            if (rc) {
                cu_warn("single-copy read from rank %d failed: %s", r->p.peer, strerror(-rc));
                r->pub.status.MPI_ERROR = MPI_ERR_OTHER;
            }
            mpid_pkt_ack f = { .type = MPID_PKT_FIN, .sreq = r->p.peer_req };
            mpid_ctrl_send(r->p.peer, &f, sizeof f);
            r->pub.status.clumpi_count = (MPI_Count)want;
            mpid_req_complete(r);
            return;
        }
        cu_debug("single-copy reads from rank %d not permitted (%s): pipelining",
                 r->p.peer, strerror(-rc));
        d->no_rma = 1;
        mpid_dest_no_single_copy(d);
    }
    r->p.offset = 0;
    r->p.limit = want;
    r->p.state = MPID_ST_RNDV_DATA;
    mpid_req_hold_dt(r);
    mpid_pkt_cts c = { .type = MPID_PKT_CTS, .sreq = r->p.peer_req,
                       .rreq = (uint64_t)(uintptr_t)r, .len = want };
    mpid_ctrl_send(r->p.peer, &c, sizeof c);
    if (want == 0) {
        r->pub.status.clumpi_count = 0;
        mpid_req_complete(r);
    }
}

void mpid_rts_withdraw(mpid_req *r)
{
    mpid_st.dests[r->p.peer].rts_out--;
    unexpose(&mpid_st.dests[r->p.peer], r->p.x.exposed);
}

void mpid_on_fin(uint64_t sreq)
{
    mpid_req *r = (mpid_req *)(uintptr_t)sreq;
    mpid_rts_withdraw(r);
    mpid_req_complete(r);
}

void mpid_on_cts(const mpid_pkt_cts *h)
{
    mpid_req *r = (mpid_req *)(uintptr_t)h->sreq;
    mpid_rts_withdraw(r);   /* no read will come */
    /* Offered a read and answered with a CTS: the receiver cannot read
     * our memory. (A network channel's failed exposure asks for CTS too;
     * its limit does not depend on reads.) */
    if (!rts_packed(r))
        mpid_dest_no_single_copy(&mpid_st.dests[r->p.peer]);
    r->p.peer_req = h->rreq;
    r->p.offset = 0;
    r->p.limit = min_sz(h->len, r->p.bytes);
    r->p.inflight = 0;
    r->p.late_err = 0;
    free(r->p.iovs);   /* the receiver will not read our memory */
    r->p.iovs = NULL;
    if (r->p.limit == 0) {
        mpid_req_complete(r);
        return;
    }
    /* Stream from progress, outside the channel's callback; appended so
     * sends stream in CTS order. */
    r->p.state = MPID_ST_PUMP;
    r->p.next = NULL;
    mpid_req **pp = &mpid_st.streams;
    while (*pp)
        pp = &(*pp)->p.next;
    *pp = r;
}

/* A send of r failed (or, rc 0, the last packet went out): complete r
 * unless a channel still reads packets of it; the last
 * mpid_on_send_done() does then. */
static void stream_end(mpid_req *r, int rc)
{
    if (rc < 0 && !r->p.late_err)
        r->p.late_err = rc;
    r->p.offset = r->p.limit;   /* nothing more to send */
    if (r->p.inflight)
        return;
    if (r->p.late_err)
        mpid_send_fail(r, r->p.late_err);
    else
        mpid_req_complete(r);
}

/* A DATA packet posted with send_later was read (or could not be). */
void mpid_on_send_done(void *cookie, int status)
{
    mpid_req *r = cookie;
    r->p.inflight--;
    if (status < 0 && !r->p.late_err)
        r->p.late_err = status;
    if (r->p.state == MPID_ST_PUMP && r->p.offset >= r->p.limit && !r->p.inflight)
        stream_end(r, 0);
}

/* DATA packets after CTS. Straight from the user's buffer through a
 * channel's send_later when it has one (the agent's DMA-like path: the
 * agent pulls each packet later, so the rank posts many at once instead of
 * waiting for each pull); packed data through send (the bounce buffer is
 * reused at once). */
int mpid_stream_one(mpid_req *r)
{
    mpid_dest *d = &mpid_st.dests[r->p.peer];
    size_t maxp = d->ch->max_payload;
    const cu_dtype *dt = r->p.dt;
    while (r->p.offset < r->p.limit) {
        size_t chunk = min_sz(maxp, r->p.limit - r->p.offset);
        mpid_pkt_data h = { .type = MPID_PKT_DATA, .rreq = r->p.peer_req,
                            .offset = r->p.offset };
        struct iovec iov[32];
        size_t len = chunk;
        int n = 1;
        if (dt->contig) {
            iov[0].iov_base = (char *)r->p.buf + dt->true_lb + r->p.offset;
            iov[0].iov_len = chunk;
        } else {
            n = cu_dtype_to_iov(r->p.buf, r->p.count, dt, r->p.offset, chunk, iov, 32, &len);
            if (len < chunk / 2 || n <= 0) {
                /* Many small pieces: pack instead of sending tiny packets. */
                if (!r->p.bounce && !(r->p.bounce = malloc(maxp))) {
                    stream_end(r, -ENOMEM);
                    return 1;
                }
                len = cu_dtype_pack(r->p.buf, r->p.count, dt, r->p.offset, r->p.bounce, chunk);
                iov[0].iov_base = r->p.bounce;
                iov[0].iov_len = len;
                n = 1;
            }
        }
        int rc = d->ch->send_later && iov[0].iov_base != r->p.bounce
                     ? d->ch->send_later(r->p.peer, &h, sizeof h, iov, n, r)
                     : d->ch->send(r->p.peer, &h, sizeof h, iov, n, 0);
        if (rc == -EAGAIN)
            return 0;
        if (rc < 0) {
            stream_end(r, rc);
            return 1;
        }
        r->p.inflight += rc == 1;
        r->p.offset += len;
    }
    stream_end(r, 0);
    return 1;
}

void mpid_on_data(const mpid_pkt_data *h, const void *payload, size_t len)
{
    mpid_req *r = (mpid_req *)(uintptr_t)h->rreq;
    size_t off = h->offset;
    if (off + len > r->p.limit)   /* never past what we asked for */
        len = off < r->p.limit ? r->p.limit - off : 0;
    if (len) {
        const cu_dtype *dt = r->p.dt;
        if (dt->contig)
            memcpy((char *)r->p.buf + dt->true_lb + off, payload, len);
        else
            cu_dtype_unpack(r->p.buf, r->p.count, dt, off, payload, len);
    }
    r->p.offset += len;
    if (r->p.offset >= r->p.limit) {
        r->pub.status.clumpi_count = (MPI_Count)r->p.limit;
        mpid_req_complete(r);
    }
}
