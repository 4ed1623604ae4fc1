/* np: 1 2 3 4 5 8
 *
 * Collectives used as a program would: MPI_Barrier,
 * MPI_Bcast from every root at several sizes (and a derived type), and
 * MPI_Allgather, on COMM_WORLD and on a split communicator, interleaved with
 * point-to-point traffic on the same communicator (which must not match).
 */
#include "mtest.h"

static void run(MPI_Comm comm, const char *what)
{
    int r, n;
    MPI_OK(MPI_Comm_rank(comm, &r));
    MPI_OK(MPI_Comm_size(comm, &n));
    static const int sizes[] = {0, 1, 7, 1000, 70000, 1 << 20};
    unsigned char *b = mt_malloc(1 << 20);
    for (int k = 0; k < 6; k++) {
        for (int root = 0; root < n; root++) {
            int m = sizes[k];
            if (r == root)
                mt_fill(b, (size_t)m, (unsigned)(root * 10 + k));
            else
                memset(b, 0, (size_t)m);
            MPI_OK(MPI_Bcast(b, m, MPI_BYTE, root, comm));
            long bad = mt_verify(b, (size_t)m, (unsigned)(root * 10 + k));
            CHECK(bad < 0, "%s: bcast size %d root %d: byte %ld corrupt", what, m, root, bad);
        }
    }
    /* a pending point-to-point message must not disturb the collectives */
    int tok = 1000 + r, got = -1;
    MPI_Request rq;
    MPI_OK(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &rq));
    MPI_OK(MPI_Barrier(comm));
    int *all = mt_malloc(sizeof(int) * 3 * (size_t)n);
    int mine[3] = {r, r * r, -r};
    MPI_OK(MPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, comm));
    for (int i = 0; i < n; i++)
        CHECK(all[3 * i] == i && all[3 * i + 1] == i * i && all[3 * i + 2] == -i,
              "%s: allgather entry %d: %d %d %d", what, i, all[3 * i], all[3 * i + 1], all[3 * i + 2]);
    /* vector bcast: every other int of 2000 */
    MPI_Datatype v;
    MPI_OK(MPI_Type_vector(1000, 1, 2, MPI_INT, &v));
    MPI_OK(MPI_Type_commit(&v));
    int *vb = mt_malloc(sizeof(int) * 2000);
    for (int i = 0; i < 2000; i++)
        vb[i] = r == 0 ? i : -1;
    MPI_OK(MPI_Bcast(vb, 1, v, 0, comm));
    for (int i = 0; i < 2000; i++)
        CHECK(vb[i] == ((i % 2 == 0 || r == 0) ? i : -1), "%s: vector bcast element %d is %d", what,
              i, vb[i]);
    MPI_OK(MPI_Type_free(&v));
    free(vb);
    int flag;
    MPI_OK(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "%s: a collective message matched a point-to-point receive", what);
    MPI_OK(MPI_Barrier(comm)); /* everyone has tested before anyone sends */
    MPI_OK(MPI_Send(&tok, 1, MPI_INT, (r + 1) % n, 5, comm));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(got == 1000 + (r - 1 + n) % n, "%s: ring after collectives got %d", what, got);
    for (int i = 0; i < 20; i++)
        MPI_OK(MPI_Barrier(comm));
    free(all);
    free(b);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "coll");
    run(MPI_COMM_WORLD, "world");
    MPI_Comm s;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, mt_size - mt_rank, &s));
    run(s, "split");
    MPI_OK(MPI_Comm_free(&s));
    return mt_finish();
}
