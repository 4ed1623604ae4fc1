/*
 * fortran.h — what libmpifort's generated wrappers (mpi_fortran.c, from
 * gen.py) share: the sentinels' common blocks and the conversions of
 * buffers, statuses and strings between Fortran and C.
 */
#ifndef MPIR_FORTRAN_H
#define MPIR_FORTRAN_H

#include <stddef.h>
#include <stdlib.h>
#include <mpi.h>

/* libmpifort is built with hidden visibility like libmpi: the wrappers and
 * common blocks are what it exports. */
#define MPIR_F_EXPORT __attribute__((visibility("default")))

/* The longest string an MPI call writes (MPI_MAX_INFO_VAL). */
#define MPIR_F_STRMAX 1024

extern MPI_Fint mpi_fortran_bottom_, mpi_fortran_in_place_;
extern MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint mpi_fortran_unweighted_[1], mpi_fortran_weights_empty_[1];
extern MPI_Fint mpi_fortran_errcodes_ignore_[1];
extern char mpi_fortran_argv_null_[1], mpi_fortran_argvs_null_[1];

/* The Fortran routine this thread is in, for the error messages of libmpi
 * (src/errors.c finds mpir_f_entry_name, fortran.c): each wrapper names
 * itself around its C call and puts back what was there, since a Fortran
 * callback it runs may call MPI in turn. */
extern __thread const char *mpir_f_entry;

static inline const char *mpir_f_enter(const char *name)
{
    const char *prev = mpir_f_entry;
    mpir_f_entry = name;
    return prev;
}

static inline void mpir_f_leave(const char *prev)
{
    mpir_f_entry = prev;
}

/* A choice buffer: the addresses of MPI_BOTTOM and MPI_IN_PLACE are C's. */
static inline void *mpir_f_buf(void *buf)
{
    if (buf == &mpi_fortran_bottom_)
        return MPI_BOTTOM;
    if (buf == &mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    return buf;
}

/* A weights array: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are C's. */
static inline int *mpir_f_weights(MPI_Fint *w)
{
    if (w == mpi_fortran_unweighted_)
        return MPI_UNWEIGHTED;
    if (w == mpi_fortran_weights_empty_)
        return MPI_WEIGHTS_EMPTY;
    return w;
}

static inline int *mpir_f_errcodes(MPI_Fint *e)
{
    return e == mpi_fortran_errcodes_ignore_ ? MPI_ERRCODES_IGNORE : e;
}

static inline int mpir_f_ignored(const MPI_Fint *status)
{
    return status == mpi_fortran_status_ignore_ || status == mpi_fortran_statuses_ignore_;
}

static inline int mpir_f_statuses_ignored(const MPI_Fint *statuses)
{
    return statuses == mpi_fortran_statuses_ignore_;
}

/* n zeroed C statuses (those a call leaves undefined convert to zeros),
 * NULL when out of memory (n <= 0: one, never used). */
MPI_Status *mpir_f_status_array(MPI_Fint n);
/* A Fortran string without its trailing blanks, NUL-terminated (free it). */
char *mpir_f_strin(const char *s, size_t len);
/* A C string into a Fortran one of len characters, blank-padded. */
void mpir_f_strout(const char *c, char *f, size_t len);
/* Spawn's strings (MPI-3.1 10.3.2): an argv ending in a blank string
 * (MPI_ARGV_NULL: NULL), n commands, and an array of n argvs, argument j
 * of command i at (i, j) (MPI_ARGVS_NULL: NULL). Each returns nonzero when
 * out of memory; the _free calls take what they made. */
int mpir_f_argv(const char *f, size_t len, char ***c);
int mpir_f_strs(const char *f, MPI_Fint n, size_t len, char ***c);
int mpir_f_argvs(const char *f, MPI_Fint n, size_t len, char ****c);
void mpir_f_argv_free(char **c);
void mpir_f_strs_free(char **c);
void mpir_f_argvs_free(char ***c, MPI_Fint n);
/* An attribute's value as Fortran sees it: the int or address a
 * predefined keyval's C pointer points to, else the pointer itself. */
MPI_Aint mpir_f_attr_value(int keyval, void *c);
/* MPI_ERR_NO_MEM, through MPI_COMM_WORLD's error handler. */
int mpir_f_nomem(void);

/* A hand-written wrapper's mpi_x_: a weak alias of its pmpi_x_, as gen.py
 * makes them. */
#define MPIR_F_ALIAS(x)                                                        \
    MPIR_F_EXPORT extern __typeof(pmpi_##x##_) mpi_##x##_                      \
        __attribute__((weak, alias("pmpi_" #x "_")))

#endif
