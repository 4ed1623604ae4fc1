/*
 * test_group.c — group set operations and MPI_Dims_create, without a device:
 * the core files are linked alone with stand-ins for the few device calls
 * they make, and groups are built straight from world-rank lists.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdlib.h>
#include "src/core.h"

/* ---- stand-ins ------------------------------------------------------------ */
int mpir_state = MPIR_STATE_ACTIVE;
int mpir_thread_provided = MPI_THREAD_SINGLE;
static int my_world_rank = 3;
int mpid_world_rank(void) { return my_world_rank; }
/* Every world rank the tests name is of this job: no routing slots of other
 * jobs' processes to count. */
int mpid_world_size(void) { return INT_MAX; }
void mpid_dyn_ref(int slot)
{
    cr_log_error("unexpected routing slot %d", slot);
    abort();
}
void mpid_dyn_unref(int slot) { mpid_dyn_ref(slot); }
void mpid_abort(int code, const char *msg)
{
    cr_log_error("unexpected abort: %s", msg);
    abort();
}

static mpir_comm world;   /* only its error handler is used: errors return */

static void setup(void)
{
    mpir_errhandler_init();
    mpir_group_init();
    world.errhandler = MPI_ERRORS_RETURN;
    world.handle = MPI_COMM_WORLD;
    mpir_handle_set(&mpir_comms, MPI_COMM_WORLD & 0xffffff, &world);
}

static void teardown(void)
{
    mpir_group_finalize();
    mpir_errhandler_finalize();
}

static MPI_Group mk(int n, const int *wr)
{
    mpir_group *g = mpir_group_new(n, wr);
    cr_assert_not_null(g);
    return g->handle;
}

static void expect_members(MPI_Group h, int n, const int *wr)
{
    mpir_group *g = mpir_group_get(h);
    cr_assert_not_null(g);
    cr_assert_eq(g->size, n, "size %d, expected %d", g->size, n);
    for (int i = 0; i < n; i++)
        cr_assert_eq(g->world_ranks[i], wr[i], "member %d is %d, expected %d", i,
                     g->world_ranks[i], wr[i]);
}

