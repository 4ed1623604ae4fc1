/* np: 1 2 3 4 8
 *
 * cxx/ring.cxx — examples/ring.c in C++: a token goes round the ring of ranks
 * several times; each rank adds its rank number. Rank 0 checks the total
 * at the end of every lap and reports the average time per hop.
 *
 *   mpicxx examples/cxx/ring.cxx -o ring && mpirun -n 8 ./ring [laps]
 */
#include <mpi.h>
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int laps = argc > 1 ? std::atoi(argv[1]) : 1000;
    const int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
    const long per_lap = static_cast<long>(size) * (size - 1) / 2;
    long token = 0;

    const double t0 = MPI_Wtime();
    for (int lap = 0; lap < laps; lap++) {
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (token != per_lap * (lap + 1)) {
                std::fprintf(stderr, "ring: lap %d: token %ld, expected %ld\n", lap, token,
                             per_lap * (lap + 1));
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        } else {
            MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += rank;
            MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
        }
    }
    const double t = MPI_Wtime() - t0;
    if (rank == 0)
        std::printf("ring (C++): %d ranks, %d laps, token %ld, %.3f us per hop\n", size, laps,
                    token, t * 1e6 / (static_cast<double>(laps) * size));
    MPI_Finalize();
    return 0;
}
