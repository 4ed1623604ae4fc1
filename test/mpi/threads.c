/* np: 1 2 3 4
 * env: CLUMPI_SPIN=0
 * env: CLUMPI_OVERSUBSCRIBED=1
 * env: CLUMPI_NET=agent
 *
 * MPI_THREAD_MULTIPLE: MPI_Init_thread grants it, Query_thread and
 * Is_thread_main answer right (and refuse NULL), and NT threads per rank
 * call MPI at the same time: point-to-point on a communicator each
 * (ANY_SOURCE/ANY_TAG receives, probes, Waitall and Testany loops) and on
 * MPI_COMM_WORLD with a tag each; collectives on a duplicate each;
 * communicator creation (dup, split, Intercomm_create, Intercomm_merge) on
 * distinct parents at once, the new communicators used at once; RMA on a
 * window each; the wake-up path: a thread blocked in MPI_Recv whose
 * message another thread of the same rank makes come (through a relay
 * thread on the next rank, and through a send to self); user ops and a
 * generalized request's query_fn calling MPI from inside MPI, the request
 * completed by another thread while MPI_Wait blocks on it; accept and
 * connect between two threads of a process.
 * CLUMPI_SPIN=0 makes every wait block at once (the sleeper hand-off),
 * OVERSUBSCRIBED the yielding regime.
 */
#include <pthread.h>
#include "mtest.h"

#define NT 4
#define ITERS 40

static MPI_Comm dup_of[NT];   /* a duplicate of MPI_COMM_WORLD per thread */

static void run_threads(void *(*fn)(void *))
{
    pthread_t th[NT];
    for (long t = 0; t < NT; t++)
        CHECK(pthread_create(&th[t], NULL, fn, (void *)t) == 0, "pthread_create");
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
}

/* The value rank `from` sends as element k of message i of thread t. */
static int val(int from, int t, int i, int k)
{
    return ((from * NT + t) * 1000 + i) * 8 + k;
}

/* Ring traffic on the thread's own communicator, received with ANY_SOURCE
 * and ANY_TAG, completed by Waitall; then on MPI_COMM_WORLD with the
 * thread's tag, found by Iprobe (ANY_SOURCE) and Testany loops. */
static void *pt2pt(void *arg)
{
    int t = (int)(long)arg;
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    MPI_Comm c = dup_of[t];
    int is_main = -1;
    MPI_OK(MPI_Is_thread_main(&is_main));
    CHECK(is_main == 0, "MPI_Is_thread_main says %d in a created thread", is_main);
    for (int i = 0; i < ITERS; i++) {
        int s[8], r[8];
        for (int k = 0; k < 8; k++)
            s[k] = val(mt_rank, t, i, k);
        MPI_Request q[2];
        MPI_Status st[2];
        MPI_OK(MPI_Irecv(r, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &q[0]));
        MPI_OK(MPI_Isend(s, 8, MPI_INT, next, i, c, &q[1]));
        MPI_OK(MPI_Waitall(2, q, st));
        CHECK(st[0].MPI_SOURCE == prev && st[0].MPI_TAG == i,
              "thread %d message %d: source %d tag %d, expected %d %d", t, i,
              st[0].MPI_SOURCE, st[0].MPI_TAG, prev, i);
        for (int k = 0; k < 8; k++)
            CHECK(r[k] == val(prev, t, i, k), "thread %d message %d [%d]: %d, expected %d", t,
                  i, k, r[k], val(prev, t, i, k));
    }
    for (int i = 0; i < ITERS; i++) {
        int s = val(mt_rank, t, i, 0), r = -1, flag = 0;
        MPI_Request q;
        MPI_Status st;
        MPI_OK(MPI_Isend(&s, 1, MPI_INT, next, 100 + t, MPI_COMM_WORLD, &q));
        while (!flag)
            MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 100 + t, MPI_COMM_WORLD, &flag, &st));
        CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 100 + t, "probe: source %d tag %d",
              st.MPI_SOURCE, st.MPI_TAG);
        MPI_Request rq[2] = { MPI_REQUEST_NULL, q };
        MPI_OK(MPI_Irecv(&r, 1, MPI_INT, st.MPI_SOURCE, 100 + t, MPI_COMM_WORLD, &rq[0]));
        for (int left = 2; left > 0;) {
            int idx = -1;
            flag = 0;
            MPI_OK(MPI_Testany(2, rq, &idx, &flag, MPI_STATUS_IGNORE));
            if (flag && idx != MPI_UNDEFINED)
                left--;
        }
        CHECK(r == val(prev, t, i, 0), "thread %d world message %d: %d, expected %d", t, i, r,
              val(prev, t, i, 0));
    }
    return NULL;
}

