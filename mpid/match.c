/*
 * match.c — the table of per-context queues: a chained hash on the context
 * id with a one-entry cache in front (match.h). Contexts are few (one pair
 * per communicator), so the table stays small and is never shrunk.
 */
#include <stdlib.h>
#include "mpid/match.h"

static inline unsigned ctx_hash(uint32_t id)
{
    /* Ids are small and consecutive-ish (even/odd pairs): a multiplicative
     * hash spreads neighbours over buckets. */
    return (id * 2654435761u) >> 24 & (MPID_CTXQ_BUCKETS - 1);
}

mpid_ctxq *mpid_ctxq_lookup_slow(mpid_ctxq_table *t, uint32_t id)
{
    unsigned b = ctx_hash(id);
    mpid_ctxq *c;
    for (c = t->buckets[b]; c; c = c->hnext)
        if (c->id == id)
            break;
    if (!c) {
        c = calloc(1, sizeof *c);
        if (!c)
            return NULL;
        c->id = id;
        c->hnext = t->buckets[b];
        t->buckets[b] = c;
    }
    t->last = c;
    return c;
}

void mpid_ctxq_finalize(mpid_ctxq_table *t)
{
    for (int b = 0; b < MPID_CTXQ_BUCKETS; b++) {
        mpid_ctxq *c = t->buckets[b];
        while (c) {
            mpid_ctxq *n = c->hnext;
            free(c);
            c = n;
        }
        t->buckets[b] = NULL;
    }
    t->last = NULL;
}
