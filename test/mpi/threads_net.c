/* np: 1 2 3
 * env: CLUMPI_NET=agent
 * env: CLUMPI_SPIN=0
 *
 * MPI_THREAD_MULTIPLE, every thread exchanging messages of every size
 * class at once: NT threads per rank each send to the rank half the job
 * away (on another node under --nodes 2; test/mpi/nodes.sh runs it so,
 * directly and in offload mode) and receive from the rank half the job
 * back with MPI_ANY_SOURCE, even threads on a communicator of their own
 * with MPI_ANY_TAG, odd ones on MPI_COMM_WORLD with a tag of their own.
 * Sizes 0, 1, each side of the eager limits of the channels (agent 31 KiB,
 * shm 8 KiB with a core per rank and 32 KiB, ofi 64 KiB) and 1 MiB, the 1 MiB ones several times, so
 * several threads of a rank read rendezvous data from the same node at
 * once (in offload mode, through the agents' bulk path). Receives are
 * nonblocking or blocking by thread, sends blocking or synchronous. Every
 * message names its sender, thread, size and round in its bytes, and its
 * status is checked. Then the threads take tickets from an MPIX_Counter
 * each (fetch-and-add served by the agents in offload mode): each
 * thread's tickets increase, and the counter ends at its start plus every
 * ticket taken.
 */
#include <pthread.h>
#include "mtest.h"

#define NT 4
#define ROUNDS 2
#define BIG_ROUNDS 4
#define TICKETS 50

static const size_t sizes[] = { 0, 1, 8191, 8192, 8193, 31743, 31744, 31745, 32767, 32768,
                                32769, 65535, 65536, 65537, 1 << 20 };
#define NSIZES (sizeof sizes / sizeof *sizes)

static MPI_Comm own[NT];   /* a duplicate of MPI_COMM_WORLD per thread */
static int next, prev;     /* the rank sent to, the one received from */

static unsigned seed(int from, int t, size_t s, int round)
{
    return (unsigned)(((from * NT + t) * 64 + (int)s) * 16 + round);
}

static void *exchange(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm comm = t % 2 ? MPI_COMM_WORLD : own[t];
    int tag = t % 2 ? 100 + t : 7;
    char *sb = mt_malloc(1 << 20), *rb = mt_malloc((1 << 20) + 1);
    for (size_t s = 0; s < NSIZES; s++) {
        size_t n = sizes[s];
        int rounds = n >= (1 << 20) ? BIG_ROUNDS : ROUNDS;
        for (int i = 0; i < rounds; i++) {
            mt_fill(sb, n, seed(mt_rank, t, s, i));
            memset(rb, 0xa5, n + 1);
            MPI_Status st;
            int rtag = t % 2 ? tag : MPI_ANY_TAG;
            if (t < 2) {
                MPI_Request rq;
                MPI_OK(MPI_Irecv(rb, (int)n, MPI_BYTE, MPI_ANY_SOURCE, rtag, comm, &rq));
                if (i % 2)
                    MPI_OK(MPI_Ssend(sb, (int)n, MPI_BYTE, next, tag, comm));
                else
                    MPI_OK(MPI_Send(sb, (int)n, MPI_BYTE, next, tag, comm));
                MPI_OK(MPI_Wait(&rq, &st));
            } else {
                MPI_Request sq;
                MPI_OK(MPI_Isend(sb, (int)n, MPI_BYTE, next, tag, comm, &sq));
                MPI_OK(MPI_Recv(rb, (int)n, MPI_BYTE, MPI_ANY_SOURCE, rtag, comm, &st));
                MPI_OK(MPI_Wait(&sq, MPI_STATUS_IGNORE));
            }
            int count = -1;
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
            CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == tag && count == (int)n,
                  "thread %d, %zu bytes, round %d: source %d tag %d count %d, expected %d %d %zu",
                  t, n, i, st.MPI_SOURCE, st.MPI_TAG, count, prev, tag, n);
            long bad = mt_verify(rb, n, seed(prev, t, s, i));
            CHECK(bad < 0, "thread %d, %zu bytes, round %d: byte %ld wrong", t, n, i, bad);
            CHECK((unsigned char)rb[n] == 0xa5, "thread %d, %zu bytes: written past the end", t, n);
        }
    }
    free(sb);
    free(rb);
    return NULL;
}

#ifdef MPIX_COUNTER_NULL
/* Thread t's counter on its own communicator, owned by rank t % size. */
static void *tickets(void *arg)
{
    int t = (int)(long)arg;
    const long long start = 1000 * t;
    MPIX_Counter c;
    MPI_OK(MPIX_Counter_create(own[t], t % mt_size, start, &c));
    long long last = -1;
    for (int i = 0; i < TICKETS; i++) {
        long long old = -1;
        MPI_OK(MPIX_Counter_fetch_and_add(c, 1, &old));
        CHECK(old >= start && old > last && old < start + (long long)TICKETS * mt_size,
              "thread %d: ticket %lld after %lld (counter from %lld)", t, old, last, start);
        last = old;
    }
    MPI_OK(MPI_Barrier(own[t]));
    long long end = -1;
    MPI_OK(MPIX_Counter_fetch_and_add(c, 0, &end));
    CHECK(end == start + (long long)TICKETS * mt_size, "thread %d: counter ends at %lld, not %lld",
          t, end, start + (long long)TICKETS * mt_size);
    MPI_OK(MPI_Barrier(own[t]));
    MPI_OK(MPIX_Counter_free(&c));
    return NULL;
}
#endif

static void run_threads(void *(*fn)(void *))
{
    pthread_t th[NT];
    for (long t = 0; t < NT; t++)
        CHECK(pthread_create(&th[t], NULL, fn, (void *)t) == 0, "pthread_create");
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
}

int main(int argc, char **argv)
{
    mt_init_multiple(&argc, &argv, "threads_net");
    int half = mt_size / 2;
    next = (mt_rank + half) % mt_size;
    prev = (mt_rank - half + mt_size) % mt_size;
    for (int t = 0; t < NT; t++)
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &own[t]));
    run_threads(exchange);
    mt_barrier();
#ifdef MPIX_COUNTER_NULL
    run_threads(tickets);
    mt_barrier();
#endif
    for (int t = 0; t < NT; t++)
        MPI_OK(MPI_Comm_free(&own[t]));
    MPI_OK(MPI_Comm_free(&mt_comm));
    MPI_OK(MPI_Finalize());
    return 0;
}
