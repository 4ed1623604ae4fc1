/*
 * nbc_bcast.c — Ibarrier (dissemination) and Ibcast (binomial tree) as
 * schedules.
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
