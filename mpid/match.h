/*
 * match.h — the matching engine: per context, a queue of posted receives and
 * a queue of unexpected messages, both in arrival/post order so that the
 * first match found is the one MPI's non-overtaking rule asks for.
 *
 * Hot path: every function here is static inline (called for every message).
 * The queues hold bare elements embedded in larger objects (requests,
 * unexpected-message records), so this file stands alone and is unit-tested
 * by itself (test/unit/test_match.c).
 */
#ifndef MPID_MATCH_H
#define MPID_MATCH_H

#include <stddef.h>
#include <stdint.h>

#define MPID_ANY_SOURCE (-2)   /* == MPI_ANY_SOURCE (checked in mpidi.h) */
#define MPID_ANY_TAG    (-1)   /* == MPI_ANY_TAG */

typedef struct mpid_mq_elem {
    struct mpid_mq_elem *next, *prev;
    int src;   /* communicator rank (posted: may be ANY_SOURCE) */
    int tag;   /* (posted: may be ANY_TAG) */
} mpid_mq_elem;

typedef struct mpid_mq {
    mpid_mq_elem *head, *tail;
} mpid_mq;

/* The queues of one context id. */
typedef struct mpid_ctxq {
    uint32_t id;
    struct mpid_ctxq *hnext;
    mpid_mq posted;
    mpid_mq unexp;
} mpid_ctxq;

/* The table of context queues: a chained hash on the id with a one-entry
 * cache in front, since most traffic is on one context. */
#define MPID_CTXQ_BUCKETS 256   /* power of two */
typedef struct mpid_ctxq_table {
    mpid_ctxq *last;
    mpid_ctxq *buckets[MPID_CTXQ_BUCKETS];
} mpid_ctxq_table;

/* Finds (creating on first use) the queues of context id. Returns NULL only
 * when memory runs out. */
mpid_ctxq *mpid_ctxq_lookup_slow(mpid_ctxq_table *t, uint32_t id);

static inline mpid_ctxq *mpid_ctxq_get(mpid_ctxq_table *t, uint32_t id)
{
    mpid_ctxq *c = t->last;
    if (__builtin_expect(c != NULL && c->id == id, 1))
        return c;
    return mpid_ctxq_lookup_slow(t, id);
}

/* Frees every context's queue heads (not the elements). */
void mpid_ctxq_finalize(mpid_ctxq_table *t);

static inline void mpid_mq_append(mpid_mq *q, mpid_mq_elem *e)
{
    e->next = NULL;
    e->prev = q->tail;
    if (q->tail)
        q->tail->next = e;
    else
        q->head = e;
    q->tail = e;
}

static inline void mpid_mq_remove(mpid_mq *q, mpid_mq_elem *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        q->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        q->tail = e->prev;
    e->next = e->prev = NULL;
}

static inline int mpid_mq_empty(const mpid_mq *q) { return q->head == NULL; }

/* An arriving message (src, tag) against the posted receives: the first
 * posted receive whose source and tag accept it, removed from the queue. */
static inline mpid_mq_elem *mpid_mq_take_posted(mpid_mq *q, int src, int tag)
{
    for (mpid_mq_elem *e = q->head; e; e = e->next) {
        if ((e->src == src || e->src == MPID_ANY_SOURCE) &&
            (e->tag == tag || e->tag == MPID_ANY_TAG)) {
            mpid_mq_remove(q, e);
            return e;
        }
    }
    return NULL;
}

/* A receive (src, tag), possibly with wildcards, against the unexpected
 * messages: the earliest arrival it accepts. Not removed (probe uses it). */
static inline mpid_mq_elem *mpid_mq_find_unexp(const mpid_mq *q, int src, int tag)
{
    for (mpid_mq_elem *e = q->head; e; e = e->next) {
        if ((src == e->src || src == MPID_ANY_SOURCE) &&
            (tag == e->tag || tag == MPID_ANY_TAG))
            return e;
    }
    return NULL;
}

static inline mpid_mq_elem *mpid_mq_take_unexp(mpid_mq *q, int src, int tag)
{
    mpid_mq_elem *e = mpid_mq_find_unexp(q, src, tag);
    if (e)
        mpid_mq_remove(q, e);
    return e;
}

#endif
