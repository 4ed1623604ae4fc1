/*
 * test_agent_lag.c — NI collectives (argv[1]: ni-binary or ni-binomial,
 * forced for MPI_Reduce, MPI_Allreduce, MPI_Barrier and MPI_Bcast) and
 * point-to-point traffic must never block each other, whatever the order
 * ranks enter them. The members (every third rank, a communicator of
 * their own) run 4 collectives of 80 KB (40 packets per member, beyond the
 * credit window) in a row; between two of them the root first sends 80 KB
 * (rendezvous) to a rank outside, so the others' packets of the next one
 * reach the root's agent before the root calls it. Then a member that
 * posted a receive before the reduction gets the root's send only after
 * it (the root sends first), and two reductions on two communicators that
 * share the root, entered by their other members at once, the root taking
 * them one after the other. Every result is checked against a reference.
 * Run by netmod/agent/test_agent.sh on 3 emulated nodes (7 ranks) and 2.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 20000   /* ints: 80 KB */
#define ROUNDS 4

static int rank, size;

#define CHECK(c, ...)                                                         \
    do {                                                                      \
        if (!(c)) {                                                           \
            fprintf(stderr, "FAIL test_agent_lag rank %d: ", rank);           \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
            MPI_Abort(MPI_COMM_WORLD, 1);                                     \
        }                                                                     \
    } while (0)

static int val(int r, int i, int k) { return (r * 13 + i * 7 + k) % 101; }

/* sum over the world ranks `members` of val(., i, k) */
static long long ref(const int *members, int n, int i, int k)
{
    long long s = 0;
    for (int j = 0; j < n; j++)
        s += val(members[j], i, k);
    return s;
}

/* One collective of kind `what` over comm (root 0, world rank members[0]). */
static void coll(const char *what, MPI_Comm comm, const int *members, int n, int k, int *a,
                 int *b)
{
    int cr;
    MPI_Comm_rank(comm, &cr);
    for (int i = 0; i < N; i++)
        a[i] = val(rank, i, k), b[i] = -1;
    if (!strcmp(what, "reduce") || !strcmp(what, "allreduce")) {
        int all = what[0] == 'a';
        CHECK((all ? MPI_Allreduce(a, b, N, MPI_INT, MPI_SUM, comm)
                   : MPI_Reduce(a, b, N, MPI_INT, MPI_SUM, 0, comm)) == MPI_SUCCESS,
              "%s failed", what);
        if (all || cr == 0)
            for (int i = 0; i < N; i++)
                CHECK(b[i] == ref(members, n, i, k), "%s %d: element %d is %d, not %lld", what,
                      k, i, b[i], ref(members, n, i, k));
    } else if (!strcmp(what, "bcast")) {
        int *p = cr == 0 ? a : b;
        CHECK(MPI_Bcast(p, N, MPI_INT, 0, comm) == MPI_SUCCESS, "bcast failed");
        for (int i = 0; i < N; i++)
            CHECK(p[i] == val(members[0], i, k), "bcast %d: element %d is %d, not %d", k, i, p[i],
                  val(members[0], i, k));
    } else {
        CHECK(MPI_Barrier(comm) == MPI_SUCCESS, "barrier failed");
    }
}

int main(int argc, char **argv)
{
    const char *algo = argc > 1 ? argv[1] : "ni-binomial";
    setenv("CLUMPI_COLL_REDUCE", algo, 1);
    setenv("CLUMPI_COLL_ALLREDUCE", algo, 1);
    setenv("CLUMPI_COLL_BARRIER", algo, 1);
    setenv("CLUMPI_COLL_BCAST", algo, 1);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *a = malloc(N * sizeof(int)), *b = malloc(N * sizeof(int)), *c = malloc(N * sizeof(int));
    int members[64], n = 0, outside = -1;
    for (int r = 0; r < size && n < 64; r++) {
        if (r % 3 == 0)
            members[n++] = r;
        else
            outside = r;   /* the last rank outside */
    }
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 3 == 0, rank, &sub);

    /* the root sends to a rank outside between the collectives */
    static const char *whats[] = { "reduce", "allreduce", "barrier", "bcast" };
    for (int w = 0; w < 4; w++) {
        for (int k = 0; k < ROUNDS; k++) {
            if (rank % 3 == 0)
                coll(whats[w], sub, members, n, k, a, b);
            if (rank == 0 && outside >= 0) {
                for (int i = 0; i < N; i++)
                    c[i] = val(rank, i, k + 1000);
                MPI_Send(c, N, MPI_INT, outside, k, MPI_COMM_WORLD);
            }
            if (rank == outside) {
                MPI_Recv(c, N, MPI_INT, 0, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int i = 0; i < N; i++)
                    CHECK(c[i] == val(0, i, k + 1000), "send %d after %s: element %d", k,
                          whats[w], i);
            }
        }
    }

    /* a receive posted before the reduction, the root's send before it */
    int last = members[n - 1];
    for (int k = 0; k < ROUNDS; k++) {
        MPI_Request rq = MPI_REQUEST_NULL;
        if (rank == last && last != 0)
            MPI_Irecv(c, N, MPI_INT, 0, 7, MPI_COMM_WORLD, &rq);
        if (rank == 0 && last != 0) {
            for (int i = 0; i < N; i++)
                c[i] = val(rank, i, k + 2000);
            MPI_Send(c, N, MPI_INT, last, 7, MPI_COMM_WORLD);
        }
        if (rank % 3 == 0)
            coll("reduce", sub, members, n, k, a, b);
        if (rq != MPI_REQUEST_NULL) {
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            for (int i = 0; i < N; i++)
                CHECK(c[i] == val(0, i, k + 2000), "send %d before reduce: element %d", k, i);
        }
    }

    /* two reductions sharing the root: ranks 3j+1 with 0 (x), 3j+2 with 0
     * (y); the others enter theirs at once, the root takes y, then x */
    int gx = rank == 0 || rank % 3 == 1, gy = rank == 0 || rank % 3 == 2;
    MPI_Comm x, y;
    MPI_Comm_split(MPI_COMM_WORLD, gx ? 1 : MPI_UNDEFINED, rank, &x);
    MPI_Comm_split(MPI_COMM_WORLD, gy ? 1 : MPI_UNDEFINED, rank, &y);
    int mx[64], nx = 0, my[64], ny = 0;
    for (int r = 0; r < size && nx < 64 && ny < 64; r++) {
        if (r == 0 || r % 3 == 1)
            mx[nx++] = r;
        if (r == 0 || r % 3 == 2)
            my[ny++] = r;
    }
    for (int k = 0; k < ROUNDS; k++) {
        if (gy)
            coll("reduce", y, my, ny, k, a, b);
        if (gx)
            coll("reduce", x, mx, nx, k, a, b);
    }
    MPI_Comm_free(&sub);
    if (gx)
        MPI_Comm_free(&x);
    if (gy)
        MPI_Comm_free(&y);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_agent_lag %s: %d ranks ok\n", algo, size);
    free(a);
    free(b);
    free(c);
    MPI_Finalize();
    return 0;
}