/* Collectives on the thread's own communicator. */
static void *colls(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm c = dup_of[t];
    for (int i = 0; i < ITERS / 2; i++) {
        long v[3] = { mt_rank + t, i, 1 }, sum[3];
        MPI_OK(MPI_Allreduce(v, sum, 3, MPI_LONG, MPI_SUM, c));
        long n = mt_size;
        CHECK(sum[0] == n * (n - 1) / 2 + n * t && sum[1] == n * i && sum[2] == n,
              "thread %d allreduce %d: %ld %ld %ld", t, i, sum[0], sum[1], sum[2]);
        int b = mt_rank == i % mt_size ? val(i, t, i, 1) : -1;
        MPI_OK(MPI_Bcast(&b, 1, MPI_INT, i % mt_size, c));
        CHECK(b == val(i, t, i, 1), "thread %d bcast %d: %d", t, i, b);
        MPI_OK(MPI_Barrier(c));
    }
    return NULL;
}

/* New communicators from distinct parents at once (dup, then split by
 * parity), used at once: a context id given twice would mix their
 * traffic. */
static void *create(void *arg)
{
    int t = (int)(long)arg;
    for (int i = 0; i < 4; i++) {
        MPI_Comm d, s;
        MPI_OK(MPI_Comm_dup(dup_of[t], &d));
        MPI_OK(MPI_Comm_split(dup_of[t], mt_rank % 2, mt_size - mt_rank, &s));
        int sz, rk;
        MPI_OK(MPI_Comm_size(s, &sz));
        MPI_OK(MPI_Comm_rank(s, &rk));
        CHECK(sz == (mt_size + 1 - mt_rank % 2) / 2 && rk == sz - 1 - mt_rank / 2,
              "split: size %d rank %d", sz, rk);
        int v = val(mt_rank, t, i, 2), sum = 0, ref = 0;
        MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, d));
        for (int r = 0; r < mt_size; r++)
            ref += val(r, t, i, 2);
        CHECK(sum == ref, "thread %d dup %d: sum %d, expected %d", t, i, sum, ref);
        MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, s));
        ref = 0;
        for (int r = mt_rank % 2; r < mt_size; r += 2)
            ref += val(r, t, i, 2);
        CHECK(sum == ref, "thread %d split %d: sum %d, expected %d", t, i, sum, ref);
        if (mt_size > 1) {
            /* the halves join again: an intercommunicator, then merged;
             * each half's leader (rank 0 of s) is its highest rank */
            MPI_Comm ic, m;
            int other = (mt_size - 1) % 2 != mt_rank % 2 ? mt_size - 1 : mt_size - 2;
            MPI_OK(MPI_Intercomm_create(s, 0, dup_of[t], other, t, &ic));
            MPI_OK(MPI_Intercomm_merge(ic, mt_rank % 2, &m));
            int rsz = 0;
            MPI_OK(MPI_Comm_remote_size(ic, &rsz));
            CHECK(rsz == mt_size - sz, "thread %d: remote size %d", t, rsz);
            MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, m));
            ref = 0;
            for (int r = 0; r < mt_size; r++)
                ref += val(r, t, i, 2);
            CHECK(sum == ref, "thread %d merged %d: sum %d, expected %d", t, i, sum, ref);
            MPI_OK(MPI_Comm_free(&m));
            MPI_OK(MPI_Comm_free(&ic));
        }
        MPI_OK(MPI_Comm_free(&d));
        MPI_OK(MPI_Comm_free(&s));
    }
    return NULL;
}

/* Handle conversions while other threads grow the handle tables: each
 * thread holds many new datatypes at once (the table is reallocated under
 * the others' lookups) and converts its own handles back and forth. */
