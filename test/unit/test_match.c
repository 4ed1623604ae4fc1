/*
 * test_match.c — the matching engine alone (mpid/match.h, match.c):
 * arrival order, wildcards, posted versus unexpected, per-context isolation.
 */
#include <criterion/criterion.h>
#include "mpid/match.h"

static mpid_mq_elem *el(mpid_mq_elem *e, int src, int tag)
{
    e->src = src;
    e->tag = tag;
    return e;
}

/* An unexpected message: its all link carries src and tag. */
static mpid_uq_elem *uel(mpid_uq_elem *e, int src, int tag)
{
    el(&e->all, src, tag);
    return e;
}

static mpid_ctxq_table T;   /* the device's is mpid_st.ctxqs */

static void reset(void) { mpid_ctxq_finalize(&T); }

TestSuite(match, .init = reset, .fini = reset);

Test(match, contexts_are_separate_and_cached)
{
    mpid_ctxq *a = mpid_ctxq_get(&T, 4), *b = mpid_ctxq_get(&T, 5);
    cr_assert_not_null(a);
    cr_assert_not_null(b);
    cr_assert_neq(a, b);
    cr_assert_eq(mpid_ctxq_get(&T, 4), a);
    cr_assert_eq(mpid_ctxq_get(&T, 5), b);
    /* Many contexts colliding in buckets stay distinct. */
    mpid_ctxq *q[1000];
    for (uint32_t i = 0; i < 1000; i++)
        q[i] = mpid_ctxq_get(&T, i * 256);
    for (uint32_t i = 0; i < 1000; i++) {
        cr_assert_eq(mpid_ctxq_get(&T, i * 256), q[i]);
        cr_assert_eq(q[i]->id, i * 256);
    }
}

Test(match, posted_in_post_order)
{
    mpid_ctxq *c = mpid_ctxq_get(&T, 2);
    mpid_mq_elem r[3];
    mpid_mq_append(&c->posted, el(&r[0], 1, 7));
    mpid_mq_append(&c->posted, el(&r[1], MPID_ANY_SOURCE, 7));
    mpid_mq_append(&c->posted, el(&r[2], 1, MPID_ANY_TAG));
    /* An arrival from 1 tag 7 takes the first posted receive it fits. */
    cr_assert_eq(mpid_mq_take_posted(&c->posted, 1, 7), &r[0]);
    cr_assert_eq(mpid_mq_take_posted(&c->posted, 1, 7), &r[1]);
    cr_assert_eq(mpid_mq_take_posted(&c->posted, 1, 7), &r[2]);
    cr_assert_null(mpid_mq_take_posted(&c->posted, 1, 7));
    cr_assert(mpid_mq_empty(&c->posted));
}

Test(match, wildcards_skip_nonmatching)
{
    mpid_ctxq *c = mpid_ctxq_get(&T, 2);
    mpid_mq_elem r[3];
    mpid_mq_append(&c->posted, el(&r[0], 3, 1));
    mpid_mq_append(&c->posted, el(&r[1], 2, MPID_ANY_TAG));
    mpid_mq_append(&c->posted, el(&r[2], MPID_ANY_SOURCE, 5));
    cr_assert_eq(mpid_mq_take_posted(&c->posted, 4, 5), &r[2]);   /* only ANY_SOURCE fits */
    cr_assert_null(mpid_mq_take_posted(&c->posted, 4, 5));
    cr_assert_eq(mpid_mq_take_posted(&c->posted, 2, 99), &r[1]);
    cr_assert_null(mpid_mq_take_posted(&c->posted, 3, 2));       /* tag differs */
    cr_assert_eq(mpid_mq_take_posted(&c->posted, 3, 1), &r[0]);
}

Test(match, unexpected_in_arrival_order_per_sender)
{
    mpid_ctxq *c = mpid_ctxq_get(&T, 8);
    enum { N = 100 };
    mpid_uq_elem u[N];
    /* Interleaved arrivals from senders 0..3, tags cycling 0..2. */
    for (int i = 0; i < N; i++)
        mpid_uq_append(&c->unexp, uel(&u[i], i % 4, i % 3));
    /* ANY_SOURCE/ANY_TAG takes arrivals in order. */
    cr_assert_eq(mpid_mq_take_unexp(&c->unexp, MPID_ANY_SOURCE, MPID_ANY_TAG), &u[0].all);
    /* From sender 1 with any tag: its earliest remaining. */
    cr_assert_eq(mpid_mq_take_unexp(&c->unexp, 1, MPID_ANY_TAG), &u[1].all);
    cr_assert_eq(mpid_mq_take_unexp(&c->unexp, 1, MPID_ANY_TAG), &u[5].all);
    /* Sender 2, tag 2: i % 4 == 2 and i % 3 == 2 -> i = 2, 14, 26, ... */
    cr_assert_eq(mpid_mq_take_unexp(&c->unexp, 2, 2), &u[2].all);
    cr_assert_eq(mpid_mq_take_unexp(&c->unexp, 2, 2), &u[14].all);
    /* Any source, tag 0: earliest remaining with i % 3 == 0 -> 3 */
    cr_assert_eq(mpid_mq_take_unexp(&c->unexp, MPID_ANY_SOURCE, 0), &u[3].all);
    /* Drain all: each sender's messages come out in arrival order. */
    int last[4] = { -1, -1, -1, -1 }, n = 0;
    mpid_mq_elem *e;
    while ((e = mpid_mq_take_unexp(&c->unexp, MPID_ANY_SOURCE, MPID_ANY_TAG))) {
        int i = (int)((mpid_uq_elem *)e - u);
        cr_assert_gt(i, last[e->src]);
        last[e->src] = i;
        n++;
    }
    cr_assert_eq(n, N - 6);
    cr_assert(mpid_uq_empty(&c->unexp));
    for (int b = 0; b < MPID_UQ_BUCKETS; b++)
        cr_assert(mpid_mq_empty(&c->unexp.by_src[b]));
}

