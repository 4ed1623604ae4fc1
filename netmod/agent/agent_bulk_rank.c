/*
 * agent_bulk_rank.c — the rank side of the agents' bulk path (agent_bulk.c,
 * protocol in agent_ring.h), as the channel's rendezvous by key: the
 * sender exposes its buffer in its exposure table (net_rma's expose; the key
 * travels in the RTS), the receiver's read_key posts a REQ per
 * AGT_BULK_SEGS segments of the sender's memory and copies each chunk out
 * of the landing buffer it lands in, while the agents bring the next. The
 * device's rendezvous (mpid/rndv.c) does the rest: matching, truncation,
 * FIN, and CTS + DATA packets when this path says no (-ENOTSUP: turned off
 * with CLUMPI_AGENT_BULK=0; -ENOSPC: the table is full; -EPERM: the
 * kernel refused the sending agent's pull).
 *
 * One read at a time per rank: the land ring names no read, and the agent
 * serves one read per rank. Under MPI_THREAD_MULTIPLE a thread waiting
 * for its chunks gives the library's lock away (agt_chan_wait), so a
 * second thread may come here meanwhile: it waits, with the lock given
 * away too, until the first read is done. That wait is bounded: a read
 * is served by the two agents alone (the owner rank never helps, and the
 * reading thread only copies chunks out), so it needs nothing from the
 * threads waiting behind it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include "mpid/channel.h"
#include "netmod/agent/agent_chan.h"
#include "netmod/agent/agent_ring.h"

_Static_assert((AGT_BULK_EXPOSE & (AGT_BULK_EXPOSE - 1)) == 0, "index in the key's low bits");

static uint64_t key_state;
static unsigned expo_next;
static uint32_t read_id;
static uint64_t taken;   /* land entries this rank took (its bulk_taken) */
static int reading;      /* a thread's read is between its REQ and its last chunk */

/* splitmix64 over a random start: keys never repeat within a run and
 * cannot be guessed from earlier ones' positions alone */
