/* np: 1 2 3 4 6 8 16
 *
 * stencil — Jacobi iteration of the 2-D heat equation on a periodic N x N
 * grid split over a Cartesian communicator (MPI_Dims_create, MPI_Cart_create,
 * MPI_Cart_shift). Each step exchanges halos with MPI_Sendrecv: rows
 * contiguously, columns through an MPI_Type_vector. Rank 0 gathers the grid
 * with point-to-point messages and compares it with the same computation done
 * serially; they must agree exactly.
 *
 *   mpicc examples/stencil.c -o stencil -lm && mpirun -n 4 ./stencil [N] [steps]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double initial(int i, int j, int n)
{
    return sin(6.283185307179586 * i / n) * cos(6.283185307179586 * 2 * j / n) + (i == n / 3 && j == n / 2);
}

/* one Jacobi step of the interior of a (rows+2) x (cols+2) block */
static void step(const double *u, double *v, int rows, int cols)
{
    int w = cols + 2;
    for (int i = 1; i <= rows; i++)
        for (int j = 1; j <= cols; j++)
            v[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] +
                                   u[i * w + j + 1]);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 96, steps = argc > 2 ? atoi(argv[2]) : 100;

    int dims[2] = {0, 0}, periods[2] = {1, 1}, coords[2];
    MPI_Dims_create(size, 2, dims);
    if (n % dims[0] || n % dims[1]) {
        fprintf(stderr, "stencil: N=%d does not divide into %dx%d blocks\n", n, dims[0], dims[1]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_coords(cart, rank, 2, coords);
    int up, down, left, right;
    MPI_Cart_shift(cart, 0, 1, &up, &down);
    MPI_Cart_shift(cart, 1, 1, &left, &right);

    int rows = n / dims[0], cols = n / dims[1], w = cols + 2;
    int r0 = coords[0] * rows, c0 = coords[1] * cols;
    double *u = calloc((size_t)(rows + 2) * w, sizeof(double));
    double *v = calloc((size_t)(rows + 2) * w, sizeof(double));
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            u[(i + 1) * w + j + 1] = initial(r0 + i, c0 + j, n);

    MPI_Datatype column;
    MPI_Type_vector(rows, 1, w, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);

    double t0 = MPI_Wtime();
    for (int s = 0; s < steps; s++) {
        /* rows: send my first row up, receive the bottom halo from below; and back */
        MPI_Sendrecv(&u[1 * w + 1], cols, MPI_DOUBLE, up, 0, &u[(rows + 1) * w + 1], cols,
                     MPI_DOUBLE, down, 0, cart, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[rows * w + 1], cols, MPI_DOUBLE, down, 1, &u[0 * w + 1], cols,
                     MPI_DOUBLE, up, 1, cart, MPI_STATUS_IGNORE);
        /* columns */
        MPI_Sendrecv(&u[1 * w + 1], 1, column, left, 2, &u[1 * w + cols + 1], 1, column, right, 2,
                     cart, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[1 * w + cols], 1, column, right, 3, &u[1 * w + 0], 1, column, left, 3,
                     cart, MPI_STATUS_IGNORE);
        step(u, v, rows, cols);
        double *t = u;
        u = v;
        v = t;
    }
    double t = MPI_Wtime() - t0;

    /* gather: each rank sends its interior block (rows of cols) to 0 */
    MPI_Datatype block;
    MPI_Type_vector(rows, cols, w, MPI_DOUBLE, &block);
    MPI_Type_commit(&block);
    int status = 0;
    if (rank == 0) {
        double *g = malloc(sizeof(double) * (size_t)n * n);
        double *tmp = malloc(sizeof(double) * (size_t)rows * cols);
        for (int r = 0; r < size; r++) {
            int rc[2];
            MPI_Cart_coords(cart, r, 2, rc);
            if (r == 0) {
                for (int i = 0; i < rows; i++)
                    memcpy(tmp + (size_t)i * cols, &u[(i + 1) * w + 1], sizeof(double) * cols);
            } else {
                MPI_Recv(tmp, rows * cols, MPI_DOUBLE, r, 9, cart, MPI_STATUS_IGNORE);
            }
            for (int i = 0; i < rows; i++)
                memcpy(&g[(size_t)(rc[0] * rows + i) * n + rc[1] * cols], tmp + (size_t)i * cols,
                       sizeof(double) * cols);
        }
        /* serial reference on the whole grid with periodic halos */
        int W = n + 2;
        double *a = calloc((size_t)W * W, sizeof(double)), *b = calloc((size_t)W * W, sizeof(double));
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                a[(i + 1) * W + j + 1] = initial(i, j, n);
        for (int s = 0; s < steps; s++) {
            for (int j = 1; j <= n; j++) {
                a[0 * W + j] = a[n * W + j];
                a[(n + 1) * W + j] = a[1 * W + j];
            }
            for (int i = 1; i <= n; i++) {
                a[i * W + 0] = a[i * W + n];
                a[i * W + n + 1] = a[i * W + 1];
            }
            step(a, b, n, n);
            double *x = a;
            a = b;
            b = x;
        }
        double maxdiff = 0, sum = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double d = fabs(g[(size_t)i * n + j] - a[(i + 1) * W + j + 1]);
                if (d > maxdiff)
                    maxdiff = d;
                sum += g[(size_t)i * n + j];
            }
        printf("stencil: %dx%d grid on %dx%d ranks, %d steps, sum %.6f, max diff from serial %g, "
               "%.3f ms\n", n, n, dims[0], dims[1], steps, sum, maxdiff, t * 1e3);
        if (maxdiff != 0) {
            fprintf(stderr, "stencil: the parallel result differs from the serial one\n");
            status = 1;
        }
        free(a);
        free(b);
        free(g);
        free(tmp);
    } else {
        MPI_Send(&u[1 * w + 1], 1, block, 0, 9, cart);
    }
    MPI_Type_free(&column);
    MPI_Type_free(&block);
    MPI_Comm_free(&cart);
    free(u);
    free(v);
    MPI_Finalize();
    return status;
}
