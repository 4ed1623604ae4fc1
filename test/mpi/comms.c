/* np: 1 2 3 4 6 8
 *
 * Communicators carrying traffic: Comm_dup (isolated from its parent), split
 * (by parity, with reversed keys), split_type SHARED, Comm_create and
 * Comm_create_group on a group of even ranks, Cartesian topologies
 * (Dims_create, Cart_create, Cart_shift halo exchange, Cart_sub rows),
 * Dist_graph_create_adjacent with its queries, attributes with copy/delete
 * callbacks through dup and free, predefined attributes, names, info objects,
 * groups (translate, union, intersection, difference, compare).
 */
#include "mtest.h"

/* MPI_UNWEIGHTED is a sentinel pointer; GCC 11+ thinks it is a 0-byte array */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

static int deletes, copies;

static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c;
    (void)key;
    (void)extra;
    copies++;
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c;
    (void)key;
    (void)val;
    (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

/* ring exchange on comm: each rank sends its world rank right, checks left's */
static void ring(MPI_Comm comm, const char *what)
{
    int r, n;
    MPI_OK(MPI_Comm_rank(comm, &r));
    MPI_OK(MPI_Comm_size(comm, &n));
    MPI_Group g, wg;
    MPI_OK(MPI_Comm_group(comm, &g));
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int left = (r - 1 + n) % n, wleft;
    MPI_OK(MPI_Group_translate_ranks(g, 1, &left, wg, &wleft));
    int out[2] = {mt_rank, r}, in[2] = {-1, -1};
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(out, 2, MPI_INT, (r + 1) % n, 9, in, 2, MPI_INT, left, 9, comm, &st));
    CHECK(in[0] == wleft && in[1] == left && st.MPI_SOURCE == left,
          "%s: from local %d (world %d) got {%d,%d} source %d", what, left, wleft, in[0], in[1],
          st.MPI_SOURCE);
    MPI_OK(MPI_Group_free(&g));
    MPI_OK(MPI_Group_free(&wg));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "comms");
    int res;

    /* dup: traffic on the dup never matches receives on the parent */
    {
        MPI_Comm d;
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        MPI_OK(MPI_Comm_compare(d, MPI_COMM_WORLD, &res));
        CHECK(res == MPI_CONGRUENT, "dup compare: %d", res);
        MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res));
        CHECK(res == MPI_IDENT, "self compare: %d", res);
        int right = (mt_rank + 1) % mt_size, left = (mt_rank - 1 + mt_size) % mt_size;
        int a = 100 + mt_rank, b = 200 + mt_rank, x = -1, y = -1;
        MPI_Request rq[4];
        /* post the parent's receive first with ANY_TAG: it must not take the dup's message */
        MPI_OK(MPI_Irecv(&x, 1, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]));
        MPI_OK(MPI_Isend(&b, 1, MPI_INT, right, 0, d, &rq[1]));
        MPI_OK(MPI_Irecv(&y, 1, MPI_INT, left, 0, d, &rq[2]));
        MPI_OK(MPI_Isend(&a, 1, MPI_INT, right, 0, MPI_COMM_WORLD, &rq[3]));
        MPI_OK(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
        CHECK(x == 100 + left && y == 200 + left, "dup isolation: world got %d, dup got %d", x, y);
        ring(d, "dup");
        char name[MPI_MAX_OBJECT_NAME];
        int len;
        MPI_OK(MPI_Comm_set_name(d, "my-dup"));
        MPI_OK(MPI_Comm_get_name(d, name, &len));
        CHECK(strcmp(name, "my-dup") == 0 && len == 6, "comm name '%s' (%d)", name, len);
        MPI_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
        CHECK(strcmp(name, "MPI_COMM_WORLD") == 0, "world name '%s'", name);
        MPI_OK(MPI_Comm_free(&d));
        CHECK(d == MPI_COMM_NULL, "Comm_free did not set MPI_COMM_NULL");
    }

    /* split by parity, keys reversed */
    {
        MPI_Comm s;
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, -mt_rank, &s));
        int r, n;
        MPI_OK(MPI_Comm_rank(s, &r));
        MPI_OK(MPI_Comm_size(s, &n));
        int expect_n = (mt_size + 1 - mt_rank % 2) / 2;
        CHECK(n == expect_n, "split: size %d, expected %d", n, expect_n);
        CHECK(r == n - 1 - mt_rank / 2, "split: rank %d with reversed keys", r);
        ring(s, "split");
        MPI_OK(MPI_Comm_free(&s));
        /* MPI_UNDEFINED gives COMM_NULL */
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank == 0 ? MPI_UNDEFINED : 1, 0, &s));
        if (mt_rank == 0)
            CHECK(s == MPI_COMM_NULL, "split with MPI_UNDEFINED did not give MPI_COMM_NULL");
        else {
            ring(s, "split without 0");
            MPI_OK(MPI_Comm_free(&s));
        }
    }

    /* split_type SHARED: the ranks of my node (everyone on one node; the
     * launcher's MPI_LOCALNRANKS with emulated or real nodes) */
    {
        MPI_Comm sh;
        MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &sh));
        int n;
        const char *ln = getenv("MPI_LOCALNRANKS");
        int want = ln && atoi(ln) > 0 ? atoi(ln) : mt_size;
        MPI_OK(MPI_Comm_size(sh, &n));
        CHECK(n == want, "split_type SHARED: %d of %d ranks", n, want);
        ring(sh, "split_type");
        MPI_OK(MPI_Comm_free(&sh));
    }

    /* groups, Comm_create, Comm_create_group on the even ranks */
    {
        MPI_Group wg, even, odd, u, in, diff;
        MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
        int ne = (mt_size + 1) / 2;
        int ranges[1][3] = {{0, mt_size - 1, 2}};
        MPI_OK(MPI_Group_range_incl(wg, 1, ranges, &even));
        MPI_OK(MPI_Group_difference(wg, even, &odd));
        int gs;
        MPI_OK(MPI_Group_size(even, &gs));
        CHECK(gs == ne, "range_incl: size %d", gs);
        MPI_OK(MPI_Group_union(odd, even, &u));
        MPI_OK(MPI_Group_compare(u, wg, &res));
        CHECK(res == (mt_size == 1 ? MPI_IDENT : MPI_SIMILAR),
              "union odd+even vs world: %d", res);
        MPI_OK(MPI_Group_intersection(odd, even, &in));
        MPI_OK(MPI_Group_size(in, &gs));
        CHECK(gs == 0, "odd & even: size %d", gs);
        MPI_OK(MPI_Group_difference(wg, wg, &diff));
        MPI_OK(MPI_Group_compare(diff, MPI_GROUP_EMPTY, &res));
        CHECK(res == MPI_IDENT, "world - world vs GROUP_EMPTY: %d", res);
        int gr;
        MPI_OK(MPI_Group_rank(even, &gr));
        CHECK(gr == (mt_rank % 2 ? MPI_UNDEFINED : mt_rank / 2), "group rank %d", gr);
        int excl[1] = {0};
        MPI_Group no0;
        MPI_OK(MPI_Group_excl(wg, 1, excl, &no0));
        MPI_OK(MPI_Group_size(no0, &gs));
        CHECK(gs == mt_size - 1, "excl: size %d", gs);

        MPI_Comm c;
        MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, even, &c));
        if (mt_rank % 2) {
            CHECK(c == MPI_COMM_NULL, "Comm_create: non-member got a communicator");
        } else {
            ring(c, "Comm_create");
            MPI_OK(MPI_Comm_free(&c));
        }
        if (mt_rank % 2 == 0) { /* only members call */
            MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, even, 77, &c));
            ring(c, "Comm_create_group");
            MPI_OK(MPI_Comm_free(&c));
        }
        MPI_Group *gl[] = {&wg, &even, &odd, &u, &in, &diff, &no0};
        for (size_t i = 0; i < sizeof gl / sizeof gl[0]; i++)
            MPI_OK(MPI_Group_free(gl[i]));
    }

    /* Cartesian 2-D periodic grid: halo exchange with Cart_shift */
    {
        int dims[2] = {0, 0}, periods[2] = {1, 1}, coords[2];
        MPI_OK(MPI_Dims_create(mt_size, 2, dims));
        CHECK(dims[0] * dims[1] == mt_size && dims[0] >= dims[1], "Dims_create: %dx%d", dims[0], dims[1]);
        MPI_Comm cart;
        MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
        int st;
        MPI_OK(MPI_Topo_test(cart, &st));
        CHECK(st == MPI_CART, "Topo_test: %d", st);
        int r;
        MPI_OK(MPI_Comm_rank(cart, &r));
        MPI_OK(MPI_Cart_coords(cart, r, 2, coords));
        int r2;
        MPI_OK(MPI_Cart_rank(cart, coords, &r2));
        CHECK(r2 == r, "Cart_rank(Cart_coords(%d)) = %d", r, r2);
        for (int dim = 0; dim < 2; dim++) {
            int src, dst;
            MPI_OK(MPI_Cart_shift(cart, dim, 1, &src, &dst));
            int mc[2];
            int sent[2] = {coords[0], coords[1]}, got[2];
            MPI_OK(MPI_Sendrecv(sent, 2, MPI_INT, dst, dim, got, 2, MPI_INT, src, dim, cart,
                                MPI_STATUS_IGNORE));
            MPI_OK(MPI_Cart_coords(cart, src, 2, mc));
            CHECK(got[0] == mc[0] && got[1] == mc[1], "cart shift dim %d: got (%d,%d) from (%d,%d)",
                  dim, got[0], got[1], mc[0], mc[1]);
            CHECK(mc[dim] == (coords[dim] - 1 + dims[dim]) % dims[dim], "cart shift: wrong source");
        }
        int gd[2], gp[2], gc[2], nd;
        MPI_OK(MPI_Cartdim_get(cart, &nd));
        MPI_OK(MPI_Cart_get(cart, 2, gd, gp, gc));
        CHECK(nd == 2 && gd[0] == dims[0] && gp[1] == 1 && gc[0] == coords[0] && gc[1] == coords[1],
              "Cart_get mismatch");
        int remain[2] = {0, 1};
        MPI_Comm row;
        MPI_OK(MPI_Cart_sub(cart, remain, &row));
        int rn;
        MPI_OK(MPI_Comm_size(row, &rn));
        CHECK(rn == dims[1], "Cart_sub: size %d, expected %d", rn, dims[1]);
        ring(row, "Cart_sub");
        /* non-periodic shift at the edge gives PROC_NULL */
        MPI_Comm line;
        int d1[1] = {mt_size}, p1[1] = {0};
        MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, d1, p1, 0, &line));
        int src, dst;
        MPI_OK(MPI_Cart_shift(line, 0, 1, &src, &dst));
        CHECK(src == (mt_rank == 0 ? MPI_PROC_NULL : mt_rank - 1) &&
              dst == (mt_rank == mt_size - 1 ? MPI_PROC_NULL : mt_rank + 1),
              "line shift: %d %d", src, dst);
        MPI_OK(MPI_Comm_free(&line));
        MPI_OK(MPI_Comm_free(&row));
        MPI_OK(MPI_Comm_free(&cart));
    }

    /* dist graph: each rank receives from left, sends to right and right+2 */
    {
        int srcs[2], dsts[2], ns = 0, nd = 0;
        dsts[nd++] = (mt_rank + 1) % mt_size;
        dsts[nd++] = (mt_rank + 2) % mt_size;
        srcs[ns++] = (mt_rank - 1 + mt_size) % mt_size;
        srcs[ns++] = (mt_rank - 2 + 2 * mt_size) % mt_size;
        MPI_Comm g;
        MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, ns, srcs, MPI_UNWEIGHTED, nd, dsts,
                                              MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
        int st, indeg, outdeg, w;
        MPI_OK(MPI_Topo_test(g, &st));
        CHECK(st == MPI_DIST_GRAPH, "dist graph Topo_test: %d", st);
        MPI_OK(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &w));
        CHECK(indeg == 2 && outdeg == 2 && !w, "neighbors_count %d %d %d", indeg, outdeg, w);
        int qs[2], qd[2];
        MPI_OK(MPI_Dist_graph_neighbors(g, 2, qs, MPI_UNWEIGHTED, 2, qd, MPI_UNWEIGHTED));
        CHECK(qs[0] == srcs[0] && qs[1] == srcs[1] && qd[0] == dsts[0] && qd[1] == dsts[1],
              "Dist_graph_neighbors mismatch");
        int out = mt_rank, in[2];
        MPI_Request rq[4];
        for (int i = 0; i < 2; i++)
            MPI_OK(MPI_Irecv(&in[i], 1, MPI_INT, qs[i], i, g, &rq[i]));
        for (int i = 0; i < 2; i++)
            MPI_OK(MPI_Isend(&out, 1, MPI_INT, qd[i], i, g, &rq[2 + i]));
        MPI_OK(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
        CHECK(in[0] == qs[0] && in[1] == qs[1], "dist graph traffic: %d %d", in[0], in[1]);
        MPI_OK(MPI_Comm_free(&g));
    }

    /* attributes */
    {
        int key, flag;
        void *val;
        MPI_OK(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL));
        MPI_Comm d1, d2;
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d1));
        MPI_OK(MPI_Comm_set_attr(d1, key, (void *)(intptr_t)10));
        MPI_OK(MPI_Comm_get_attr(d1, key, &val, &flag));
        CHECK(flag && (intptr_t)val == 10, "attr get: flag %d val %ld", flag, (long)(intptr_t)val);
        MPI_OK(MPI_Comm_dup(d1, &d2));
        CHECK(copies == 1, "copy callback ran %d times", copies);
        MPI_OK(MPI_Comm_get_attr(d2, key, &val, &flag));
        CHECK(flag && (intptr_t)val == 11, "attr after dup: flag %d val %ld", flag, (long)(intptr_t)val);
        ring(d2, "dup of dup");
        MPI_OK(MPI_Comm_set_attr(d1, key, (void *)(intptr_t)20)); /* replaces: delete runs */
        CHECK(deletes == 1, "delete callback on replace ran %d times", deletes);
        MPI_OK(MPI_Comm_delete_attr(d1, key));
        CHECK(deletes == 2, "delete callback on delete ran %d times", deletes);
        MPI_OK(MPI_Comm_get_attr(d1, key, &val, &flag));
        CHECK(!flag, "attribute still there after delete");
        MPI_OK(MPI_Comm_free(&d2)); /* delete runs */
        CHECK(deletes == 3, "delete callback on free ran %d times", deletes);
        MPI_OK(MPI_Comm_free(&d1));
        MPI_OK(MPI_Comm_free_keyval(&key));
        CHECK(key == MPI_KEYVAL_INVALID, "free_keyval did not reset the key");
        int *tagub;
        MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tagub, &flag));
        CHECK(flag && *tagub >= 32767, "MPI_TAG_UB: flag %d value %d", flag, flag ? *tagub : 0);
        /* MPI_APPNUM is the launcher's (PMI) program index: 0 for the only
         * program mpirun starts; CLUMPI_TEST_APPNUM overrides the expectation
         * for MPMD runs (test/tools/test_hydra.sh). */
        int *appnum;
        const char *want_app = getenv("CLUMPI_TEST_APPNUM");
        MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
        CHECK(flag && *appnum == (want_app ? atoi(want_app) : 0), "MPI_APPNUM: flag %d value %d",
              flag, flag ? *appnum : -1);
        /* the largest tag works */
        int v = 5, w = 0;
        MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, mt_rank, *tagub, &w, 1, MPI_INT, mt_rank, *tagub,
                            MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(w == 5, "message with tag MPI_TAG_UB: %d", w);
        int *wg;
        MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &wg, &flag));
        CHECK(!flag || *wg == 0 || *wg == 1, "MPI_WTIME_IS_GLOBAL value");
    }

    /* info objects, and on a communicator */
    {
        MPI_Info info, dup;
        int n, flag, len;
        char val[64], key[MPI_MAX_INFO_KEY + 1];
        MPI_OK(MPI_Info_create(&info));
        MPI_OK(MPI_Info_set(info, "alpha", "1"));
        MPI_OK(MPI_Info_set(info, "beta", "two"));
        MPI_OK(MPI_Info_set(info, "alpha", "one")); /* replace */
        MPI_OK(MPI_Info_get_nkeys(info, &n));
        CHECK(n == 2, "info nkeys %d", n);
        MPI_OK(MPI_Info_get(info, "alpha", sizeof val - 1, val, &flag));
        CHECK(flag && strcmp(val, "one") == 0, "info alpha: %d '%s'", flag, val);
        MPI_OK(MPI_Info_get_valuelen(info, "beta", &len, &flag));
        CHECK(flag && len == 3, "info valuelen %d", len);
        MPI_OK(MPI_Info_get_nthkey(info, 1, key));
        CHECK(strcmp(key, "beta") == 0, "info nthkey 1: '%s'", key);
        MPI_OK(MPI_Info_dup(info, &dup));
        MPI_OK(MPI_Info_delete(info, "alpha"));
        MPI_OK(MPI_Info_get(info, "alpha", sizeof val - 1, val, &flag));
        CHECK(!flag, "deleted key still there");
        MPI_OK(MPI_Info_get(dup, "alpha", sizeof val - 1, val, &flag));
        CHECK(flag && strcmp(val, "one") == 0, "dup lost alpha");
        MPI_Comm c;
        MPI_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, dup, &c));
        ring(c, "dup_with_info");
        MPI_OK(MPI_Comm_set_info(c, info));
        MPI_Info used;
        MPI_OK(MPI_Comm_get_info(c, &used));
        MPI_OK(MPI_Info_get_nkeys(used, &n)); /* hints may be dropped: any count */
        MPI_OK(MPI_Info_free(&used));
        MPI_OK(MPI_Comm_free(&c));
        MPI_OK(MPI_Info_free(&info));
        MPI_OK(MPI_Info_free(&dup));
        CHECK(info == MPI_INFO_NULL, "Info_free did not set MPI_INFO_NULL");
    }

    /* COMM_SELF traffic */
    {
        int a = 3, b = 0;
        MPI_OK(MPI_Sendrecv(&a, 1, MPI_INT, 0, 1, &b, 1, MPI_INT, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE));
        CHECK(b == 3, "COMM_SELF: %d", b);
        int n;
        MPI_OK(MPI_Comm_size(MPI_COMM_SELF, &n));
        CHECK(n == 1, "COMM_SELF size %d", n);
    }
    return mt_finish();
}
