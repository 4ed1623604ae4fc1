/* mixed_c.c — the C part of mixed.f90: returns 0, or the number of the
 * first check that failed. */
#include <mpi.h>

int c_part(const MPI_Fint *fcomm, const MPI_Fint *ftype, const MPI_Fint *fstatus,
           MPI_Fint *fignore, MPI_Fint *fnewcomm)
{
    MPI_Comm comm = MPI_Comm_f2c(*fcomm);
    MPI_Datatype type = MPI_Type_f2c(*ftype);
    int rank, size, res, tsize, count;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return 1;
    if (MPI_Comm_compare(comm, MPI_COMM_WORLD, &res) != MPI_SUCCESS || res != MPI_CONGRUENT)
        return 2;
    if (MPI_Type_size(type, &tsize) != MPI_SUCCESS || tsize != 2 * (int)sizeof(MPI_Fint))
        return 3;
    MPI_Status st;
    if (MPI_Status_f2c(fstatus, &st) != MPI_SUCCESS || st.MPI_SOURCE != rank || st.MPI_TAG != 42)
        return 4;
    if (MPI_Get_count(&st, MPI_INTEGER, &count) != MPI_SUCCESS || count != 1)
        return 5;
    if (fignore != MPI_F_STATUS_IGNORE)
        return 6;
    MPI_Comm rev;
    if (MPI_Comm_split(comm, 0, size - rank, &rev) != MPI_SUCCESS)
        return 7;
    *fnewcomm = MPI_Comm_c2f(rev);
    return 0;
}
