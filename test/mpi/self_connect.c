/* np: 1 2 3 4
 * env: CLUMPI_NET=agent
 *
 * One process on both sides of one connection (MPI_THREAD_MULTIPLE): in
 * every process thread 0 accepts on a duplicate of MPI_COMM_WORLD and
 * thread 1 connects to that port on another, so both groups are the whole
 * job and every process holds both intercommunicators; later each process
 * joins itself over a socketpair (MPI_Comm_join in both threads). Over each
 * intercommunicator, and over its duplicates (Comm_dup, Comm_idup,
 * Comm_split), both threads exchange messages that name their sender
 * thread, rank and destination, received with MPI_ANY_SOURCE and
 * MPI_ANY_TAG and from the same process's other side by rank; thread 0
 * posts its receives first and sends first, so a message that could match
 * its own sender's receive does. Then Bcast and Allreduce over it, and
 * Intercomm_merge with both `high` orders (and equal ones) followed by
 * traffic on the merged communicator (a ring and a message to oneself,
 * received with wildcards) and an Allreduce, and the same on its Comm_dup,
 * Comm_idup, Comm_split, Comm_create and Comm_create_group (each process
 * in them twice); every result is compared with a value computed here.
 */
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>
#include "mtest.h"

static char port[MPI_MAX_PORT_NAME];
static MPI_Comm parent[2];
static pthread_barrier_t tbar;
static int join_fd[2];

/* The value thread t's rank `from` sends to rank `to` in round i. */
static int code(int t, int from, int to, int i)
{
    return ((t * 64 + from) * 64 + to) * 100 + i + 1;
}

static void sync_threads(void)
{
    int rc = pthread_barrier_wait(&tbar);
    CHECK(rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD, "pthread_barrier_wait %d", rc);
}

/* Traffic over intercommunicator ic from thread t (the other thread of
 * this process is the remote group's rank me): a message to every remote
 * rank received with wildcards, then one to remote rank me received from
 * rank me, then Bcast both ways and Allreduce. */
static void exchange(MPI_Comm ic, int t, int i)
{
    int rs = 0, me = -1, flag = 0;
    MPI_OK(MPI_Comm_test_inter(ic, &flag));
    MPI_OK(MPI_Comm_remote_size(ic, &rs));
    MPI_OK(MPI_Comm_rank(ic, &me));
    CHECK(flag && rs > 0 && me >= 0 && me < rs, "thread %d: inter %d, remote size %d, rank %d",
          t, flag, rs, me);
    int *out = mt_malloc((size_t)rs * sizeof(int)), *in = mt_malloc((size_t)rs * sizeof(int));
    MPI_Request *q = mt_malloc((size_t)rs * 2 * sizeof(MPI_Request));
    MPI_Status *st = mt_malloc((size_t)rs * 2 * sizeof(MPI_Status));
    /* thread 0 posts first and sends first */
    if (t == 1)
        sync_threads();
    for (int r = 0; r < rs; r++)
        MPI_OK(MPI_Irecv(&in[r], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &q[r]));
    if (t == 0)
        sync_threads();
    if (t == 1)
        sync_threads();
    for (int r = 0; r < rs; r++) {
        out[r] = code(t, me, r, i);
        MPI_OK(MPI_Isend(&out[r], 1, MPI_INT, r, 10 + t, ic, &q[rs + r]));
    }
    if (t == 0)
        sync_threads();
    MPI_OK(MPI_Waitall(2 * rs, q, st));
    int seen = 0;
    for (int r = 0; r < rs; r++) {
        int src = st[r].MPI_SOURCE;
        CHECK(st[r].MPI_TAG == 11 - t && src >= 0 && src < rs && in[r] == code(1 - t, src, me, i),
              "thread %d round %d: got %d tag %d from %d, expected %d tag %d", t, i, in[r],
              st[r].MPI_TAG, src, src >= 0 && src < rs ? code(1 - t, src, me, i) : -1, 11 - t);
        seen |= 1 << src;
    }
    CHECK(seen == (1 << rs) - 1, "thread %d round %d: sources %#x", t, i, seen);

    /* from this process's other side, by rank, both ways at once */
    int v = code(t, me, me, i + 50), got = -1;
    MPI_Status s1;
    if (t == 1)
        sync_threads();
    MPI_OK(MPI_Irecv(&got, 1, MPI_INT, me, 20 + (1 - t), ic, &q[0]));
    if (t == 0)
        sync_threads();
    MPI_OK(MPI_Send(&v, 1, MPI_INT, me, 20 + t, ic));
    MPI_OK(MPI_Wait(&q[0], &s1));
    CHECK(got == code(1 - t, me, me, i + 50) && s1.MPI_SOURCE == me,
          "thread %d round %d: from my other side got %d from %d, expected %d", t, i, got,
          s1.MPI_SOURCE, code(1 - t, me, me, i + 50));

    /* a large message (rendezvous) each way, and a synchronous one */
    size_t big = 1 << 18;
    char *sb = mt_malloc(big), *rb = mt_malloc(big);
    mt_fill(sb, big, (unsigned)code(t, me, me, i + 60));
    MPI_OK(MPI_Irecv(rb, (int)big, MPI_BYTE, me, 30, ic, &q[0]));
    MPI_OK(MPI_Isend(sb, (int)big, MPI_BYTE, me, 30, ic, &q[1]));
    MPI_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    long bad = mt_verify(rb, big, (unsigned)code(1 - t, me, me, i + 60));
    CHECK(bad < 0, "thread %d round %d: large message from my other side: byte %ld wrong", t,
          i, bad);
    MPI_OK(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 31, ic, &q[0]));
    MPI_OK(MPI_Ssend(&v, 1, MPI_INT, me, 31, ic));
    MPI_OK(MPI_Wait(&q[0], &s1));
    CHECK(got == code(1 - t, me, me, i + 50) && s1.MPI_SOURCE == me,
          "thread %d round %d: synchronous from my other side got %d from %d", t, i, got,
          s1.MPI_SOURCE);
    free(sb);
    free(rb);

    /* Bcast from rank 0 of thread 0's group, then of thread 1's */
    for (int rt = 0; rt < 2; rt++) {
        int b = t == rt && me == 0 ? code(rt, 0, 0, i + 70) : -1;
        int root = t == rt ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        MPI_OK(MPI_Bcast(&b, 1, MPI_INT, root, ic));
        CHECK(t == rt ? b == (me == 0 ? code(rt, 0, 0, i + 70) : -1)
                      : b == code(rt, 0, 0, i + 70),
              "thread %d round %d: bcast from group %d gave %d", t, i, rt, b);
    }
    int mine = code(t, me, 0, i), sum = 0, ref = 0;
    MPI_OK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, ic));
    for (int r = 0; r < rs; r++)
        ref += code(1 - t, r, 0, i);
    CHECK(sum == ref, "thread %d round %d: allreduce %d, expected %d", t, i, sum, ref);
    free(out);
    free(in);
    free(q);
    free(st);
}

