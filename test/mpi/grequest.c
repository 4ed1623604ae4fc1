/* np: 1 2 3
 *
 * grequest.c — generalized requests (MPI-3.1 section 12.2): they complete
 * only by MPI_Grequest_complete; every completion call (Wait, Test and
 * their all/any/some forms) runs query_fn (which fills the status) and
 * then free_fn; MPI_Request_get_status runs query_fn alone; MPI_Request_free
 * runs free_fn at once when complete, else at MPI_Grequest_complete;
 * MPI_Cancel runs cancel_fn with `complete`. Mixed with point-to-point
 * requests in the array forms. The callbacks' error codes come back (the
 * last callback's, free_fn's; MPI_ERR_IN_STATUS with each status's code in
 * the array forms), and bad arguments fail with their classes. Last, a
 * helper thread completes a request that MPI_Wait blocks on, and the wait
 * must not spin the core meanwhile (a clumpi guarantee: the standard grants
 * MPI_THREAD_SERIALIZED only).
 */
#include <pthread.h>
#include "mtest.h"

typedef struct op {
    int id;          /* MPI_TAG of the status query_fn fills */
    int nquery, nfree, ncancel, last_complete;
    int order_ok;    /* free_fn came after query_fn (or without one) */
    int query_rc, free_rc;
    int cancelled;   /* cancel_fn was called: query_fn reports it */
} op;

static int query_fn(void *extra, MPI_Status *st)
{
    op *o = extra;
    o->nquery++;
    st->MPI_SOURCE = mt_rank;
    st->MPI_TAG = o->id;
    MPI_Status_set_elements(st, MPI_INT, o->id + 1);
    MPI_Status_set_cancelled(st, o->cancelled);
    return o->query_rc;
}

static int free_fn(void *extra)
{
    op *o = extra;
    o->nfree++;
    o->order_ok = o->nfree == 1;
    return o->free_rc;
}

static int cancel_fn(void *extra, int complete)
{
    op *o = extra;
    o->ncancel++;
    o->last_complete = complete;
    o->cancelled = 1;
    return MPI_SUCCESS;
}

static MPI_Request start(op *o, int id)
{
    memset(o, 0, sizeof *o);
    o->id = id;
    MPI_Request r;
    MPI_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, o, &r));
    CHECK(r != MPI_REQUEST_NULL, "Grequest_start gave MPI_REQUEST_NULL");
    return r;
}

static void check_status(const MPI_Status *st, const op *o, int cancelled)
{
    int n = -1, c = -1;
    CHECK(st->MPI_SOURCE == mt_rank && st->MPI_TAG == o->id, "status %d/%d, expected %d/%d",
          st->MPI_SOURCE, st->MPI_TAG, mt_rank, o->id);
    MPI_OK(MPI_Get_count(st, MPI_INT, &n));
    CHECK(n == o->id + 1, "count %d, expected %d", n, o->id + 1);
    MPI_OK(MPI_Test_cancelled(st, &c));
    CHECK(c == cancelled, "Test_cancelled %d, expected %d", c, cancelled);
}

static void done_once(const op *o, const char *where)
{
    CHECK(o->nquery == 1 && o->nfree == 1 && o->order_ok,
          "%s: query_fn ran %d times, free_fn %d (expected once each, free last)", where,
          o->nquery, o->nfree);
}

