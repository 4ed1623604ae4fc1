/* np: 2 3 4 8
 * env: CLUMPI_EAGER_LIMIT=0
 * env: CLUMPI_NO_RMA=1
 * env: CLUMPI_SHM_QUEUE_CELLS=4 CLUMPI_SHM_CTRL_CELLS=4 CLUMPI_SHM_FRAGS=2
 * (env: extra runs with clumpi's protocol variants; other MPIs ignore them)
 *
 * The progress rule: Sendrecv and Sendrecv_replace around a ring and
 * head-to-head between pairs at every size class up to 8 MiB (both ranks send
 * first, neither may wait for the other's receive), blocking Send/Recv
 * head-to-head through Isend, derived types in Sendrecv_replace, and
 * MPI_PROC_NULL as partner.
 */
#include "mtest.h"

static const int sizes[] = {0, 1, 100, 4096, 16385, 65537, 300000, 1 << 20, 8 << 20};
#define NS ((int)(sizeof sizes / sizeof sizes[0]))

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "sendrecv");
    int right = (mt_rank + 1) % mt_size, left = (mt_rank - 1 + mt_size) % mt_size;
    int pair = mt_rank ^ 1;
    if (pair >= mt_size)
        pair = MPI_PROC_NULL;
    unsigned char *out = mt_malloc(8 << 20), *in = mt_malloc((8 << 20) + 64);
    MPI_Status st;

    for (int k = 0; k < NS; k++) {
        int n = sizes[k];
        /* ring */
        mt_fill(out, (size_t)n, (unsigned)(mt_rank * 100 + k));
        memset(in, 0xEE, (size_t)n + 64);
        MPI_OK(MPI_Sendrecv(out, n, MPI_BYTE, right, k, in, n, MPI_BYTE, left, k, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == k, "ring size %d: status %d/%d", n,
              st.MPI_SOURCE, st.MPI_TAG);
        long bad = mt_verify(in, (size_t)n, (unsigned)(left * 100 + k));
        CHECK(bad < 0, "ring size %d: byte %ld corrupt", n, bad);
        CHECK(mt_all(in + n, 64, 0xEE) < 0, "ring size %d: wrote past the buffer", n);

        /* head-to-head pairs */
        MPI_OK(MPI_Sendrecv(out, n, MPI_BYTE, pair, k, in, n, MPI_BYTE, pair, k, MPI_COMM_WORLD, &st));
        if (pair != MPI_PROC_NULL) {
            bad = mt_verify(in, (size_t)n, (unsigned)(pair * 100 + k));
            CHECK(bad < 0, "pair size %d: byte %ld corrupt", n, bad);
        } else {
            CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "PROC_NULL partner: source %d", st.MPI_SOURCE);
        }

        /* Sendrecv_replace, ring and pair */
        mt_fill(in, (size_t)n, (unsigned)(mt_rank * 100 + k + 50));
        MPI_OK(MPI_Sendrecv_replace(in, n, MPI_BYTE, right, k, left, k, MPI_COMM_WORLD, &st));
        bad = mt_verify(in, (size_t)n, (unsigned)(left * 100 + k + 50));
        CHECK(bad < 0, "replace ring size %d: byte %ld corrupt", n, bad);
        if (pair != MPI_PROC_NULL) {
            mt_fill(in, (size_t)n, (unsigned)(mt_rank * 100 + k + 60));
            MPI_OK(MPI_Sendrecv_replace(in, n, MPI_BYTE, pair, k, pair, k, MPI_COMM_WORLD, &st));
            bad = mt_verify(in, (size_t)n, (unsigned)(pair * 100 + k + 60));
            CHECK(bad < 0, "replace pair size %d: byte %ld corrupt", n, bad);
        }

        /* head-to-head Isend + Recv + Wait */
        if (pair != MPI_PROC_NULL) {
            MPI_Request rq;
            MPI_OK(MPI_Isend(out, n, MPI_BYTE, pair, 1000 + k, MPI_COMM_WORLD, &rq));
            MPI_OK(MPI_Recv(in, n, MPI_BYTE, pair, 1000 + k, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            bad = mt_verify(in, (size_t)n, (unsigned)(pair * 100 + k));
            CHECK(bad < 0, "isend pair size %d: byte %ld corrupt", n, bad);
        }
    }

    /* Sendrecv_replace with a vector type: every other double of a 2 MiB
     * array goes round the ring, the rest stays. */
    {
        int cnt = 1 << 17;
        double *d = mt_malloc(sizeof(double) * 2 * (size_t)cnt);
        MPI_Datatype vec;
        MPI_OK(MPI_Type_vector(cnt, 1, 2, MPI_DOUBLE, &vec));
        MPI_OK(MPI_Type_commit(&vec));
        for (int i = 0; i < 2 * cnt; i++)
            d[i] = (i % 2) ? -1.0 : mt_rank * 1e6 + i;
        MPI_OK(MPI_Sendrecv_replace(d, 1, vec, right, 7, left, 7, MPI_COMM_WORLD, &st));
        for (int i = 0; i < 2 * cnt; i++) {
            double want = (i % 2) ? -1.0 : left * 1e6 + i;
            CHECK(d[i] == want, "replace vector: element %d is %g, expected %g", i, d[i], want);
        }
        MPI_OK(MPI_Type_free(&vec));
        free(d);
    }

    /* Sendrecv to/from PROC_NULL only */
    {
        int v = 5, w = 6;
        MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, &w, 1, MPI_INT, MPI_PROC_NULL, 0,
                            MPI_COMM_WORLD, &st));
        CHECK(w == 6 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
              "Sendrecv PROC_NULL: w %d source %d tag %d", w, st.MPI_SOURCE, st.MPI_TAG);
    }
    free(out);
    free(in);
    return mt_finish();
}
