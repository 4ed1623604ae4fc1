/*
 * errors.c — error codes and their strings.
 *
 * An error code is its class in the low 8 bits; the bits above hold a
 * sequence number naming a slot in a ring of recent messages, so
 * MPI_Error_string can tell which function and argument failed while
 * MPI_Error_class stays a mask. A code whose slot has since been reused
 * still yields its class string. User-added codes take sequence numbers
 * from a range of their own (MPIR_USER_SEQ and up).
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/core.h"

#define RING       64
#define MSG_LEN    256
#define SEQ_MAX    0x1fffff          /* ring sequence numbers: 1..SEQ_MAX */
#define USER_SEQ   0x200000          /* user-added codes: USER_SEQ + k */
#define USER_MAX   0x1fffff
#define MAX_CLASS  255               /* classes live in 8 bits */
#define LAST_PREDEFINED_CLASS MPI_T_ERR_INVALID

static struct { int seq; char msg[MSG_LEN]; } ring[RING];
static int next_seq = 1;

/* Highest class in use, and the value of MPI_LASTUSEDCODE: the highest
 * class or user-added code, so both readings of the standard hold. */
static int last_class = LAST_PREDEFINED_CLASS;
int mpir_lastusedcode = LAST_PREDEFINED_CLASS;

/* User-added classes (LAST_PREDEFINED_CLASS+1 .. ) and codes, with optional strings. */
static char *class_str[MAX_CLASS + 1];
static int   nuser_codes;
static int  *user_code_class;        /* [nuser_codes] */
static char **user_code_str;         /* [nuser_codes] */

