/*
 * test_dtype_api.c — the MPI datatype entry points (src/datatype.c and the
 * darray, external32 and f90 files) in a singleton MPI process: argument
 * checks and error classes, names, envelopes and contents, dup/commit/free,
 * extents, Pack/Unpack, a darray owning everything, external32 bytes,
 * f90 types that cannot be freed.
 */
#include <criterion/criterion.h>
#include <stddef.h>
#include <string.h>
#include <mpi.h>

static void setup(void)
{
    MPI_Init(NULL, NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}
static void teardown(void)
{
    MPI_Finalize();
}

TestSuite(dtype_api, .init = setup, .fini = teardown);

static int cls(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

Test(dtype_api, names)
{
    static const struct { MPI_Datatype t; const char *n; } want[] = {
        { MPI_CHAR, "MPI_CHAR" }, { MPI_INT, "MPI_INT" }, { MPI_DOUBLE, "MPI_DOUBLE" },
        { MPI_LONG_LONG, "MPI_LONG_LONG_INT" }, { MPI_BYTE, "MPI_BYTE" },
        { MPI_PACKED, "MPI_PACKED" }, { MPI_2INT, "MPI_2INT" },
        { MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT" }, { MPI_UINT64_T, "MPI_UINT64_T" },
        { MPI_C_BOOL, "MPI_C_BOOL" }, { MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX" },
        { MPI_INTEGER, "MPI_INTEGER" }, { MPI_LOGICAL, "MPI_LOGICAL" },
        { MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION" }, { MPI_2REAL, "MPI_2REAL" },
        { MPI_COMPLEX16, "MPI_COMPLEX16" }, { MPI_CHARACTER, "MPI_CHARACTER" },
    };
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        cr_assert_eq(MPI_Type_get_name(want[i].t, name, &len), MPI_SUCCESS);
        cr_assert_str_eq(name, want[i].n);
        cr_assert_eq(len, (int)strlen(want[i].n));
    }
    MPI_Datatype v;
    MPI_Type_vector(2, 1, 2, MPI_INT, &v);
    cr_assert_eq(MPI_Type_get_name(v, name, &len), MPI_SUCCESS);
    cr_assert_eq(len, 0);
    cr_assert_str_eq(name, "");
    MPI_Type_set_name(v, "my vector");
    MPI_Type_get_name(v, name, &len);
    cr_assert_str_eq(name, "my vector");
    MPI_Type_free(&v);
    cr_assert_eq(v, MPI_DATATYPE_NULL);
}

Test(dtype_api, errors)
{
    MPI_Datatype t = MPI_INT, n;
    cr_assert_eq(cls(MPI_Type_free(&t)), MPI_ERR_TYPE);
    cr_assert_eq(t, MPI_INT);
    cr_assert_eq(cls(MPI_Type_free(NULL)), MPI_ERR_ARG);
    t = MPI_DATATYPE_NULL;
    cr_assert_eq(cls(MPI_Type_commit(&t)), MPI_ERR_TYPE);
    cr_assert_eq(cls(MPI_Type_contiguous(-1, MPI_INT, &n)), MPI_ERR_COUNT);
    cr_assert_eq(cls(MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &n)), MPI_ERR_TYPE);
    cr_assert_eq(cls(MPI_Type_contiguous(1, 0x12345678, &n)), MPI_ERR_TYPE);
    cr_assert_eq(cls(MPI_Type_contiguous(1, MPI_INT, NULL)), MPI_ERR_ARG);
    cr_assert_eq(cls(MPI_Type_vector(-2, 1, 1, MPI_INT, &n)), MPI_ERR_COUNT);
    cr_assert_eq(cls(MPI_Type_vector(2, -1, 1, MPI_INT, &n)), MPI_ERR_ARG);
    cr_assert_eq(cls(MPI_Type_create_hvector(-2, 1, 1, MPI_INT, &n)), MPI_ERR_COUNT);
    int bl[2] = { 1, -1 }, d[2] = { 0, 4 };
    MPI_Aint ad[2] = { 0, 4 };
    MPI_Datatype ty[2] = { MPI_INT, MPI_DATATYPE_NULL };
    cr_assert_eq(cls(MPI_Type_indexed(-1, bl, d, MPI_INT, &n)), MPI_ERR_COUNT);
    cr_assert_eq(cls(MPI_Type_indexed(2, bl, d, MPI_INT, &n)), MPI_ERR_ARG);
    cr_assert_eq(cls(MPI_Type_create_hindexed(2, bl, ad, MPI_INT, &n)), MPI_ERR_ARG);
    cr_assert_eq(cls(MPI_Type_create_indexed_block(-1, 1, d, MPI_INT, &n)), MPI_ERR_COUNT);
    cr_assert_eq(cls(MPI_Type_create_hindexed_block(2, 1, ad, 0, &n)), MPI_ERR_TYPE);
    bl[1] = 1;
    cr_assert_eq(cls(MPI_Type_create_struct(2, bl, ad, ty, &n)), MPI_ERR_TYPE);
    cr_assert_eq(cls(MPI_Type_create_struct(-1, bl, ad, ty, &n)), MPI_ERR_COUNT);
    int sz[2] = { 4, 4 }, sub[2] = { 2, 5 }, st[2] = { 0, 0 };
    cr_assert_eq(cls(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &n)),
                 MPI_ERR_ARG);
    sub[1] = 2;
    st[0] = 3;
    cr_assert_eq(cls(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &n)),
                 MPI_ERR_ARG);
    st[0] = 0;
    cr_assert_eq(cls(MPI_Type_create_subarray(2, sz, sub, st, 99, MPI_INT, &n)), MPI_ERR_ARG);
    cr_assert_eq(cls(MPI_Type_create_subarray(0, sz, sub, st, MPI_ORDER_C, MPI_INT, &n)),
                 MPI_ERR_DIMS);
    int size;
    cr_assert_eq(cls(MPI_Type_size(MPI_INT, NULL)), MPI_ERR_ARG);
    cr_assert_eq(cls(MPI_Type_size(MPI_DATATYPE_NULL, &size)), MPI_ERR_TYPE);
    int ni, na, nd, comb;
    cr_assert_eq(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb), MPI_SUCCESS);
    cr_assert(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0);
    cr_assert_eq(cls(MPI_Type_get_contents(MPI_INT, 0, 0, 0, NULL, NULL, NULL)), MPI_ERR_TYPE);
}

