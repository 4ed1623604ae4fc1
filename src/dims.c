/*
 * dims.c — MPI_Dims_create. Kept apart from topo.c because it needs no
 * communicator (the unit tests link it alone).
 *
 * "As close to each other as possible" is taken literally: among all
 * non-increasing factorizations of the free part into the free dimensions,
 * pick the one with the smallest spread (largest minus smallest), then the
 * lexicographically smallest (largest dimensions first as small as can be). An exhaustive search over divisors is cheap
 * for any process count MPI sees, and unlike greedy prime assignment it is
 * always optimal.
 */
#include <stdlib.h>
#include "src/core.h"

struct search {
    int  k;          /* free dimensions */
    int *div;        /* divisors of the free part, ascending */
    int  ndiv;
    int *cur, *best;
    long best_spread, best_max;
};

static int pow_at_least(long d, int e, long n)
{
    long p = 1;
    for (int i = 0; i < e; i++) {
        p *= d;
        if (p >= n)
            return 1;
    }
    return p >= n;
}

/* floor(x^(1/e)) for e >= 1. */
static long iroot(long x, int e)
{
    if (e == 1 || x <= 1)
        return x;
    long r = 1;
    while (pow_at_least(r + 1, e, x + 1) == 0)   /* (r+1)^e <= x */
        r++;
    return r;
}

/* Divisors are tried in ascending order. The smallest final dimension is
 * at most the geometric mean of what is left, so choosing d here means a
 * spread of at least cur[0] - iroot(rem/d, m-1); that bound only grows
 * with d, so the loop stops as soon as it cannot beat the best found. */
static void dfs(struct search *s, int idx, long rem, long maxd)
{
    int m = s->k - idx;
    if (m == 1) {
        if (rem > maxd)
            return;
        s->cur[idx] = (int)rem;
        long spread = s->cur[0] - rem, mx = s->cur[0];
        int better = spread < s->best_spread;
        if (spread == s->best_spread) {
            /* Ties: the lexicographically smallest (non-increasing) vector,
             * i.e. the largest dimensions as small as they can be. */
            int i = 0;
            while (i < s->k && s->cur[i] == s->best[i])
                i++;
            better = i < s->k && s->cur[i] < s->best[i];
        }
        if (better) {
            s->best_spread = spread;
            s->best_max = mx;
            for (int i = 0; i < s->k; i++)
                s->best[i] = s->cur[i];
        }
        return;
    }
    for (int i = 0; i < s->ndiv; i++) {
        long d = s->div[i];
        if (d > maxd)
            break;
        if (rem % d || !pow_at_least(d, m, rem))
            continue;   /* d must be at least the geometric mean */
        long top = idx == 0 ? d : s->cur[0];
        long lb = top - iroot(rem / d, m - 1);
        if (lb > s->best_spread || (lb == s->best_spread && top > s->best_max))
            break;
        s->cur[idx] = (int)d;
        dfs(s, idx + 1, rem / d, d);
    }
}

static int cmp_asc(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Balanced factorization of n into k >= 1 factors, non-increasing. */
static int factor_balanced(int n, int k, int *out)
{
    int cap = 64, nd = 0;
    int *div = malloc((size_t)cap * sizeof(int));
    if (!div)
        return -1;
    for (long d = 1; d * d <= n; d++) {
        if (n % d)
            continue;
        long pair[2] = { d, n / d };
        for (int j = 0; j < (pair[0] == pair[1] ? 1 : 2); j++) {
            if (nd == cap) {
                int *nd2 = realloc(div, (size_t)(cap *= 2) * sizeof(int));
                if (!nd2) {
                    free(div);
                    return -1;
                }
                div = nd2;
            }
            div[nd++] = (int)pair[j];
        }
    }
    qsort(div, (size_t)nd, sizeof(int), cmp_asc);
    int *cur = malloc((size_t)k * sizeof(int));
    if (!cur) {
        free(div);
        return -1;
    }
    struct search s = { k, div, nd, cur, out, (long)n + 1, (long)n + 1 };
    dfs(&s, 0, n, n);
    free(cur);
    free(div);
    return 0;
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    static const char fn[] = "MPI_Dims_create";
    MPIR_ENTER(fn);
    if (ndims < 0)
        return mpir_err_world(mpir_err(MPI_ERR_DIMS, fn, "ndims is negative (%d)", ndims));
    if (nnodes <= 0)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "nnodes must be positive (is %d)", nnodes));
    if (ndims == 0) {
        if (nnodes != 1)
            return mpir_err_world(mpir_err(MPI_ERR_DIMS, fn,
                                           "%d nodes cannot fill 0 dimensions", nnodes));
        return MPI_SUCCESS;
    }
    if (!dims)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "dims is NULL"));
    long fixed = 1;
    int nfree = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return mpir_err_world(mpir_err(MPI_ERR_DIMS, fn, "dims[%d] is negative (%d)", i, dims[i]));
        if (dims[i] == 0)
            nfree++;
        else if ((fixed *= dims[i]) > nnodes)
            break;
    }
    if (fixed > nnodes || nnodes % fixed)
        return mpir_err_world(mpir_err(MPI_ERR_DIMS, fn,
                                       "the fixed entries of dims do not divide nnodes = %d",
                                       nnodes));
    int rem = (int)(nnodes / fixed);
    if (nfree == 0) {
        if (rem != 1)
            return mpir_err_world(mpir_err(MPI_ERR_DIMS, fn,
                                           "product of dims is %ld, not nnodes = %d", fixed, nnodes));
        return MPI_SUCCESS;
    }
    int *f = malloc((size_t)nfree * sizeof(int));
    if (!f || factor_balanced(rem, nfree, f) != 0) {
        free(f);
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    }
    for (int i = 0, j = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = f[j++];
    free(f);
    return MPI_SUCCESS;
}
MPIR_WEAK(Dims_create)