static const char *const class_names[] = {
    [MPI_SUCCESS] = "MPI_SUCCESS: no error",
    [MPI_ERR_BUFFER] = "MPI_ERR_BUFFER: invalid buffer pointer",
    [MPI_ERR_COUNT] = "MPI_ERR_COUNT: invalid count argument",
    [MPI_ERR_TYPE] = "MPI_ERR_TYPE: invalid datatype",
    [MPI_ERR_TAG] = "MPI_ERR_TAG: invalid tag",
    [MPI_ERR_COMM] = "MPI_ERR_COMM: invalid communicator",
    [MPI_ERR_RANK] = "MPI_ERR_RANK: invalid rank",
    [MPI_ERR_REQUEST] = "MPI_ERR_REQUEST: invalid request",
    [MPI_ERR_ROOT] = "MPI_ERR_ROOT: invalid root",
    [MPI_ERR_GROUP] = "MPI_ERR_GROUP: invalid group",
    [MPI_ERR_OP] = "MPI_ERR_OP: invalid operation",
    [MPI_ERR_TOPOLOGY] = "MPI_ERR_TOPOLOGY: invalid topology",
    [MPI_ERR_DIMS] = "MPI_ERR_DIMS: invalid dimension argument",
    [MPI_ERR_ARG] = "MPI_ERR_ARG: invalid argument",
    [MPI_ERR_UNKNOWN] = "MPI_ERR_UNKNOWN: unknown error",
    [MPI_ERR_TRUNCATE] = "MPI_ERR_TRUNCATE: message truncated",
    [MPI_ERR_OTHER] = "MPI_ERR_OTHER: known error not in this list",
    [MPI_ERR_INTERN] = "MPI_ERR_INTERN: internal error",
    [MPI_ERR_IN_STATUS] = "MPI_ERR_IN_STATUS: error code is in status",
    [MPI_ERR_PENDING] = "MPI_ERR_PENDING: pending request",
    [MPI_ERR_KEYVAL] = "MPI_ERR_KEYVAL: invalid keyval",
    [MPI_ERR_NO_MEM] = "MPI_ERR_NO_MEM: out of memory",
    [MPI_ERR_BASE] = "MPI_ERR_BASE: invalid base address",
    [MPI_ERR_INFO_KEY] = "MPI_ERR_INFO_KEY: invalid info key",
    [MPI_ERR_INFO_VALUE] = "MPI_ERR_INFO_VALUE: invalid info value",
    [MPI_ERR_INFO_NOKEY] = "MPI_ERR_INFO_NOKEY: info key not defined",
    [MPI_ERR_SPAWN] = "MPI_ERR_SPAWN: error spawning processes",
    [MPI_ERR_PORT] = "MPI_ERR_PORT: invalid port name",
    [MPI_ERR_SERVICE] = "MPI_ERR_SERVICE: invalid service name",
    [MPI_ERR_NAME] = "MPI_ERR_NAME: invalid service name for lookup",
    [MPI_ERR_WIN] = "MPI_ERR_WIN: invalid window",
    [MPI_ERR_SIZE] = "MPI_ERR_SIZE: invalid size argument",
    [MPI_ERR_DISP] = "MPI_ERR_DISP: invalid displacement",
    [MPI_ERR_INFO] = "MPI_ERR_INFO: invalid info object",
    [MPI_ERR_LOCKTYPE] = "MPI_ERR_LOCKTYPE: invalid lock type",
    [MPI_ERR_ASSERT] = "MPI_ERR_ASSERT: invalid assert argument",
    [MPI_ERR_RMA_CONFLICT] = "MPI_ERR_RMA_CONFLICT: conflicting accesses to a window",
    [MPI_ERR_RMA_SYNC] = "MPI_ERR_RMA_SYNC: wrong synchronization of RMA calls",
    [MPI_ERR_RMA_RANGE] = "MPI_ERR_RMA_RANGE: target memory outside the window",
    [MPI_ERR_RMA_ATTACH] = "MPI_ERR_RMA_ATTACH: memory cannot be attached",
    [MPI_ERR_RMA_SHARED] = "MPI_ERR_RMA_SHARED: memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "MPI_ERR_RMA_FLAVOR: wrong window flavor",
    [MPI_ERR_FILE] = "MPI_ERR_FILE: invalid file handle",
    [MPI_ERR_NOT_SAME] = "MPI_ERR_NOT_SAME: collective arguments differ between processes",
    [MPI_ERR_AMODE] = "MPI_ERR_AMODE: invalid file access mode",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "MPI_ERR_UNSUPPORTED_OPERATION: unsupported operation",
    [MPI_ERR_NO_SUCH_FILE] = "MPI_ERR_NO_SUCH_FILE: file does not exist",
    [MPI_ERR_FILE_EXISTS] = "MPI_ERR_FILE_EXISTS: file exists",
    [MPI_ERR_BAD_FILE] = "MPI_ERR_BAD_FILE: invalid file name",
    [MPI_ERR_ACCESS] = "MPI_ERR_ACCESS: permission denied",
    [MPI_ERR_NO_SPACE] = "MPI_ERR_NO_SPACE: not enough space",
    [MPI_ERR_QUOTA] = "MPI_ERR_QUOTA: quota exceeded",
    [MPI_ERR_READ_ONLY] = "MPI_ERR_READ_ONLY: read-only file or file system",
    [MPI_ERR_FILE_IN_USE] = "MPI_ERR_FILE_IN_USE: file in use",
    [MPI_ERR_DUP_DATAREP] = "MPI_ERR_DUP_DATAREP: data representation already defined",
    [MPI_ERR_CONVERSION] = "MPI_ERR_CONVERSION: data conversion error",
    [MPI_ERR_IO] = "MPI_ERR_IO: I/O error",
    [MPI_T_ERR_MEMORY] = "MPI_T_ERR_MEMORY: out of memory",
    [MPI_T_ERR_NOT_INITIALIZED] = "MPI_T_ERR_NOT_INITIALIZED: MPI_T not initialized",
    [MPI_T_ERR_CANNOT_INIT] = "MPI_T_ERR_CANNOT_INIT: MPI_T cannot be initialized",
    [MPI_T_ERR_INVALID_INDEX] = "MPI_T_ERR_INVALID_INDEX: index invalid or out of range",
    [MPI_T_ERR_INVALID_ITEM] = "MPI_T_ERR_INVALID_ITEM: item index out of range",
    [MPI_T_ERR_INVALID_HANDLE] = "MPI_T_ERR_INVALID_HANDLE: invalid handle",
    [MPI_T_ERR_OUT_OF_HANDLES] = "MPI_T_ERR_OUT_OF_HANDLES: no more handles available",
    [MPI_T_ERR_OUT_OF_SESSIONS] = "MPI_T_ERR_OUT_OF_SESSIONS: no more sessions available",
    [MPI_T_ERR_INVALID_SESSION] = "MPI_T_ERR_INVALID_SESSION: invalid session",
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = "MPI_T_ERR_CVAR_SET_NOT_NOW: variable cannot be set now",
    [MPI_T_ERR_CVAR_SET_NEVER] = "MPI_T_ERR_CVAR_SET_NEVER: variable cannot be set",
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = "MPI_T_ERR_PVAR_NO_STARTSTOP: variable cannot be started or stopped",
    [MPI_T_ERR_PVAR_NO_WRITE] = "MPI_T_ERR_PVAR_NO_WRITE: variable cannot be written or reset",
    [MPI_T_ERR_PVAR_NO_ATOMIC] = "MPI_T_ERR_PVAR_NO_ATOMIC: variable cannot be read and reset atomically",
    [MPI_T_ERR_INVALID_NAME] = "MPI_T_ERR_INVALID_NAME: no variable or category of that name",
    [MPI_T_ERR_INVALID] = "MPI_T_ERR_INVALID: invalid use of the interface or bad parameter value",
};


