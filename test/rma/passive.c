/* np: 2 4
 *
 * passive.c — one-sided operations complete while the target computes
 * without calling MPI: rank 0 spins on its own memory (no MPI calls) until
 * every origin has bumped a done counter, or until a deadline. Origins put,
 * get, accumulate, fetch-and-op, compare-and-swap and take an exclusive
 * lock, on windows from Win_create (same node: single copy) and
 * Win_allocate (same node: shared memory). An origin on the target's node
 * must finish long before the deadline; other origins (active messages,
 * served once the target calls MPI again) only must be right, and run once
 * the target stopped computing.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096          /* longs in each rank's block of the window */
#define DEADLINE 6.0    /* seconds the target computes at most */

static int rank, size;
static long buf[N], got[N];
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL passive rank %d line %d: ", rank, \
    __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

/* Window layout (longs): [0] done counter, [1] fop counter, [2] acc
 * counter, [3] CAS word, [4] lock-guarded counter, then one block of N per
 * origin. */
enum { DONE, FOP, ACC, CASW, LCNT, HDR = 8 };

/* An origin's work on rank 0's window; returns the seconds since t0. */
static double origin(MPI_Win win, const char *fl, double t0)
{
    MPI_Aint bd = HDR + (MPI_Aint)N * rank;
    for (int i = 0; i < N; i++)
        buf[i] = rank * 100000L + i;
    MPI_Win_lock_all(0, win);
    MPI_Put(buf, N, MPI_LONG, 0, bd, N, MPI_LONG, win);
    MPI_Win_flush(0, win);
    MPI_Get(got, N, MPI_LONG, 0, bd, N, MPI_LONG, win);
    MPI_Win_flush(0, win);
    for (int i = 0; i < N; i++)
        CHECK(got[i] == buf[i], "%s: get[%d] = %ld, want %ld", fl, i, got[i], buf[i]);
    MPI_Accumulate(buf, N, MPI_LONG, 0, bd, N, MPI_LONG, MPI_SUM, win);
    long one = 1, old = -1, me = rank, zero = 0;
    for (int i = 0; i < 50; i++) {
        MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, FOP, MPI_SUM, win);
        MPI_Accumulate(&one, 1, MPI_LONG, 0, ACC, 1, MPI_LONG, MPI_SUM, win);
        MPI_Win_flush(0, win);
    }
    do {   /* CAS: each origin claims the word once, then frees it */
        MPI_Compare_and_swap(&me, &zero, &old, MPI_LONG, 0, CASW, win);
        MPI_Win_flush(0, win);
    } while (old != 0);
    MPI_Compare_and_swap(&zero, &me, &old, MPI_LONG, 0, CASW, win);
    MPI_Win_flush(0, win);
    CHECK(old == me, "%s: CAS word held by %ld, not %ld", fl, old, me);
    MPI_Win_unlock_all(win);
    for (int i = 0; i < 10; i++) {
        long x = -1;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&x, 1, MPI_LONG, 0, LCNT, 1, MPI_LONG, win);
        MPI_Win_flush(0, win);
        x++;
        MPI_Put(&x, 1, MPI_LONG, 0, LCNT, 1, MPI_LONG, win);
        MPI_Win_unlock(0, win);
    }
    double took = MPI_Wtime() - t0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Accumulate(&one, 1, MPI_LONG, 0, DONE, 1, MPI_LONG, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    return took;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nrank;
    MPI_Comm_rank(node, &nrank);
    /* the target's node: rank 0 is node rank 0 there */
    int with_target = 0, mine = rank == 0;
    MPI_Allreduce(&mine, &with_target, 1, MPI_INT, MPI_MAX, node);
    int strict = with_target;
    /* the target waits for the strict origins only: the others need it */
    int nstrict = 0, me_strict = rank != 0 && strict;
    MPI_Allreduce(&me_strict, &nstrict, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    long count = HDR + (long)N * size;
    for (int flavor = 0; flavor < 2; flavor++) {
        const char *fl = flavor ? "allocate" : "create";
        MPI_Win win;
        long *w, *mem = NULL;
        if (flavor == 0) {
            w = mem = calloc((size_t)count, sizeof(long));
            MPI_Win_create(w, rank == 0 ? count * (MPI_Aint)sizeof(long) : 0, sizeof(long),
                           MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        } else {
            MPI_Win_allocate(rank == 0 ? count * (MPI_Aint)sizeof(long) : 0, sizeof(long),
                             MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win);
            if (rank == 0)
                memset(w, 0, sizeof(long) * (size_t)count);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime(), took = 0;
        if (rank == 0) {
            volatile long *done = &w[DONE];
            while (*done < nstrict && MPI_Wtime() - t0 < DEADLINE)
                ;   /* computing: no MPI call serves anyone here */
            took = MPI_Wtime() - t0;
        } else if (strict) {
            took = origin(win, fl, t0);
            CHECK(took < DEADLINE / 2, "%s: the operations took %.2f s: they waited for the "
                  "computing target", fl, took);
        }
        /* The other origins only now: their shared lock, granted whenever
         * the target progresses, would hold the strict origins' exclusive
         * lock back until the target stopped computing. */
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank != 0 && !strict)
            origin(win, fl, MPI_Wtime());
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            long n = size - 1;
            CHECK(w[DONE] == n && w[FOP] == 50 * n && w[ACC] == 50 * n && w[LCNT] == 10 * n &&
                  w[CASW] == 0, "%s: counters done %ld fop %ld acc %ld lock %ld cas %ld", fl,
                  w[DONE], w[FOP], w[ACC], w[LCNT], w[CASW]);
            for (int r = 1; r < size; r++)
                for (int i = 0; i < N; i++)
                    CHECK(w[HDR + (long)N * r + i] == 2 * (r * 100000L + i),
                          "%s: origin %d element %d = %ld", fl, r, i, w[HDR + (long)N * r + i]);
            printf("%s: target computed %.3f s\n", fl, took);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_free(&win);
        free(mem);
    }
    MPI_Comm_free(&node);
    if (rank == 0)
        printf("passive: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
