/*
 * scatter.c — MPI_Scatter and MPI_Scatterv from every root: counts 0, 1,
 * odd and large, layouts that differ between root and receivers,
 * MPI_IN_PLACE at the root (its own block must stay where it is), Scatterv
 * with per-rank counts (some zero) and shuffled displacements.
 */
#include "ctest.h"

static void scatter(MPI_Comm comm, long n, int root, const ct_layout *sl, const ct_layout *rl,
                    int inplace, int seed)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *s = NULL, *r = ct_alloc(n, rl);
    if (me == root) {
        s = ct_alloc(n * p, sl);
        for (int q = 0; q < p; q++)
            for (long i = 0; i < n; i++)
                CT_AT(s, sl, q * n + i) = ct_val(root, q, i, seed);
    }
    CT_OK(MPI_Scatter(s, (int)n, sl->t, me == root && inplace ? MPI_IN_PLACE : r, (int)n, rl->t,
                      root, comm));
    if (me == root && inplace) {
        for (int q = 0; q < p; q++)          /* the send buffer is unchanged */
            for (long i = 0; i < n; i++)
                CT_EXPECT(s, sl, q * n + i, ct_val(root, q, i, seed), "scatter in place n=%ld",
                          n);
    } else {
        for (long i = 0; i < n; i++)
            CT_EXPECT(r, rl, i, ct_val(root, me, i, seed), "scatter n=%ld root=%d %s->%s", n,
                      root, sl->name, rl->name);
    }
    free(s);
    free(r);
}

static void scatterv(MPI_Comm comm, long base, int root, const ct_layout *sl,
                     const ct_layout *rl, int inplace, int seed)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *cnt = malloc(sizeof(int) * (size_t)p), *dis = malloc(sizeof(int) * (size_t)p);
    long off = 0;
    for (int q = 0; q < p; q++)
        cnt[q] = (int)(((q + 1) % 3) * base + (q & 1));
    for (int q = p - 1; q >= 0; q--) {
        dis[q] = (int)off;
        off += cnt[q] + 1;                   /* a gap between blocks */
    }
    int *s = NULL, *r = ct_alloc(cnt[me], rl);
    if (me == root) {
        s = ct_alloc(off, sl);
        for (int q = 0; q < p; q++)
            for (long i = 0; i < cnt[q]; i++)
                CT_AT(s, sl, dis[q] + i) = ct_val(root, q, i, seed);
    }
    CT_OK(MPI_Scatterv(s, cnt, dis, sl->t, me == root && inplace ? MPI_IN_PLACE : r, cnt[me],
                       rl->t, root, comm));
    if (!(me == root && inplace))
        for (long i = 0; i < cnt[me]; i++)
            CT_EXPECT(r, rl, i, ct_val(root, me, i, seed), "scatterv base=%ld root=%d", base,
                      root);
    free(s);
    free(r);
    free(cnt);
    free(dis);
}

static void run(MPI_Comm comm, int p, long n, int k)
{
    ct_rooted(comm, p, n, k, p / 2, scatter, scatterv);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv, "scatter");
    ct_each_count(ct_long() ? 0 : 1L << 18, run);   /* at most 1 MiB at the root */
    return ct_finish();
}
