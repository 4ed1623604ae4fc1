/*
 * datatype.h — what the datatype entry point files of src/ (datatype.c,
 * darray.c, pack_external.c, f90types.c) share: looking a handle up with
 * its error, registering a new type, and the argument-check macros that
 * report through MPI_COMM_WORLD's error handler.
 */
#ifndef MPIR_DATATYPE_H
#define MPIR_DATATYPE_H

#include "src/mpir.h"

/* The datatype behind handle t, or an error code naming fn and arg.
 * need_commit: the type is used to move data, so it must be committed. */
int mpir_dtype_lookup(const char *fn, const char *arg, MPI_Datatype t, int need_commit,
                      cu_dtype **out);

/* Records the constructor, gives dt a handle and stores it in *newtype.
 * dt == NULL means the engine ran out of memory. Errors are reported. */
int mpir_dtype_finish(const char *fn, cu_dtype *dt, int combiner, int ni, const int *ints,
                      int na, const MPI_Aint *aints, int nd, const cu_dtype *const *types,
                      MPI_Datatype *newtype);

/* The checks MPI_Pack, MPI_Unpack and their external32 forms share: the
 * typed side (count, committed datatype) and the packed buffer (`packed`,
 * `size` bytes, position pointer non-NULL, `pos` bytes used). `external`:
 * sizes in the external32 representation. Returns MPI_SUCCESS with the
 * packed bytes to move, or an error code naming fn and the argument. */
int mpir_pack_checks(const char *fn, int count, const char *countname, MPI_Datatype datatype,
                     int external, const void *packed, const char *packedname, MPI_Aint size,
                     const char *sizename, const void *position, MPI_Aint pos, cu_dtype **dt,
                     size_t *bytes);

/* Fortran-kind types (f90types.c): the handle of dt when it is one of
 * them (predefined: never freed by the program), else MPI_DATATYPE_NULL;
 * and forgetting them at MPI_Finalize, which frees the objects. */
MPI_Datatype mpir_f90_handle(const cu_dtype *dt);
void         mpir_f90_finalize(void);

#define MPIR_DT_ERR(cls, fn, ...) mpir_err_world(mpir_err((cls), (fn), __VA_ARGS__))

#define MPIR_DT_GET(fn, arg, t, commit, out)                                 \
    do {                                                                     \
        int rc_ = mpir_dtype_lookup((fn), (arg), (t), (commit), &(out));     \
        if (rc_)                                                             \
            return mpir_err_world(rc_);                                      \
    } while (0)

#define MPIR_DT_CHECK_PTR(fn, p, name)                                       \
    do {                                                                     \
        if (!(p))                                                            \
            return MPIR_DT_ERR(MPI_ERR_ARG, (fn), "%s is NULL", (name));     \
    } while (0)

#define MPIR_DT_CHECK_COUNT(fn, c, name)                                     \
    do {                                                                     \
        if ((c) < 0)                                                         \
            return MPIR_DT_ERR(MPI_ERR_COUNT, (fn), "negative %s (%d)", (name), (c)); \
    } while (0)

#endif
