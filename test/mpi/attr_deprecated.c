/* np: 1 2 3
 *
 * attr_deprecated.c — the MPI-1 attribute calls MPI-3.1 still defines
 * (section 15.2): MPI_Keyval_create/free, MPI_Attr_put/get/delete with
 * MPI_NULL_COPY_FN, MPI_DUP_FN and MPI_NULL_DELETE_FN and user callbacks.
 * They act on communicator attributes and share keyvals with the
 * MPI_Comm_ calls both ways; the predefined attributes (MPI_TAG_UB, ...)
 * read the same through MPI_Attr_get; copy callbacks run at MPI_Comm_dup,
 * delete callbacks at delete, overwrite and MPI_Comm_free; bad arguments
 * fail with their classes.
 */
#include "mtest.h"

static int ncopy, ndelete;
static void *last_deleted;

static int copy_fn(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm; (void)keyval;
    ncopy++;
    /* the copy holds the value plus extra_state's increment */
    *(intptr_t *)out = (intptr_t)in + *(int *)extra;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm; (void)keyval; (void)extra;
    ndelete++;
    last_deleted = val;
    return MPI_SUCCESS;
}

static int fail_deletes = 1;
static int failing_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm; (void)keyval; (void)val; (void)extra;
    return fail_deletes ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static void *get(MPI_Comm c, int key, int want_flag)
{
    void *v = NULL;
    int flag = -1;
    MPI_OK(MPI_Attr_get(c, key, &v, &flag));
    CHECK(flag == want_flag, "Attr_get(0x%x): flag %d, expected %d", (unsigned)key, flag,
          want_flag);
    return v;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "attr_deprecated");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    /* predefined attributes through the old call, the same as the new one */
    int *ub = get(MPI_COMM_WORLD, MPI_TAG_UB, 1), *ub2 = NULL, flag;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub2, &flag));
    CHECK(ub && *ub >= 32767 && ub == ub2, "MPI_TAG_UB %d", ub ? *ub : -1);
    int *host = get(MPI_COMM_WORLD, MPI_HOST, 1), *io = get(MPI_COMM_WORLD, MPI_IO, 1);
    int *wg = get(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, 1);
    CHECK(host && (*host == MPI_PROC_NULL || (*host >= 0 && *host < mt_size)), "MPI_HOST %d",
          host ? *host : -99);
    CHECK(io && (*io == MPI_ANY_SOURCE || *io == MPI_PROC_NULL || (*io >= 0 && *io < mt_size)),
          "MPI_IO %d", io ? *io : -99);
    CHECK(wg && (*wg == 0 || *wg == 1), "MPI_WTIME_IS_GLOBAL %d", wg ? *wg : -1);

    /* user keyval with callbacks: put, get, dup copies, overwrite, delete */
    int inc = 1000, key = MPI_KEYVAL_INVALID;
    MPI_OK(MPI_Keyval_create(copy_fn, delete_fn, &key, &inc));
    CHECK(key != MPI_KEYVAL_INVALID, "Keyval_create gave MPI_KEYVAL_INVALID");
    get(MPI_COMM_WORLD, key, 0);
    MPI_OK(MPI_Attr_put(MPI_COMM_WORLD, key, (void *)(intptr_t)(7 + mt_rank)));
    CHECK((intptr_t)get(MPI_COMM_WORLD, key, 1) == 7 + mt_rank, "Attr_get after Attr_put");
    /* the same keyval through MPI_Comm_get_attr */
    void *v = NULL;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &v, &flag));
    CHECK(flag && (intptr_t)v == 7 + mt_rank, "Comm_get_attr of an Attr_put value");
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK(ncopy == 1, "copy callback ran %d times at Comm_dup", ncopy);
    CHECK((intptr_t)get(dup, key, 1) == 1007 + mt_rank, "copied value wrong");
    MPI_OK(MPI_Attr_put(dup, key, (void *)(intptr_t)3));
    CHECK(ndelete == 1 && (intptr_t)last_deleted == 1007 + mt_rank,
          "overwrite: delete callback ran %d times", ndelete);
    MPI_OK(MPI_Comm_free(&dup));
    CHECK(ndelete == 2 && (intptr_t)last_deleted == 3, "Comm_free: delete callback");
    MPI_OK(MPI_Attr_delete(MPI_COMM_WORLD, key));
    CHECK(ndelete == 3 && (intptr_t)last_deleted == 7 + mt_rank, "Attr_delete: callback");
    get(MPI_COMM_WORLD, key, 0);
    MPI_OK(MPI_Attr_delete(MPI_COMM_WORLD, key));   /* no value: nothing to do */
    CHECK(ndelete == 3, "Attr_delete without a value ran the callback");

    /* the predefined callbacks */
    int knull, kdup;
    MPI_OK(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &knull, NULL));
    MPI_OK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &kdup, NULL));
    MPI_OK(MPI_Attr_put(MPI_COMM_WORLD, knull, &inc));
    MPI_OK(MPI_Attr_put(MPI_COMM_WORLD, kdup, &inc));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    get(dup, knull, 0);
    CHECK(get(dup, kdup, 1) == &inc, "MPI_DUP_FN did not copy the value");
    MPI_OK(MPI_Comm_free(&dup));

    /* a keyval of MPI_Comm_create_keyval through the old calls */
    int knew;
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &knew, NULL));
    MPI_OK(MPI_Attr_put(MPI_COMM_WORLD, knew, &flag));
    CHECK(get(MPI_COMM_WORLD, knew, 1) == &flag, "Attr_get of a Comm_create_keyval key");
    MPI_OK(MPI_Attr_delete(MPI_COMM_WORLD, knew));
    CHECK(ndelete == 4 && last_deleted == &flag, "Attr_delete ran the new-style callback");
    /* freeing a keyval with values keeps the values reachable */
    MPI_OK(MPI_Attr_put(MPI_COMM_WORLD, knew, &inc));
    int kcopy = knew;
    MPI_OK(MPI_Keyval_free(&knew));
    CHECK(knew == MPI_KEYVAL_INVALID, "Keyval_free did not reset the keyval");
    CHECK(get(MPI_COMM_WORLD, kcopy, 1) == &inc, "value lost with its freed keyval");
    MPI_OK(MPI_Attr_delete(MPI_COMM_WORLD, kcopy));
    CHECK(ndelete == 5, "delete callback of a freed keyval did not run");
    MPI_FAILS(MPI_ERR_KEYVAL, MPI_Attr_put(MPI_COMM_WORLD, kcopy, &inc));   /* freed */
    MPI_FAILS(MPI_ERR_KEYVAL, MPI_Attr_get(MPI_COMM_WORLD, kcopy, &v, &flag));

    /* a failing delete callback keeps the attribute (MPI_ERR_OTHER back) */
    int kfail;
    MPI_OK(MPI_Keyval_create(MPI_NULL_COPY_FN, failing_delete, &kfail, NULL));
    MPI_OK(MPI_Attr_put(MPI_COMM_WORLD, kfail, &inc));
    MPI_FAILS(MPI_ERR_OTHER, MPI_Attr_delete(MPI_COMM_WORLD, kfail));
    CHECK(get(MPI_COMM_WORLD, kfail, 1) == &inc, "failed delete dropped the value");

    /* bad arguments */
    int ktype;
    MPI_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &ktype, NULL));
    MPI_FAILS(MPI_ERR_KEYVAL, MPI_Attr_put(MPI_COMM_WORLD, ktype, &inc));
    MPI_FAILS(MPI_ERR_KEYVAL, MPI_Attr_get(MPI_COMM_WORLD, ktype, &v, &flag));
    MPI_FAILS(MPI_ERR_KEYVAL, MPI_Keyval_free(&ktype));
    MPI_OK(MPI_Type_free_keyval(&ktype));
    MPI_FAILS(MPI_ERR_KEYVAL, MPI_Attr_put(MPI_COMM_WORLD, MPI_TAG_UB, &inc));
    MPI_FAILS(MPI_ERR_KEYVAL, MPI_Attr_delete(MPI_COMM_WORLD, MPI_TAG_UB));
    int kpre = MPI_TAG_UB;
    MPI_FAILS(MPI_ERR_KEYVAL, MPI_Keyval_free(&kpre));
    MPI_FAILS(MPI_ERR_KEYVAL, MPI_Attr_get(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v, &flag));
    MPI_FAILS(MPI_ERR_COMM, MPI_Attr_put(MPI_COMM_NULL, kdup, &inc));
    MPI_FAILS(MPI_ERR_COMM, MPI_Attr_get(MPI_COMM_NULL, kdup, &v, &flag));
    MPI_FAILS(MPI_ERR_COMM, MPI_Attr_delete(MPI_COMM_NULL, kdup));
    MPI_FAILS(MPI_ERR_ARG, MPI_Attr_get(MPI_COMM_WORLD, kdup, &v, NULL));
    MPI_FAILS(MPI_ERR_ARG, MPI_Attr_get(MPI_COMM_WORLD, kdup, NULL, &flag));
    MPI_FAILS(MPI_ERR_ARG, MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, NULL, NULL));
    MPI_FAILS(MPI_ERR_ARG, MPI_Keyval_free(NULL));

    /* clean up (the failing callback now lets go) */
    fail_deletes = 0;
    MPI_OK(MPI_Attr_delete(MPI_COMM_WORLD, kfail));
    MPI_OK(MPI_Keyval_free(&kfail));
    MPI_OK(MPI_Attr_delete(MPI_COMM_WORLD, knull));
    MPI_OK(MPI_Attr_delete(MPI_COMM_WORLD, kdup));
    MPI_OK(MPI_Keyval_free(&knull));
    MPI_OK(MPI_Keyval_free(&kdup));
    MPI_OK(MPI_Keyval_free(&key));
    return mt_finish();
}
