/*
 * handle_conv.c — conversions between C handles and Fortran handles
 * (MPI-3.1 17.2.4) and between C and Fortran statuses (17.2.5).
 *
 * Handles are integers and MPI_Fint is int, so a Fortran handle is the C
 * handle's value. f2c checks that the value names a live object of the
 * right kind: an invalid Fortran handle becomes the null handle, as the
 * standard asks, and never reaches a table lookup elsewhere.
 */
#include <string.h>
#include "src/mpir.h"

/* The Fortran status layout: MPI_SOURCE, MPI_TAG, MPI_ERROR at their
 * MPI_F_* indices, then the implementation part (cancelled flag, count)
 * word by word. */
_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "MPI_F_STATUS_SIZE must cover MPI_Status");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint) &&
               offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint) &&
               offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint),
               "MPI_F_SOURCE/TAG/ERROR must match MPI_Status");

/* The addresses that stand for Fortran's MPI_STATUS_IGNORE and
 * MPI_STATUSES_IGNORE; their contents are never read. Variables, so that a
 * Fortran binding may point them at its own objects. */
static MPI_Fint f_status_ignore[MPI_F_STATUS_SIZE], f_statuses_ignore[MPI_F_STATUS_SIZE];
MPI_Fint *MPI_F_STATUS_IGNORE = f_status_ignore;
MPI_Fint *MPI_F_STATUSES_IGNORE = f_statuses_ignore;
/* mpi_f08's are the same objects (the module shares mpif.h's). */
MPI_F08_status *MPI_F08_STATUS_IGNORE = (MPI_F08_status *)f_status_ignore;
MPI_F08_status *MPI_F08_STATUSES_IGNORE = (MPI_F08_status *)f_statuses_ignore;
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status) &&
                   offsetof(MPI_F08_status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint) &&
                   offsetof(MPI_F08_status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint),
               "MPI_F08_status must have the integer status's layout");

/* f itself when it is the null handle of t's kind or names a live object
 * in t; otherwise the null handle. */
static int from_fortran(const mpir_table *t, MPI_Fint f)
{
    MPIR_CS_GUARD;   /* another thread may grow (reallocate) the table */
    int null = CLUMPI_HANDLE(t->kind, 0);
    if (f == null || mpir_handle_get(t, f))
        return f;
    return null;
}

