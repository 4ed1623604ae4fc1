/* np: 1 2 3 5
 * env: CLUMPI_SPIN=0
 * env: CLUMPI_NET=agent
 *
 * MPI_THREAD_MULTIPLE and dynamic processes: every process connects to
 * itself from two threads (one thread of each rank accepts on a duplicate
 * of MPI_COMM_WORLD, another connects to that port on another duplicate)
 * NCONN times, while two more threads make communicators on other parents
 * (dup, split, idup) and use them at once. Every message carries its
 * communicator's pattern (which side, which thread, which round) and is
 * received with ANY_TAG (and ANY_SOURCE on the intracommunicators), so
 * traffic that crosses between
 * communicators (two of them given one context id, or two routes one
 * slot) fails the test; collectives over the intercommunicators and the
 * new communicators are checked against sums computed here.
 */
#include <pthread.h>
#include <stdatomic.h>
#include "mtest.h"

#define NCONN 3
#define NCREATE 12

static char port[2][MPI_MAX_PORT_NAME], self_port[MPI_MAX_PORT_NAME];
static MPI_Comm parent[4];   /* per thread: a half of MPI_COMM_WORLD (0, 1), a duplicate */

/* The value side (0: accepting, 1: connecting) rank `from` sends to rank
 * `to` of the other group from thread t in round i. */
static int code(int side, int from, int to, int t, int i)
{
    return (((side * 64 + from) * 64 + to) * 4 + t) * 100 + i + 1;
}

/* Both ways over the intercommunicator ic of thread t's round i: a
 * message to every remote rank, received with wildcards, and an
 * Allreduce. */
static void exchange(MPI_Comm ic, int side, int t, int i)
{
    int rs = 0, flag = 0, ls = 0;
    MPI_OK(MPI_Comm_test_inter(ic, &flag));
    MPI_OK(MPI_Comm_remote_size(ic, &rs));
    MPI_OK(MPI_Comm_size(ic, &ls));
    int me;
    MPI_OK(MPI_Comm_rank(ic, &me));
    CHECK(flag && rs > 0 && rs + ls == mt_size, "side %d: inter %d, sizes %d %d", side, flag,
          ls, rs);
    int *out = mt_malloc((size_t)rs * sizeof(int)), *in = mt_malloc((size_t)rs * sizeof(int));
    MPI_Request *q = mt_malloc((size_t)rs * 2 * sizeof(MPI_Request));
    for (int r = 0; r < rs; r++) {
        out[r] = code(side, me, r, t, i);
        MPI_OK(MPI_Irecv(&in[r], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &q[r]));
    }
    for (int r = 0; r < rs; r++)
        MPI_OK(MPI_Isend(&out[r], 1, MPI_INT, r, 10 + side, ic, &q[rs + r]));
    MPI_Status *st = mt_malloc((size_t)rs * 2 * sizeof(MPI_Status));
    MPI_OK(MPI_Waitall(2 * rs, q, st));
    int seen = 0;
    for (int r = 0; r < rs; r++) {
        int src = st[r].MPI_SOURCE;
        CHECK(st[r].MPI_TAG == 11 - side && src >= 0 && src < rs &&
                  in[r] == code(1 - side, src, me, t, i),
              "side %d round %d: got %d tag %d from %d, expected %d", side, i, in[r],
              st[r].MPI_TAG, src, code(1 - side, src, me, t, i));
        seen |= 1 << src;
    }
    CHECK(seen == (1 << rs) - 1, "side %d round %d: sources %#x", side, i, seen);
    int mine = code(side, me, 0, t, i), sum = 0, ref = 0;
    MPI_OK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, ic));
    for (int r = 0; r < rs; r++)
        ref += code(1 - side, r, 0, t, i);
    CHECK(sum == ref, "side %d round %d: allreduce %d, expected %d", side, i, sum, ref);
    free(out);
    free(in);
    free(q);
    free(st);
}

/* Between the halves (even and odd ranks): thread 0 of the even half
 * accepts on port[0] while the odd half connects, thread 1 the other way
 * on port[1]: two agreements under way in every process at once. */
static void *halves(void *arg)
{
    int t = (int)(long)arg, side = (mt_rank % 2) ^ t;
    for (int i = 0; i < NCONN; i++) {
        MPI_Comm ic;
        if (side == 0)
            MPI_OK(MPI_Comm_accept(port[t], MPI_INFO_NULL, 0, parent[t], &ic));
        else
            MPI_OK(MPI_Comm_connect(port[t], MPI_INFO_NULL, 0, parent[t], &ic));
        exchange(ic, side, t, i);
        MPI_OK(MPI_Comm_disconnect(&ic));
    }
    return NULL;
}

