/* np: 2 4
 * env: CLUMPI_EAGER_LIMIT=0
 * env: CLUMPI_NO_RMA=1
 * env: CLUMPI_SHM_QUEUE_CELLS=4 CLUMPI_SHM_CTRL_CELLS=4 CLUMPI_SHM_FRAGS=2
 * (env: extra runs with clumpi's protocol variants; other MPIs ignore them)
 *
 * Non-overtaking: messages from one sender on one communicator that match the
 * same receive arrive in the order sent — with one tag, with mixed tags read
 * through MPI_ANY_TAG, with per-tag receives in another order, across eager
 * and rendezvous sizes (a large message sent first must still match first),
 * and with several senders to one ANY_SOURCE receiver.
 */
#include "mtest.h"

#define N 1000
#define BIG (1 << 20)

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "order");
    int npairs = mt_size / 2;
    int peer = mt_rank ^ 1;
    int sender = !(mt_rank & 1);
    unsigned char *big = mt_malloc(BIG);

    if (mt_rank < 2 * npairs) {
        int v[2];
        MPI_Status st;
        /* 1. one tag, blocking and nonblocking sends */
        if (sender) {
            MPI_Request rq[N];
            int seq[N];
            for (int i = 0; i < N; i++) {
                seq[i] = i;
                if (i % 2)
                    MPI_OK(MPI_Isend(&seq[i], 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &rq[i]));
                else {
                    MPI_OK(MPI_Send(&seq[i], 1, MPI_INT, peer, 5, MPI_COMM_WORLD));
                    rq[i] = MPI_REQUEST_NULL;
                }
            }
            MPI_OK(MPI_Waitall(N, rq, MPI_STATUSES_IGNORE));
        } else {
            for (int i = 0; i < N; i++) {
                MPI_OK(MPI_Recv(v, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &st));
                CHECK(v[0] == i, "same tag: got %d, expected %d", v[0], i);
            }
        }
        mt_barrier();

        /* 2. mixed tags, received with ANY_TAG: overall order kept */
        if (sender) {
            for (int i = 0; i < N; i++) {
                v[0] = i;
                v[1] = i % 7;
                MPI_OK(MPI_Send(v, 2, MPI_INT, peer, i % 7, MPI_COMM_WORLD));
            }
        } else {
            for (int i = 0; i < N; i++) {
                MPI_OK(MPI_Recv(v, 2, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                CHECK(v[0] == i && st.MPI_TAG == i % 7 && v[1] == st.MPI_TAG,
                      "ANY_TAG: got seq %d tag %d, expected seq %d tag %d", v[0], st.MPI_TAG, i, i % 7);
            }
        }
        mt_barrier();

        /* 3. mixed tags, received tag by tag in reverse tag order: each
         * tag's stream in order (the sender must not block: Isend) */
        if (sender) {
            MPI_Request rq[N];
            int seq[N];
            for (int i = 0; i < N; i++) {
                seq[i] = i;
                MPI_OK(MPI_Isend(&seq[i], 1, MPI_INT, peer, i % 5, MPI_COMM_WORLD, &rq[i]));
            }
            MPI_OK(MPI_Waitall(N, rq, MPI_STATUSES_IGNORE));
        } else {
            for (int t = 4; t >= 0; t--)
                for (int i = t; i < N; i += 5) {
                    MPI_OK(MPI_Recv(v, 1, MPI_INT, peer, t, MPI_COMM_WORLD, &st));
                    CHECK(v[0] == i, "tag %d: got seq %d, expected %d", t, v[0], i);
                }
        }
        mt_barrier();

        /* 4. protocol crossing: big (rendezvous) then small (eager) on the
         * same tag; then small, big, small. The receiver takes them with one
         * ANY_TAG receive each and must see them in order. */
        for (int round = 0; round < 10; round++) {
            int sizes[4] = {BIG, 4, 70000, 1};
            if (round % 2) {
                sizes[0] = 3;
                sizes[1] = BIG - 1;
            }
            if (sender) {
                MPI_Request rq[4];
                unsigned char *bufs[4];
                for (int i = 0; i < 4; i++) {
                    bufs[i] = mt_malloc((size_t)sizes[i]);
                    mt_fill(bufs[i], (size_t)sizes[i], (unsigned)(round * 4 + i));
                    MPI_OK(MPI_Isend(bufs[i], sizes[i], MPI_BYTE, peer, round % 2 ? i : 3,
                                     MPI_COMM_WORLD, &rq[i]));
                }
                MPI_OK(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
                for (int i = 0; i < 4; i++)
                    free(bufs[i]);
            } else {
                if (round % 3 == 0)
                    mt_sleep_ms(2); /* let them all arrive unexpected */
                for (int i = 0; i < 4; i++) {
                    int count;
                    MPI_OK(MPI_Recv(big, BIG, MPI_BYTE, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
                    CHECK(count == sizes[i], "round %d message %d: size %d, expected %d "
                          "(overtaken)", round, i, count, sizes[i]);
                    long bad = mt_verify(big, (size_t)count, (unsigned)(round * 4 + i));
                    CHECK(bad < 0, "round %d message %d: byte %ld corrupt", round, i, bad);
                }
            }
        }
        mt_barrier();
    } else {
        for (int i = 0; i < 4; i++)
            mt_barrier();
    }

    /* 5. many senders into rank 0 with ANY_SOURCE: each stream in order */
    if (mt_size > 1) {
        const int M = 500;
        if (mt_rank == 0) {
            int *next = calloc((size_t)mt_size, sizeof(int));
            for (int i = 0; i < M * (mt_size - 1); i++) {
                int v[2];
                MPI_Status st;
                MPI_OK(MPI_Recv(v, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                CHECK(v[0] == st.MPI_SOURCE, "source %d claims %d", st.MPI_SOURCE, v[0]);
                CHECK(v[1] == next[v[0]], "from %d: seq %d, expected %d", v[0], v[1], next[v[0]]);
                next[v[0]]++;
            }
            free(next);
        } else {
            for (int i = 0; i < M; i++) {
                int v[2] = {mt_rank, i};
                MPI_OK(MPI_Send(v, 2, MPI_INT, 0, i % 3, MPI_COMM_WORLD));
            }
        }
    }

    free(big);
    return mt_finish();
}