/* The Fortran routine the calling thread is in when the error comes
 * through libmpifort's glue ("MPI_SEND"), else NULL. libmpifort keeps it
 * (fortran.c); it is looked up by name on the error path only, so neither
 * a C call nor libmpi's exports pay for it, and each time: a libmpifort
 * loaded after an earlier error (dlopen) is found too. */
static const char *fortran_entry(void)
{
    typedef const char *entry_fn(void);
    entry_fn *f;
    *(void **)&f = dlsym(RTLD_DEFAULT, "mpir_f_entry_name");
    return f ? f() : NULL;
}

int mpir_err(int errclass, const char *func, const char *fmt, ...)
{
    if (errclass == MPI_SUCCESS)
        return MPI_SUCCESS;
    int seq = next_seq;
    next_seq = next_seq == SEQ_MAX ? 1 : next_seq + 1;
    char *m = ring[seq % RING].msg;
    const char *fe = fortran_entry();
    int n = fe ? snprintf(m, MSG_LEN, "%s (Fortran): %s(...): ", fe, func ? func : "MPI")
               : snprintf(m, MSG_LEN, "%s(...): ", func ? func : "MPI");
    if (n < 0 || n >= MSG_LEN)
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m + n, MSG_LEN - (size_t)n, fmt, ap);
    va_end(ap);
    ring[seq % RING].seq = seq;
    return (errclass & 0xff) | (seq << 8);
}

int mpir_err_not_active(const char *func)
{
    const char *fe = fortran_entry();
    fprintf(stderr, "clumpi: %s%s%s called %s\n", fe ? fe : "", fe ? " (Fortran), " : "", func,
            mpir_state == MPIR_STATE_PRE ? "before MPI_Init" : "after MPI_Finalize");
    return MPI_ERR_OTHER;
}

int mpir_err_bad_comm(const char *func, MPI_Comm handle)
{
    return mpir_err_world(mpir_err(MPI_ERR_COMM, func, "invalid communicator (comm=0x%x)",
                                   (unsigned)handle));
}

static int class_valid(int c)
{
    return c >= 0 && c <= last_class;
}

/* The message behind a code, or NULL when it has none (or was overwritten). */
static const char *code_message(int code)
{
    int seq = (int)((unsigned)code >> 8);
    if (seq >= USER_SEQ) {
        int k = seq - USER_SEQ;
        return k < nuser_codes ? user_code_str[k] : NULL;
    }
    if (seq > 0 && ring[seq % RING].seq == seq)
        return ring[seq % RING].msg;
    return NULL;
}

static int code_valid(int code)
{
    if (code < 0 || !class_valid(code & 0xff))
        return 0;
    int seq = (int)((unsigned)code >> 8);
    if (seq >= USER_SEQ)
        return seq - USER_SEQ < nuser_codes && user_code_class[seq - USER_SEQ] == (code & 0xff);
    return seq <= SEQ_MAX;
}

static const char *class_string(int c)
{
    if (c <= LAST_PREDEFINED_CLASS)
        return class_names[c];
    return class_str[c] ? class_str[c] : "";
}

/* Error_string and Error_class may be called before MPI_Init and after
 * MPI_Finalize (MPI-4), so they do not check the library state. */
int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    MPIR_CS_GUARD;   /* other threads add to the message ring */
    if (!string || !resultlen)
        return MPI_ERR_ARG;
    if (!code_valid(errorcode)) {
        *resultlen = snprintf(string, MPI_MAX_ERROR_STRING, "invalid error code %d", errorcode);
        return mpir_active() ? mpir_err_world(mpir_err(MPI_ERR_ARG, "MPI_Error_string",
                                              "invalid error code %d", errorcode))
                             : MPI_ERR_ARG;
    }
    int c = errorcode & 0xff;
    const char *msg = code_message(errorcode);
    int n;
    if ((unsigned)errorcode >> 8 >= USER_SEQ)   /* a user code: its own string */
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", msg ? msg : "");
    else if (msg)
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", class_string(c), msg);
    else
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", class_string(c));
    if (n >= MPI_MAX_ERROR_STRING)
        n = MPI_MAX_ERROR_STRING - 1;
    *resultlen = n;
    return MPI_SUCCESS;
}
MPIR_WEAK(Error_string)