/* A process connecting to itself: thread 0 accepts on MPI_COMM_SELF,
 * thread 1 connects; the connector's message reaches the acceptor. */
static void *self_pair(void *arg)
{
    int t = (int)(long)arg;
    for (int i = 0; i < NCONN; i++) {
        MPI_Comm ic;
        int v = code(1, mt_rank, 0, t, i), got = -1;
        if (t == 0) {
            MPI_OK(MPI_Comm_accept(self_port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic));
            MPI_OK(MPI_Recv(&got, 1, MPI_INT, 0, MPI_ANY_TAG, ic, MPI_STATUS_IGNORE));
            CHECK(got == code(1, mt_rank, 0, 1, i), "self %d: got %d", i, got);
        } else {
            MPI_OK(MPI_Comm_connect(self_port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic));
            MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 3, ic));
        }
        MPI_OK(MPI_Comm_disconnect(&ic));
    }
    return NULL;
}

/* Thread t's traffic on c, made in round i: a ring with wildcards and an
 * Allreduce, each value naming t, i and the sender. */
static void use(MPI_Comm c, int t, int i)
{
    int n, me;
    MPI_OK(MPI_Comm_size(c, &n));
    MPI_OK(MPI_Comm_rank(c, &me));
    int out = (t * 1000 + i) * 64 + me, in = -1, sum = 0, ref = 0;
    MPI_Request q;
    MPI_Status st;
    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &q));
    MPI_OK(MPI_Send(&out, 1, MPI_INT, (me + 1) % n, 20 + t, c));
    MPI_OK(MPI_Wait(&q, &st));
    int prev = (me + n - 1) % n;
    CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 20 + t && in == (t * 1000 + i) * 64 + prev,
          "thread %d round %d: got %d tag %d from %d", t, i, in, st.MPI_TAG, st.MPI_SOURCE);
    MPI_OK(MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, c));
    for (int r = 0; r < n; r++)
        ref += (t * 1000 + i) * 64 + r;
    CHECK(sum == ref, "thread %d round %d: allreduce %d, expected %d", t, i, sum, ref);
}

static void *creator(void *arg)
{
    int t = (int)(long)arg;
    for (int i = 0; i < NCREATE; i++) {
        MPI_Comm c;
        if (i % 3 == 0) {
            MPI_OK(MPI_Comm_dup(parent[t], &c));
        } else if (i % 3 == 1) {
            MPI_OK(MPI_Comm_split(parent[t], mt_rank % 2, -mt_rank, &c));
        } else {
            MPI_Request q;
            MPI_OK(MPI_Comm_idup(parent[t], &c, &q));
            MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        }
        use(c, t, i);
        MPI_OK(MPI_Comm_free(&c));
    }
    return NULL;
}

/* Runs a and b in threads 0 and 1 and two creators in threads 2 and 3. */
static void run(void *(*a)(void *), void *(*b)(void *))
{
    pthread_t th[4];
    void *(*fn[4])(void *) = { a, b, creator, creator };
    for (long t = 0; t < 4; t++)
        CHECK(pthread_create(&th[t], NULL, fn[t], (void *)t) == 0, "pthread_create");
    for (int t = 0; t < 4; t++)
        pthread_join(th[t], NULL);
}

int main(int argc, char **argv)
{
    mt_init_multiple(&argc, &argv, "threads_dyn");
    for (int t = 0; t < 2; t++)
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, mt_rank, &parent[t]));
    for (int t = 2; t < 4; t++)
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &parent[t]));

    if (mt_size > 1) {   /* the halves: rank 0 and rank 1 open the ports */
        if (mt_rank < 2)
            MPI_OK(MPI_Open_port(MPI_INFO_NULL, port[mt_rank]));
        for (int t = 0; t < 2; t++)
            MPI_OK(MPI_Bcast(port[t], MPI_MAX_PORT_NAME, MPI_CHAR, t, mt_comm));
        run(halves, halves);
        mt_barrier();
        if (mt_rank < 2)
            MPI_OK(MPI_Close_port(port[mt_rank]));
    }
    MPI_OK(MPI_Open_port(MPI_INFO_NULL, self_port));
    run(self_pair, self_pair);
    MPI_OK(MPI_Close_port(self_port));
    for (int t = 0; t < 4; t++)
        MPI_OK(MPI_Comm_free(&parent[t]));
    return mt_finish();
}