static void basics(void)
{
    op a;
    MPI_Status st;
    int flag = -1;

    /* start, complete, wait */
    MPI_Request r = start(&a, 5);
    CHECK(a.nquery == 0 && a.nfree == 0, "callbacks ran before completion");
    MPI_OK(MPI_Grequest_complete(r));
    CHECK(a.nquery == 0 && a.nfree == 0, "Grequest_complete ran a callback");
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL, "Wait left the handle");
    done_once(&a, "Wait");
    check_status(&st, &a, 0);

    /* Test: not done until Grequest_complete, however often tested */
    r = start(&a, 6);
    for (int i = 0; i < 5; i++) {
        MPI_OK(MPI_Test(&r, &flag, &st));
        CHECK(!flag && r != MPI_REQUEST_NULL, "Test completed an incomplete request");
    }
    CHECK(a.nquery == 0 && a.nfree == 0, "Test ran a callback of an incomplete request");
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && r == MPI_REQUEST_NULL, "Test after completion: flag %d", flag);
    done_once(&a, "Test with MPI_STATUS_IGNORE");

    /* Request_get_status: query_fn only, as often as asked; the request stays */
    r = start(&a, 7);
    MPI_OK(MPI_Request_get_status(r, &flag, &st));
    CHECK(!flag && a.nquery == 0, "get_status of an incomplete request: flag %d, %d queries",
          flag, a.nquery);
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Request_get_status(r, &flag, &st));
    CHECK(flag && a.nquery == 1 && a.nfree == 0, "get_status: flag %d, %d queries, %d frees",
          flag, a.nquery, a.nfree);
    check_status(&st, &a, 0);
    MPI_OK(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && a.nquery == 2 && a.nfree == 0, "second get_status");
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(a.nquery == 3 && a.nfree == 1 && r == MPI_REQUEST_NULL, "Wait after get_status");
    check_status(&st, &a, 0);

    /* Request_free before completion: free_fn runs at Grequest_complete,
     * reached through the program's copy of the handle; no query_fn */
    r = start(&a, 8);
    MPI_Request copy = r;
    MPI_OK(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL && a.nfree == 0, "Request_free of an incomplete request");
    MPI_OK(MPI_Grequest_complete(copy));
    CHECK(a.nfree == 1 && a.nquery == 0, "after Request_free + complete: %d frees, %d queries",
          a.nfree, a.nquery);

    /* Request_free after completion: free_fn at once */
    r = start(&a, 9);
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL && a.nfree == 1 && a.nquery == 0, "Request_free of a complete "
          "request: %d frees, %d queries", a.nfree, a.nquery);

    /* Cancel before and after completion */
    r = start(&a, 10);
    MPI_OK(MPI_Cancel(&r));
    CHECK(a.ncancel == 1 && a.last_complete == 0, "Cancel before completion: %d calls, "
          "complete=%d", a.ncancel, a.last_complete);
    MPI_OK(MPI_Test(&r, &flag, &st));
    CHECK(!flag, "a cancelled generalized request completed without Grequest_complete");
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Wait(&r, &st));
    check_status(&st, &a, 1);
    r = start(&a, 11);
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Cancel(&r));
    CHECK(a.ncancel == 1 && a.last_complete == 1, "Cancel after completion: complete=%d",
          a.last_complete);
    MPI_OK(MPI_Wait(&r, &st));
    done_once(&a, "Wait after Cancel");
}

