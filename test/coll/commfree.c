/*
 * commfree.c — communicators made and freed many times, each running
 * barrier, bcast and allreduce (commfree.sh forces the shared-memory and
 * hierarchical algorithms, which keep a node area per communicator): what
 * a communicator holds must go when it is freed. The process's mappings
 * (/proc/self/maps, where there is one) must not grow with the number of
 * communicators freed, and every result must still be right.
 */
#include "ctest.h"

/* Lines of /proc/self/maps (one per mapping), -1 without it. */
static int mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    int n = 0, c;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static void use(MPI_Comm comm, int round)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    CT_OK(MPI_Barrier(comm));
    int x = me + round, sum = -1;
    CT_OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, comm));
    CT_CHECK(sum == p * (p - 1) / 2 + p * round, "round %d: allreduce gave %d, want %d", round,
             sum, p * (p - 1) / 2 + p * round);
    int b = me == p - 1 ? round : -1;
    CT_OK(MPI_Bcast(&b, 1, MPI_INT, p - 1, comm));
    CT_CHECK(b == round, "round %d: bcast gave %d", round, b);
}

/* A duplicate of MPI_COMM_WORLD, a split of it into halves (one node each
 * when mpirun places ranks in blocks on two nodes), freed, then a split of
 * the same sizes across them (odd and even ranks, reversed), used and
 * freed: the second split may come back at the first one's address and
 * context, and what the selection remembers of the first (one node) must
 * not carry over. */
static void cycle(int round)
{
    MPI_Comm d, h, s;
    CT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    use(d, round);
    CT_OK(MPI_Comm_split(d, ct_wrank < (ct_wsize + 1) / 2, ct_wrank, &h));
    use(h, round);
    CT_OK(MPI_Comm_free(&h));
    CT_OK(MPI_Comm_split(d, ct_wrank % 2, -ct_wrank, &s));
    use(s, round);
    CT_OK(MPI_Comm_free(&s));
    CT_OK(MPI_Comm_free(&d));
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv, "commfree");
    enum { WARM = 10, ROUNDS = 200 };
    for (int i = 0; i < WARM; i++)   /* whatever is made once and kept */
        cycle(i);
    int before = mappings();
    for (int i = 0; i < ROUNDS; i++)
        cycle(i);
    int after = mappings();
    /* a few mappings may come and go (the allocator's); one per freed
     * communicator would be hundreds */
    CT_CHECK(before < 0 || after - before < 20,
             "%d communicators made and freed: %d mappings before, %d after", 2 * ROUNDS,
             before, after);
    use(MPI_COMM_WORLD, 1);
    return ct_finish();
}
