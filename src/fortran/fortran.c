/*
 * fortran.c — the helpers of libmpifort's generated wrappers (fortran.h),
 * the Fortran routine each thread is in, and MPI_F_STATUS_IGNORE pointed at Fortran's MPI_STATUS_IGNORE so that
 * C code handed a Fortran status recognises it.
 */
#include <string.h>
#include "src/fortran/fortran.h"

__thread const char *mpir_f_entry;

MPIR_F_EXPORT const char *mpir_f_entry_name(void);
MPIR_F_EXPORT const char *mpir_f_entry_name(void)
{
    return mpir_f_entry;
}

MPI_Status *mpir_f_status_array(MPI_Fint n)
{
    return calloc((size_t)(n > 0 ? n : 1), sizeof(MPI_Status));
}

char *mpir_f_strin(const char *s, size_t len)
{
    while (len > 0 && s[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, s, len);
        c[len] = '\0';
    }
    return c;
}

void mpir_f_strout(const char *c, char *f, size_t len)
{
    size_t n = strlen(c);
    if (n > len)
        n = len;
    memcpy(f, c, n);
    memset(f + n, ' ', len - n);
}

/* The strings of f[0], f[len], ... up to the first blank one (at most max
 * of them, max < 0: no limit), each stride * len apart; NULL-terminated. */
static char **strings(const char *f, long max, size_t stride, size_t len, int stop_blank)
{
    long n = 0;
    while (max < 0 || n < max) {
        const char *s = f + (size_t)n * stride * len;
        size_t k = 0;
        while (k < len && s[k] == ' ')
            k++;
        if (stop_blank && k == len)
            break;
        n++;
    }
    char **c = calloc((size_t)n + 1, sizeof *c);
    for (long i = 0; c && i < n; i++)
        if (!(c[i] = mpir_f_strin(f + (size_t)i * stride * len, len))) {
            mpir_f_argv_free(c);
            c = NULL;
        }
    return c;
}

int mpir_f_argv(const char *f, size_t len, char ***c)
{
    if (f == mpi_fortran_argv_null_) {
        *c = MPI_ARGV_NULL;
        return 0;
    }
    *c = strings(f, -1, 1, len, 1);
    return !*c;
}

int mpir_f_strs(const char *f, MPI_Fint n, size_t len, char ***c)
{
    *c = strings(f, n > 0 ? n : 0, 1, len, 0);
    return !*c;
}

int mpir_f_argvs(const char *f, MPI_Fint n, size_t len, char ****c)
{
    if (f == mpi_fortran_argvs_null_ || n <= 0) {
        *c = MPI_ARGVS_NULL;
        return 0;
    }
    *c = calloc((size_t)n, sizeof **c);
    for (MPI_Fint i = 0; *c && i < n; i++)
        if (!((*c)[i] = strings(f + (size_t)i * len, -1, (size_t)n, len, 1))) {
            mpir_f_argvs_free(*c, n);
            *c = NULL;
        }
    return !*c;
}

void mpir_f_argv_free(char **c)
{
    for (size_t i = 0; c && c[i]; i++)
        free(c[i]);
    free(c);
}

void mpir_f_strs_free(char **c)
{
    mpir_f_argv_free(c);
}

void mpir_f_argvs_free(char ***c, MPI_Fint n)
{
    for (MPI_Fint i = 0; c && i < n; i++)
        mpir_f_argv_free(c[i]);
    free(c);
}

int mpir_f_nomem(void)
{
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    return MPI_ERR_NO_MEM;
}

__attribute__((constructor)) static void mpir_f_init(void)
{
    MPI_F_STATUS_IGNORE = mpi_fortran_status_ignore_;
    MPI_F_STATUSES_IGNORE = mpi_fortran_statuses_ignore_;
    MPI_F08_STATUS_IGNORE = (MPI_F08_status *)mpi_fortran_status_ignore_;
    MPI_F08_STATUSES_IGNORE = (MPI_F08_status *)mpi_fortran_statuses_ignore_;
}