Test(dtype_api, extents)
{
    struct rec { double d; char c; };
    int bl[2] = { 1, 1 };
    MPI_Aint d[2] = { offsetof(struct rec, d), offsetof(struct rec, c) };
    MPI_Datatype ty[2] = { MPI_DOUBLE, MPI_CHAR }, s, sub;
    MPI_Type_create_struct(2, bl, d, ty, &s);
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(s, &lb, &ext);
    cr_assert_eq(lb, 0);
    cr_assert_eq(ext, (MPI_Aint)sizeof(struct rec));
    MPI_Type_get_true_extent(s, &tlb, &text);
    cr_assert_eq(text, 9);
    int size;
    MPI_Type_size(s, &size);
    cr_assert_eq(size, 9);
    MPI_Count cl, ce, csz;
    MPI_Type_get_extent_x(s, &cl, &ce);
    MPI_Type_size_x(s, &csz);
    cr_assert(cl == 0 && ce == 16 && csz == 9);
    MPI_Type_free(&s);

    int sizes[2] = { 4, 5 }, subs[2] = { 2, 3 }, starts[2] = { 1, 2 };
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &sub);
    MPI_Type_get_extent(sub, &lb, &ext);
    MPI_Type_get_true_extent(sub, &tlb, &text);
    cr_assert(lb == 0 && ext == 80 && tlb == 36 && text == 40);
    MPI_Count ctlb, ctext;
    MPI_Type_get_true_extent_x(sub, &ctlb, &ctext);
    cr_assert(ctlb == 36 && ctext == 40);
    MPI_Type_free(&sub);

    MPI_Datatype r;
    MPI_Type_create_resized(MPI_INT, -8, 32, &r);
    MPI_Type_get_extent(r, &lb, &ext);
    cr_assert(lb == -8 && ext == 32);
    MPI_Type_free(&r);
}

