/*
 * fortran.c — the helpers of libmpifort's generated wrappers (fortran.h),
 * and MPI_F_STATUS_IGNORE pointed at Fortran's MPI_STATUS_IGNORE so that
 * C code handed a Fortran status recognises it.
 */
#include <string.h>
#include "src/fortran/fortran.h"

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

int mpir_f_nomem(void)
{
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    return MPI_ERR_NO_MEM;
}

__attribute__((constructor)) static void mpir_f_init(void)
{
    MPI_F_STATUS_IGNORE = mpi_fortran_status_ignore_;
    MPI_F_STATUSES_IGNORE = mpi_fortran_statuses_ignore_;
}