/* Traffic over intracommunicator m (thread t's, round i): a ring and a
 * message to oneself, received with wildcards, and an Allreduce. */
static void ring(MPI_Comm m, int t, int i)
{
    int n = 0, mr = -1;
    MPI_OK(MPI_Comm_size(m, &n));
    MPI_OK(MPI_Comm_rank(m, &mr));
    int next = (mr + 1) % n, prev = (mr + n - 1) % n;
    int got[2] = { -1, -1 }, v[2] = { mr * 1000 + next + i, mr * 1000 + mr + i };
    MPI_Request q[4];
    MPI_Status st[4];
    MPI_OK(MPI_Irecv(&got[0], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, m, &q[0]));
    MPI_OK(MPI_Irecv(&got[1], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, m, &q[1]));
    MPI_OK(MPI_Isend(&v[0], 1, MPI_INT, next, 5, m, &q[2]));
    MPI_OK(MPI_Isend(&v[1], 1, MPI_INT, mr, 6, m, &q[3]));
    MPI_OK(MPI_Waitall(4, q, st));
    for (int k = 0; k < 2; k++) {
        int src = st[k].MPI_SOURCE;
        int ok = (st[k].MPI_TAG == 6 && src == mr) || (st[k].MPI_TAG == 5 && src == prev);
        CHECK(ok && got[k] == src * 1000 + mr + i,
              "thread %d ring %d: rank %d got %d tag %d from %d", t, i, mr, got[k],
              st[k].MPI_TAG, src);
    }
    int one = mr + 1, sum = 0;
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, m));
    CHECK(sum == n * (n + 1) / 2, "thread %d ring %d: allreduce %d", t, i, sum);
}

/* Intercomm_merge of ic by thread t with `high`, the other thread passing
 * other_high, then traffic over the result: ranks in the order MPI-3.1
 * asks (the group passing false first; either when equal, but one group
 * after the other), a ring and a message to oneself received with
 * wildcards, an Allreduce. */
