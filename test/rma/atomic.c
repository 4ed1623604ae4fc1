/* np: 2 4 8
 * env: CLUMPI_RMA_AM=1
 * env: CLUMPI_SHM_CMA=0
 *
 * atomic.c — concurrent origins on one target: every rank adds to counters
 * at rank 0 with Fetch_and_op and Accumulate (the totals must be exact and
 * the fetched values all distinct), read-modify-writes under exclusive
 * locks (no update lost), and a spin lock built from Compare_and_swap.
 * Windows from Win_create (same-node ranks reach them by single copy,
 * process_vm_readv/writev, or by active messages when CLUMPI_SHM_CMA=0
 * refuses it) and Win_allocate (shared memory on one node).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ITER 200
#define RMW 40

static int rank, size;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL atomic rank %d line %d: ", rank, \
    __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long *fetched = malloc(sizeof(long) * ITER), *all = malloc(sizeof(long) * ITER * size);
    for (int flavor = 0; flavor < 2; flavor++) {
        const char *fl = flavor ? "allocate" : "create";
        MPI_Win win;
        long *w, mem[8];
        if (flavor == 0) {
            w = mem;
            MPI_Win_create(w, sizeof mem, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        } else {
            MPI_Win_allocate(sizeof mem, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win);
        }
        for (int i = 0; i < 8; i++)
            w[i] = 0;
        MPI_Barrier(MPI_COMM_WORLD);

        /* 1: fetch-and-add and accumulate on counters w[0], w[1] of rank 0 */
        MPI_Win_lock_all(0, win);
        long one = 1;
        double t0 = MPI_Wtime();
        for (int i = 0; i < ITER; i++) {
            MPI_Fetch_and_op(&one, &fetched[i], MPI_LONG, 0, 0, MPI_SUM, win);
            MPI_Accumulate(&one, 1, MPI_LONG, 0, 1, 1, MPI_LONG, MPI_SUM, win);
            MPI_Win_flush(0, win);
        }
        MPI_Win_unlock_all(win);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Gather(fetched, ITER, MPI_LONG, all, ITER, MPI_LONG, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            CHECK(w[0] == (long)size * ITER && w[1] == (long)size * ITER,
                  "%s: counters %ld %ld, want %ld", fl, w[0], w[1], (long)size * ITER);
            qsort(all, (size_t)size * ITER, sizeof(long), cmp_long);
            for (long i = 0; i < (long)size * ITER; i++)
                CHECK(all[i] == i, "%s: fetch_and_op values not distinct (%ld at %ld)", fl,
                      all[i], i);
            printf("%s: %d fetch_and_op+accumulate per rank in %.1f us each\n", fl, ITER,
                   (MPI_Wtime() - t0) * 1e6 / ITER);
        }

        /* 2: read-modify-write of w[2] under an exclusive lock */
        for (int i = 0; i < RMW; i++) {
            long x = -1;
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
            MPI_Get(&x, 1, MPI_LONG, 0, 2, 1, MPI_LONG, win);
            MPI_Win_flush(0, win);
            x++;
            MPI_Put(&x, 1, MPI_LONG, 0, 2, 1, MPI_LONG, win);
            MPI_Win_unlock(0, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            CHECK(w[2] == (long)size * RMW, "%s: exclusive-lock counter %ld, want %ld", fl,
                  w[2], (long)size * RMW);

        /* 3: a spin lock at w[3] from compare-and-swap guards w[4] */
        MPI_Win_lock_all(0, win);
        for (int i = 0; i < RMW; i++) {
            long me = rank + 1, zero = 0, old = -1, x = -1;
            do {
                MPI_Compare_and_swap(&me, &zero, &old, MPI_LONG, 0, 3, win);
                MPI_Win_flush(0, win);
            } while (old != 0);
            MPI_Get(&x, 1, MPI_LONG, 0, 4, 1, MPI_LONG, win);
            MPI_Win_flush(0, win);
            x++;
            MPI_Put(&x, 1, MPI_LONG, 0, 4, 1, MPI_LONG, win);
            MPI_Win_flush(0, win);
            MPI_Fetch_and_op(&zero, &old, MPI_LONG, 0, 3, MPI_REPLACE, win);
            MPI_Win_flush(0, win);
            CHECK(old == me, "%s: spin lock held by %ld, not by me", fl, old);
        }
        MPI_Win_unlock_all(win);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            CHECK(w[4] == (long)size * RMW && w[3] == 0, "%s: CAS-lock counter %ld, want %ld",
                  fl, w[4], (long)size * RMW);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_free(&win);
    }
    free(fetched);
    free(all);
    if (rank == 0)
        printf("atomic: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
