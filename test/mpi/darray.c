/* np: 1 2 3 4 5 6 7 8
 *
 * MPI_Type_create_darray: block, block(k), cyclic, cyclic(k) and none
 * distributions in 1 to 3 dimensions, C and Fortran order, over MPI_INT and
 * over an int with a hole. Each type is compared with a reference built
 * here from ownership alone (global index g of a dimension belongs to grid
 * coordinate (g / darg) % psize), composed per dimension as MPI-3.1 4.1.4
 * does: same size, lb 0, the global array's extent, same packed bytes.
 * Rank 0 then scatters a global array with the darray of every rank and
 * gathers it back: each rank's piece is its owned elements in memory
 * order, and the pieces tile the array. Envelope, contents, error classes.
 */
#include "mtest.h"

#define MAXD 3

typedef struct cfg {
    int ndims, gsizes[MAXD], distribs[MAXD], dargs[MAXD], psizes[MAXD], order;
} cfg;

/* The block size a dimension's distribution means. */
static int eff_darg(const cfg *c, int d)
{
    if (c->distribs[d] == MPI_DISTRIBUTE_NONE)
        return c->gsizes[d];
    if (c->dargs[d] != MPI_DISTRIBUTE_DFLT_DARG)
        return c->dargs[d];
    if (c->distribs[d] == MPI_DISTRIBUTE_CYCLIC)
        return 1;
    return (c->gsizes[d] + c->psizes[d] - 1) / c->psizes[d];
}

static void coords_of(const cfg *c, int rank, int *coords)
{
    for (int d = c->ndims - 1; d >= 0; d--) {
        coords[d] = rank % c->psizes[d];
        rank /= c->psizes[d];
    }
}

static int owns(const cfg *c, int d, int coord, int g)
{
    return (g / eff_darg(c, d)) % c->psizes[d] == coord;
}

/* Reference type of one dimension: the owned indices as blocks of old,
 * lb 0, extent gsize * extent(old). Consumes old unless it is predefined. */
static MPI_Datatype ref_dim(const cfg *c, int d, int coord, MPI_Datatype old)
{
    MPI_Aint lb, ex;
    MPI_OK(MPI_Type_get_extent(old, &lb, &ex));
    int n = 0, *bl = mt_malloc(sizeof(int) * (size_t)c->gsizes[d]);
    MPI_Aint *disp = mt_malloc(sizeof(MPI_Aint) * (size_t)c->gsizes[d]);
    for (int g = 0; g < c->gsizes[d]; g++) {
        if (!owns(c, d, coord, g))
            continue;
        if (n && disp[n - 1] + bl[n - 1] * ex == g * ex) {
            bl[n - 1]++;
        } else {
            disp[n] = g * ex;
            bl[n++] = 1;
        }
    }
    MPI_Datatype blocks, t;
    MPI_OK(MPI_Type_create_hindexed(n, bl, disp, old, &blocks));
    MPI_OK(MPI_Type_create_resized(blocks, 0, c->gsizes[d] * ex, &t));
    MPI_OK(MPI_Type_free(&blocks));
    if (old != MPI_INT)
        MPI_OK(MPI_Type_free(&old));
    free(bl);
    free(disp);
    return t;
}

static MPI_Datatype ref_type(const cfg *c, int rank, MPI_Datatype old)
{
    int coords[MAXD];
    coords_of(c, rank, coords);
    MPI_Datatype t = old;
    if (old != MPI_INT)
        MPI_OK(MPI_Type_dup(old, &t));
    for (int i = 0; i < c->ndims; i++) {
        int d = c->order == MPI_ORDER_C ? c->ndims - 1 - i : i;
        t = ref_dim(c, d, coords[d], t);
    }
    MPI_OK(MPI_Type_commit(&t));
    return t;
}

static MPI_Datatype darray(const cfg *c, int rank, MPI_Datatype old)
{
    MPI_Datatype t;
    MPI_OK(MPI_Type_create_darray(mt_size, rank, c->ndims, c->gsizes, c->distribs, c->dargs,
                                  c->psizes, c->order, old, &t));
    MPI_OK(MPI_Type_commit(&t));
    return t;
}

static int total(const cfg *c)
{
    int n = 1;
    for (int d = 0; d < c->ndims; d++)
        n *= c->gsizes[d];
    return n;
}

/* Element offsets (in elements of the global array, memory order) owned
 * by rank, ascending; returns how many. */