#define HANDLE_CONV(Kind, CType, table)                                      \
    MPI_Fint PMPI_##Kind##_c2f(CType h) { return (MPI_Fint)h; }              \
    MPIR_WEAK(Kind##_c2f)                                                    \
    CType PMPI_##Kind##_f2c(MPI_Fint f) { return (CType)from_fortran(&(table), f); } \
    MPIR_WEAK(Kind##_f2c)

HANDLE_CONV(Comm, MPI_Comm, mpir_comms)
HANDLE_CONV(Errhandler, MPI_Errhandler, mpir_errhandlers)
HANDLE_CONV(Group, MPI_Group, mpir_groups)
HANDLE_CONV(Info, MPI_Info, mpir_infos)
HANDLE_CONV(Op, MPI_Op, mpir_ops)
HANDLE_CONV(Request, MPI_Request, mpir_requests)
HANDLE_CONV(Type, MPI_Datatype, mpir_dtypes)
HANDLE_CONV(Win, MPI_Win, mpir_wins)

MPI_Fint PMPI_Message_c2f(MPI_Message h)
{
    return (MPI_Fint)h;
}
MPIR_WEAK(Message_c2f)

/* MPI_MESSAGE_NO_PROC is predefined but enters the table only when a probe
 * first returns it: it is valid all the same. */
MPI_Message PMPI_Message_f2c(MPI_Fint f)
{
    if (f == MPI_MESSAGE_NO_PROC)
        return MPI_MESSAGE_NO_PROC;
    return (MPI_Message)from_fortran(&mpir_messages, f);
}
MPIR_WEAK(Message_f2c)

/* The ignore values are not statuses: converting them is erroneous
 * (MPI-3.1 17.2.5), reported as MPI_ERR_ARG naming the argument. */
/* MPI_ERR_ARG naming the argument when a status to convert is absent or
 * an ignore value (erroneous, MPI-3.1 17.2.5). */
static int check_c(const char *fn, const char *arg, const MPI_Status *c)
{
    if (c == MPI_STATUS_IGNORE)
        return mpir_err(MPI_ERR_ARG, fn, "%s is MPI_STATUS_IGNORE or MPI_STATUSES_IGNORE", arg);
    return MPI_SUCCESS;
}

static int check_f(const char *fn, const char *arg, const MPI_Fint *f)
{
    if (!f)
        return mpir_err(MPI_ERR_ARG, fn, "%s is NULL", arg);
    if (f == MPI_F_STATUS_IGNORE || f == MPI_F_STATUSES_IGNORE)
        return mpir_err(MPI_ERR_ARG, fn, "%s is MPI_F_STATUS_IGNORE or MPI_F_STATUSES_IGNORE",
                        arg);
    return MPI_SUCCESS;
}

static int check_f08(const char *fn, const char *arg, const MPI_F08_status *s)
{
    if (!s)
        return mpir_err(MPI_ERR_ARG, fn, "%s is NULL", arg);
    if (s == MPI_F08_STATUS_IGNORE || s == MPI_F08_STATUSES_IGNORE)
        return mpir_err(MPI_ERR_ARG, fn,
                        "%s is MPI_F08_STATUS_IGNORE or MPI_F08_STATUSES_IGNORE", arg);
    return MPI_SUCCESS;
}

/* Every status form has MPI_Status's size and word layout (checked at the
 * top), so each conversion is a copy of the whole status once both sides
 * are real ones. */
static int convert(int bad, void *to, const void *from)
{
    if (bad)
        return mpir_err_world(bad);
    memcpy(to, from, sizeof(MPI_Status));
    return MPI_SUCCESS;
}

int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    static const char fn[] = "MPI_Status_c2f";
    MPIR_ENTER(fn);
    int bad = check_c(fn, "c_status", c_status);
    return convert(bad ? bad : check_f(fn, "f_status", f_status), f_status, c_status);
}
MPIR_WEAK(Status_c2f)

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    static const char fn[] = "MPI_Status_f2c";
    MPIR_ENTER(fn);
    int bad = check_c(fn, "c_status", c_status);
    return convert(bad ? bad : check_f(fn, "f_status", f_status), c_status, f_status);
}
MPIR_WEAK(Status_f2c)

int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
{
    static const char fn[] = "MPI_Status_c2f08";
    MPIR_ENTER(fn);
    int bad = check_c(fn, "c_status", c_status);
    return convert(bad ? bad : check_f08(fn, "f08_status", f08_status), f08_status,
                   c_status);
}
MPIR_WEAK(Status_c2f08)

int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
{
    static const char fn[] = "MPI_Status_f082c";
    MPIR_ENTER(fn);
    int bad = check_c(fn, "c_status", c_status);
    return convert(bad ? bad : check_f08(fn, "f08_status", f08_status), c_status,
                   f08_status);
}
MPIR_WEAK(Status_f082c)

int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status)
{
    static const char fn[] = "MPI_Status_f082f";
    MPIR_ENTER(fn);
    int bad = check_f08(fn, "f08_status", f08_status);
    return convert(bad ? bad : check_f(fn, "f_status", f_status), f_status, f08_status);
}
MPIR_WEAK(Status_f082f)

int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status)
{
    static const char fn[] = "MPI_Status_f2f08";
    MPIR_ENTER(fn);
    int bad = check_f(fn, "f_status", f_status);
    return convert(bad ? bad : check_f08(fn, "f08_status", f08_status), f08_status,
                   f_status);
}
MPIR_WEAK(Status_f2f08)