static uint64_t next_key(void)
{
    if (!key_state && getrandom(&key_state, sizeof key_state, 0) != (ssize_t)sizeof key_state)
        key_state = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull;
    uint64_t z = (key_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int agt_bulk_expose(int dest, const void *base, size_t len, uint64_t *key, void **handle)
{
    (void)dest;
    agt_seg_hdr *h = agt_chan_seg();
    agt_rank_blk *b = agt_chan_blk();
    if (!h || !b || !h->nbulk)
        return -ENOTSUP;
    for (unsigned n = 0; n < AGT_BULK_EXPOSE; n++) {
        unsigned i = (expo_next + n) % AGT_BULK_EXPOSE;
        agt_bulk_expo *e = &b->expo[i];
        if (atomic_load_explicit(&e->key, memory_order_relaxed))
            continue;
        uint64_t k = (next_key() & ~(uint64_t)(AGT_BULK_EXPOSE - 1)) | i;
        if (k == i)
            k |= AGT_BULK_EXPOSE;   /* never 0 above the index */
        atomic_thread_fence(memory_order_release);   /* after the free key, as the agent reads */
        atomic_store_explicit(&e->base, (uint64_t)(uintptr_t)base, memory_order_relaxed);
        atomic_store_explicit(&e->len, (uint64_t)len, memory_order_relaxed);
        atomic_store_explicit(&e->key, k, memory_order_release);
        expo_next = i + 1;
        *key = k;
        *handle = e;
        return 0;
    }
    return -ENOSPC;
}

void agt_bulk_unexpose(void *handle)
{
    atomic_store_explicit(&((agt_bulk_expo *)handle)->key, 0, memory_order_release);
}

/* Copy len bytes to byte off of the gather list v. */
static void to_iov(const struct iovec *v, int n, size_t off, const char *src, size_t len)
{
    for (int i = 0; i < n && len; i++) {
        if (off >= v[i].iov_len) {
            off -= v[i].iov_len;
            continue;
        }
        size_t c = v[i].iov_len - off < len ? v[i].iov_len - off : len;
        memcpy((char *)v[i].iov_base + off, src, c);
        src += c, len -= c, off = 0;
    }
}

typedef struct post_arg { const struct iovec *v; int n, rc; } post_arg;

static int try_post(void *a)
{
    post_arg *p = a;
    p->rc = agt_chan_post(AGT_CMD_PIO, p->v, p->n);
    return p->rc != -EAGAIN;
}

static int landed(void *a)
{
    agt_rank_blk *b = a;
    return atomic_load_explicit(&b->bulk_posted, memory_order_acquire) != taken;
}

/* One REQ: total bytes of the sender's segments rv[0..rn) into the local
 * list lv from byte loff on. */
static int read_part(int src, uint64_t key, const struct iovec *rv, int rn, size_t total,
                     const struct iovec *lv, int ln, size_t loff)
{
    agt_seg_hdr *h = agt_chan_seg();
    agt_rank_blk *b = agt_chan_blk();
    uint64_t pairs[2 * AGT_BULK_SEGS];
    for (int i = 0; i < rn; i++) {
        pairs[2 * i] = (uint64_t)(uintptr_t)rv[i].iov_base;
        pairs[2 * i + 1] = rv[i].iov_len;
    }
    agt_wire w = { .kind = AGT_K_BULK, .hdrlen = sizeof(agt_bulk_hdr), .len = (uint16_t)(16 * rn),
                   .src = agt_chan_world(), .dst = (uint32_t)src };
    agt_bulk_hdr q = { .op = AGT_BULK_REQ, .id = ++read_id, .nseg = (uint32_t)rn, .chunk = h->bulk_chunk,
                       .key = key,
                       .total = total };
    struct iovec pkt[3] = { { &w, sizeof w }, { &q, sizeof q }, { pairs, 16 * (size_t)rn } };
    post_arg pa = { pkt, 3, 0 };
    reading = 1;   /* before the post's wait, which may give the lock away */
    agt_chan_wait(try_post, &pa);
    if (pa.rc) {
        reading = 0;
        return pa.rc;
    }
    /* The land ring names no read: this one ends where the agent ends it
     * (agent_bulk.c), at its last chunk or at an entry with err set (the
     * owner's agent sends none after that). A chunk found bad here does not
     * end it: the rest are taken and dropped, else they would land in the
     * next read (another thread's). */
    uint64_t left = (total + h->bulk_chunk - 1) / h->bulk_chunk;
    int err = 0;
    while (left) {
        agt_chan_wait(landed, b);
        uint64_t end = atomic_load_explicit(&b->bulk_posted, memory_order_acquire);
        for (; taken < end && left; taken++, left--) {
            const agt_bulk_land *e = &b->land[taken % AGT_BULK_RING];
            if (e->err) {
                err = err ? err : e->err;
                left = 1;
            } else if (err) {
                continue;
            } else if (e->off + e->len > total) {
                err = -EIO;
            } else {
                to_iov(lv, ln, loff + e->off, agt_landing(h, e->buf) + AGT_BULK_HDR, e->len);
            }
        }
        atomic_store_explicit(&b->bulk_taken, taken, memory_order_release);
        agt_chan_room_made();
    }
    reading = 0;
    return err;
}

static int read_free(void *a)
{
    (void)a;
    return !reading;
}

ssize_t agt_bulk_read(int src, uint64_t key, uint64_t rbase, const struct iovec *lv, int ln,
                      const struct iovec *rv, int rn)
{
    (void)rbase;   /* the owner's agent checks each segment against the exposure */
    agt_seg_hdr *h = agt_chan_seg();
    if (!h || !h->nbulk)
        return -ENOTSUP;
    size_t room = 0, done = 0;
    for (int i = 0; i < ln; i++)
        room += lv[i].iov_len;
    for (int i = 0; i < rn;) {
        int n = rn - i < (int)AGT_BULK_SEGS ? rn - i : (int)AGT_BULK_SEGS;
        size_t total = 0;
        for (int j = i; j < i + n; j++)
            total += rv[j].iov_len;
        if (total > room - done)
            return -EINVAL;
        if (total) {
            if (reading)   /* another thread's read (see the top) */
                agt_chan_wait(read_free, NULL);
            int rc = read_part(src, key, rv + i, n, total, lv, ln, done);
            if (rc)
                return rc;
        }
        done += total;
        i += n;
    }
    return (ssize_t)done;
}