/* Sources that share a bucket (equal modulo MPID_UQ_BUCKETS) stay apart,
 * and taking by source or by ANY_SOURCE leaves both views consistent. */
Test(match, unexpected_sources_sharing_a_bucket)
{
    mpid_ctxq *c = mpid_ctxq_get(&T, 9);
    enum { N = 60 };
    const int srcs[3] = { 1, 1 + MPID_UQ_BUCKETS, 1 + 2 * MPID_UQ_BUCKETS };
    mpid_uq_elem u[N];
    for (int i = 0; i < N; i++)
        mpid_uq_append(&c->unexp, uel(&u[i], srcs[i % 3], i % 5));
    /* A named source skips the others of its bucket. */
    cr_assert_eq(mpid_mq_take_unexp(&c->unexp, srcs[2], MPID_ANY_TAG), &u[2].all);
    cr_assert_eq(mpid_mq_take_unexp(&c->unexp, srcs[1], 4), &u[4].all);
    cr_assert_null(mpid_mq_find_unexp(&c->unexp, 2, MPID_ANY_TAG));
    cr_assert_null(mpid_mq_find_unexp(&c->unexp, 1 + 3 * MPID_UQ_BUCKETS, MPID_ANY_TAG));
    /* Alternate ANY_SOURCE and named takes: every message once, each
     * source's in arrival order, the wildcard always the earliest left. */
    int taken[N] = { 0 }, last[3] = { -1, -1, -1 };
    taken[2] = taken[4] = 1;
    for (int k = 0; k < N - 2; k++) {
        mpid_mq_elem *e = k % 2 ? mpid_mq_take_unexp(&c->unexp, srcs[k % 3], MPID_ANY_TAG)
                                : mpid_mq_take_unexp(&c->unexp, MPID_ANY_SOURCE, MPID_ANY_TAG);
        if (!e)   /* that source is drained */
            e = mpid_mq_take_unexp(&c->unexp, MPID_ANY_SOURCE, MPID_ANY_TAG);
        cr_assert_not_null(e);
        int i = (int)((mpid_uq_elem *)e - u), s = i % 3;
        cr_assert(!taken[i]);
        taken[i] = 1;
        cr_assert_gt(i, last[s]);
        last[s] = i;
        if (k % 2 == 0)
            for (int j = 0; j < i; j++)
                cr_assert(taken[j], "ANY_SOURCE took %d while %d was older", i, j);
    }
    cr_assert(mpid_uq_empty(&c->unexp));
    cr_assert_null(mpid_uq_last(&c->unexp));
}

Test(match, find_does_not_remove)
{
    mpid_ctxq *c = mpid_ctxq_get(&T, 10);
    mpid_uq_elem u;
    mpid_uq_append(&c->unexp, uel(&u, 0, 3));
    cr_assert_eq(mpid_uq_last(&c->unexp), &u.all);
    cr_assert_eq(mpid_mq_find_unexp(&c->unexp, 0, 3), &u.all);
    cr_assert_eq(mpid_mq_find_unexp(&c->unexp, MPID_ANY_SOURCE, MPID_ANY_TAG), &u.all);
    cr_assert_null(mpid_mq_find_unexp(&c->unexp, 1, 3));
    cr_assert_eq(mpid_mq_take_unexp(&c->unexp, 0, 3), &u.all);
    cr_assert_null(mpid_mq_find_unexp(&c->unexp, 0, 3));
}

Test(match, contexts_do_not_cross_match)
{
    mpid_ctxq *p2p = mpid_ctxq_get(&T, 20), *coll = mpid_ctxq_get(&T, 21);
    mpid_mq_elem r;
    mpid_uq_elem u;
    mpid_mq_append(&p2p->posted, el(&r, MPID_ANY_SOURCE, MPID_ANY_TAG));
    mpid_uq_append(&coll->unexp, uel(&u, 0, 0));
    cr_assert_null(mpid_mq_take_posted(&coll->posted, 0, 0));
    cr_assert_null(mpid_mq_find_unexp(&p2p->unexp, MPID_ANY_SOURCE, MPID_ANY_TAG));
    cr_assert_eq(mpid_mq_take_posted(&p2p->posted, 0, 0), &r);
}

Test(match, remove_from_middle_keeps_links)
{
    mpid_ctxq *c = mpid_ctxq_get(&T, 30);
    mpid_mq_elem r[4];
    for (int i = 0; i < 4; i++)
        mpid_mq_append(&c->posted, el(&r[i], i, 0));
    mpid_mq_remove(&c->posted, &r[1]);   /* cancel */
    mpid_mq_remove(&c->posted, &r[3]);   /* tail */
    cr_assert_eq(c->posted.head, &r[0]);
    cr_assert_eq(c->posted.tail, &r[2]);
    cr_assert_eq(r[0].next, &r[2]);
    cr_assert_eq(r[2].prev, &r[0]);
    mpid_mq_remove(&c->posted, &r[0]);
    mpid_mq_remove(&c->posted, &r[2]);
    cr_assert(mpid_mq_empty(&c->posted));
    cr_assert_null(c->posted.tail);
}
