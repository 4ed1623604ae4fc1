/*
 * launched.c — one MPI job as another launcher (srun, salloc + mpirun)
 * starts it, for test_slurm.sh (no "np" line: not run on its own).
 *
 * usage: launched [N]
 * Every rank checks that the world has N ranks (when N is given), then
 * an allreduce, an allgather and a broadcast against local references, and
 * RMA: each rank puts its rank into the next rank's window under a fence,
 * fetch-and-adds 1 on rank 0 under a passive lock, and reads it all back.
 * Each rank prints "launched R of N ok nodes=K" (K: the distinct host names)
 * and exits 0, or prints what went wrong and exits 1.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, bad;

static void expect(int ok, const char *what, long got, long want)
{
    if (!ok) {
        printf("launched %d of %d: %s: got %ld, want %ld\n", rank, size, what, got, want);
        bad = 1;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        expect(size == atoi(argv[1]), "world size", size, atoi(argv[1]));

    long sum = 0, want = (long)size * (size - 1) / 2;
    long me = rank;
    MPI_Allreduce(&me, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    expect(sum == want, "allreduce of the ranks", sum, want);
    int *all = malloc((size_t)size * sizeof *all);
    MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        expect(all[i] == i, "allgather entry", all[i], i);
    int root = size - 1, token = rank == root ? 4242 : -1;
    MPI_Bcast(&token, 1, MPI_INT, root, MPI_COMM_WORLD);
    expect(token == 4242, "bcast from the last rank", token, 4242);

    /* Host names: how many distinct ones (the allocation's nodes). */
    char host[MPI_MAX_PROCESSOR_NAME] = { 0 }, *hosts;
    int hl;
    MPI_Get_processor_name(host, &hl);
    hosts = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME,
                  MPI_CHAR, MPI_COMM_WORLD);
    int nodes = 0;
    for (int i = 0; i < size; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = !strcmp(hosts + (size_t)i * MPI_MAX_PROCESSOR_NAME,
                           hosts + (size_t)j * MPI_MAX_PROCESSOR_NAME);
        nodes += !seen;
    }

    int *buf;
    MPI_Win win;
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win);
    buf[0] = -1;
    buf[1] = 0;
    MPI_Win_fence(0, win);
    MPI_Put(&rank, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    expect(buf[0] == (rank + size - 1) % size, "put from the previous rank", buf[0],
           (rank + size - 1) % size);
    MPI_Win_fence(0, win);
    int one = 1, old;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 1, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    int total = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get(&total, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    expect(total == size, "fetch-and-adds on rank 0", total, size);
    expect(old >= 0 && old < size, "fetch-and-op's old value", old, 0);
    MPI_Win_free(&win);

    printf("launched %d of %d %s nodes=%d\n", rank, size, bad ? "FAILED" : "ok", nodes);
    free(all);
    free(hosts);
    MPI_Finalize();
    return bad;
}