Test(dtype_api, contents_roundtrip)
{
    MPI_Datatype v, iv, st, dup;
    MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &v);
    int bl[3] = { 1, 2, 3 }, d[3] = { 0, 10, 30 };
    MPI_Type_indexed(3, bl, d, v, &iv);
    int ni, na, nd, comb;
    MPI_Type_get_envelope(iv, &ni, &na, &nd, &comb);
    cr_assert(comb == MPI_COMBINER_INDEXED && ni == 7 && na == 0 && nd == 1);
    int ints[7];
    MPI_Datatype types[1];
    cr_assert_eq(cls(MPI_Type_get_contents(iv, 6, 0, 1, ints, NULL, types)), MPI_ERR_ARG);
    cr_assert_eq(MPI_Type_get_contents(iv, 7, 0, 1, ints, NULL, types), MPI_SUCCESS);
    cr_assert(ints[0] == 3 && ints[1] == 1 && ints[3] == 3 && ints[4] == 0 && ints[6] == 30);
    /* the child comes back as a usable handle, even after the user freed v */
    MPI_Type_free(&v);
    MPI_Type_get_envelope(types[0], &ni, &na, &nd, &comb);
    cr_assert(comb == MPI_COMBINER_VECTOR && ni == 3 && nd == 1);
    int vi[3];
    MPI_Datatype vt;
    MPI_Type_get_contents(types[0], 3, 0, 1, vi, NULL, &vt);
    cr_assert(vi[0] == 3 && vi[1] == 2 && vi[2] == 5 && vt == MPI_DOUBLE);
    MPI_Type_free(&types[0]);

    int sbl[2] = { 2, 1 };
    MPI_Aint sd[2] = { 0, 16 };
    MPI_Datatype sty[2] = { MPI_INT, iv };
    MPI_Type_create_struct(2, sbl, sd, sty, &st);
    MPI_Type_get_envelope(st, &ni, &na, &nd, &comb);
    cr_assert(comb == MPI_COMBINER_STRUCT && ni == 3 && na == 2 && nd == 2);
    MPI_Aint ga[2];
    MPI_Datatype gt[2];
    MPI_Type_get_contents(st, 3, 2, 2, ints, ga, gt);
    cr_assert(ints[1] == 2 && ga[1] == 16 && gt[0] == MPI_INT);
    MPI_Type_free(&gt[1]);

    MPI_Type_commit(&st);
    MPI_Type_dup(st, &dup);
    MPI_Type_get_envelope(dup, &ni, &na, &nd, &comb);
    cr_assert(comb == MPI_COMBINER_DUP && nd == 1);
    int psize;
    /* dup of a committed type is committed: Pack accepts it */
    char buf[4096], out[4096];
    int pos = 0;
    MPI_Pack_size(1, dup, MPI_COMM_WORLD, &psize);
    cr_assert_eq(MPI_Pack(buf, 1, dup, out, sizeof(out), &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    cr_assert_eq(pos, psize);
    MPI_Type_free(&dup);
    MPI_Type_free(&st);
    MPI_Type_free(&iv);
}

Test(dtype_api, pack_unpack)
{
    double a[20], b[20];
    for (int i = 0; i < 20; i++) {
        a[i] = i;
        b[i] = -1;
    }
    MPI_Datatype v;
    MPI_Type_vector(4, 2, 5, MPI_DOUBLE, &v);
    char out[256];
    int pos = 0;
    cr_assert_eq(cls(MPI_Pack(a, 1, v, out, sizeof(out), &pos, MPI_COMM_WORLD)), MPI_ERR_TYPE);
    MPI_Type_commit(&v);
    int psize;
    MPI_Pack_size(2, v, MPI_COMM_WORLD, &psize);
    cr_assert_eq(psize, 128);
    cr_assert_eq(MPI_Pack(&pos, 1, MPI_INT, out, sizeof(out), &pos, MPI_COMM_WORLD),
                 MPI_SUCCESS);
    cr_assert_eq(pos, 4);
    cr_assert_eq(MPI_Pack(a, 1, v, out, sizeof(out), &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    cr_assert_eq(pos, 68);
    int small = 60;
    int p2 = 0;
    cr_assert_eq(cls(MPI_Pack(a, 1, v, out, small, &p2, MPI_COMM_WORLD)), MPI_ERR_TRUNCATE);
    cr_assert_eq(p2, 0);
    cr_assert_eq(cls(MPI_Pack(a, -1, v, out, 100, &p2, MPI_COMM_WORLD)), MPI_ERR_COUNT);
    cr_assert_eq(cls(MPI_Pack(a, 1, v, out, 100, NULL, MPI_COMM_WORLD)), MPI_ERR_ARG);
    cr_assert_eq(cls(MPI_Pack(a, 1, v, out, 100, &p2, MPI_COMM_NULL)), MPI_ERR_COMM);

    int first;
    pos = 0;
    MPI_Unpack(out, 68, &pos, &first, 1, MPI_INT, MPI_COMM_WORLD);
    cr_assert_eq(first, 0);
    cr_assert_eq(MPI_Unpack(out, 68, &pos, b, 1, v, MPI_COMM_WORLD), MPI_SUCCESS);
    cr_assert_eq(pos, 68);
    for (int i = 0; i < 20; i++) {
        int in = i % 5 < 2 && i < 20;
        cr_assert_eq(b[i], in ? a[i] : -1, "b[%d] = %g", i, b[i]);
    }
    pos = 4;
    cr_assert_eq(cls(MPI_Unpack(out, 67, &pos, b, 1, v, MPI_COMM_WORLD)), MPI_ERR_TRUNCATE);
    MPI_Type_free(&v);

    MPI_Aint x, y;
    MPI_Get_address(&a[0], &x);
    MPI_Get_address(&a[3], &y);
    cr_assert_eq(MPI_Aint_diff(y, x), 24);
    cr_assert_eq(MPI_Aint_add(x, 24), y);
}

Test(dtype_api, darray_singleton_is_the_whole_array)
{
    /* One process owns everything: the darray is the array in storage order. */
    int g[2] = { 3, 5 }, dist[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC };
    int darg[2] = { MPI_DISTRIBUTE_DFLT_DARG, 2 }, ps[2] = { 1, 1 };
    MPI_Datatype t;
    cr_assert_eq(MPI_Type_create_darray(1, 0, 2, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t),
                 MPI_SUCCESS);
    MPI_Type_commit(&t);
    int size;
    MPI_Aint lb, ext;
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &ext);
    cr_assert_eq(size, 15 * (int)sizeof(int));
    cr_assert_eq(lb, 0);
    cr_assert_eq(ext, 15 * (MPI_Aint)sizeof(int));
    int a[15], out[15], pos = 0;
    for (int i = 0; i < 15; i++)
        a[i] = i * i;
    cr_assert_eq(MPI_Pack(a, 1, t, out, sizeof out, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    cr_assert_eq(memcmp(a, out, sizeof a), 0);
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    cr_assert_eq(comb, MPI_COMBINER_DARRAY);
    cr_assert_eq(ni, 12);
    MPI_Type_free(&t);
    cr_assert_eq(cls(MPI_Type_create_darray(1, 0, 2, g, dist, darg, ps, 0, MPI_INT, &t)),
                 MPI_ERR_ARG);
}

Test(dtype_api, external32_basics)
{
    int one = 1;
    unsigned char out[8];
    MPI_Aint pos = 0, size;
    cr_assert_eq(MPI_Pack_external("external32", &one, 1, MPI_INT, out, 8, &pos), MPI_SUCCESS);
    cr_assert_eq(pos, 4);
    cr_assert(out[0] == 0 && out[1] == 0 && out[2] == 0 && out[3] == 1);
    cr_assert_eq(MPI_Pack_external_size("external32", 2, MPI_LONG_DOUBLE_INT, &size),
                 MPI_SUCCESS);
    cr_assert_eq(size, 40);
    /* Fortran's: a DOUBLE COMPLEX is two 8-byte reals, a 2INTEGER two ints */
    cr_assert_eq(MPI_Pack_external_size("external32", 3, MPI_DOUBLE_COMPLEX, &size), MPI_SUCCESS);
    cr_assert_eq(size, 48);
    cr_assert_eq(MPI_Pack_external_size("external32", 1, MPI_2INTEGER, &size), MPI_SUCCESS);
    cr_assert_eq(size, 8);
    cr_assert_eq(cls(MPI_Pack_external_size("native", 1, MPI_INT, &size)),
                 MPI_ERR_UNSUPPORTED_DATAREP);
}

Test(dtype_api, f90_types_are_predefined)
{
    MPI_Datatype r, i;
    cr_assert_eq(MPI_Type_create_f90_real(15, MPI_UNDEFINED, &r), MPI_SUCCESS);
    cr_assert_eq(MPI_Type_create_f90_integer(9, &i), MPI_SUCCESS);
    int s;
    MPI_Type_size(r, &s);
    cr_assert_eq(s, 8);
    MPI_Type_size(i, &s);
    cr_assert_eq(s, 4);
    cr_assert_eq(cls(MPI_Type_free(&r)), MPI_ERR_TYPE);
    MPI_Datatype m;
    cr_assert_eq(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &m), MPI_SUCCESS);
    cr_assert_eq(m, MPI_INT32_T);
    cr_assert_eq(cls(MPI_Type_create_f90_integer(40, &i)), MPI_ERR_ARG);
}