static void merged(MPI_Comm ic, int t, int high, int other_high, int i)
{
    int ls = 0, rs = 0, me = -1;
    MPI_OK(MPI_Comm_size(ic, &ls));
    MPI_OK(MPI_Comm_remote_size(ic, &rs));
    MPI_OK(MPI_Comm_rank(ic, &me));
    MPI_Comm m;
    MPI_OK(MPI_Intercomm_merge(ic, high, &m));
    int n = 0, mr = -1, flag = 1;
    MPI_OK(MPI_Comm_size(m, &n));
    MPI_OK(MPI_Comm_rank(m, &mr));
    MPI_OK(MPI_Comm_test_inter(m, &flag));
    CHECK(!flag && n == ls + rs, "thread %d merge %d: inter %d size %d", t, i, flag, n);
    int *ts = mt_malloc((size_t)n * sizeof(int));
    MPI_OK(MPI_Allgather(&t, 1, MPI_INT, ts, 1, MPI_INT, m));
    int first = high != other_high ? (high ? 1 - t : t) : ts[0];
    int nfirst = t == first ? ls : rs, base = t == first ? 0 : rs;
    CHECK(mr == base + me, "thread %d merge %d (high %d/%d): rank %d, expected %d", t, i, high,
          other_high, mr, base + me);
    for (int r = 0; r < n; r++)
        CHECK(ts[r] == (r < nfirst ? first : 1 - first),
              "thread %d merge %d: rank %d is thread %d's", t, i, r, ts[r]);
    free(ts);

    ring(m, t, i);

    /* communicators made from it: the process is in them twice too */
    MPI_Comm d;
    MPI_OK(MPI_Comm_dup(m, &d));
    ring(d, t, i + 1);
    MPI_OK(MPI_Comm_free(&d));
    MPI_Request r;
    MPI_OK(MPI_Comm_idup(m, &d, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    ring(d, t, i + 2);
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Comm_split(m, mr % 2, n - mr, &d));
    ring(d, t, i + 3);
    MPI_OK(MPI_Comm_free(&d));
    MPI_Group g, h;
    int excl[1] = { n - 1 };
    MPI_OK(MPI_Comm_group(m, &g));
    MPI_OK(MPI_Group_excl(g, 1, excl, &h));
    MPI_OK(MPI_Comm_create(m, h, &d));
    CHECK((d == MPI_COMM_NULL) == (mr == n - 1), "thread %d merge %d: create gave %s", t, i,
          d == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
    if (d != MPI_COMM_NULL) {
        ring(d, t, i + 4);
        MPI_OK(MPI_Comm_free(&d));
    }
    if (mr != 0) {
        MPI_Group h0;
        int excl0[1] = { 0 };
        MPI_OK(MPI_Group_excl(g, 1, excl0, &h0));
        MPI_OK(MPI_Comm_create_group(m, h0, 7, &d));
        ring(d, t, i + 5);
        MPI_OK(MPI_Comm_free(&d));
        MPI_OK(MPI_Group_free(&h0));
    }
    MPI_OK(MPI_Group_free(&h));
    MPI_OK(MPI_Group_free(&g));
    MPI_OK(MPI_Comm_free(&m));
}

/* Thread t's side of the connection over the two world duplicates. */
static void *side(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm ic, d;
    if (t == 0)
        MPI_OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, parent[0], &ic));
    else
        MPI_OK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, parent[1], &ic));
    exchange(ic, t, 0);
    merged(ic, t, t, 1 - t, 1);
    merged(ic, t, 1 - t, t, 2);
    merged(ic, t, 0, 0, 3);

    MPI_OK(MPI_Comm_dup(ic, &d));
    exchange(d, t, 4);
    merged(d, t, t, 1 - t, 5);
    MPI_OK(MPI_Comm_free(&d));

    MPI_Request r;
    MPI_OK(MPI_Comm_idup(ic, &d, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    exchange(d, t, 6);
    MPI_OK(MPI_Comm_free(&d));

    /* both groups split alike: the remote rank `me` is still my other side */
    int me;
    MPI_OK(MPI_Comm_rank(ic, &me));
    MPI_OK(MPI_Comm_split(ic, me % 2, -me, &d));
    exchange(d, t, 7);
    MPI_OK(MPI_Comm_disconnect(&d));
    MPI_OK(MPI_Comm_disconnect(&ic));

    /* this process joined to itself */
    MPI_OK(MPI_Comm_join(join_fd[t], &ic));
    exchange(ic, t, 8);
    merged(ic, t, t, 1 - t, 9);
    MPI_OK(MPI_Comm_disconnect(&ic));
    return NULL;
}

int main(int argc, char **argv)
{
    mt_init_multiple(&argc, &argv, "self_connect");
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &parent[0]));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &parent[1]));
    if (mt_rank == 0)
        MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, join_fd) == 0, "socketpair");
    CHECK(pthread_barrier_init(&tbar, NULL, 2) == 0, "pthread_barrier_init");
    pthread_t th[2];
    for (long t = 0; t < 2; t++)
        CHECK(pthread_create(&th[t], NULL, side, (void *)t) == 0, "pthread_create");
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&tbar);
    close(join_fd[0]);
    close(join_fd[1]);
    if (mt_rank == 0)
        MPI_OK(MPI_Close_port(port));
    MPI_OK(MPI_Comm_free(&parent[0]));
    MPI_OK(MPI_Comm_free(&parent[1]));
    return mt_finish();
}