#define NHANDLES 1500
static void *handles(void *arg)
{
    int t = (int)(long)arg;
    static MPI_Datatype held[NT][NHANDLES];
    for (int i = 0; i < NHANDLES; i++) {
        MPI_OK(MPI_Type_contiguous(i % 7 + 1, MPI_INT, &held[t][i]));
        int j = i / 2;
        CHECK(MPI_Type_f2c(MPI_Type_c2f(held[t][j])) == held[t][j], "thread %d: type %d "
              "round trip", t, j);
        CHECK(MPI_Comm_f2c(MPI_Comm_c2f(dup_of[t])) == dup_of[t], "thread %d: comm round "
              "trip", t);
    }
    for (int i = 0; i < NHANDLES; i++) {
        int sz = 0;
        MPI_OK(MPI_Type_size(MPI_Type_f2c(MPI_Type_c2f(held[t][i])), &sz));
        CHECK(sz == (i % 7 + 1) * (int)sizeof(int), "thread %d: type %d size %d", t, i, sz);
        MPI_OK(MPI_Type_free(&held[t][i]));
    }
    return NULL;
}

/* A window per thread: puts to the next rank in fences, and a get under a
 * passive lock. */
static void *rma(void *arg)
{
    int t = (int)(long)arg;
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    int *mem = mt_malloc(16 * sizeof(int));
    for (int k = 0; k < 16; k++)
        mem[k] = -1;
    MPI_Win w;
    MPI_OK(MPI_Win_create(mem, 16 * sizeof(int), sizeof(int), MPI_INFO_NULL, dup_of[t], &w));
    for (int i = 0; i < 4; i++) {
        int s[4];
        for (int k = 0; k < 4; k++)
            s[k] = val(mt_rank, t, i, k);
        MPI_OK(MPI_Win_fence(0, w));
        MPI_OK(MPI_Put(s, 4, MPI_INT, next, 4 * i, 4, MPI_INT, w));
        MPI_OK(MPI_Win_fence(0, w));
        for (int k = 0; k < 4; k++)
            CHECK(mem[4 * i + k] == val(prev, t, i, k), "thread %d window: [%d] %d, expected %d",
                  t, 4 * i + k, mem[4 * i + k], val(prev, t, i, k));
    }
    int g[16];
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, w));
    MPI_OK(MPI_Get(g, 16, MPI_INT, next, 0, 16, MPI_INT, w));
    MPI_OK(MPI_Win_unlock(next, w));
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++)
            CHECK(g[4 * i + k] == val(mt_rank, t, i, k), "thread %d get: [%d] %d", t,
                  4 * i + k, g[4 * i + k]);
    MPI_OK(MPI_Win_free(&w));
    free(mem);
    return NULL;
}

/* Wake-up: thread 0 blocks in MPI_Recv from the next rank; thread 1, a
 * while later, sends to the next rank's relay (thread 2 there), which
 * answers thread 0. Thread 3 blocks in a receive from itself that thread 1
 * satisfies with a send to self afterwards. */
#define TAG_WAKE 200
#define TAG_RELAY 201
#define TAG_SELF 202
static void *wake(void *arg)
{
    int t = (int)(long)arg;
    int next = (mt_rank + 1) % mt_size;
    int v = -1;
    MPI_Status st;
    switch (t) {
    case 0:
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, next, TAG_WAKE, MPI_COMM_WORLD, &st));
        CHECK(v == val(mt_rank, 0, 7, 7) + 1, "wake: %d", v);
        break;
    case 1:
        mt_sleep_ms(30);
        v = val(mt_rank, 0, 7, 7);
        MPI_OK(MPI_Send(&v, 1, MPI_INT, next, TAG_RELAY, MPI_COMM_WORLD));
        mt_sleep_ms(30);
        v = val(mt_rank, 3, 7, 7);
        MPI_OK(MPI_Send(&v, 1, MPI_INT, mt_rank, TAG_SELF, MPI_COMM_WORLD));
        break;
    case 2:
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, TAG_RELAY, MPI_COMM_WORLD, &st));
        v++;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, st.MPI_SOURCE, TAG_WAKE, MPI_COMM_WORLD));
        break;
    default:
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, mt_rank, TAG_SELF, MPI_COMM_WORLD, &st));
        CHECK(v == val(mt_rank, 3, 7, 7), "self wake: %d", v);
    }
    return NULL;
}

/* A generalized request that MPI_Wait blocks on, completed by another
 * thread; its query_fn and a user op call MPI from inside MPI (the lock
 * is recursive). */
static MPI_Request greq;
static int nquery;

