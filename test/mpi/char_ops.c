/* np: 1 3 5
 * env: CLUMPI_RMA_AM=1
 *
 * char_ops.c — MPI_CHAR in reductions and accumulates with the integer ops,
 * as MPICH and Open MPI allow (MPI-3.1 leaves MPI_CHAR out of its integer
 * class; the OSU benchmarks reduce it by default): MPI_Allreduce, MPI_Reduce
 * and MPI_Reduce_local with SUM, MAX, MIN, BXOR and LOR on MPI_CHAR,
 * MPI_SIGNED_CHAR and MPI_UNSIGNED_CHAR, and MPI_Accumulate (SUM),
 * MPI_Fetch_and_op (SUM) and MPI_Compare_and_swap on MPI_CHAR under fence
 * (CLUMPI_RMA_AM=1: as active messages, the path between nodes). Each result
 * against a sum computed here; MPI_MINLOC on MPI_CHAR and MPI_SUM on
 * MPI_WCHAR still fail with MPI_ERR_OP.
 */
#include <wchar.h>
#include "mtest.h"

enum { N = 37 };

static char val(int r, int i) { return (char)((r * 7 + i) % 50 + 1); }

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "char_ops");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int r = mt_rank, p = mt_size;
    char in[N], out[N], want[N];
    const MPI_Datatype types[] = { MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR };
    const MPI_Op ops[] = { MPI_SUM, MPI_MAX, MPI_MIN, MPI_BXOR, MPI_LOR };
    for (int t = 0; t < 3; t++)
        for (int o = 0; o < 5; o++) {
            for (int i = 0; i < N; i++) {
                in[i] = val(r, i);
                int acc = val(0, i);
                for (int q = 1; q < p; q++) {
                    int v = val(q, i);
                    acc = o == 0 ? acc + v : o == 1 ? (v > acc ? v : acc)
                        : o == 2 ? (v < acc ? v : acc) : o == 3 ? acc ^ v : (acc || v);
                }
                want[i] = (char)acc;   /* values stay in 1..50: same in every char type */
            }
            memset(out, 0, sizeof out);
            MPI_OK(MPI_Allreduce(in, out, N, types[t], ops[o], MPI_COMM_WORLD));
            CHECK(memcmp(out, want, N) == 0, "Allreduce type %d op %d wrong", t, o);
            memset(out, 0, sizeof out);
            MPI_OK(MPI_Reduce(in, out, N, types[t], ops[o], p - 1, MPI_COMM_WORLD));
            CHECK(r != p - 1 || memcmp(out, want, N) == 0, "Reduce type %d op %d wrong", t, o);
        }
    /* Reduce_local: inout = in + inout */
    for (int i = 0; i < N; i++) {
        in[i] = (char)i;
        out[i] = (char)(2 * i);
    }
    MPI_OK(MPI_Reduce_local(in, out, N, MPI_CHAR, MPI_SUM));
    for (int i = 0; i < N; i++)
        CHECK(out[i] == (char)(3 * i), "Reduce_local element %d: %d", i, out[i]);

    /* one-sided: every rank adds into every other's window */
    char *base;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(N + 2, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    memset(base, 0, N + 2);
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++)
        in[i] = val(r, i);
    for (int q = 0; q < p; q++)
        MPI_OK(MPI_Accumulate(in, N, MPI_CHAR, q, 0, N, MPI_CHAR, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++) {
        int s = 0;
        for (int q = 0; q < p; q++)
            s += val(q, i);
        CHECK(base[i] == (char)s, "Accumulate element %d: %d, expected %d", i, base[i], (char)s);
    }
    /* Fetch_and_op at rank 0 byte N: fetched values are distinct partial sums */
    char one = 1, old = -1;
    MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_CHAR, 0, N, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    CHECK(old >= 0 && old < p, "Fetch_and_op fetched %d", old);
    if (r == 0)
        CHECK(base[N] == (char)p, "after %d Fetch_and_op: %d", p, base[N]);
    /* Compare_and_swap at rank 0 byte N+1: exactly one rank wins */
    char cmp = 0, mine = (char)(r + 1), got = -1;
    MPI_OK(MPI_Compare_and_swap(&mine, &cmp, &got, MPI_CHAR, 0, N + 1, win));
    MPI_OK(MPI_Win_fence(0, win));
    int won = got == 0, nwon = 0;
    MPI_OK(MPI_Allreduce(&won, &nwon, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(nwon == 1, "%d ranks won the Compare_and_swap", nwon);
    MPI_OK(MPI_Win_free(&win));

    /* still refused */
    MPI_FAILS(MPI_ERR_OP, MPI_Allreduce(in, out, 1, MPI_CHAR, MPI_MINLOC, MPI_COMM_WORLD));
    wchar_t wi[1] = { 1 }, wo[1];
    MPI_FAILS(MPI_ERR_OP, MPI_Allreduce(wi, wo, 1, MPI_WCHAR, MPI_SUM, MPI_COMM_WORLD));
    return mt_finish();
}