/* The array forms, with a receive and a send to self among the requests. */
static void arrays(void)
{
    enum { NG = 4, N = NG + 2 };
    op g[NG];
    MPI_Request r[N];
    MPI_Status st[N];
    int flag, idx, out, ind[N], sbuf = 42, rbuf = 0;
    int peer = (mt_rank + 1) % mt_size, from = (mt_rank + mt_size - 1) % mt_size;

    for (int i = 0; i < NG; i++)
        r[i] = start(&g[i], 20 + i);
    MPI_OK(MPI_Irecv(&rbuf, 1, MPI_INT, from, 77, MPI_COMM_WORLD, &r[NG]));
    MPI_OK(MPI_Isend(&sbuf, 1, MPI_INT, peer, 77, MPI_COMM_WORLD, &r[NG + 1]));
    /* Testall: all or nothing, no callbacks while one is incomplete */
    MPI_OK(MPI_Testall(N, r, &flag, st));
    CHECK(!flag, "Testall with incomplete generalized requests");
    for (int i = 0; i < NG; i++)
        CHECK(g[i].nquery == 0 && g[i].nfree == 0, "Testall ran callbacks of %d", i);
    /* Testany / Testsome find only the point-to-point ones, or none */
    for (int k = 0; k < 2; k++) {
        MPI_OK(MPI_Waitany(N, r, &idx, &st[0]));
        CHECK(idx >= NG, "Waitany returned generalized request %d, not complete", idx);
    }
    MPI_OK(MPI_Testany(N, r, &idx, &flag, st));
    CHECK(!flag && idx == MPI_UNDEFINED, "Testany: flag %d index %d", flag, idx);
    MPI_OK(MPI_Testsome(N, r, &out, ind, st));
    CHECK(out == 0, "Testsome found %d", out);
    CHECK(rbuf == 42, "received %d", rbuf);

    /* Waitany on two complete ones: one at a time, each finished once */
    MPI_OK(MPI_Grequest_complete(r[1]));
    MPI_OK(MPI_Grequest_complete(r[3]));
    MPI_OK(MPI_Waitany(N, r, &idx, &st[0]));
    CHECK(idx == 1 || idx == 3, "Waitany index %d", idx);
    check_status(&st[0], &g[idx], 0);
    done_once(&g[idx], "Waitany");
    int other = idx == 1 ? 3 : 1;
    MPI_OK(MPI_Testsome(N, r, &out, ind, st));
    CHECK(out == 1 && ind[0] == other, "Testsome: %d done, first %d", out, ind[0]);
    check_status(&st[0], &g[other], 0);
    done_once(&g[other], "Testsome");
    /* Waitsome and Waitall finish the rest */
    MPI_OK(MPI_Grequest_complete(r[0]));
    MPI_OK(MPI_Waitsome(N, r, &out, ind, st));
    CHECK(out == 1 && ind[0] == 0, "Waitsome: %d done, first %d", out, ind[0]);
    done_once(&g[0], "Waitsome");
    MPI_OK(MPI_Grequest_complete(r[2]));
    MPI_OK(MPI_Waitall(N, r, st));
    check_status(&st[2], &g[2], 0);
    done_once(&g[2], "Waitall");
    for (int i = 0; i < N; i++)
        CHECK(r[i] == MPI_REQUEST_NULL, "request %d left after Waitall", i);
    MPI_OK(MPI_Waitall(N, r, st));   /* all null: returns at once */
}