static int owned(const cfg *c, int rank, int *out)
{
    int coords[MAXD], n = 0, tot = total(c);
    coords_of(c, rank, coords);
    for (int off = 0; off < tot; off++) {
        int rest = off, mine = 1;
        for (int i = 0; i < c->ndims; i++) {
            int d = c->order == MPI_ORDER_C ? c->ndims - 1 - i : i;
            mine &= owns(c, d, coords[d], rest % c->gsizes[d]);
            rest /= c->gsizes[d];
        }
        if (mine)
            out[n++] = off;
    }
    return n;
}

static void compare_with_reference(const cfg *c, int k, MPI_Datatype old, int rank)
{
    MPI_Datatype t = darray(c, rank, old), r = ref_type(c, rank, old);
    MPI_Aint lb, ex, rlb, rex, tlb, tex, rtlb, rtex, oex;
    int sz, rsz;
    MPI_OK(MPI_Type_get_extent(old, &rlb, &oex));
    MPI_OK(MPI_Type_get_extent(t, &lb, &ex));
    MPI_OK(MPI_Type_get_extent(r, &rlb, &rex));
    MPI_OK(MPI_Type_size(t, &sz));
    MPI_OK(MPI_Type_size(r, &rsz));
    CHECK(lb == 0 && ex == (MPI_Aint)total(c) * oex, "config %d rank %d: lb %ld extent %ld, "
          "want 0 and %ld", k, rank, (long)lb, (long)ex, (long)(total(c) * oex));
    CHECK(rlb == lb && rex == ex && rsz == sz, "config %d rank %d: size %d vs reference %d", k,
          rank, sz, rsz);
    if (sz) {
        MPI_OK(MPI_Type_get_true_extent(t, &tlb, &tex));
        MPI_OK(MPI_Type_get_true_extent(r, &rtlb, &rtex));
        CHECK(tlb == rtlb && tex == rtex, "config %d rank %d: true extent %ld+%ld vs %ld+%ld",
              k, rank, (long)tlb, (long)tex, (long)rtlb, (long)rtex);
    }
    size_t bytes = (size_t)ex;
    int *global = mt_malloc(bytes);
    for (size_t i = 0; i < bytes / sizeof(int); i++)
        global[i] = (int)(i * 7 + 1);
    char *p1 = mt_malloc((size_t)sz), *p2 = mt_malloc((size_t)sz);
    int pos1 = 0, pos2 = 0;
    MPI_OK(MPI_Pack(global, 1, t, p1, sz, &pos1, MPI_COMM_SELF));
    MPI_OK(MPI_Pack(global, 1, r, p2, sz, &pos2, MPI_COMM_SELF));
    CHECK(pos1 == sz && pos2 == sz && memcmp(p1, p2, (size_t)sz) == 0,
          "config %d rank %d: packed bytes differ from the reference", k, rank);
    free(global);
    free(p1);
    free(p2);
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_free(&r));
}