int PMPI_Error_class(int errorcode, int *errorclass)
{
    MPIR_CS_GUARD;   /* other threads add to the message ring */
    if (!errorclass || !code_valid(errorcode))
        return mpir_active() ? mpir_err_world(mpir_err(MPI_ERR_ARG, "MPI_Error_class",
                                              errorclass ? "invalid error code %d"
                                                         : "errorclass is NULL (code %d)",
                                              errorcode))
                             : MPI_ERR_ARG;
    *errorclass = errorcode & 0xff;
    return MPI_SUCCESS;
}
MPIR_WEAK(Error_class)

int PMPI_Add_error_class(int *errorclass)
{
    MPIR_ENTER("MPI_Add_error_class");
    if (!errorclass)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, "MPI_Add_error_class", "errorclass is NULL"));
    if (last_class >= MAX_CLASS)
        return mpir_err_world(mpir_err(MPI_ERR_OTHER, "MPI_Add_error_class",
                                       "no more error classes (limit %d)", MAX_CLASS));
    *errorclass = ++last_class;
    if (last_class > mpir_lastusedcode)
        mpir_lastusedcode = last_class;
    return MPI_SUCCESS;
}
MPIR_WEAK(Add_error_class)

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    MPIR_ENTER("MPI_Add_error_code");
    if (!errorcode)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, "MPI_Add_error_code", "errorcode is NULL"));
    if (!class_valid(errorclass) || errorclass == MPI_SUCCESS)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, "MPI_Add_error_code",
                                       "invalid error class %d", errorclass));
    if (nuser_codes >= USER_MAX)
        return mpir_err_world(mpir_err(MPI_ERR_OTHER, "MPI_Add_error_code", "no more error codes"));
    int *nc = realloc(user_code_class, (size_t)(nuser_codes + 1) * sizeof(*nc));
    if (!nc)
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, "MPI_Add_error_code", "out of memory"));
    user_code_class = nc;
    char **ns = realloc(user_code_str, (size_t)(nuser_codes + 1) * sizeof(*ns));
    if (!ns)
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, "MPI_Add_error_code", "out of memory"));
    user_code_str = ns;
    user_code_class[nuser_codes] = errorclass;
    user_code_str[nuser_codes] = NULL;
    *errorcode = errorclass | ((USER_SEQ + nuser_codes) << 8);
    nuser_codes++;
    if (*errorcode > mpir_lastusedcode)
        mpir_lastusedcode = *errorcode;
    return MPI_SUCCESS;
}
MPIR_WEAK(Add_error_code)

int PMPI_Add_error_string(int errorcode, const char *string)
{
    MPIR_ENTER("MPI_Add_error_string");
    static const char fn[] = "MPI_Add_error_string";
    if (!string)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "string is NULL"));
    if (strlen(string) >= MPI_MAX_ERROR_STRING)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "string longer than MPI_MAX_ERROR_STRING-1 (%zu)",
                                       strlen(string)));
    char **slot;
    int seq = (int)((unsigned)errorcode >> 8);
    if (errorcode > LAST_PREDEFINED_CLASS && errorcode <= last_class)
        slot = &class_str[errorcode];
    else if (code_valid(errorcode) && seq >= USER_SEQ)
        slot = &user_code_str[seq - USER_SEQ];
    else
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn,
                                       "error code %d is not a user-added class or code", errorcode));
    char *s = strdup(string);
    if (!s)
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    free(*slot);
    *slot = s;
    return MPI_SUCCESS;
}
MPIR_WEAK(Add_error_string)

void mpir_errors_finalize(void)
{
    for (int i = 0; i <= MAX_CLASS; i++) {
        free(class_str[i]);
        class_str[i] = NULL;
    }
    for (int i = 0; i < nuser_codes; i++)
        free(user_code_str[i]);
    free(user_code_str);
    free(user_code_class);
    user_code_str = NULL;
    user_code_class = NULL;
    nuser_codes = 0;
    mpir_lastusedcode = LAST_PREDEFINED_CLASS;
    last_class = LAST_PREDEFINED_CLASS;
}
