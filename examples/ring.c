/* np: 1 2 3 4 8 16
 *
 * ring — a token goes round the ring of ranks several times; each rank adds
 * its rank number. Rank 0 checks the total at the end of every lap and
 * reports the average time per hop.
 *
 *   mpicc examples/ring.c -o ring && mpirun -n 8 ./ring [laps]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int laps = argc > 1 ? atoi(argv[1]) : 1000;
    int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
    long token = 0, per_lap = (long)size * (size - 1) / 2;

    double t0 = MPI_Wtime();
    for (int lap = 0; lap < laps; lap++) {
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (token != per_lap * (lap + 1)) {
                fprintf(stderr, "ring: lap %d: token %ld, expected %ld\n", lap, token,
                        per_lap * (lap + 1));
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        } else {
            MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += rank;
            MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
        }
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0)
        printf("ring: %d ranks, %d laps, token %ld, %.3f us per hop\n", size, laps, token,
               t * 1e6 / ((double)laps * size));
    MPI_Finalize();
    return 0;
}
