/*
 * check.c — argument checks shared by every MPI entry point. Each returns
 * MPI_SUCCESS or an error code whose message names the function and the
 * argument; the caller hands the code to mpir_err_comm().
 */
#include "src/pt2pt.h"

int mpir_check_count(const char *func, const char *arg, int count)
{
    if (count < 0)
        return mpir_err(MPI_ERR_COUNT, func, "invalid %s %d (must be >= 0)", arg, count);
    return MPI_SUCCESS;
}

int mpir_check_dtype(const char *func, const char *arg, MPI_Datatype t, cu_dtype **out)
{
    if (t == MPI_DATATYPE_NULL)
        return mpir_err(MPI_ERR_TYPE, func, "%s is MPI_DATATYPE_NULL", arg);
    cu_dtype *dt = mpir_dtype_get(t);
    if (!dt)
        return mpir_err(MPI_ERR_TYPE, func, "invalid %s (datatype=0x%x)", arg, (unsigned)t);
    if (!dt->builtin && !dt->committed)
        return mpir_err(MPI_ERR_TYPE, func, "%s (datatype=0x%x) is not committed "
                        "(call MPI_Type_commit first)", arg, (unsigned)t);
    if (out)
        *out = dt;
    return MPI_SUCCESS;
}

int mpir_check_buf(const char *func, const char *arg, const void *buf, int count,
                   const cu_dtype *dt)
{
    /* A NULL (MPI_BOTTOM) buffer is legal with absolute-address datatypes,
     * whose first byte is not at offset 0; otherwise data would be read or
     * written at address 0. */
    if (!buf && count > 0 && dt && dt->size > 0 && dt->true_lb == 0)
        return mpir_err(MPI_ERR_BUFFER, func, "%s is NULL with count %d", arg, count);
    return MPI_SUCCESS;
}

int mpir_check_tag(const char *func, const char *arg, int tag, int allow_any)
{
    if (tag == MPI_ANY_TAG && allow_any)
        return MPI_SUCCESS;
    if (tag < 0 || tag > MPIR_TAG_UB)
        return mpir_err(MPI_ERR_TAG, func, "invalid %s %d (must be 0..%d%s)", arg, tag,
                        MPIR_TAG_UB, allow_any ? " or MPI_ANY_TAG" : "");
    return MPI_SUCCESS;
}

int mpir_check_rank(const char *func, const char *arg, const mpir_comm *c, int rank,
                    int allow_any_source)
{
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank == MPI_ANY_SOURCE && allow_any_source)
        return MPI_SUCCESS;
    /* dev.size is the remote group's size on an intercommunicator */
    if (rank < 0 || rank >= c->dev.size)
        return mpir_err(MPI_ERR_RANK, func, "invalid %s %d (%s size %d)", arg, rank,
                        c->is_inter ? "remote group" : "comm", c->dev.size);
    return MPI_SUCCESS;
}

int mpir_check_intra(const char *func, const mpir_comm *c)
{
    if (c->is_inter)
        return mpir_err(MPI_ERR_COMM, func, "comm (0x%x) is an intercommunicator; "
                        "this operation needs an intracommunicator", (unsigned)c->handle);
    return MPI_SUCCESS;
}

int mpir_p2p_check_error(const char *fn, const void *buf, int count, MPI_Datatype type,
                         int peer, int tag, int recv, const mpir_comm *c)
{
    cu_dtype *dt = NULL;
    int rc;
    if ((rc = mpir_check_count(fn, "count", count)) ||
        (rc = mpir_check_dtype(fn, "datatype", type, &dt)) ||
        (rc = mpir_check_buf(fn, "buf", buf, count, dt)) ||
        (rc = mpir_check_tag(fn, "tag", tag, recv)) ||
        (rc = mpir_check_rank(fn, recv ? "source" : "dest", c, peer, recv)))
        return rc;
    /* the inline test and these checks disagree: a bug, not the caller's */
    return mpir_err(MPI_ERR_INTERN, fn, "arguments refused without a reason");
}
