/* np: 2
 * env: CLUMPI_EAGER_LIMIT=0
 * env: CLUMPI_NO_RMA=1
 *
 * Fine-grained derived types through the rendezvous (clumpi only: reads the
 * device's counters). Contiguous, vector and resized types on either side,
 * at eager and rendezvous sizes: the data must arrive intact, and the
 * receiver must not hand the kernel one segment per element. A per-element
 * single-copy read (the old pathology: an 8-rank allgather into a resized
 * int type took 1.4 s instead of 4 ms) made ~bytes/4 segments and
 * ~bytes/256 read calls; the bounds below allow ~bytes/1024 and
 * ~bytes/16384. Counting, not timing.
 */
#include "mtest.h"
#include "mpid/mpidi.h"

static const int sizes[] = {1000, 4096, 32768, 262144};   /* ints */
#define NS ((int)(sizeof sizes / sizeof sizes[0]))

enum { T_CONTIG, T_VEC, T_RESIZED, T_DENSE, NT };
static const char *tname[NT] = {"contig", "vector", "resized", "dense-vector"};

/* (count, type) describing n ints laid out as kind, and the span in ints. */
static void layout(int kind, int n, int *count, MPI_Datatype *dt, size_t *span)
{
    switch (kind) {
    case T_CONTIG:
        *count = n;
        *dt = MPI_INT;
        *span = (size_t)n;
        return;
    case T_VEC:   /* every other int */
        MPI_OK(MPI_Type_vector(n, 1, 2, MPI_INT, dt));
        *count = 1;
        *span = 2 * (size_t)n;
        break;
    case T_RESIZED:   /* int with extent 8: strided by count */
        MPI_OK(MPI_Type_create_resized(MPI_INT, 0, 8, dt));
        *count = n;
        *span = 2 * (size_t)n;
        break;
    default:   /* blocks of 1000 ints with gaps: must stay single-copy friendly */
        MPI_OK(MPI_Type_vector(n / 1000, 1000, 1500, MPI_INT, dt));
        *count = 1;
        *span = (size_t)(n / 1000) * 1500;
        break;
    }
    MPI_OK(MPI_Type_commit(dt));
}

/* Index in memory of the i-th int of the stream. */
static size_t pos(int kind, size_t i)
{
    switch (kind) {
    case T_CONTIG:
        return i;
    case T_VEC:
    case T_RESIZED:
        return 2 * i;
    default:
        return i / 1000 * 1500 + i % 1000;
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "rndv_dtype");
    if (mt_rank > 1)
        return mt_finish();
    int *buf = mt_malloc((size_t)sizes[NS - 1] * 2 * sizeof(int));
    for (int k = 0; k < NS; k++) {
        for (int sk = 0; sk < NT; sk++) {
            for (int rk = 0; rk < NT; rk++) {
                int n = sizes[k];
                if ((sk == T_DENSE || rk == T_DENSE) && n % 1000)
                    continue;
                int cnt;
                MPI_Datatype dt;
                size_t span;
                int kind = mt_rank == 0 ? sk : rk;
                layout(kind, n, &cnt, &dt, &span);
                for (size_t i = 0; i < span; i++)
                    buf[i] = -1;
                mt_barrier();
                if (mt_rank == 0) {
                    for (size_t i = 0; i < (size_t)n; i++)
                        buf[pos(kind, i)] = (int)i * 7 + k;
                    MPI_OK(MPI_Send(buf, cnt, dt, 1, sk * NT + rk, MPI_COMM_WORLD));
                } else {
                    mpid_rndv_stats_t s0 = mpid_rndv_stats;
                    MPI_OK(MPI_Recv(buf, cnt, dt, 0, sk * NT + rk, MPI_COMM_WORLD,
                                    MPI_STATUS_IGNORE));
                    mpid_rndv_stats_t s1 = mpid_rndv_stats;
                    size_t bytes = (size_t)n * sizeof(int);
                    for (size_t i = 0; i < (size_t)n; i++)
                        CHECK(buf[pos(kind, i)] == (int)i * 7 + k,
                              "%s -> %s, %d ints: int %zu is %d", tname[sk], tname[rk], n, i,
                              buf[pos(kind, i)]);
                    unsigned long reads = s1.reads - s0.reads, rsegs = s1.rsegs - s0.rsegs,
                                  lsegs = s1.lsegs - s0.lsegs;
                    CHECK(reads <= 2 + bytes / 16384,
                          "%s -> %s, %d ints: %lu single-copy reads", tname[sk], tname[rk], n,
                          reads);
                    CHECK(rsegs <= 2 + bytes / 1024,
                          "%s -> %s, %d ints: %lu remote segments read", tname[sk], tname[rk],
                          n, rsegs);
                    CHECK(lsegs <= 2 + bytes / 1024,
                          "%s -> %s, %d ints: %lu local segments read", tname[sk], tname[rk],
                          n, lsegs);
                }
                if (dt != MPI_INT)
                    MPI_OK(MPI_Type_free(&dt));
            }
        }
    }
    free(buf);
    return mt_finish();
}