static int greq_query(void *extra, MPI_Status *st)
{
    (void)extra;
    int r = -1;
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    CHECK(r == mt_rank, "query_fn: MPI_Comm_rank %d", r);
    nquery++;
    MPI_Status_set_elements(st, MPI_INT, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = 77;
    return MPI_SUCCESS;
}

static int greq_free(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int greq_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

static void *completer(void *arg)
{
    (void)arg;
    mt_sleep_ms(30);
    MPI_OK(MPI_Grequest_complete(greq));
    return NULL;
}

static void sum_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int size = 0;
    MPI_Type_size(*type, &size);
    CHECK(size == (int)sizeof(int), "op: type size %d", size);
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void *op_user(void *arg)
{
    int t = (int)(long)arg;
    MPI_Op op;
    MPI_OK(MPI_Op_create(sum_op, 1, &op));
    for (int i = 0; i < 8; i++) {
        int v = val(mt_rank, t, i, 3), sum = 0, ref = 0;
        MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, op, dup_of[t]));
        for (int r = 0; r < mt_size; r++)
            ref += val(r, t, i, 3);
        CHECK(sum == ref, "thread %d user op %d: %d, expected %d", t, i, sum, ref);
    }
    MPI_OK(MPI_Op_free(&op));
    return NULL;
}

/* MPI_Comm_accept in one thread, MPI_Comm_connect to it from another of
 * the same process (on MPI_COMM_SELF): the accepting thread must not keep
 * the others out while it waits on the port. */
static char port[MPI_MAX_PORT_NAME];

static void *acceptor(void *arg)
{
    (void)arg;
    MPI_Comm ic;
    int v = 0;
    MPI_OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic));
    MPI_OK(MPI_Recv(&v, 1, MPI_INT, 0, 5, ic, MPI_STATUS_IGNORE));
    CHECK(v == val(mt_rank, 1, 2, 3), "accepted: %d", v);
    MPI_OK(MPI_Comm_disconnect(&ic));
    return NULL;
}

static void *connector(void *arg)
{
    (void)arg;
    MPI_Comm ic;
    int v = val(mt_rank, 1, 2, 3);
    mt_sleep_ms(20);
    MPI_OK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic));
    MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 5, ic));
    MPI_OK(MPI_Comm_disconnect(&ic));
    return NULL;
}

int main(int argc, char **argv)
{
    mt_init_multiple(&argc, &argv, "threads");
    int q = -1, is_main = -1;
    MPI_OK(MPI_Query_thread(&q));
    CHECK(q == MPI_THREAD_MULTIPLE, "MPI_Query_thread: %d", q);
    MPI_OK(MPI_Is_thread_main(&is_main));
    CHECK(is_main == 1, "MPI_Is_thread_main: %d in the main thread", is_main);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_FAILS(MPI_ERR_ARG, MPI_Query_thread(NULL));
    MPI_FAILS(MPI_ERR_ARG, MPI_Is_thread_main(NULL));
    for (int t = 0; t < NT; t++)
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup_of[t]));

    run_threads(pt2pt);
    mt_barrier();
    run_threads(colls);
    mt_barrier();
    run_threads(create);
    mt_barrier();
    run_threads(handles);
    mt_barrier();
    run_threads(rma);
    mt_barrier();
    run_threads(wake);
    mt_barrier();
    run_threads(op_user);

    pthread_t th;
    MPI_OK(MPI_Grequest_start(greq_query, greq_free, greq_cancel, NULL, &greq));
    CHECK(pthread_create(&th, NULL, completer, NULL) == 0, "pthread_create");
    MPI_Status st;
    MPI_OK(MPI_Wait(&greq, &st));
    pthread_join(th, NULL);
    CHECK(nquery == 1 && st.MPI_TAG == 77, "generalized request: %d queries, tag %d", nquery,
          st.MPI_TAG);

    MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
    pthread_t ta, tc;
    CHECK(pthread_create(&ta, NULL, acceptor, NULL) == 0, "pthread_create");
    CHECK(pthread_create(&tc, NULL, connector, NULL) == 0, "pthread_create");
    pthread_join(ta, NULL);
    pthread_join(tc, NULL);
    MPI_OK(MPI_Close_port(port));

    for (int t = 0; t < NT; t++)
        MPI_OK(MPI_Comm_free(&dup_of[t]));
    return mt_finish();
}
