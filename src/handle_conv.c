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
static int check_statuses(const char *fn, const MPI_Status *c_status, const MPI_Fint *f_status)
{
    if (c_status == MPI_STATUS_IGNORE)
        return mpir_err(MPI_ERR_ARG, fn, "c_status is MPI_STATUS_IGNORE or MPI_STATUSES_IGNORE");
    if (!f_status)
        return mpir_err(MPI_ERR_ARG, fn, "f_status is NULL");
    if (f_status == MPI_F_STATUS_IGNORE || f_status == MPI_F_STATUSES_IGNORE)
        return mpir_err(MPI_ERR_ARG, fn,
                        "f_status is MPI_F_STATUS_IGNORE or MPI_F_STATUSES_IGNORE");
    return MPI_SUCCESS;
}

int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    static const char fn[] = "MPI_Status_c2f";
    MPIR_ENTER(fn);
    int rc = check_statuses(fn, c_status, f_status);
    if (rc)
        return mpir_err_world(rc);
    memcpy(f_status, c_status, sizeof(MPI_Status));
    return MPI_SUCCESS;
}
MPIR_WEAK(Status_c2f)

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    static const char fn[] = "MPI_Status_f2c";
    MPIR_ENTER(fn);
    int rc = check_statuses(fn, c_status, f_status);
    if (rc)
        return mpir_err_world(rc);
    memcpy(c_status, f_status, sizeof(MPI_Status));
    return MPI_SUCCESS;
}
MPIR_WEAK(Status_f2c)
