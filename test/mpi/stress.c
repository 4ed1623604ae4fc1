/* np: 8 16
 * env: CLUMPI_SHM_QUEUE_CELLS=4 CLUMPI_SHM_CTRL_CELLS=4 CLUMPI_SHM_FRAGS=2
 * (env: extra runs with clumpi's protocol variants; other MPIs ignore them)
 *
 * Oversubscribed stress (8 and 16 ranks on 2 cores): rounds of all-to-all
 * with Isend/Irecv of mixed sizes, a token ring, an ANY_SOURCE fan-in and
 * random-pair rendezvous exchanges. Every message is checked. Ranks that wait
 * must let the others run, or this takes minutes instead of seconds.
 */
#include "mtest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "stress");
    int n = mt_size;
    size_t maxm = 40000;
    unsigned char *out = mt_malloc(maxm * (size_t)n), *in = mt_malloc(maxm * (size_t)n);
    MPI_Request *rq = mt_malloc(sizeof(MPI_Request) * 2 * (size_t)n);

    /* 1. all-to-all rounds */
    for (int round = 0; round < 30; round++) {
        size_t m = round % 5 == 4 ? maxm : (size_t)(round * 13 + 1);
        int k = 0;
        for (int p = 0; p < n; p++) {
            if (p == mt_rank)
                continue;
            MPI_OK(MPI_Irecv(in + (size_t)p * maxm, (int)m, MPI_BYTE, p, round, MPI_COMM_WORLD, &rq[k++]));
        }
        for (int i = 1; i < n; i++) {
            int p = (mt_rank + i) % n;
            mt_fill(out + (size_t)p * maxm, m, (unsigned)(mt_rank * 64 + p + round));
            MPI_OK(MPI_Isend(out + (size_t)p * maxm, (int)m, MPI_BYTE, p, round, MPI_COMM_WORLD, &rq[k++]));
        }
        MPI_OK(MPI_Waitall(k, rq, MPI_STATUSES_IGNORE));
        for (int p = 0; p < n; p++) {
            if (p == mt_rank)
                continue;
            long bad = mt_verify(in + (size_t)p * maxm, m, (unsigned)(p * 64 + mt_rank + round));
            CHECK(bad < 0, "all-to-all round %d from %d: byte %ld corrupt", round, p, bad);
        }
    }

    /* 2. token ring, 200 laps */
    {
        int tok = 0, laps = 200;
        int right = (mt_rank + 1) % n, left = (mt_rank - 1 + n) % n;
        for (int lap = 0; lap < laps; lap++) {
            if (mt_rank == 0) {
                tok++;
                MPI_OK(MPI_Send(&tok, 1, MPI_INT, right, 1, MPI_COMM_WORLD));
                MPI_OK(MPI_Recv(&tok, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CHECK(tok == lap * n + n, "ring lap %d: token %d", lap, tok);
            } else {
                MPI_OK(MPI_Recv(&tok, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                tok++;
                MPI_OK(MPI_Send(&tok, 1, MPI_INT, right, 1, MPI_COMM_WORLD));
            }
        }
    }

    /* 3. fan-in with ANY_SOURCE, rotating root */
    for (int root = 0; root < n; root += 3) {
        if (mt_rank == root) {
            int sum = 0;
            for (int i = 0; i < 20 * (n - 1); i++) {
                int v;
                MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                sum += v;
            }
            int want = 20 * (n * (n - 1) / 2 - root);
            CHECK(sum == want, "fan-in at %d: sum %d, expected %d", root, sum, want);
        } else {
            for (int i = 0; i < 20; i++)
                MPI_OK(MPI_Send(&mt_rank, 1, MPI_INT, root, 2, MPI_COMM_WORLD));
        }
    }

    /* 4. pair exchanges of 1 MiB with a shifting partner */
    {
        size_t big = 1 << 20;
        unsigned char *a = mt_malloc(big), *b = mt_malloc(big);
        for (int s = 1; s < n && s < 6; s++) {
            int to = (mt_rank + s) % n, from = (mt_rank - s + n) % n;
            mt_fill(a, big, (unsigned)(mt_rank + 100 * s));
            MPI_OK(MPI_Sendrecv(a, (int)big, MPI_BYTE, to, 3, b, (int)big, MPI_BYTE, from, 3,
                                MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            long bad = mt_verify(b, big, (unsigned)(from + 100 * s));
            CHECK(bad < 0, "pair shift %d: byte %ld corrupt", s, bad);
        }
        free(a);
        free(b);
    }

    /* 5. many barriers */
    for (int i = 0; i < 50; i++)
        mt_barrier();

    free(out);
    free(in);
    free(rq);
    return mt_finish();
}
