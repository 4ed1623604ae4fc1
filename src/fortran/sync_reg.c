/*
 * sync_reg.c — MPI_F_SYNC_REG (MPI-3.1 17.1.7) for the mpi_f08 module: it
 * does nothing but be a call the Fortran compiler cannot see into, so that
 * the compiler keeps no copy of the buffer in a register across it.
 */
#include "src/fortran/fortran.h"

MPIR_F_EXPORT void pmpi_f_sync_reg_(void *buf);
MPIR_F_EXPORT void pmpi_f_sync_reg_(void *buf)
{
    (void)buf;
}
MPIR_F_EXPORT extern __typeof(pmpi_f_sync_reg_) mpi_f_sync_reg_
    __attribute__((weak, alias("pmpi_f_sync_reg_")));