/* Errors of callbacks, and bad arguments. */
static void errors(void)
{
    op a, b, c;
    MPI_Status st[3];
    int flag, cls, code;
    MPI_OK(MPI_Add_error_class(&cls));
    MPI_OK(MPI_Add_error_code(cls, &code));

    /* Wait: free_fn's code, the last callback's */
    MPI_Request r = start(&a, 1);
    a.free_rc = code;
    MPI_OK(MPI_Grequest_complete(r));
    int rc = MPI_Wait(&r, &st[0]);
    CHECK(rc == code, "Wait returned %d, expected free_fn's code %d", rc, code);
    done_once(&a, "Wait with a failing free_fn");
    /* query_fn's failure with a good free_fn is not lost */
    r = start(&a, 2);
    a.query_rc = MPI_ERR_OTHER;
    MPI_OK(MPI_Grequest_complete(r));
    MPI_FAILS(MPI_ERR_OTHER, MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK(r == MPI_REQUEST_NULL, "failed Test kept the request");
    done_once(&a, "Test with a failing query_fn");
    /* Request_get_status: query_fn's code */
    r = start(&a, 3);
    a.query_rc = code;
    MPI_OK(MPI_Grequest_complete(r));
    rc = MPI_Request_get_status(r, &flag, &st[0]);
    CHECK(rc == code && flag, "Request_get_status returned %d (flag %d), expected %d", rc, flag,
          code);
    a.query_rc = MPI_SUCCESS;
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    /* Request_free: free_fn's code */
    r = start(&a, 4);
    a.free_rc = MPI_ERR_OTHER;
    MPI_OK(MPI_Grequest_complete(r));
    MPI_FAILS(MPI_ERR_OTHER, MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL && a.nfree == 1, "Request_free with a failing free_fn");

    /* Waitall: MPI_ERR_IN_STATUS, each status with its own code */
    MPI_Request rs[3] = { start(&a, 1), start(&b, 2), start(&c, 3) };
    b.free_rc = code;
    c.query_rc = MPI_ERR_OTHER;
    for (int i = 0; i < 3; i++)
        MPI_OK(MPI_Grequest_complete(rs[i]));
    MPI_FAILS(MPI_ERR_IN_STATUS, MPI_Waitall(3, rs, st));
    CHECK(st[0].MPI_ERROR == MPI_SUCCESS && st[1].MPI_ERROR == code &&
          mt_class(st[2].MPI_ERROR) == MPI_ERR_OTHER, "Waitall statuses' errors %d %d %d",
          st[0].MPI_ERROR, st[1].MPI_ERROR, st[2].MPI_ERROR);
    CHECK(rs[0] == MPI_REQUEST_NULL && rs[1] == MPI_REQUEST_NULL && rs[2] == MPI_REQUEST_NULL,
          "Waitall with errors kept requests");
    done_once(&a, "Waitall");
    done_once(&b, "Waitall");
    done_once(&c, "Waitall");

    /* bad arguments */
    MPI_FAILS(MPI_ERR_ARG, MPI_Grequest_start(NULL, free_fn, cancel_fn, &a, &r));
    MPI_FAILS(MPI_ERR_ARG, MPI_Grequest_start(query_fn, NULL, cancel_fn, &a, &r));
    MPI_FAILS(MPI_ERR_ARG, MPI_Grequest_start(query_fn, free_fn, NULL, &a, &r));
    MPI_FAILS(MPI_ERR_ARG, MPI_Grequest_start(query_fn, free_fn, cancel_fn, &a, NULL));
    MPI_FAILS(MPI_ERR_REQUEST, MPI_Grequest_complete(MPI_REQUEST_NULL));
    MPI_FAILS(MPI_ERR_REQUEST, MPI_Grequest_complete((MPI_Request)0x2c00ffff));
    int x = 0;
    MPI_Request s;
    MPI_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &s));
    MPI_FAILS(MPI_ERR_REQUEST, MPI_Grequest_complete(s));   /* not a generalized one */
    MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    r = start(&a, 5);
    MPI_OK(MPI_Grequest_complete(r));
    MPI_FAILS(MPI_ERR_REQUEST, MPI_Grequest_complete(r));   /* twice */
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    done_once(&a, "Wait after a second Grequest_complete");
    /* a handle freed before completion belongs to nobody but
     * Grequest_complete: the other calls refuse it */
    r = start(&a, 6);
    MPI_Request copy = r;
    MPI_OK(MPI_Request_free(&r));
    MPI_FAILS(MPI_ERR_REQUEST, MPI_Wait(&copy, MPI_STATUS_IGNORE));
    MPI_FAILS(MPI_ERR_REQUEST, MPI_Test(&copy, &flag, MPI_STATUS_IGNORE));
    MPI_FAILS(MPI_ERR_REQUEST, MPI_Cancel(&copy));
    MPI_FAILS(MPI_ERR_REQUEST, MPI_Request_free(&copy));
    CHECK(a.nquery == 0 && a.nfree == 0 && a.ncancel == 0, "a freed request ran callbacks");
    MPI_OK(MPI_Grequest_complete(copy));
    CHECK(a.nfree == 1, "free_fn did not run at completion");
    MPI_FAILS(MPI_ERR_REQUEST, MPI_Grequest_complete(copy));   /* gone now */
}

static double now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *completer(void *arg)
{
    mt_sleep_ms(300);
    MPI_Grequest_complete(*(MPI_Request *)arg);
    return NULL;
}

/* A helper thread completes what MPI_Wait blocks on: the wait returns, and
 * has used a small part of the 300 ms in CPU time (it naps, not spins). */
static void threaded(void)
{
    op a;
    MPI_Request r = start(&a, 12), copy = r;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, completer, &copy) == 0, "pthread_create failed");
    double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
    MPI_Status st;
    MPI_OK(MPI_Wait(&r, &st));
    double wall = now(CLOCK_MONOTONIC) - w0, cpu = now(CLOCK_THREAD_CPUTIME_ID) - c0;
    pthread_join(t, NULL);
    done_once(&a, "Wait completed by another thread");
    check_status(&st, &a, 0);
    CHECK(wall >= 0.25, "Wait returned after %.3f s, before Grequest_complete", wall);
    CHECK(cpu < 0.25 * wall && cpu < 0.075, "Wait used %.3f s of CPU in %.3f s: it spins",
          cpu, wall);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "grequest");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    basics();
    arrays();
    errors();
#ifdef CLUMPI
    threaded();
#endif
    return mt_finish();
}
