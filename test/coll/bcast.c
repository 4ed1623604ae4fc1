/*
 * bcast.c — MPI_Bcast from every root, counts 0, 1, odd, around a 1 KiB
 * segment (255..257 ints), past a 4 KiB slot, around shm's 256 KiB staging
 * buffer and 1 MiB, root and receivers in different
 * layouts, on MPI_COMM_WORLD and a reversed communicator. Also MPI_Barrier
 * (it must not return early: see barrier()); argument "barrier": only that.
 */
#include "ctest.h"

static void bcast(MPI_Comm comm, long n, int root, const ct_layout *rl, const ct_layout *ol,
                  int seed)
{
    int me;
    MPI_Comm_rank(comm, &me);
    const ct_layout *l = me == root ? rl : ol;
    int *b = ct_alloc(n, l);
    if (me == root)
        for (long i = 0; i < n; i++)
            CT_AT(b, l, i) = ct_val(root, 0, i, seed);
    CT_OK(MPI_Bcast(b, (int)n, l->t, root, comm));
    for (long i = 0; i < n; i++)
        CT_EXPECT(b, l, i, ct_val(root, 0, i, seed), "bcast n=%ld root=%d %s->%s", n, root,
                  rl->name, ol->name);
    free(b);
}

static void barrier(MPI_Comm comm)
{
    /* rank r may leave barrier k only after every rank entered it: each
     * rank sends its neighbour a message after the barrier, and before it
     * checks that nothing from round k arrived early */
    int me, p, flag;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    for (int k = 0; k < 5; k++) {
        CT_OK(MPI_Barrier(comm));
        MPI_Request r;
        int tok = k;
        CT_OK(MPI_Isend(&tok, 1, MPI_INT, (me + 1) % p, 77, comm, &r));
        CT_OK(MPI_Recv(&tok, 1, MPI_INT, (me - 1 + p) % p, 77, comm, MPI_STATUS_IGNORE));
        CT_CHECK(tok == k, "barrier round %d: token %d", k, tok);
        CT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CT_OK(MPI_Iprobe(MPI_ANY_SOURCE, 77, comm, &flag, MPI_STATUS_IGNORE));
        CT_CHECK(!flag, "barrier round %d: a message of the next round is already here", k);
    }
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv, "bcast");
    /* ints: around a 1 KiB segment, past a 4 KiB slot, the 256 KiB
     * staging buffer of shm and one above, 1 MiB */
    long counts[] = { 0, 1, 7, 255, 256, 257, 1000, 1025, 65536, 65537, 262144 };
    int nc = (int)(sizeof counts / sizeof counts[0]);
    for (int c = 0; c < CT_NCOMMS; c++) {
        MPI_Comm comm = ct_comm(c);
        int p;
        MPI_Comm_size(comm, &p);
        barrier(comm);
        if (argc > 1 && strcmp(argv[1], "barrier") == 0)
            continue;
        for (int k = 0; k < nc; k++) {
            long n = counts[k];
            for (int root = 0; root < p; root++) {
                if (n > 1000 && !ct_long_big(p) && root != p - 1)
                    continue;
                bcast(comm, n, root, &ct_dense, &ct_dense, k * 100 + root);
                if (n <= 1000 || ct_long_big(p)) {
                    bcast(comm, n, root, &ct_holes, &ct_dense, k * 100 + root + 1);
                    bcast(comm, n, root, &ct_dense, &ct_holes, k * 100 + root + 2);
                }
            }
        }
        barrier(comm);
    }
    return ct_finish();
}
