/* np: 1 2 4 8 16
 *
 * hello — every rank says hello; rank 0 collects the greetings in rank order
 * with point-to-point messages and prints them, so the output is ordered.
 *
 *   mpicc examples/hello.c -o hello && mpirun -n 4 ./hello
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, len;
    char name[MPI_MAX_PROCESSOR_NAME], line[MPI_MAX_PROCESSOR_NAME + 64];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(name, &len);
    snprintf(line, sizeof line, "hello from rank %d of %d on %s", rank, size, name);

    if (rank == 0) {
        printf("%s\n", line);
        for (int r = 1; r < size; r++) {
            MPI_Status st;
            MPI_Recv(line, (int)sizeof line, MPI_CHAR, r, 0, MPI_COMM_WORLD, &st);
            printf("%s\n", line);
        }
    } else {
        MPI_Send(line, (int)strlen(line) + 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
