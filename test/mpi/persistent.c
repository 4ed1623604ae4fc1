/* np: 2 4
 * env: CLUMPI_EAGER_LIMIT=0
 * env: CLUMPI_NO_RMA=1
 * env: CLUMPI_SHM_QUEUE_CELLS=4 CLUMPI_SHM_CTRL_CELLS=4 CLUMPI_SHM_FRAGS=2
 * (env: extra runs with clumpi's protocol variants; other MPIs ignore them)
 *
 * Persistent requests: Send_init/Recv_init around a ring, restarted with
 * Startall many times with new data each time (small and rendezvous sizes);
 * Start + Wait one at a time; Ssend_init, Bsend_init, Rsend_init; Test on an
 * inactive persistent request; Request_free of an inactive request.
 */
#include "mtest.h"

#define ITERS 200

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "persistent");
    int right = (mt_rank + 1) % mt_size, left = (mt_rank - 1 + mt_size) % mt_size;
    static const int sizes[] = {1, 64, 5000, 40000, 300000};

    for (int k = 0; k < 5; k++) {
        int n = sizes[k]; /* ints */
        int *out = mt_malloc(sizeof(int) * (size_t)n), *in = mt_malloc(sizeof(int) * (size_t)n);
        MPI_Request rq[2];
        MPI_OK(MPI_Recv_init(in, n, MPI_INT, left, k, MPI_COMM_WORLD, &rq[0]));
        MPI_OK(MPI_Send_init(out, n, MPI_INT, right, k, MPI_COMM_WORLD, &rq[1]));
        int iters = n > 10000 ? 20 : ITERS;
        for (int it = 0; it < iters; it++) {
            for (int i = 0; i < n; i++)
                out[i] = mt_rank * 1000003 + it * 31 + i;
            MPI_Status st[2];
            if (it % 3 == 2) {
                MPI_OK(MPI_Start(&rq[0]));
                MPI_OK(MPI_Start(&rq[1]));
                MPI_OK(MPI_Wait(&rq[1], &st[1]));
                MPI_OK(MPI_Wait(&rq[0], &st[0]));
            } else {
                MPI_OK(MPI_Startall(2, rq));
                MPI_OK(MPI_Waitall(2, rq, st));
            }
            CHECK(rq[0] != MPI_REQUEST_NULL && rq[1] != MPI_REQUEST_NULL,
                  "Wait freed a persistent request");
            CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == k, "iteration %d: status %d/%d",
                  it, st[0].MPI_SOURCE, st[0].MPI_TAG);
            for (int i = 0; i < n; i++)
                CHECK(in[i] == left * 1000003 + it * 31 + i,
                      "size %d iteration %d: element %d is %d", n, it, i, in[i]);
        }
        /* Test on inactive persistent requests: flag true, empty status */
        int flag = 0;
        MPI_Status st;
        MPI_OK(MPI_Test(&rq[0], &flag, &st));
        CHECK(flag, "Test on an inactive persistent request gave flag 0");
        CHECK(rq[0] != MPI_REQUEST_NULL, "Test freed an inactive persistent request");
        MPI_OK(MPI_Request_free(&rq[0]));
        MPI_OK(MPI_Request_free(&rq[1]));
        CHECK(rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL,
              "Request_free did not set MPI_REQUEST_NULL");
        free(out);
        free(in);
        mt_barrier();
    }

    /* Ssend_init / Bsend_init / Rsend_init, each restarted. */
    {
        int bsize = 0;
        MPI_OK(MPI_Pack_size(100, MPI_INT, MPI_COMM_WORLD, &bsize));
        bsize += MPI_BSEND_OVERHEAD;
        void *battach = mt_malloc((size_t)bsize);
        MPI_OK(MPI_Buffer_attach(battach, bsize));
        int out[100], in[100];
        MPI_Request s[3], r;
        MPI_OK(MPI_Ssend_init(out, 100, MPI_INT, right, 41, MPI_COMM_WORLD, &s[0]));
        MPI_OK(MPI_Bsend_init(out, 100, MPI_INT, right, 42, MPI_COMM_WORLD, &s[1]));
        MPI_OK(MPI_Rsend_init(out, 100, MPI_INT, right, 43, MPI_COMM_WORLD, &s[2]));
        for (int it = 0; it < 30; it++) {
            for (int kind = 0; kind < 3; kind++) {
                for (int i = 0; i < 100; i++)
                    out[i] = it * 100 + kind * 10000 + i + mt_rank;
                MPI_OK(MPI_Recv_init(in, 100, MPI_INT, left, 41 + kind, MPI_COMM_WORLD, &r));
                MPI_OK(MPI_Start(&r));
                if (kind == 2) /* ready send: the receive must be posted first */
                    mt_barrier();
                MPI_OK(MPI_Start(&s[kind]));
                MPI_OK(MPI_Wait(&s[kind], MPI_STATUS_IGNORE));
                MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
                MPI_OK(MPI_Request_free(&r));
                for (int i = 0; i < 100; i++)
                    CHECK(in[i] == it * 100 + kind * 10000 + i + left,
                          "kind %d iteration %d: element %d is %d", kind, it, i, in[i]);
            }
        }
        for (int kind = 0; kind < 3; kind++)
            MPI_OK(MPI_Request_free(&s[kind]));
        void *addr;
        int sz;
        MPI_OK(MPI_Buffer_detach(&addr, &sz));
        CHECK(addr == battach && sz == bsize, "Buffer_detach returned %p/%d, attached %p/%d",
              addr, sz, battach, bsize);
        free(battach);
    }
    return mt_finish();
}
