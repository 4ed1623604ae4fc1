/* np: 1 2 3 5
 *
 * wininfo.c — window hints (MPI-3.1 11.2.1-11.2.3, 11.2.7): MPI_Win_get_info
 * returns a new info object holding every predefined hint of the window's
 * flavor with the value in force (the defaults with MPI_INFO_NULL, the
 * values given at creation, canonical accumulate_ordering lists, "false"
 * for alloc_shared_noncontig since the memory is contiguous); keys it does
 * not know and values it cannot read are ignored; MPI_Win_set_info changes
 * the usage hints and keeps the creation ones. A window with hints still
 * works (accumulates checked). Bad arguments fail with their classes.
 */
#include "../mpi/mtest.h"

static void expect(MPI_Win win, const char *const *kv, int nkeys)
{
    MPI_Info in = MPI_INFO_NULL;
    MPI_OK(MPI_Win_get_info(win, &in));
    CHECK(in != MPI_INFO_NULL, "Win_get_info gave MPI_INFO_NULL");
    int n = -1;
    MPI_OK(MPI_Info_get_nkeys(in, &n));
    CHECK(n == nkeys, "%d hints, expected %d", n, nkeys);
    for (int k = 0; k < nkeys; k++) {
        char v[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        MPI_OK(MPI_Info_get(in, kv[2 * k], MPI_MAX_INFO_VAL, v, &flag));
        CHECK(flag && !strcmp(v, kv[2 * k + 1]), "hint %s = \"%s\", expected \"%s\"",
              kv[2 * k], flag ? v : "(unset)", kv[2 * k + 1]);
    }
    MPI_OK(MPI_Info_free(&in));
}

static MPI_Info info_of(const char *const *kv, int n)
{
    MPI_Info in;
    MPI_OK(MPI_Info_create(&in));
    for (int k = 0; k < n; k++)
        MPI_OK(MPI_Info_set(in, kv[2 * k], kv[2 * k + 1]));
    return in;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "wininfo");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int r = mt_rank, p = mt_size;
    static const char *const defaults[] = {
        "no_locks", "false", "accumulate_ordering", "rar,raw,war,waw",
        "accumulate_ops", "same_op_no_op", "same_size", "false", "same_disp_unit", "false",
    };

    /* Win_create without hints: the defaults */
    int buf[4] = { 0 };
    MPI_Win w1;
    MPI_OK(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w1));
    MPI_OK(MPI_Win_set_errhandler(w1, MPI_ERRORS_RETURN));
    expect(w1, defaults, 5);

    /* Win_allocate with every usage hint, an unknown key and spaces */
    static const char *const given[] = {
        "no_locks", "true", "accumulate_ordering", "waw, rar", "accumulate_ops", "same_op",
        "same_size", "true", "same_disp_unit", "true", "clumpi_no_such_hint", "1",
    };
    static const char *const got[] = {
        "no_locks", "true", "accumulate_ordering", "rar,waw", "accumulate_ops", "same_op",
        "same_size", "true", "same_disp_unit", "true",
    };
    MPI_Info in = info_of(given, 6);
    int *base;
    MPI_Win w2;
    MPI_OK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), in, MPI_COMM_WORLD, &base, &w2));
    MPI_OK(MPI_Info_free(&in));   /* the window keeps its own copy */
    MPI_OK(MPI_Win_set_errhandler(w2, MPI_ERRORS_RETURN));
    expect(w2, got, 5);
    /* it still works: everyone adds its rank + 1 at everyone */
    for (int i = 0; i < 4; i++)
        base[i] = 0;
    MPI_OK(MPI_Win_fence(0, w2));
    int one[4] = { r + 1, r + 1, r + 1, r + 1 };
    for (int t = 0; t < p; t++)
        MPI_OK(MPI_Accumulate(one, 4, MPI_INT, t, 0, 4, MPI_INT, MPI_SUM, w2));
    MPI_OK(MPI_Win_fence(0, w2));
    for (int i = 0; i < 4; i++)
        CHECK(base[i] == p * (p + 1) / 2, "accumulated %d, expected %d", base[i], p * (p + 1) / 2);

    /* set_info: usage hints change (unreadable values are ignored), the
     * creation ones do not */
    static const char *const change[] = {
        "no_locks", "false", "accumulate_ordering", "none", "accumulate_ops", "sometimes",
        "same_size", "false",
    };
    static const char *const after[] = {
        "no_locks", "false", "accumulate_ordering", "none", "accumulate_ops", "same_op",
        "same_size", "true", "same_disp_unit", "true",
    };
    in = info_of(change, 4);
    MPI_OK(MPI_Win_set_info(w2, in));
    MPI_OK(MPI_Info_free(&in));
    expect(w2, after, 5);

    /* Win_allocate_shared: alloc_shared_noncontig reads false (contiguous) */
    static const char *const shared_given[] = {
        "alloc_shared_noncontig", "true", "no_locks", "maybe", "accumulate_ordering", "rar,xyz",
    };
    static const char *const shared_got[] = {
        "no_locks", "false", "accumulate_ordering", "rar,raw,war,waw",
        "accumulate_ops", "same_op_no_op", "same_size", "false", "same_disp_unit", "false",
        "alloc_shared_noncontig", "false",
    };
    MPI_Comm node;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    in = info_of(shared_given, 3);
    char *sbase;
    MPI_Win w3;
    MPI_OK(MPI_Win_allocate_shared(16, 1, in, node, &sbase, &w3));
    MPI_OK(MPI_Info_free(&in));
    expect(w3, shared_got, 6);
    int nsize, nrank;
    MPI_OK(MPI_Comm_size(node, &nsize));
    MPI_OK(MPI_Comm_rank(node, &nrank));
    if (nsize > 1 && nrank == 1) {
        MPI_Aint sz;
        int du;
        char *b0;
        MPI_OK(MPI_Win_shared_query(w3, 0, &sz, &du, &b0));
        CHECK(b0 + 16 == sbase, "shared memory not contiguous though the hint says so");
    }

    /* Win_create_dynamic with "none" */
    static const char *const dyn_given[] = { "accumulate_ordering", "none" };
    static const char *const dyn_got[] = {
        "no_locks", "false", "accumulate_ordering", "none",
        "accumulate_ops", "same_op_no_op", "same_size", "false", "same_disp_unit", "false",
    };
    in = info_of(dyn_given, 1);
    MPI_Win w4;
    MPI_OK(MPI_Win_create_dynamic(in, MPI_COMM_WORLD, &w4));
    MPI_Info in2;
    MPI_OK(MPI_Info_dup(in, &in2));
    MPI_OK(MPI_Info_free(&in));
    MPI_OK(MPI_Win_set_errhandler(w4, MPI_ERRORS_RETURN));
    expect(w4, dyn_got, 5);

    /* bad arguments */
    MPI_FAILS(MPI_ERR_WIN, MPI_Win_set_info(MPI_WIN_NULL, in2));
    MPI_FAILS(MPI_ERR_WIN, MPI_Win_get_info(MPI_WIN_NULL, &in));
    MPI_FAILS(MPI_ERR_INFO, MPI_Win_set_info(w1, MPI_INFO_NULL));
    MPI_FAILS(MPI_ERR_INFO, MPI_Win_set_info(w1, (MPI_Info)0x1c00fff0));
    MPI_FAILS(MPI_ERR_ARG, MPI_Win_get_info(w1, NULL));
    expect(w1, defaults, 5);   /* unchanged by the failures */
    MPI_Win bad;
    MPI_FAILS(MPI_ERR_INFO, MPI_Win_create(buf, sizeof buf, sizeof(int), (MPI_Info)0x1c00fff0,
                                           MPI_COMM_WORLD, &bad));
    MPI_OK(MPI_Info_free(&in2));

    MPI_OK(MPI_Win_free(&w4));
    MPI_OK(MPI_Win_free(&w3));
    MPI_OK(MPI_Win_free(&w2));
    MPI_OK(MPI_Win_free(&w1));
    MPI_OK(MPI_Comm_free(&node));
    return mt_finish();
}
