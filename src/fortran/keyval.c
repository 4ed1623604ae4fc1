/*
 * keyval.c — attribute caching from Fortran: MPI_COMM/TYPE/WIN_CREATE_KEYVAL
 * and MPI-1's MPI_KEYVAL_CREATE with Fortran copy and delete procedures,
 * the predefined ones (MPI_COMM_DUP_FN, ...) as Fortran procedures, and the
 * value of a predefined attribute as Fortran reads it.
 *
 * C calls a keyval's callbacks with C's arguments; a Fortran procedure wants
 * every argument by reference, attribute values and extra state as integers
 * and its result in IERROR. So the C keyval gets the trampolines below, with
 * a kv_fort (the Fortran procedures and extra state) as its extra state.
 * Communicator, datatype and window handles are all ints, so one pair of
 * trampolines serves the three.
 */
#include <pthread.h>
#include "src/fortran/fortran.h"

typedef void f_copy_fn(MPI_Fint *, MPI_Fint *, void *, void *, void *, MPI_Fint *, MPI_Fint *);
typedef void f_delete_fn(MPI_Fint *, MPI_Fint *, void *, void *, MPI_Fint *);

typedef struct kv_fort {
    f_copy_fn *copy;
    f_delete_fn *del;
    MPI_Aint extra;
    int mpi1;              /* MPI_KEYVAL_CREATE: INTEGER values and extra state */
    struct kv_fort *next;
} kv_fort;

/* Every kv_fort made: a keyval's callbacks run until its last attribute
 * goes, after MPI_*_FREE_KEYVAL, and C says nothing when that is; they are
 * few and small, and kept to the end. */
static kv_fort *all_kvs;
static pthread_mutex_t kvs_lock = PTHREAD_MUTEX_INITIALIZER;

static kv_fort *kv_new(f_copy_fn *copy, f_delete_fn *del, MPI_Aint extra, int mpi1)
{
    kv_fort *k = malloc(sizeof *k);
    if (!k)
        return NULL;
    *k = (kv_fort){ copy, del, extra, mpi1, NULL };
    pthread_mutex_lock(&kvs_lock);
    k->next = all_kvs;
    all_kvs = k;
    pthread_mutex_unlock(&kvs_lock);
    return k;
}

static int kv_copy(int old, int keyval, void *extra, void *in, void *out, int *flag)
{
    kv_fort *k = extra;
    MPI_Fint h = old, kv = keyval, f = 0, ierr = MPI_SUCCESS;
    if (k->mpi1) {
        MPI_Fint ex = (MPI_Fint)k->extra, vin = (MPI_Fint)(MPI_Aint)in, vout = 0;
        k->copy(&h, &kv, &ex, &vin, &vout, &f, &ierr);
        *(void **)out = (void *)(MPI_Aint)vout;
    } else {
        MPI_Aint ex = k->extra, vin = (MPI_Aint)in, vout = 0;
        k->copy(&h, &kv, &ex, &vin, &vout, &f, &ierr);
        *(void **)out = (void *)vout;
    }
    *flag = f != 0;
    return ierr;
}

static int kv_delete(int obj, int keyval, void *val, void *extra)
{
    kv_fort *k = extra;
    MPI_Fint h = obj, kv = keyval, ierr = MPI_SUCCESS;
    if (k->mpi1) {
        MPI_Fint ex = (MPI_Fint)k->extra, v = (MPI_Fint)(MPI_Aint)val;
        k->del(&h, &kv, &v, &ex, &ierr);
    } else {
        MPI_Aint ex = k->extra, v = (MPI_Aint)val;
        k->del(&h, &kv, &v, &ex, &ierr);
    }
    return ierr;
}

/* One Fortran CREATE_KEYVAL: create is the C call for its kind of object. */
static void create(const char *fname,
                   int (*create)(MPI_Comm_copy_attr_function *, MPI_Comm_delete_attr_function *,
                                 int *, void *),
                   f_copy_fn *copy, f_delete_fn *del, MPI_Fint *keyval, MPI_Aint extra, int mpi1,
                   MPI_Fint *ierr)
{
    const char *f_prev = mpir_f_enter(fname);
    kv_fort *k = kv_new(copy, del, extra, mpi1);
    *ierr = k ? create(kv_copy, kv_delete, keyval, k) : mpir_f_nomem();
    mpir_f_leave(f_prev);
}

