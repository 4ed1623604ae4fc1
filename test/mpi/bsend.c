/* np: 2
 * env: CLUMPI_EAGER_LIMIT=0
 * env: CLUMPI_NO_RMA=1
 * env: CLUMPI_SHM_QUEUE_CELLS=4 CLUMPI_SHM_CTRL_CELLS=4 CLUMPI_SHM_FRAGS=2
 * (env: extra runs with clumpi's protocol variants; other MPIs ignore them)
 *
 * Buffered sends: Buffer_attach, many Bsends before the receiver posts (the
 * sender must not wait for it), the user buffer may be overwritten as soon as
 * Bsend returns, Ibsend, a large buffered message, Buffer_detach waits for
 * delivery and returns the attached buffer, attach again and reuse.
 */
#include "mtest.h"

#define NMSG 20
#define LEN 1000

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "bsend");
    int peer = 1 - mt_rank;
    int psize;
    MPI_OK(MPI_Pack_size(LEN, MPI_INT, MPI_COMM_WORLD, &psize));
    int bigp;
    MPI_OK(MPI_Pack_size(1 << 19, MPI_INT, MPI_COMM_WORLD, &bigp));
    int bsize = NMSG * (psize + MPI_BSEND_OVERHEAD) + bigp + MPI_BSEND_OVERHEAD;

    for (int round = 0; round < 3; round++) {
        char *bb = mt_malloc((size_t)bsize);
        MPI_OK(MPI_Buffer_attach(bb, bsize));
        if (mt_rank == 0) {
            int *m = mt_malloc(sizeof(int) * LEN);
            for (int j = 0; j < NMSG; j++) {
                for (int i = 0; i < LEN; i++)
                    m[i] = round * 100000 + j * 1000 + i;
                if (j % 2) {
                    MPI_Request rq;
                    MPI_OK(MPI_Ibsend(m, LEN, MPI_INT, peer, j, MPI_COMM_WORLD, &rq));
                    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
                } else {
                    MPI_OK(MPI_Bsend(m, LEN, MPI_INT, peer, j, MPI_COMM_WORLD));
                }
                for (int i = 0; i < LEN; i++) /* overwrite at once */
                    m[i] = -1;
            }
            int *big = mt_malloc(sizeof(int) << 19);
            for (int i = 0; i < (1 << 19); i++)
                big[i] = i ^ round;
            MPI_OK(MPI_Bsend(big, 1 << 19, MPI_INT, peer, 100, MPI_COMM_WORLD));
            memset(big, 0, sizeof(int) << 19);
            /* all buffered: now tell the receiver to start */
            char go = 1;
            MPI_OK(MPI_Send(&go, 1, MPI_CHAR, peer, 200, MPI_COMM_WORLD));
            free(big);
            free(m);
        } else {
            char go;
            MPI_OK(MPI_Recv(&go, 1, MPI_CHAR, peer, 200, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            int *m = mt_malloc(sizeof(int) * LEN);
            for (int j = NMSG - 1; j >= 0; j--) { /* out of order, by tag */
                MPI_OK(MPI_Recv(m, LEN, MPI_INT, peer, j, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                for (int i = 0; i < LEN; i++)
                    CHECK(m[i] == round * 100000 + j * 1000 + i,
                          "round %d message %d: element %d is %d", round, j, i, m[i]);
            }
            int *big = mt_malloc(sizeof(int) << 19);
            MPI_OK(MPI_Recv(big, 1 << 19, MPI_INT, peer, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int i = 0; i < (1 << 19); i++)
                CHECK(big[i] == (i ^ round), "round %d big: element %d is %d", round, i, big[i]);
            free(big);
            free(m);
        }
        void *addr = NULL;
        int sz = 0;
        MPI_OK(MPI_Buffer_detach(&addr, &sz));
        CHECK(addr == bb && sz == bsize, "Buffer_detach returned %p/%d, attached %p/%d", addr, sz,
              (void *)bb, bsize);
        free(bb);
        mt_barrier();
    }

    /* Detach while messages are still in the buffer: detach must wait until
     * they are delivered, the receiver posts late. */
    {
        char *bb = mt_malloc((size_t)bsize);
        MPI_OK(MPI_Buffer_attach(bb, bsize));
        int v[LEN];
        if (mt_rank == 0) {
            for (int i = 0; i < LEN; i++)
                v[i] = 7 * i;
            MPI_OK(MPI_Bsend(v, LEN, MPI_INT, peer, 300, MPI_COMM_WORLD));
        }
        void *addr;
        int sz;
        if (mt_rank == 1) {
            mt_sleep_ms(20);
            MPI_OK(MPI_Recv(v, LEN, MPI_INT, peer, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int i = 0; i < LEN; i++)
                CHECK(v[i] == 7 * i, "late receive: element %d is %d", i, v[i]);
        }
        MPI_OK(MPI_Buffer_detach(&addr, &sz));
        memset(bb, 0, (size_t)bsize); /* must be safe now */
        free(bb);
    }
    return mt_finish();
}
