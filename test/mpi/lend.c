/* np: 2 4
 * env: CLUMPI_SHM_FRAGS=4 CLUMPI_EAGER_LIMIT=32768
 * env: CLUMPI_SHM_CMA=0
 * env: CLUMPI_EAGER_LIMIT=32768
 * (env: extra runs with clumpi's protocol variants; other MPIs ignore them)
 *
 * Large eager messages that arrive before their receive: clumpi's
 * shared-memory channel leaves their payload in the sender's fragments
 * (lends it) until the receive, and a sender whose fragments are all out
 * sends by rendezvous. Every rank streams blocking sends to a rank 0 that
 * is slow to receive; nonblocking sends in flight are received last tag
 * first, more of them than a receiver may hold; a held message is found by
 * a matched probe and received by MPI_Mrecv, and another is received
 * truncated; a synchronous send whose message is held does not complete
 * before its receive is posted. Every byte is checked. (clumpi sends
 * 8-32 KiB eagerly when ranks outnumber cores, or with CLUMPI_EAGER_LIMIT;
 * with a core per rank only up to 8 KiB.)
 */
#include "mtest.h"

static const int sizes[] = { 8192, 20000, 32768 };
#define NS ((int)(sizeof sizes / sizeof sizes[0]))
#define STREAM 100
#define MAXN 32768

static unsigned seed_of(int round, int i, int rank)
{
    return (unsigned)(round * 7919 + i * 31 + rank);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "lend");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    unsigned char *b = mt_malloc(MAXN);
    MPI_Status st;
    int count;

    /* 1. streams into a slow receiver, in order */
    for (int s = 0; s < NS; s++) {
        int n = sizes[s];
        for (int i = 0; i < STREAM; i++) {
            if (mt_rank != 0) {
                mt_fill(b, (size_t)n, seed_of(s, i, mt_rank));
                MPI_OK(MPI_Send(b, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD));
                continue;
            }
            if (i % 16 == 0)
                mt_sleep_ms(2);
            for (int src = 1; src < mt_size; src++) {
                MPI_OK(MPI_Recv(b, n, MPI_BYTE, src, 1, MPI_COMM_WORLD, &st));
                MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
                CHECK(count == n, "stream of %d B: message %d from %d has %d B", n, i, src,
                      count);
                long bad = mt_verify(b, (size_t)n, seed_of(s, i, src));
                CHECK(bad < 0, "stream of %d B: message %d from %d wrong at byte %ld", n, i,
                      src, bad);
            }
        }
    }

    /* 2. in flight on a ring, received last tag first */
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    for (int s = 0; s < NS; s++)
        mt_in_flight(s, 24, (size_t)sizes[s], next, prev, 100, seed_of);

    /* 3. a matched probe and a truncated receive of held messages, and a
     * synchronous send held unmatched */
    if (mt_rank == 1) {
        MPI_Request q[3];
        unsigned char *m = mt_malloc(3 * 20000);
        for (int k = 0; k < 3; k++) {
            mt_fill(m + k * 20000, 20000, seed_of(9, k, 1));
            if (k < 2)
                MPI_OK(MPI_Isend(m + k * 20000, 20000, MPI_BYTE, 0, 7 + k, MPI_COMM_WORLD,
                                 &q[k]));
            else
                MPI_OK(MPI_Issend(m + k * 20000, 20000, MPI_BYTE, 0, 9, MPI_COMM_WORLD,
                                  &q[k]));
        }
        mt_barrier();
        int done = 1;
        MPI_OK(MPI_Test(&q[2], &done, MPI_STATUS_IGNORE));
        CHECK(!done, "MPI_Issend completed before its receive was posted");
        mt_barrier();
        MPI_OK(MPI_Waitall(3, q, MPI_STATUSES_IGNORE));
        free(m);
    } else if (mt_rank == 0) {
        mt_barrier();
        mt_barrier();
        MPI_Message msg;
        MPI_OK(MPI_Mprobe(1, 7, MPI_COMM_WORLD, &msg, &st));
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(count == 20000, "matched probe: %d bytes, not 20000", count);
        MPI_OK(MPI_Mrecv(b, 20000, MPI_BYTE, &msg, &st));
        long bad = mt_verify(b, 20000, seed_of(9, 0, 1));
        CHECK(bad < 0, "MPI_Mrecv: byte %ld wrong", bad);
        memset(b, 0, MAXN);
        MPI_FAILS(MPI_ERR_TRUNCATE, MPI_Recv(b, 10000, MPI_BYTE, 1, 8, MPI_COMM_WORLD, &st));
        bad = mt_verify(b, 10000, seed_of(9, 1, 1));
        CHECK(bad < 0 && mt_all(b + 10000, MAXN - 10000, 0) < 0,
              "truncated receive: byte %ld wrong or bytes past the buffer written", bad);
        MPI_OK(MPI_Recv(b, 20000, MPI_BYTE, 1, 9, MPI_COMM_WORLD, &st));
        bad = mt_verify(b, 20000, seed_of(9, 2, 1));
        CHECK(bad < 0, "synchronous send: byte %ld wrong", bad);
    } else {
        mt_barrier();
        mt_barrier();
    }
    free(b);
    return mt_finish();
}
