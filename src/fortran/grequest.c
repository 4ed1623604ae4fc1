/*
 * grequest.c — MPI_GREQUEST_START from Fortran: C calls the request's
 * query, free and cancel functions with C's arguments; these trampolines
 * call the Fortran procedures with Fortran's (extra state as an
 * INTEGER(KIND=MPI_ADDRESS_KIND), the status as an integer array, LOGICAL
 * complete, the result in IERROR). Their state lives until free_fn ran.
 */
#include "src/fortran/fortran.h"

typedef void f_query_fn(MPI_Aint *, MPI_Fint *, MPI_Fint *);
typedef void f_free_fn(MPI_Aint *, MPI_Fint *);
typedef void f_cancel_fn(MPI_Aint *, MPI_Fint *, MPI_Fint *);

typedef struct {
    f_query_fn *query;
    f_free_fn *free;
    f_cancel_fn *cancel;
    MPI_Aint extra;
} greq_fort;

static int greq_query(void *extra, MPI_Status *status)
{
    greq_fort *g = extra;
    MPI_Fint fs[MPI_F_STATUS_SIZE], ierr = MPI_SUCCESS;
    MPI_Status_c2f(status, fs);
    g->query(&g->extra, fs, &ierr);
    MPI_Status_f2c(fs, status);
    return ierr;
}

static int greq_free(void *extra)
{
    greq_fort *g = extra;
    MPI_Fint ierr = MPI_SUCCESS;
    g->free(&g->extra, &ierr);
    free(g);
    return ierr;
}

static int greq_cancel(void *extra, int complete)
{
    greq_fort *g = extra;
    MPI_Fint c = complete ? 1 : 0, ierr = MPI_SUCCESS;
    g->cancel(&g->extra, &c, &ierr);
    return ierr;
}

MPIR_F_EXPORT void pmpi_grequest_start_(f_query_fn *query_fn, f_free_fn *free_fn,
                                        f_cancel_fn *cancel_fn, MPI_Aint *extra_state,
                                        MPI_Fint *request, MPI_Fint *ierr)
{
    greq_fort *g = malloc(sizeof *g);
    if (!g) {
        *ierr = mpir_f_nomem();
        return;
    }
    *g = (greq_fort){ query_fn, free_fn, cancel_fn, *extra_state };
    const char *f_prev = mpir_f_enter("MPI_GREQUEST_START");
    *ierr = MPI_Grequest_start(greq_query, greq_free, greq_cancel, g, request);
    mpir_f_leave(f_prev);
    if (*ierr != MPI_SUCCESS)
        free(g);
}
MPIR_F_ALIAS(grequest_start);