#define MPIR_F_CREATE_KEYVAL(x, fname, c_create, extra_type, mpi1)              \
    MPIR_F_EXPORT void pmpi_##x##_(f_copy_fn *copy, f_delete_fn *del, MPI_Fint *keyval,  \
                                   extra_type *extra_state, MPI_Fint *ierr)           \
    {                                                                          \
        create(fname, c_create, copy, del, keyval, *extra_state, mpi1, ierr);  \
    }                                                                          \
    MPIR_F_ALIAS(x)
MPIR_F_CREATE_KEYVAL(comm_create_keyval, "MPI_COMM_CREATE_KEYVAL", MPI_Comm_create_keyval, MPI_Aint, 0);
MPIR_F_CREATE_KEYVAL(type_create_keyval, "MPI_TYPE_CREATE_KEYVAL", MPI_Type_create_keyval, MPI_Aint, 0);
MPIR_F_CREATE_KEYVAL(win_create_keyval, "MPI_WIN_CREATE_KEYVAL", MPI_Win_create_keyval, MPI_Aint, 0);
MPIR_F_CREATE_KEYVAL(keyval_create, "MPI_KEYVAL_CREATE", MPI_Keyval_create, MPI_Fint, 1);

/* ---- the predefined callbacks, with Fortran's arguments ------------------ */
MPIR_F_EXPORT void mpi_comm_null_copy_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra,
                                          MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag,
                                          MPI_Fint *ierr)
{
    (void)old, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    *ierr = MPI_SUCCESS;
}

MPIR_F_EXPORT void mpi_comm_dup_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra,
                                    MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
    (void)old, (void)keyval, (void)extra;
    *out = *in;
    *flag = 1;
    *ierr = MPI_SUCCESS;
}

MPIR_F_EXPORT void mpi_comm_null_delete_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val,
                                            MPI_Aint *extra, MPI_Fint *ierr)
{
    (void)obj, (void)keyval, (void)val, (void)extra;
    *ierr = MPI_SUCCESS;
}

MPIR_F_EXPORT void mpi_dup_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in,
                               MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
    (void)old, (void)keyval, (void)extra;
    *out = *in;
    *flag = 1;
    *ierr = MPI_SUCCESS;
}

/* The rest do the same as those: the null ones never read a value, so its
 * width does not matter. */
#define MPIR_F_SAME(x, as)                                                     \
    MPIR_F_EXPORT extern __typeof(as) x __attribute__((alias(#as)))
MPIR_F_SAME(mpi_type_null_copy_fn_, mpi_comm_null_copy_fn_);
MPIR_F_SAME(mpi_win_null_copy_fn_, mpi_comm_null_copy_fn_);
MPIR_F_SAME(mpi_type_dup_fn_, mpi_comm_dup_fn_);
MPIR_F_SAME(mpi_win_dup_fn_, mpi_comm_dup_fn_);
MPIR_F_SAME(mpi_type_null_delete_fn_, mpi_comm_null_delete_fn_);
MPIR_F_SAME(mpi_win_null_delete_fn_, mpi_comm_null_delete_fn_);
MPIR_F_SAME(mpi_null_copy_fn_, mpi_comm_null_copy_fn_);
MPIR_F_SAME(mpi_null_delete_fn_, mpi_comm_null_delete_fn_);

/* ---- predefined attributes ----------------------------------------------- */
MPI_Aint mpir_f_attr_value(int keyval, void *c)
{
    switch (keyval) {
    case MPI_TAG_UB: case MPI_HOST: case MPI_IO: case MPI_WTIME_IS_GLOBAL:
    case MPI_UNIVERSE_SIZE: case MPI_LASTUSEDCODE: case MPI_APPNUM:
    case MPI_WIN_DISP_UNIT: case MPI_WIN_CREATE_FLAVOR: case MPI_WIN_MODEL:
        return *(int *)c;
    case MPI_WIN_SIZE:
        return *(MPI_Aint *)c;
    }
    return (MPI_Aint)c;   /* MPI_WIN_BASE and the user's: the value itself */
}
