/*
 * init.c — MPI_T_init_thread and MPI_T_finalize: a reference count, usable
 * before MPI_Init and after MPI_Finalize; errors and string results of the
 * MPI_T functions.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "src/mpit/mpit.h"
#include "src/util/log.h"

int mpir_t_refs;

int mpir_t_err(int errclass, const char *fn, const char *fmt, ...)
{
    if (cu_verbose()) {
        char msg[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        cu_debug("%s: %s", fn, msg);
    }
    return errclass;
}

void mpir_t_string(char *buf, int *len, const char *s)
{
    if (!len)
        return;
    int need = (int)strlen(s) + 1;
    if (!buf || *len <= 0) {
        *len = need;
        return;
    }
    int n = need < *len ? need : *len;
    memcpy(buf, s, (size_t)n - 1);
    buf[n - 1] = '\0';
    *len = n;
}

/* Grants what was asked, up to MULTIPLE. MULTIPLE turns the library lock
 * on at once (it is usable before MPI_Init): from then on every MPI_T and
 * MPI call holds it, whatever level MPI_Init_thread grants. */
int PMPI_T_init_thread(int required, int *provided)
{
    static const char fn[] = "MPI_T_init_thread";
    MPIR_CS_GUARD;
    if (!provided)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "provided is NULL");
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "required (%d) is not a thread level",
                          required);
    if (required == MPI_THREAD_MULTIPLE)
        cu_lock_enable();
    mpir_t_refs++;
    *provided = required;
    return MPI_SUCCESS;
}
MPIR_WEAK(T_init_thread)

int PMPI_T_finalize(void)
{
    MPIR_T_ENTER("MPI_T_finalize");
    if (--mpir_t_refs == 0) {
        mpir_t_pvar_finalize();
        mpir_t_cvar_finalize();
    }
    return MPI_SUCCESS;
}
MPIR_WEAK(T_finalize)
