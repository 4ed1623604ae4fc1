/*
 * errhandler.c — error handlers: MPI_ERRORS_ARE_FATAL (the default),
 * MPI_ERRORS_RETURN and user handlers made by MPI_Comm_create_errhandler.
 */
#include <stdio.h>
#include <stdlib.h>
#include "src/core.h"

typedef struct mpir_errh {
    MPI_Comm_errhandler_function *fn;   /* NULL for the predefined two */
    int refcount;
    int predefined;
} mpir_errh;

static mpir_errh errh_fatal = { NULL, 1, 1 };
static mpir_errh errh_return = { NULL, 1, 1 };

void mpir_errhandler_init(void)
{
    mpir_handle_set(&mpir_errhandlers, MPI_ERRORS_ARE_FATAL & 0xffffff, &errh_fatal);
    mpir_handle_set(&mpir_errhandlers, MPI_ERRORS_RETURN & 0xffffff, &errh_return);
}

void mpir_errhandler_finalize(void)
{
    for (int i = 1; i < mpir_errhandlers.cap; i++) {
        mpir_errh *e = mpir_errhandlers.obj[i];
        if (e && !e->predefined)
            free(e);
        mpir_errhandlers.obj[i] = NULL;
    }
    mpir_errhandlers.nfree_hint = 1;
}

void mpir_errhandler_retain(MPI_Errhandler h)
{
    mpir_errh *e = mpir_handle_get(&mpir_errhandlers, h);
    if (e)
        e->refcount++;
}

void mpir_errhandler_release(MPI_Errhandler h)
{
    mpir_errh *e = mpir_handle_get(&mpir_errhandlers, h);
    if (e && !e->predefined && --e->refcount == 0) {
        mpir_handle_free(&mpir_errhandlers, h);
        free(e);
    }
}

/* Ends the whole job. mpid_abort prints the message once, prefixed with
 * the world rank (log.h), and tells the launcher. */
static void __attribute__((noreturn)) fatal(MPI_Comm comm, int code)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    mpir_Error_string(code, msg, &len);
    const mpir_comm *c = mpir_comm_get(comm);
    char line[MPI_MAX_ERROR_STRING + MPI_MAX_OBJECT_NAME + 64];
    if (c && comm != MPI_COMM_WORLD)
        snprintf(line, sizeof line, "%s (rank %d in %s)", msg, c->dev.rank,
                 c->name[0] ? c->name : "a derived communicator");
    else
        snprintf(line, sizeof line, "%s", msg);
    mpid_abort(code & 0xff ? code & 0xff : 1, line);
}

static int call_handler(MPI_Comm comm, MPI_Errhandler h, int code)
{
    mpir_errh *e = mpir_handle_get(&mpir_errhandlers, h);
    if (!e || e == &errh_fatal)
        fatal(comm, code);
    if (e->fn) {
        MPI_Comm cc = comm;
        int ec = code;
        e->fn(&cc, &ec);
    }
    return code;
}

int mpir_err_comm(MPI_Comm comm, int code)
{
    if (code == MPI_SUCCESS)
        return code;
    const mpir_comm *c = mpir_comm_get(comm);
    if (!c) {
        comm = MPI_COMM_WORLD;
        c = mpir_comm_get(comm);
    }
    return call_handler(comm, c ? c->errhandler : MPI_ERRORS_ARE_FATAL, code);
}

/* Errors on objects other than communicators (windows): their own handler,
 * called with the object's handle (handles are ints of one C type). */
int mpir_err_handler_call(int obj, MPI_Errhandler h, int code)
{
    if (code == MPI_SUCCESS)
        return code;
    return call_handler(obj, h, code);
}

int mpir_err_world(int code)
{
    return mpir_err_comm(MPI_COMM_WORLD, code);
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    static const char fnn[] = "MPI_Comm_create_errhandler";
    MPIR_ENTER(fnn);
    if (!fn)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fnn, "function is NULL"));
    if (!errhandler)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fnn, "errhandler is NULL"));
    mpir_errh *e = malloc(sizeof *e);
    if (!e)
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, fnn, "out of memory"));
    e->fn = fn;
    e->refcount = 1;
    e->predefined = 0;
    int h = mpir_handle_new(&mpir_errhandlers, e);
    if (h == MPI_ERRHANDLER_NULL) {
        free(e);
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, fnn, "out of handles"));
    }
    *errhandler = h;
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_create_errhandler)

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    static const char fn[] = "MPI_Comm_set_errhandler";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    if (!mpir_handle_get(&mpir_errhandlers, errhandler))
        return mpir_err_comm(comm, mpir_err(MPI_ERR_ARG, fn, "invalid errhandler (0x%x)",
                                            (unsigned)errhandler));
    mpir_errhandler_retain(errhandler);
    mpir_errhandler_release(c->errhandler);
    c->errhandler = errhandler;
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_set_errhandler)

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    static const char fn[] = "MPI_Comm_get_errhandler";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    if (!errhandler)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_ARG, fn, "errhandler is NULL"));
    /* The caller gets a reference of its own, freed with Errhandler_free. */
    mpir_errhandler_retain(c->errhandler);
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_get_errhandler)

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    static const char fn[] = "MPI_Comm_call_errhandler";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    call_handler(comm, c->errhandler, errorcode);
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_call_errhandler)

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    static const char fn[] = "MPI_Errhandler_free";
    MPIR_ENTER(fn);
    if (!errhandler)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "errhandler is NULL"));
    if (!mpir_handle_get(&mpir_errhandlers, *errhandler))
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "invalid errhandler (0x%x)",
                                       (unsigned)*errhandler));
    mpir_errhandler_release(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
MPIR_WEAK(Errhandler_free)