/* Rank 0 scatters the global array by darray types and gathers it back. */
static void scatter_gather(const cfg *c, int k)
{
    int tot = total(c), *mine = mt_malloc(sizeof(int) * (size_t)tot);
    int n = owned(c, mt_rank, mine);
    int *local = mt_malloc(sizeof(int) * (size_t)(n ? n : 1));
    int *global = NULL, *back = NULL;
    if (mt_rank == 0) {
        global = mt_malloc(sizeof(int) * (size_t)tot);
        back = mt_malloc(sizeof(int) * (size_t)tot);
        for (int i = 0; i < tot; i++) {
            global[i] = i * 3 + 1000 * k;
            back[i] = -1;
        }
        MPI_Request *rq = mt_malloc(sizeof(MPI_Request) * (size_t)mt_size);
        MPI_Datatype *ts = mt_malloc(sizeof(MPI_Datatype) * (size_t)mt_size);
        for (int q = 0; q < mt_size; q++) {
            ts[q] = darray(c, q, MPI_INT);
            MPI_OK(MPI_Isend(global, 1, ts[q], q, k, MPI_COMM_WORLD, &rq[q]));
        }
        MPI_OK(MPI_Recv(local, n, MPI_INT, 0, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Waitall(mt_size, rq, MPI_STATUSES_IGNORE));
        for (int q = 0; q < mt_size; q++)
            MPI_OK(MPI_Irecv(back, 1, ts[q], q, 100 + k, MPI_COMM_WORLD, &rq[q]));
        MPI_OK(MPI_Send(local, n, MPI_INT, 0, 100 + k, MPI_COMM_WORLD));
        MPI_OK(MPI_Waitall(mt_size, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < tot; i++)
            CHECK(back[i] == global[i], "config %d: gathered element %d is %d, want %d", k, i,
                  back[i], global[i]);
        for (int q = 0; q < mt_size; q++)
            MPI_OK(MPI_Type_free(&ts[q]));
        free(rq);
        free(ts);
    } else {
        MPI_Status st;
        MPI_OK(MPI_Recv(local, n, MPI_INT, 0, k, MPI_COMM_WORLD, &st));
        int got;
        MPI_OK(MPI_Get_count(&st, MPI_INT, &got));
        CHECK(got == n, "config %d: received %d elements, own %d", k, got, n);
        MPI_OK(MPI_Send(local, n, MPI_INT, 0, 100 + k, MPI_COMM_WORLD));
    }
    for (int i = 0; i < n; i++)
        CHECK(local[i] == mine[i] * 3 + 1000 * k, "config %d: local element %d is %d, want "
              "global element %d", k, i, local[i], mine[i]);
    /* the pieces tile the array */
    int sum = 0;
    for (int q = 0; q < mt_size; q++) {
        int *tmp = mt_malloc(sizeof(int) * (size_t)tot);
        sum += owned(c, q, tmp);
        free(tmp);
    }
    CHECK(sum == tot, "config %d: pieces hold %d of %d elements", k, sum, tot);
    free(mine);
    free(local);
    free(global);
    free(back);
}

static void two_factors(int p, int *a, int *b)
{
    *a = 1;
    for (int i = 1; i * i <= p; i++)
        if (p % i == 0)
            *a = i;
    *b = p / *a;
}

static void envelope(void)
{
    int g[2] = { 9, 4 }, dist[2] = { MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE };
    int darg[2] = { 2, MPI_DISTRIBUTE_DFLT_DARG }, ps[2] = { mt_size, 1 };
    MPI_Datatype t, back;
    MPI_OK(MPI_Type_create_darray(mt_size, mt_rank, 2, g, dist, darg, ps, MPI_ORDER_FORTRAN,
                                  MPI_DOUBLE, &t));
    int ni, na, nd, comb;
    MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_DARRAY && ni == 12 && na == 0 && nd == 1,
          "darray envelope: combiner %d, %d %d %d", comb, ni, na, nd);
    int ints[12];
    MPI_OK(MPI_Type_get_contents(t, 12, 0, 1, ints, NULL, &back));
    int want[12] = { mt_size, mt_rank, 2, 9, 4, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE, 2,
                     MPI_DISTRIBUTE_DFLT_DARG, mt_size, 1, MPI_ORDER_FORTRAN };
    for (int i = 0; i < 12; i++)
        CHECK(ints[i] == want[i], "darray contents[%d] = %d, want %d", i, ints[i], want[i]);
    CHECK(back == MPI_DOUBLE, "darray contents: oldtype 0x%x", (unsigned)back);
    MPI_OK(MPI_Type_free(&t));
}

static void errors(void)
{
    int g[2] = { 8, 8 }, dist[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK };
    int darg[2] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG }, ps[2] = { 1, 1 };
    int bad[2];
    MPI_Datatype t = MPI_DATATYPE_NULL;
#define DA(size, rank, nd, gs, di, da, pp, ord, old)                              \
    MPI_Type_create_darray(size, rank, nd, gs, di, da, pp, ord, old, &t)
    MPI_FAILS(MPI_ERR_ARG, DA(0, 0, 2, g, dist, darg, ps, MPI_ORDER_C, MPI_INT));
    MPI_FAILS(MPI_ERR_ARG, DA(1, 1, 2, g, dist, darg, ps, MPI_ORDER_C, MPI_INT));
    MPI_FAILS(MPI_ERR_ARG, DA(1, -1, 2, g, dist, darg, ps, MPI_ORDER_C, MPI_INT));
    MPI_FAILS(MPI_ERR_DIMS, DA(1, 0, 0, g, dist, darg, ps, MPI_ORDER_C, MPI_INT));
    MPI_FAILS(MPI_ERR_ARG, DA(1, 0, 2, NULL, dist, darg, ps, MPI_ORDER_C, MPI_INT));
    MPI_FAILS(MPI_ERR_ARG, DA(1, 0, 2, g, dist, darg, ps, 3, MPI_INT));
    MPI_FAILS(MPI_ERR_TYPE, DA(1, 0, 2, g, dist, darg, ps, MPI_ORDER_C, MPI_DATATYPE_NULL));
    MPI_FAILS(MPI_ERR_ARG, MPI_Type_create_darray(1, 0, 2, g, dist, darg, ps, MPI_ORDER_C,
                                                  MPI_INT, NULL));
    MPI_FAILS(MPI_ERR_ARG, DA(2, 0, 2, g, dist, darg, ps, MPI_ORDER_C, MPI_INT)); /* grid 1 */
    memcpy(bad, g, sizeof bad);
    bad[1] = 0;
    MPI_FAILS(MPI_ERR_ARG, DA(1, 0, 2, bad, dist, darg, ps, MPI_ORDER_C, MPI_INT));
    memcpy(bad, ps, sizeof bad);
    bad[0] = -2;
    MPI_FAILS(MPI_ERR_ARG, DA(1, 0, 2, g, dist, darg, bad, MPI_ORDER_C, MPI_INT));
    memcpy(bad, dist, sizeof bad);
    bad[1] = 77;
    MPI_FAILS(MPI_ERR_ARG, DA(1, 0, 2, g, bad, darg, ps, MPI_ORDER_C, MPI_INT));
    memcpy(bad, darg, sizeof bad);
    bad[0] = 0;
    MPI_FAILS(MPI_ERR_ARG, DA(1, 0, 2, g, dist, bad, ps, MPI_ORDER_C, MPI_INT));
    /* block(k) must cover the dimension: 2 processes of 3 < 8 */
    int ps2[2] = { 2, 1 }, d3[2] = { 3, MPI_DISTRIBUTE_DFLT_DARG };
    MPI_FAILS(MPI_ERR_ARG, DA(2, 0, 2, g, dist, d3, ps2, MPI_ORDER_C, MPI_INT));
    /* none needs a single process in its dimension */
    int dn[2] = { MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK };
    MPI_FAILS(MPI_ERR_ARG, DA(2, 0, 2, g, dn, darg, ps2, MPI_ORDER_C, MPI_INT));
    int huge[2] = { 0x7fffffff, 0x7fffffff }, ps1[2] = { 1, 1 };
    MPI_FAILS(MPI_ERR_ARG, DA(1, 0, 2, huge, dist, darg, ps1, MPI_ORDER_C, MPI_DOUBLE));
    CHECK(t == MPI_DATATYPE_NULL, "a failed call set newtype");
#undef DA
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "darray");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int p0, p1, P = mt_size;
    two_factors(P, &p0, &p1);
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE;
    const int D = MPI_DISTRIBUTE_DFLT_DARG;
    cfg cfgs[] = {
        { 1, { 13 }, { B }, { D }, { P }, MPI_ORDER_C },
        { 1, { 13 }, { C }, { D }, { P }, MPI_ORDER_C },
        { 1, { 17 }, { C }, { 3 }, { P }, MPI_ORDER_FORTRAN },
        { 1, { 11 }, { B }, { (11 + P - 1) / P + 1 }, { P }, MPI_ORDER_C },
        { 1, { 3 }, { B }, { D }, { P }, MPI_ORDER_C },
        { 1, { 2 }, { C }, { 5 }, { P }, MPI_ORDER_C },
        { 2, { 7, 10 }, { B, C }, { D, 2 }, { p0, p1 }, MPI_ORDER_C },
        { 2, { 7, 10 }, { B, C }, { D, 2 }, { p0, p1 }, MPI_ORDER_FORTRAN },
        { 2, { 9, 5 }, { C, B }, { 2, D }, { p1, p0 }, MPI_ORDER_C },
        { 3, { 5, 3, 6 }, { C, N, B }, { D, D, D }, { p0, 1, p1 }, MPI_ORDER_C },
        { 3, { 5, 3, 6 }, { C, N, B }, { D, 7, D }, { p0, 1, p1 }, MPI_ORDER_FORTRAN },
        { 3, { 4, 6, 3 }, { N, C, C }, { D, 2, D }, { 1, p1, p0 }, MPI_ORDER_FORTRAN },
    };
    /* an int followed by a 4-byte hole */
    MPI_Datatype holey;
    MPI_OK(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &holey));
    MPI_OK(MPI_Type_commit(&holey));
    for (int k = 0; k < (int)(sizeof cfgs / sizeof cfgs[0]); k++) {
        for (int q = 0; q < P; q++) {
            compare_with_reference(&cfgs[k], k, MPI_INT, q);
            compare_with_reference(&cfgs[k], k, holey, q);
        }
        scatter_gather(&cfgs[k], k);
    }
    MPI_OK(MPI_Type_free(&holey));
    envelope();
    errors();
    return mt_finish();
}
