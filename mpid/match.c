/*
 * match.c — the table of per-context queues: a chained hash on the context
 * id with a one-entry cache in front (match.h). Contexts are few (one pair
 * per communicator), so the table stays small and is never shrunk.
 */
#include <stdlib.h>
#include "mpid/match.h"

#define CTXQ_BUCKETS 256   /* power of two */

static mpid_ctxq *buckets[CTXQ_BUCKETS];
mpid_ctxq *mpid_ctxq_last;

static inline unsigned ctx_hash(uint32_t id)
{
    /* Ids are small and consecutive-ish (even/odd pairs): a multiplicative
     * hash spreads neighbours over buckets. */
    return (id * 2654435761u) >> 24 & (CTXQ_BUCKETS - 1);
}

mpid_ctxq *mpid_ctxq_lookup_slow(uint32_t id)
{
    unsigned b = ctx_hash(id);
    mpid_ctxq *c;
    for (c = buckets[b]; c; c = c->hnext)
        if (c->id == id)
            break;
    if (!c) {
        c = calloc(1, sizeof *c);
        if (!c)
            return NULL;
        c->id = id;
        c->hnext = buckets[b];
        buckets[b] = c;
    }
    mpid_ctxq_last = c;
    return c;
}

void mpid_ctxq_finalize(void)
{
    for (int b = 0; b < CTXQ_BUCKETS; b++) {
        mpid_ctxq *c = buckets[b];
        while (c) {
            mpid_ctxq *n = c->hnext;
            free(c);
            c = n;
        }
        buckets[b] = NULL;
    }
    mpid_ctxq_last = NULL;
}
