/*
 * alltoall.c — MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw: counts 0, 1,
 * odd and large, send and receive layouts that differ, MPI_IN_PLACE,
 * per-pair counts (some zero) and shuffled displacements, and for
 * Alltoallw a different type for every peer.
 */
#include "ctest.h"

static void alltoall(MPI_Comm comm, long n, const ct_layout *sl, const ct_layout *rl,
                     int inplace, int seed)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *s = ct_alloc(n * p, sl), *r = ct_alloc(n * p, rl);
    for (int q = 0; q < p; q++)
        for (long i = 0; i < n; i++) {
            CT_AT(s, sl, q * n + i) = ct_val(me, q, i, seed);
            if (inplace)
                CT_AT(r, rl, q * n + i) = ct_val(me, q, i, seed);
        }
    CT_OK(MPI_Alltoall(inplace ? MPI_IN_PLACE : s, (int)n, sl->t, r, (int)n, rl->t, comm));
    for (int q = 0; q < p; q++)
        for (long i = 0; i < n; i++)
            CT_EXPECT(r, rl, q * n + i, ct_val(q, me, i, seed),
                      "alltoall n=%ld from %d %s->%s inplace=%d", n, q, sl->name, rl->name,
                      inplace);
    free(s);
    free(r);
}

/* ints rank a sends rank b (symmetric in a and b for MPI_IN_PLACE) */
static int pair_count(int a, int b, long base, int sym)
{
    return (int)(((sym ? a + b : a + 2 * b) % 3) * base + ((a + b) & 1));
}

static void alltoallv(MPI_Comm comm, long base, const ct_layout *sl, const ct_layout *rl,
                      int inplace, int wform, int seed)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *sc = malloc(sizeof(int) * 4 * (size_t)p), *sd = sc + p, *rc = sd + p, *rd = rc + p;
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * 2 * (size_t)p), *rt = st + p;
    /* alltoallw: odd peers get the other layout */
    const ct_layout *sls = sl, *rls = rl;
    long soff = 0, roff = 0;
    for (int q = p - 1; q >= 0; q--) {
        sc[q] = pair_count(me, q, base, inplace);
        rc[q] = pair_count(q, me, base, inplace);
        sd[q] = (int)soff;
        rd[q] = (int)roff;
        soff += sc[q] + 1;
        roff += rc[q] + 1;
    }
    if (inplace)    /* the send side is the receive side */
        sls = rl;
    int *s = ct_alloc(soff, sls), *r = ct_alloc(roff, rl);
    for (int q = 0; q < p; q++) {
        for (long i = 0; i < sc[q]; i++)
            CT_AT(s, sls, sd[q] + i) = ct_val(me, q, i, seed);
        if (inplace)
            for (long i = 0; i < rc[q]; i++)
                CT_AT(r, rls, rd[q] + i) = ct_val(me, q, i, seed);
    }
    if (!wform) {
        CT_OK(MPI_Alltoallv(inplace ? MPI_IN_PLACE : s, sc, sd, sls->t, r, rc, rd, rl->t, comm));
    } else {
        /* byte displacements, a type per peer (same layout per buffer) */
        for (int q = 0; q < p; q++) {
            sd[q] *= (int)sizeof(int) * sls->stride;
            rd[q] *= (int)sizeof(int) * rl->stride;
            st[q] = sls->t;
            rt[q] = rl->t;
        }
        CT_OK(MPI_Alltoallw(inplace ? MPI_IN_PLACE : s, sc, sd, st, r, rc, rd, rt, comm));
        for (int q = 0; q < p; q++)
            rd[q] /= (int)sizeof(int) * rl->stride;
    }
    for (int q = 0; q < p; q++) {
        for (long i = 0; i < rc[q]; i++)
            CT_EXPECT(r, rl, rd[q] + i, ct_val(q, me, i, seed), "alltoall%s base=%ld from %d %s",
                      wform ? "w" : "v", base, q, inplace ? "in place" : "");
        CT_EXPECT(r, rl, rd[q] + rc[q], CT_HOLE, "alltoall%s gap after %d", wform ? "w" : "v", q);
    }
    free(s);
    free(r);
    free(sc);
    free(st);
}

/* Alltoallw with different types per peer: peer q's block is q+1 ints sent
 * as MPI_INT and received as one contiguous type of q+1... of my size */
static void alltoallw_types(MPI_Comm comm, int seed)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *sc = malloc(sizeof(int) * 4 * (size_t)p), *sd = sc + p, *rc = sd + p, *rd = rc + p;
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * 2 * (size_t)p), *rt = st + p;
    int n = me + 1;                      /* I receive n ints from everyone */
    MPI_Datatype blockt;
    CT_OK(MPI_Type_contiguous(n, MPI_INT, &blockt));
    CT_OK(MPI_Type_commit(&blockt));
    long soff = 0;
    for (int q = 0; q < p; q++) {
        sc[q] = q + 1;                   /* peer q receives q+1 ints */
        sd[q] = (int)(soff * sizeof(int));
        st[q] = MPI_INT;
        soff += q + 1;
        rc[q] = 1;                       /* one block of n ints */
        rd[q] = (int)((long)q * n * (long)sizeof(int));
        rt[q] = (q & 1) ? blockt : MPI_INT;
        if (!(q & 1))
            rc[q] = n;
    }
    int *s = malloc(sizeof(int) * (size_t)(soff + 1)), *r = malloc(sizeof(int) * (size_t)(p * n + 1));
    for (int q = 0; q < p; q++)
        for (int i = 0; i < q + 1; i++)
            s[sd[q] / (int)sizeof(int) + i] = ct_val(me, q, i, seed);
    CT_OK(MPI_Alltoallw(s, sc, sd, st, r, rc, rd, rt, comm));
    for (int q = 0; q < p; q++)
        for (int i = 0; i < n; i++)
            CT_CHECK(r[q * n + i] == ct_val(q, me, i, seed), "alltoallw types from %d elem %d",
                     q, i);
    MPI_Type_free(&blockt);
    free(s);
    free(r);
    free(sc);
    free(st);
}

static void run(MPI_Comm comm, int p, long n, int k)
{
    int seed = k * 10;
    alltoall(comm, n, &ct_dense, &ct_dense, 0, seed);
    alltoall(comm, n, &ct_dense, &ct_dense, 1, seed + 3);
    /* large strided messages are slow in the device for now (see README):
     * every layout pair at large counts only in check-long */
    if (n > 1000 && !ct_long())
        return;
    alltoall(comm, n, &ct_holes, &ct_dense, 0, seed + 1);
    alltoall(comm, n, &ct_dense, &ct_holes, 1, seed + 2);
    if (n <= 1000) {
        alltoallv(comm, n, &ct_dense, &ct_dense, 0, 0, seed + 3);
        alltoallv(comm, n, &ct_holes, &ct_dense, 0, 0, seed + 4);
        alltoallv(comm, n, &ct_dense, &ct_holes, 0, 1, seed + 5);
        alltoallv(comm, n, &ct_holes, &ct_holes, 0, 1, seed + 6);
    }
    if (k == CT_NCOUNTS - 1) {   /* once per communicator: in place (symmetric counts) */
        alltoallv(comm, 7, &ct_dense, &ct_dense, 1, 0, 90);
        alltoallv(comm, 1000, &ct_holes, &ct_holes, 1, 0, 92);
        alltoallv(comm, 7, &ct_holes, &ct_holes, 1, 1, 93);
        alltoallw_types(comm, 91);
    }
    (void)p;
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv, "alltoall");
    ct_each_count(1L << 18, run);   /* at most 1 MiB per rank */
    return ct_finish();
}
