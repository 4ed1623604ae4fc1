/*
 * mpit.h — internals shared by the MPI_T files (src/mpit/): the
 * interface's reference count, error returns and string results.
 * MPI_T functions return MPI_T_ERR_* classes directly (MPI-3.1 14.3.9:
 * no error handlers, callable outside MPI_Init/MPI_Finalize).
 */
#ifndef MPIR_MPIT_H
#define MPIR_MPIT_H

#include "src/mpir.h"

extern int mpir_t_refs;   /* MPI_T_init_thread calls not yet finalized */

/* Returns errclass; logs "fn: message" under CLUMPI_VERBOSE. */
int mpir_t_err(int errclass, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Entry prologue: the interface initialized. Under MPI_THREAD_MULTIPLE it
 * also holds the library lock to the end of the function (as MPIR_ENTER),
 * as the library reads the parameters and updates the counters meanwhile. */
#define MPIR_T_ENTER(fn)                                                         \
    MPIR_CS_GUARD;                                                               \
    do {                                                                         \
        if (mpir_t_refs <= 0)                                                    \
            return mpir_t_err(MPI_T_ERR_NOT_INITIALIZED, fn,                     \
                              "called outside MPI_T_init_thread/MPI_T_finalize"); \
    } while (0)

/* A string result as MPI-3.1 14.3.3 has it: nothing when len is NULL; the
 * length needed (terminator included) when buf is NULL or *len is 0; else
 * at most *len - 1 characters and a terminator, *len set to what was
 * stored. */
void mpir_t_string(char *buf, int *len, const char *s);

/* Handles and sessions left at the last MPI_T_finalize are freed. */
void mpir_t_cvar_finalize(void);
void mpir_t_pvar_finalize(void);

/* Performance variables (pvar.c): the device's counters. */
typedef struct mpir_t_pvar_def {
    const char *name, *category, *desc;
    int var_class;                 /* MPI_T_PVAR_CLASS_* */
    int verbosity;                 /* MPI_T_VERBOSITY_* */
    int continuous, readonly, atomic;
    unsigned long long *src;       /* the counter, or the current level */
    unsigned long long *mark;      /* HIGHWATERMARK: the device's mark of src */
} mpir_t_pvar_def;
extern const mpir_t_pvar_def mpir_t_pvars[];
int mpir_t_pvar_count(void);
const char *mpir_t_pvar_category(int pvar_index);

/* Most handles (control, or performance over all sessions) and sessions
 * alive at once: bounds what a tool that forgets to free can take. */
#define MPIR_T_MAX_HANDLES  1024
#define MPIR_T_MAX_SESSIONS 64

#endif
