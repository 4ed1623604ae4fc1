/* np: 2
 * env: CLUMPI_EAGER_LIMIT=0
 * env: CLUMPI_NO_RMA=1
 * env: CLUMPI_SHM_QUEUE_CELLS=4 CLUMPI_SHM_CTRL_CELLS=4 CLUMPI_SHM_FRAGS=2
 * env: CLUMPI_EAGER_LIMIT=32768
 * (env: extra runs with clumpi's protocol variants; other MPIs ignore them)
 *
 * Synchronous sends complete only once the matching receive has started:
 * Issend + Test stays false while the receiver has not posted (it waits for a
 * "go" that the sender sends only after its Tests), for 0 bytes, small,
 * eager-sized (20000 B: eager in clumpi when ranks outnumber cores or with
 * CLUMPI_EAGER_LIMIT=32768) and large messages; then Wait completes. Blocking Ssend to a
 * posted receive, and Ssend to oneself through a posted Irecv.
 */
#include "mtest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "ssend");
    if (mt_rank > 1) /* ranks 0 and 1 only */
        return mt_finish();
    static const int sizes[] = {0, 1, 8, 200, 3000, 20000, 100000, 4 << 20};
    const int NS = (int)(sizeof sizes / sizeof sizes[0]);
    int peer = 1 - mt_rank;
    unsigned char *buf = mt_malloc(4 << 20);

    for (int k = 0; k < NS; k++) {
        int n = sizes[k];
        if (mt_rank == 0) {
            MPI_Request rq, go_rq;
            int flag = 0;
            mt_fill(buf, (size_t)n, (unsigned)k);
            MPI_OK(MPI_Issend(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &rq));
            for (int i = 0; i < 200; i++) {
                MPI_OK(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
                CHECK(!flag, "size %d: Issend completed before the receive was posted", n);
                if (i % 20 == 0)
                    mt_sleep_ms(1);
            }
            char go = 1;
            MPI_OK(MPI_Isend(&go, 1, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &go_rq));
            MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            CHECK(rq == MPI_REQUEST_NULL, "Wait did not free the request");
            MPI_OK(MPI_Wait(&go_rq, MPI_STATUS_IGNORE));
        } else {
            char go;
            MPI_Status st;
            int count;
            MPI_OK(MPI_Recv(&go, 1, MPI_CHAR, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            memset(buf, 0, (size_t)n);
            MPI_OK(MPI_Recv(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
            CHECK(count == n, "size %d: count %d", n, count);
            long bad = mt_verify(buf, (size_t)n, (unsigned)k);
            CHECK(bad < 0, "size %d: byte %ld corrupt", n, bad);
        }
    }

    /* Blocking Ssend into a pre-posted receive, both directions. */
    for (int k = 0; k < NS; k++) {
        int n = sizes[k];
        for (int dir = 0; dir < 2; dir++) {
            if (mt_rank == dir) {
                char ready;
                MPI_OK(MPI_Recv(&ready, 1, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                mt_fill(buf, (size_t)n, 77u + (unsigned)k);
                MPI_OK(MPI_Ssend(buf, n, MPI_BYTE, peer, 4, MPI_COMM_WORLD));
            } else {
                MPI_Request rq;
                char ready = 1;
                MPI_OK(MPI_Irecv(buf, n, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &rq));
                MPI_OK(MPI_Send(&ready, 1, MPI_CHAR, peer, 3, MPI_COMM_WORLD));
                MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
                long bad = mt_verify(buf, (size_t)n, 77u + (unsigned)k);
                CHECK(bad < 0, "Ssend size %d: byte %ld corrupt", n, bad);
            }
        }
    }

    /* Ssend to self through a posted Irecv */
    {
        int in = 0, out = 1234;
        MPI_Request rq;
        MPI_OK(MPI_Irecv(&in, 1, MPI_INT, mt_rank, 9, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Ssend(&out, 1, MPI_INT, mt_rank, 9, MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECK(in == 1234, "Ssend to self: got %d", in);
        /* Issend to self, then the receive */
        MPI_Request s;
        int flag = 0;
        MPI_OK(MPI_Issend(&out, 1, MPI_INT, mt_rank, 10, MPI_COMM_WORLD, &s));
        MPI_OK(MPI_Test(&s, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "Issend to self completed before the receive");
        MPI_OK(MPI_Recv(&in, 1, MPI_INT, mt_rank, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    }
    free(buf);
    return mt_finish();
}
