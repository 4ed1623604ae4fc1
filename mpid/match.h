/*
 * match.h — the matching engine: per context, a queue of posted receives and
 * a queue of unexpected messages, both in arrival/post order so that the
 * first match found is the one MPI's non-overtaking rule asks for.
 *
 * Unexpected messages are also kept per source (in buckets by rank): a
 * receive naming its source walks only that source's messages. With one
 * queue, a rooted collective in a loop whose leaves run ahead of a slower
 * child made every receive from that child walk past all the leaves'
 * messages, a cost quadratic in the loop's length (Open MPI's ob1 keeps
 * its unexpected fragments per peer for the same reason).
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

/* An unexpected message's two links: all is its place in arrival order
 * (src and tag live there), own its place in its source's bucket. */
typedef struct mpid_uq_elem {
    mpid_mq_elem all;
    mpid_mq_elem own;
} mpid_uq_elem;

/* Buckets of sources: exact per rank up to this many ranks, shared by
 * ranks equal modulo it beyond (a bucket walk skips other sources). */
#define MPID_UQ_BUCKETS 64   /* power of two */

/* The unexpected messages of one context. */
typedef struct mpid_uq {
    mpid_mq all;
    mpid_mq by_src[MPID_UQ_BUCKETS];
} mpid_uq;

/* The queues of one context id. */
typedef struct mpid_ctxq {
    uint32_t id;
    struct mpid_ctxq *hnext;
    mpid_mq posted;
    mpid_uq unexp;
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

static inline mpid_uq_elem *mpid_uq_of_own(mpid_mq_elem *e)
{
    return (mpid_uq_elem *)((char *)e - offsetof(mpid_uq_elem, own));
}

static inline int mpid_uq_empty(const mpid_uq *q) { return q->all.head == NULL; }

/* The latest arrival (NULL when none). */
static inline mpid_mq_elem *mpid_uq_last(const mpid_uq *q) { return q->all.tail; }

/* Queues an arriving message whose e->all.src and e->all.tag are set. */
static inline void mpid_uq_append(mpid_uq *q, mpid_uq_elem *e)
{
    e->own.src = e->all.src;
    e->own.tag = e->all.tag;
    mpid_mq_append(&q->all, &e->all);
    mpid_mq_append(&q->by_src[(unsigned)e->all.src & (MPID_UQ_BUCKETS - 1)], &e->own);
}

/* Removes e (its all link, as find returns it) from both of its queues. */
static inline void mpid_uq_remove(mpid_uq *q, mpid_mq_elem *all)
{
    mpid_uq_elem *e = (mpid_uq_elem *)all;
    mpid_mq_remove(&q->all, all);
    mpid_mq_remove(&q->by_src[(unsigned)all->src & (MPID_UQ_BUCKETS - 1)], &e->own);
}

/* A receive (src, tag), possibly with wildcards, against the unexpected
 * messages: the earliest arrival it accepts, as its all link. Not removed
 * (probe uses it). A named source's earliest is the earliest of its
 * bucket, since a bucket keeps arrival order too. */
static inline mpid_mq_elem *mpid_mq_find_unexp(const mpid_uq *q, int src, int tag)
{
    if (src == MPID_ANY_SOURCE) {
        for (mpid_mq_elem *e = q->all.head; e; e = e->next)
            if (tag == e->tag || tag == MPID_ANY_TAG)
                return e;
        return NULL;
    }
    for (mpid_mq_elem *e = q->by_src[(unsigned)src & (MPID_UQ_BUCKETS - 1)].head; e; e = e->next)
        if (src == e->src && (tag == e->tag || tag == MPID_ANY_TAG))
            return &mpid_uq_of_own(e)->all;
    return NULL;
}

static inline mpid_mq_elem *mpid_mq_take_unexp(mpid_uq *q, int src, int tag)
{
    mpid_mq_elem *e = mpid_mq_find_unexp(q, src, tag);
    if (e)
        mpid_uq_remove(q, e);
    return e;
}

#endif
