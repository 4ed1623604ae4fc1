/*
 * test_agent_coll.c — NI-level collectives (coll/bcast_ni.c) against a
 * reference: MPI_Bcast with the algorithm named by argv[1] (set as
 * CLUMPI_COLL_BCAST before MPI_Init; default ni-binary), every root, sizes
 * around the packet payload (MTU 2 KiB) and the credit window, a derived
 * type, and two overlapping communicators in flight at once (ranks enter
 * them in opposite orders: NI forwarding must not need the receivers, and
 * the trees must not deadlock each other). Run by netmod/agent/test_agent.sh
 * on 1-4 emulated nodes with 1-3 ranks each.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, fails;

#define CHECK(c, ...)                                                         \
    do {                                                                      \
        if (!(c)) {                                                           \
            fprintf(stderr, "FAIL test_agent_coll rank %d: ", rank);          \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
            MPI_Abort(MPI_COMM_WORLD, 1);                                     \
        }                                                                     \
    } while (0)

static unsigned char pat(size_t i, int root, int iter)
{
    return (unsigned char)(i * 131 + (size_t)root * 17 + (size_t)iter * 7 + 1);
}

static void bcast_check(MPI_Comm comm, size_t n, int root, int iter)
{
    int r;
    MPI_Comm_rank(comm, &r);
    unsigned char *b = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++)
        b[i] = r == root ? pat(i, root, iter) : 0xee;
    CHECK(MPI_Bcast(b, (int)n, MPI_BYTE, root, comm) == MPI_SUCCESS, "bcast failed");
    for (size_t i = 0; i < n; i++)
        CHECK(b[i] == pat(i, root, iter), "%zu bytes from root %d: byte %zu is %d, not %d", n,
              root, i, b[i], pat(i, root, iter));
    free(b);
}

int main(int argc, char **argv)
{
    const char *algo = argc > 1 ? argv[1] : "ni-binary";
    setenv("CLUMPI_COLL_BCAST", algo, 1);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* payload 1984 = 2048 - 16 (wire) - 48 (header room); window 16 packets */
    const size_t sizes[] = { 0, 1, 1983, 1984, 1985, 3968, 3969, 16 * 1984 + 1, 200000 };
    int iter = 0;
    for (int root = 0; root < size; root++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            bcast_check(MPI_COMM_WORLD, sizes[s], root, iter++);

    /* a vector type: packed through the agent, unpacked at each rank */
    MPI_Datatype vec;
    MPI_Type_vector(1000, 3, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int *v = calloc(5000, sizeof(int));
    for (int i = 0; i < 5000; i++)
        v[i] = rank == size - 1 ? i : (i % 5 < 3 ? -1 : i);
    MPI_Bcast(v, 1, vec, size - 1, MPI_COMM_WORLD);
    for (int i = 0; i < 5000; i++)
        CHECK(v[i] == i, "vector element %d is %d", i, v[i]);
    free(v);
    MPI_Type_free(&vec);

    /* two overlapping communicators, reversed rank order, entered in
     * opposite orders by even and odd ranks: only valid where the agents
     * forward (the root never waits), i.e. offload mode on several nodes */
    MPI_Comm node;
    int nodes, lr;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &lr);
    lr = lr == 0;
    MPI_Allreduce(&lr, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    const char *net = getenv("CLUMPI_NET");
    if (strncmp(algo, "ni-", 3) == 0 && nodes > 1 && net && strcmp(net, "agent") == 0) {
        MPI_Comm a, b;
        MPI_Comm_dup(MPI_COMM_WORLD, &a);
        MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &b);
        for (int round = 0; round < 4; round++) {
            size_t n = round & 1 ? 100000 : 3000;
            if (rank % 2 == 0) {
                bcast_check(a, n, 0, iter);
                bcast_check(b, n, 0, iter + 1);
            } else {
                bcast_check(b, n, 0, iter + 1);
                bcast_check(a, n, 0, iter);
            }
            iter += 2;
        }
        MPI_Comm_free(&a);
        MPI_Comm_free(&b);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_agent_coll %s: %d ranks ok\n", algo, size);
    MPI_Finalize();
    return fails;
}
