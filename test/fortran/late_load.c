/* np: 1 3
 *
 * late_load.c — a C program that loads libmpifort with dlopen after MPI_Init
 * and after an error: an error raised through a Fortran call then names the
 * Fortran routine in MPI_Error_string, and a C call's before and after do
 * not (libmpi finds libmpifort when it formats the error, not once).
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void f_send(void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                    MPI_Fint *);

static void fail(const char *what, const char *msg)
{
    fprintf(stderr, "late_load: %s: %s\n", what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The message of a send to a rank that does not exist, by C or Fortran. */
static void bad_send(f_send *fsend, int dest, char *msg)
{
    int buf = 0, rc, len;
    if (fsend) {
        MPI_Fint n = 1, dt = MPI_Type_c2f(MPI_INT), d = dest, tag = 0,
                 comm = MPI_Comm_c2f(MPI_COMM_WORLD), ierr = MPI_SUCCESS;
        fsend(&buf, &n, &dt, &d, &tag, &comm, &ierr);
        rc = ierr;
    } else {
        rc = MPI_Send(&buf, 1, MPI_INT, dest, 0, MPI_COMM_WORLD);
    }
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_RANK)
        fail("a send to a missing rank", "not MPI_ERR_RANK");
    MPI_Error_string(rc, msg, &len);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char msg[MPI_MAX_ERROR_STRING];

    bad_send(NULL, size + 3, msg);
    if (strstr(msg, "Fortran") || !strstr(msg, "MPI_Send"))
        fail("C's error before libmpifort", msg);

    void *h = dlopen(LIBMPIFORT, RTLD_NOW | RTLD_GLOBAL);
    if (!h)
        fail("dlopen", dlerror());
    f_send *fsend;
    *(void **)&fsend = dlsym(h, "mpi_send_");
    if (!fsend)
        fail("dlsym mpi_send_", dlerror());

    bad_send(fsend, size + 3, msg);
    if (!strstr(msg, "MPI_SEND (Fortran)"))
        fail("Fortran's error after dlopen", msg);
    bad_send(NULL, size + 3, msg);
    if (strstr(msg, "Fortran"))
        fail("C's error after Fortran's", msg);

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    /* libmpifort stays loaded: its status sentinels are libmpi's until exit */
    return 0;
}
