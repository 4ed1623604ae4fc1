/*
 * pcontrol.c — MPI_Pcontrol, the profiling control hook (MPI-3.1 section
 * 14.2.4). The library itself does no profiling: the call is exported (as
 * MPI_ and PMPI_) so that a profiler interposing on MPI_Pcontrol sees the
 * program's calls, and the library's own answer is to return at once.
 */
#include "src/mpir.h"

/* Every level is accepted: 0 (profiling off), 1 (on, the default) and 2
 * (flush) have the meanings the standard gives a profiler, other values
 * are the profiler's to define. The variadic arguments are the profiler's
 * too and are not read. Usable before MPI_Init and after MPI_Finalize, so
 * that a profiler's set-up and tear-down code may call it. */
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
MPIR_WEAK(Pcontrol)
