/*
 * gather.c — MPI_Gather and MPI_Gatherv to every root: counts 0, 1, odd and
 * large, send and receive layouts that differ, MPI_IN_PLACE at the root,
 * Gatherv with per-rank counts (some zero) and shuffled displacements.
 */
#include "ctest.h"

static void gather(MPI_Comm comm, long n, int root, const ct_layout *sl, const ct_layout *rl,
                   int inplace, int seed)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *s = ct_alloc(n, sl), *r = NULL;
    for (long i = 0; i < n; i++)
        CT_AT(s, sl, i) = ct_val(me, root, i, seed);
    if (me == root) {
        r = ct_alloc(n * p, rl);
        if (inplace)
            for (long i = 0; i < n; i++)
                CT_AT(r, rl, me * n + i) = ct_val(me, root, i, seed);
    }
    CT_OK(MPI_Gather(me == root && inplace ? MPI_IN_PLACE : s, (int)n, sl->t, r, (int)n, rl->t,
                     root, comm));
    if (me == root)
        for (int q = 0; q < p; q++)
            for (long i = 0; i < n; i++)
                CT_EXPECT(r, rl, q * n + i, ct_val(q, root, i, seed),
                          "gather n=%ld root=%d from %d %s->%s inplace=%d", n, root, q, sl->name,
                          rl->name, inplace);
    free(s);
    free(r);
}

static void gatherv(MPI_Comm comm, long base, int root, const ct_layout *sl,
                    const ct_layout *rl, int inplace, int seed)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *cnt = malloc(sizeof(int) * (size_t)p), *dis = malloc(sizeof(int) * (size_t)p);
    long total = 0;
    for (int q = 0; q < p; q++) {   /* rank q sends (q % 3) * base + q ints */
        cnt[q] = (int)((q % 3) * base + (q & 1));
        total += cnt[q];
    }
    long off = 0;                    /* blocks stored in reverse rank order */
    for (int q = p - 1; q >= 0; q--) {
        dis[q] = (int)off;
        off += cnt[q];
    }
    int n = cnt[me];
    int *s = ct_alloc(n, sl), *r = NULL;
    for (long i = 0; i < n; i++)
        CT_AT(s, sl, i) = ct_val(me, root, i, seed);
    if (me == root) {
        r = ct_alloc(total, rl);
        if (inplace)
            for (long i = 0; i < n; i++)
                CT_AT(r, rl, dis[me] + i) = ct_val(me, root, i, seed);
    }
    CT_OK(MPI_Gatherv(me == root && inplace ? MPI_IN_PLACE : s, n, sl->t, r, cnt, dis, rl->t,
                      root, comm));
    if (me == root)
        for (int q = 0; q < p; q++)
            for (long i = 0; i < cnt[q]; i++)
                CT_EXPECT(r, rl, dis[q] + i, ct_val(q, root, i, seed),
                          "gatherv base=%ld root=%d from %d inplace=%d", base, root, q, inplace);
    free(s);
    free(r);
    free(cnt);
    free(dis);
}

static void run(MPI_Comm comm, int p, long n, int k)
{
    ct_rooted(comm, p, n, k, 1 % p, gather, gatherv);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv, "gather");
    ct_each_count(ct_long() ? 0 : 1L << 20, run);   /* at most 4 MiB at the root */
    return ct_finish();
}
