/* np: 1 2
 *
 * Around MPI_Init and MPI_Finalize: Initialized/Finalized report the state,
 * Get_version works at any time, and (under clumpi, which promises it) MPI
 * calls before MPI_Init or after MPI_Finalize return an error instead
 * of crashing. Other MPIs are free to abort there, so those calls are made
 * only when built against clumpi.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define FAIL(...)                                                             \
    do {                                                                      \
        fprintf(stderr, "FAIL initfini: " __VA_ARGS__);                       \
        fputc('\n', stderr);                                                  \
        exit(1);                                                              \
    } while (0)

int main(int argc, char **argv)
{
    int flag = -1, v, sv, rank = -1, size;
    if (MPI_Initialized(&flag) != MPI_SUCCESS || flag != 0)
        FAIL("Initialized before Init: %d", flag);
    if (MPI_Finalized(&flag) != MPI_SUCCESS || flag != 0)
        FAIL("Finalized before Init: %d", flag);
    if (MPI_Get_version(&v, &sv) != MPI_SUCCESS || v < 3)
        FAIL("Get_version before Init: %d.%d", v, sv);
#ifdef CLUMPI
    {
        int x = 0;
        if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS)
            FAIL("Comm_rank before Init succeeded");
        if (MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_SUCCESS)
            FAIL("Send before Init succeeded");
        if (MPI_Finalize() == MPI_SUCCESS)
            FAIL("Finalize before Init succeeded");
    }
#endif
    int provided = -1;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        FAIL("Init_thread");
    if (provided < MPI_THREAD_FUNNELED && provided != MPI_THREAD_SINGLE)
        FAIL("Init_thread provided %d", provided);
    int q = -2;
    MPI_Query_thread(&q);
    if (q != provided)
        FAIL("Query_thread %d, Init_thread said %d", q, provided);
    MPI_Is_thread_main(&flag);
    if (!flag)
        FAIL("Is_thread_main false on the main thread");
    MPI_Initialized(&flag);
    if (!flag)
        FAIL("Initialized false after Init");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char name[MPI_MAX_PROCESSOR_NAME], lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    if (MPI_Get_processor_name(name, &len) != MPI_SUCCESS || len <= 0 || len >= MPI_MAX_PROCESSOR_NAME)
        FAIL("Get_processor_name: %d", len);
    if (MPI_Get_library_version(lib, &len) != MPI_SUCCESS || len <= 0)
        FAIL("Get_library_version");
    double t0 = MPI_Wtime(), t1 = MPI_Wtime();
    if (t1 < t0 || MPI_Wtick() <= 0 || MPI_Wtick() > 0.01)
        FAIL("Wtime/Wtick: %g %g %g", t0, t1, MPI_Wtick());
    /* a token around the ring so every rank is up before anyone finalizes */
    int tok = 0;
    if (size > 1) {
        if (rank == 0) {
            tok = 1;
            MPI_Send(&tok, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&tok, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (tok != size)
                FAIL("token %d", tok);
        } else {
            MPI_Recv(&tok, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            tok++;
            MPI_Send(&tok, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
        }
    }
    MPI_Finalized(&flag);
    if (flag)
        FAIL("Finalized true before Finalize");
    if (MPI_Finalize() != MPI_SUCCESS)
        FAIL("Finalize");
    MPI_Finalized(&flag);
    if (!flag)
        FAIL("Finalized false after Finalize");
    MPI_Initialized(&flag);
    if (!flag)
        FAIL("Initialized false after Finalize (it stays true)");
    if (MPI_Get_version(&v, &sv) != MPI_SUCCESS)
        FAIL("Get_version after Finalize");
#ifdef CLUMPI
    {
        int x = 0, r2;
        if (MPI_Comm_rank(MPI_COMM_WORLD, &r2) == MPI_SUCCESS)
            FAIL("Comm_rank after Finalize succeeded");
        if (MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_SUCCESS)
            FAIL("Send after Finalize succeeded");
        if (MPI_Init(&argc, &argv) == MPI_SUCCESS)
            FAIL("second MPI_Init succeeded");
        if (MPI_Finalize() == MPI_SUCCESS)
            FAIL("second Finalize succeeded");
    }
#endif
    if (rank == 0)
        printf("PASS initfini (%d ranks)\n", size);
    return 0;
}
