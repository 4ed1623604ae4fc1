/* np: 2
 * env: CLUMPI_SHM_FRAGS=4 CLUMPI_EAGER_LIMIT=32768
 *
 * clumpi's MPI_T counters of the send protocols, eager_msgs_sent and
 * rndv_msgs_sent (clumpi only: the variables are clumpi's), count a send
 * when its first packet leaves, by the protocol it left by. Rank 0 starts
 * eight 16 KiB Isends to a rank 1 that makes one pass of progress and then
 * holds its receives back: with four fragments and the 32 KiB limit
 * (second run) some leave eagerly, some wait for a fragment, and some go
 * by rendezvous once rank 1 holds the fragments it was lent; with the
 * default limit all go by rendezvous. Whatever the timing, an eager send
 * is complete once counted and a rendezvous send is not before its receive
 * is posted, so before that: eager counted == sends completed, eager +
 * rendezvous <= 8; after: the two add up to 8. Every byte is checked.
 */
#include <stdlib.h>
#include "mpit_util.h"

#define N 8
#define LEN 16384


int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpit_protocol");
    unsigned char *b = mt_malloc((size_t)N * LEN);
#ifdef CLUMPI
    int provided;
    MPI_T_pvar_session s;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread");
    CHECK(MPI_T_pvar_session_create(&s) == MPI_SUCCESS, "session");
    MPI_T_pvar_handle he = pv_alloc(s, "eager_msgs_sent", MPI_T_PVAR_CLASS_COUNTER);
    MPI_T_pvar_handle hr = pv_alloc(s, "rndv_msgs_sent", MPI_T_PVAR_CLASS_COUNTER);
    CHECK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "start");
#endif
    mt_barrier();
    if (mt_rank == 0) {
        MPI_Request q[N];
        int done[N] = { 0 }, ndone = 0;
#ifdef CLUMPI
        /* from here: the barrier's own messages are counted too */
        unsigned long long e0 = pv_read(s, he), r0 = pv_read(s, hr);
#endif
        for (int i = 0; i < N; i++) {
            mt_fill(b + (size_t)i * LEN, LEN, (unsigned)i + 1);
            MPI_OK(MPI_Isend(b + (size_t)i * LEN, LEN, MPI_BYTE, 1, i, MPI_COMM_WORLD, &q[i]));
        }
        /* 300 ms of progress while rank 1 sleeps past its one look */
        for (int t = 0; t < 300; t++) {
            for (int i = 0; i < N; i++)
                if (!done[i]) {
                    MPI_OK(MPI_Test(&q[i], &done[i], MPI_STATUS_IGNORE));
                    ndone += done[i];
                }
            mt_sleep_ms(1);
        }
#ifdef CLUMPI
        unsigned long long e = pv_read(s, he) - e0, r = pv_read(s, hr) - r0;
        CHECK(e == (unsigned long long)ndone, "%d sends complete, %llu counted eager", ndone,
              e);
        CHECK(e + r <= N, "before any receive: %llu eager + %llu rendezvous", e, r);
#endif
        /* rank 1 may receive now: one more eager message */
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, N, MPI_COMM_WORLD));
        MPI_OK(MPI_Waitall(N, q, MPI_STATUSES_IGNORE));
#ifdef CLUMPI
        e = pv_read(s, he) - e0, r = pv_read(s, hr) - r0;
        CHECK(e + r == N + 1 && e >= 1, "%d sends and a go: %llu eager + %llu rendezvous", N,
              e, r);
#endif
    } else {
        int flag;
        mt_sleep_ms(100);
        /* one pass: the messages there are taken aside (some lent) */
        MPI_OK(MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        mt_sleep_ms(400);
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, N, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++) {
            MPI_OK(MPI_Recv(b, LEN, MPI_BYTE, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            long bad = mt_verify(b, LEN, (unsigned)i + 1);
            CHECK(bad < 0, "message %d: byte %ld wrong", i, bad);
        }
    }
#ifdef CLUMPI
    CHECK(MPI_T_pvar_handle_free(s, &he) == MPI_SUCCESS && MPI_T_pvar_handle_free(s, &hr) ==
          MPI_SUCCESS && MPI_T_pvar_session_free(&s) == MPI_SUCCESS, "free");
    MPI_T_finalize();
#endif
    free(b);
    return mt_finish();
}