static int errclass(int rc)
{
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

TestSuite(group, .init = setup, .fini = teardown);

TestSuite(dims, .init = setup, .fini = teardown);

Test(group, size_rank_translate)
{
    int w[] = { 5, 3, 9, 0 };
    MPI_Group g = mk(4, w);
    int s, r;
    cr_assert_eq(MPI_Group_size(g, &s), MPI_SUCCESS);
    cr_assert_eq(s, 4);
    MPI_Group_rank(g, &r);
    cr_assert_eq(r, 1);   /* world rank 3 is member 1 */
    int w2[] = { 0, 9, 7 };
    MPI_Group h = mk(3, w2);
    MPI_Group_rank(h, &r);
    cr_assert_eq(r, MPI_UNDEFINED);
    int in[] = { 0, 1, 2, 3, MPI_PROC_NULL }, out[5];
    cr_assert_eq(MPI_Group_translate_ranks(g, 5, in, h, out), MPI_SUCCESS);
    int expect[] = { MPI_UNDEFINED, MPI_UNDEFINED, 1, 0, MPI_PROC_NULL };
    for (int i = 0; i < 5; i++)
        cr_assert_eq(out[i], expect[i], "translate[%d] = %d", i, out[i]);
    int bad[] = { 4 };
    cr_assert_eq(errclass(MPI_Group_translate_ranks(g, 1, bad, h, out)), MPI_ERR_RANK);
    MPI_Group_free(&g);
    MPI_Group_free(&h);
    cr_assert_eq(g, MPI_GROUP_NULL);
}

Test(group, set_operations)
{
    int a[] = { 0, 1, 2, 3, 4 }, b[] = { 6, 4, 2, 8 };
    MPI_Group ga = mk(5, a), gb = mk(4, b), u, in, d, d2;
    MPI_Group_union(ga, gb, &u);
    int eu[] = { 0, 1, 2, 3, 4, 6, 8 };
    expect_members(u, 7, eu);
    MPI_Group_intersection(ga, gb, &in);
    int ei[] = { 2, 4 };
    expect_members(in, 2, ei);
    MPI_Group_intersection(gb, ga, &d2);
    int ei2[] = { 4, 2 };
    expect_members(d2, 2, ei2);
    MPI_Group_free(&d2);
    MPI_Group_difference(ga, gb, &d);
    int ed[] = { 0, 1, 3 };
    expect_members(d, 3, ed);
    MPI_Group e;
    MPI_Group_difference(in, ga, &e);
    cr_assert_eq(e, MPI_GROUP_EMPTY);
    MPI_Group_free(&e);
    MPI_Group_free(&u);
    MPI_Group_free(&in);
    MPI_Group_free(&d);
    MPI_Group_free(&ga);
    MPI_Group_free(&gb);
    cr_assert_eq(errclass(MPI_Group_union(MPI_GROUP_NULL, MPI_GROUP_EMPTY, &u)), MPI_ERR_GROUP);
}

Test(group, compare)
{
    int a[] = { 1, 2, 3 }, b[] = { 3, 1, 2 }, c[] = { 1, 2, 4 };
    MPI_Group ga = mk(3, a), ga2 = mk(3, a), gb = mk(3, b), gc = mk(3, c);
    int r;
    MPI_Group_compare(ga, ga2, &r);
    cr_assert_eq(r, MPI_IDENT);
    MPI_Group_compare(ga, gb, &r);
    cr_assert_eq(r, MPI_SIMILAR);
    MPI_Group_compare(ga, gc, &r);
    cr_assert_eq(r, MPI_UNEQUAL);
    MPI_Group_compare(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY, &r);
    cr_assert_eq(r, MPI_IDENT);
    MPI_Group_compare(ga, MPI_GROUP_EMPTY, &r);
    cr_assert_eq(r, MPI_UNEQUAL);
}

Test(group, incl_excl)
{
    int w[] = { 10, 11, 12, 13, 14, 15 };
    MPI_Group g = mk(6, w), n;
    int r1[] = { 4, 0, 2 };
    cr_assert_eq(MPI_Group_incl(g, 3, r1, &n), MPI_SUCCESS);
    int e1[] = { 14, 10, 12 };
    expect_members(n, 3, e1);
    MPI_Group_free(&n);
    cr_assert_eq(MPI_Group_excl(g, 3, r1, &n), MPI_SUCCESS);
    int e2[] = { 11, 13, 15 };
    expect_members(n, 3, e2);
    MPI_Group_free(&n);
    MPI_Group_incl(g, 0, NULL, &n);
    cr_assert_eq(n, MPI_GROUP_EMPTY);
    int dup[] = { 1, 1 };
    cr_assert_eq(errclass(MPI_Group_incl(g, 2, dup, &n)), MPI_ERR_RANK);
    int out[] = { 6 };
    cr_assert_eq(errclass(MPI_Group_excl(g, 1, out, &n)), MPI_ERR_RANK);
    cr_assert_eq(errclass(MPI_Group_incl(g, -1, r1, &n)), MPI_ERR_ARG);
}

Test(group, ranges)
{
    int w[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
    MPI_Group g = mk(10, w), n;
    int rg[][3] = { { 0, 6, 3 }, { 9, 7, -1 } };
    cr_assert_eq(MPI_Group_range_incl(g, 2, rg, &n), MPI_SUCCESS);
    int e[] = { 0, 3, 6, 9, 8, 7 };
    expect_members(n, 6, e);
    MPI_Group_free(&n);
    cr_assert_eq(MPI_Group_range_excl(g, 2, rg, &n), MPI_SUCCESS);
    int ex[] = { 1, 2, 4, 5 };
    expect_members(n, 4, ex);
    MPI_Group_free(&n);
    int overlap[][3] = { { 0, 4, 2 }, { 4, 5, 1 } };
    cr_assert_eq(errclass(MPI_Group_range_incl(g, 2, overlap, &n)), MPI_ERR_RANK);
    int zero[][3] = { { 0, 4, 0 } };
    cr_assert_eq(errclass(MPI_Group_range_incl(g, 1, zero, &n)), MPI_ERR_ARG);
    int outr[][3] = { { 0, 10, 1 } };
    cr_assert_eq(errclass(MPI_Group_range_excl(g, 1, outr, &n)), MPI_ERR_RANK);
    int all[][3] = { { 0, 9, 1 } };
    MPI_Group_range_excl(g, 1, all, &n);
    cr_assert_eq(n, MPI_GROUP_EMPTY);
}

Test(group, error_strings)
{
    int w[] = { 0 };
    MPI_Group g = mk(1, w), n;
    int bad[] = { 7 };
    int rc = MPI_Group_incl(g, 1, bad, &n);
    char s[MPI_MAX_ERROR_STRING];
    int len;
    cr_assert_eq(MPI_Error_string(rc, s, &len), MPI_SUCCESS);
    cr_assert(strstr(s, "MPI_Group_incl") && strstr(s, "7"), "message: %s", s);
    MPI_Error_string(MPI_ERR_TRUNCATE, s, &len);
    cr_assert(strstr(s, "MPI_ERR_TRUNCATE"), "class string: %s", s);
}

static void dims_ok(int n, int nd, const int *in, const int *expect)
{
    int d[16];
    for (int i = 0; i < nd; i++)
        d[i] = in[i];
    cr_assert_eq(MPI_Dims_create(n, nd, d), MPI_SUCCESS, "Dims_create(%d, %d)", n, nd);
    for (int i = 0; i < nd; i++)
        cr_assert_eq(d[i], expect[i], "Dims_create(%d, %d): dims[%d] = %d, expected %d", n, nd,
                     i, d[i], expect[i]);
}

Test(dims, balanced)
{
    int z[16] = { 0 };   /* as many zeros as the longest call's dimensions */
    dims_ok(6, 2, z, (int[]){ 3, 2 });
    dims_ok(12, 3, z, (int[]){ 3, 2, 2 });
    dims_ok(16, 4, z, (int[]){ 2, 2, 2, 2 });
    dims_ok(7, 2, z, (int[]){ 7, 1 });
    dims_ok(24, 3, z, (int[]){ 4, 3, 2 });
    dims_ok(36, 2, z, (int[]){ 6, 6 });
    dims_ok(60, 3, z, (int[]){ 5, 4, 3 });
    dims_ok(1, 3, z, (int[]){ 1, 1, 1 });
    dims_ok(1000000, 3, z, (int[]){ 100, 100, 100 });
    dims_ok(8, 1, z, (int[]){ 8 });
    dims_ok(2147483647, 2, z, (int[]){ 2147483647, 1 });
    /* Highly composite counts over many dimensions: must stay fast. */
    dims_ok(735134400, 10, z, (int[]){ 17, 13, 11, 8, 7, 6, 6, 6, 5, 5 });
    dims_ok(720720, 16, z, (int[]){ 13, 11, 7, 5, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1 });
    /* 2^20 over 6 dims: balanced and non-increasing */
    int d[6] = { 0 };
    cr_assert_eq(MPI_Dims_create(1 << 20, 6, d), MPI_SUCCESS);
    cr_assert_arr_eq(d, ((int[]){ 16, 16, 8, 8, 8, 8 }), sizeof d);
}

Test(dims, fixed_entries)
{
    dims_ok(12, 2, (int[]){ 0, 3 }, (int[]){ 4, 3 });
    dims_ok(24, 3, (int[]){ 0, 2, 0 }, (int[]){ 4, 2, 3 });
    dims_ok(6, 2, (int[]){ 2, 3 }, (int[]){ 2, 3 });
}

Test(dims, errors)
{
    int d[2] = { 0, 5 };
    cr_assert_eq(errclass(MPI_Dims_create(12, 2, d)), MPI_ERR_DIMS);
    int e[2] = { 2, 3 };
    cr_assert_eq(errclass(MPI_Dims_create(12, 2, e)), MPI_ERR_DIMS);
    int f[2] = { -1, 0 };
    cr_assert_eq(errclass(MPI_Dims_create(4, 2, f)), MPI_ERR_DIMS);
    cr_assert_eq(errclass(MPI_Dims_create(4, -1, f)), MPI_ERR_DIMS);
    int g[2] = { 0, 0 };
    cr_assert_eq(errclass(MPI_Dims_create(0, 2, g)), MPI_ERR_ARG);
}
