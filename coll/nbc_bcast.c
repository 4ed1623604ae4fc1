/*
 * nbc_bcast.c — Ibarrier (dissemination, binomial tree) and Ibcast
 * (binomial tree, scatter+allgather) as schedules.
 */
#include "coll/sched.h"
#include "coll/coll_impl.h"

/* Dissemination: ceil(log2 p) rounds of a zero-byte message to rank + k and
 * one from rank - k; after the last round every rank has heard, through some
 * chain, from every other. */
int coll_nbc_barrier(coll_sched *s)
{
    const mpid_comm *c = coll_sched_comm(s);
    int p = c->size, me = c->rank;
    for (int k = 1; k < p; k <<= 1) {
        coll_sched_recv(s, NULL, 0, coll_byte(), (me - k + p) % p);
        coll_sched_send(s, NULL, 0, coll_byte(), (me + k) % p);
        coll_sched_barrier(s);
    }
    return coll_sched_failed(s);
}

/* Binomial tree over ranks relative to the root: receive from the parent,
 * then send to every child at once (largest subtree first). */
int coll_nbc_bcast(coll_sched *s, void *buf, size_t count, const cu_dtype *dt, int root)
{
    const mpid_comm *c = coll_sched_comm(s);
    int p = c->size, vr = (c->rank - root + p) % p, mask = 1;
    while (mask < p) {
        if (vr & mask) {
            coll_sched_recv(s, buf, count, dt, (vr - mask + root) % p);
            coll_sched_barrier(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < p)
            coll_sched_send(s, buf, count, dt, (vr + mask + root) % p);
    return coll_sched_failed(s);
}

/* Binomial tree: zero-byte messages up to rank 0 (each rank once its
 * subtree has arrived), then back down. 2 log2 p rounds, but each rank
 * sends only to its parent and children: p - 1 messages each way in all,
 * against p log2 p for dissemination. */
int coll_nbc_barrier_binomial(coll_sched *s)
{
    const mpid_comm *c = coll_sched_comm(s);
    int p = c->size, me = c->rank, mask = 1;
    const cu_dtype *byte = coll_byte();
    while (mask < p && !(me & mask))
        mask <<= 1;   /* my lowest set bit: children are me + m for m < mask */
    for (int m = 1; m < mask; m <<= 1)
        if (me + m < p)
            coll_sched_recv(s, NULL, 0, byte, me + m);
    coll_sched_barrier(s);
    if (me != 0) {
        coll_sched_send(s, NULL, 0, byte, me - mask);
        coll_sched_recv(s, NULL, 0, byte, me - mask);
        coll_sched_barrier(s);
    }
    for (int m = mask >> 1; m > 0; m >>= 1)
        if (me + m < p)
            coll_sched_send(s, NULL, 0, byte, me + m);
    return coll_sched_failed(s);
}

/* van de Geijn's broadcast (as coll/bcast_scatter_allgather.c): a binomial
 * scatter of the packed message in p chunks numbered relative to the root,
 * then a ring allgather of the chunks (sub-tag 1). About 2n bytes per rank
 * against n log2 p at the binomial root: for large messages. */
int coll_nbc_bcast_scatter_allgather(coll_sched *s, void *buf, size_t count,
                                     const cu_dtype *dt, int root)
{
    const mpid_comm *c = coll_sched_comm(s);
    int p = c->size, me = c->rank, rel = (me - root + p) % p;
    size_t n = cu_dtype_bytes(dt, count), cs = (n + (size_t)p - 1) / (size_t)p, off, len;
    if (p <= 1 || n == 0)
        return coll_sched_failed(s);
    const cu_dtype *byte = coll_byte();
    int packed = !cu_dtype_is_contig(dt);
    char *b = packed ? coll_sched_bytes(s, n) : (char *)buf + dt->true_lb;
    if (!b)
        return coll_sched_failed(s);
    if (packed && rel == 0)
        coll_sched_copy(s, buf, count, dt, b, n, byte);
    int mask = 1;
    while (mask < p && !(rel & mask))
        mask <<= 1;
    if (rel != 0) {
        coll_chunk(n, cs, rel, rel + (mask < p - rel ? mask : p - rel), &off, &len);
        if (len)
            coll_sched_recv(s, b + off, len, byte, (me - mask + p) % p);
        coll_sched_barrier(s);
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (rel + mask >= p)
            continue;
        long sub = mask < p - rel - mask ? mask : p - rel - mask;
        coll_chunk(n, cs, rel + mask, rel + mask + sub, &off, &len);
        if (len)
            coll_sched_send(s, b + off, len, byte, (me + mask) % p);
    }
    coll_sched_barrier(s);
    coll_sched_subtag(s, 1);
    /* The root has every chunk: nothing flows into it. */
    for (int k = 0; k < p - 1; k++) {
        size_t soff = 0, slen = 0, roff = 0, rlen = 0;
        long sc = (rel - k + p) % p, rc = (rel - k - 1 + 2 * p) % p;
        if (rel != p - 1)
            coll_chunk(n, cs, sc, sc + 1, &soff, &slen);
        if (rel != 0)
            coll_chunk(n, cs, rc, rc + 1, &roff, &rlen);
        if (rlen)
            coll_sched_recv(s, b + roff, rlen, byte, (me - 1 + p) % p);
        if (slen)
            coll_sched_send(s, b + soff, slen, byte, (me + 1) % p);
        coll_sched_barrier(s);
    }
    if (packed && rel != 0)
        coll_sched_copy(s, b, n, byte, buf, count, dt);
    return coll_sched_failed(s);
}
