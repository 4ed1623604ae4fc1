/* np: 1 2 3 4 8 16
 *
 * pi — integrate 4/(1+x^2) over [0,1] with the midpoint rule; each rank
 * takes every size-th interval and rank 0 adds the partial sums, received
 * with MPI_ANY_SOURCE (point-to-point: no reductions needed). Checks the
 * result against M_PI.
 *
 *   mpicc examples/pi.c -o pi && mpirun -n 4 ./pi [intervals]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    double h = 1.0 / (double)n, part = 0.0;

    double t0 = MPI_Wtime();
    for (long i = rank; i < n; i += size) {
        double x = h * ((double)i + 0.5);
        part += 4.0 / (1.0 + x * x);
    }
    part *= h;

    if (rank == 0) {
        double pi = part;
        for (int r = 1; r < size; r++) {
            double p;
            MPI_Recv(&p, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pi += p;
        }
        double err = fabs(pi - M_PI);
        printf("pi is about %.16f, error %.3g, %d ranks, %.3f s\n", pi, err, size, MPI_Wtime() - t0);
        if (err > 1e-8) {
            fprintf(stderr, "pi: error %g is too large\n", err);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    } else {
        MPI_Send(&part, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
