/*
 * status.c — what a status says: Get_count, Get_elements(_x),
 * Status_set_elements(_x), Status_set_cancelled, Test_cancelled. A status carries
 * the received byte count (clumpi_count); counts in datatype units come from
 * it.
 */
#include <limits.h>
#include "src/pt2pt.h"

static int status_type(const char *fn, const MPI_Status *status, MPI_Datatype type,
                       cu_dtype **dt, const void *out)
{
    if (status == MPI_STATUS_IGNORE)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "status is MPI_STATUS_IGNORE"));
    if (!out)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "count is NULL"));
    int rc = mpir_check_dtype(fn, "datatype", type, dt);
    return rc ? mpir_err_world(rc) : MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPIR_ENTER("MPI_Get_count");
    cu_dtype *dt;
    int rc = status_type("MPI_Get_count", status, datatype, &dt, count);
    if (rc)
        return rc;
    MPI_Count bytes = status->clumpi_count;
    if (dt->size == 0)
        *count = 0;
    else if (bytes % (MPI_Count)dt->size || bytes / (MPI_Count)dt->size > INT_MAX)
        *count = MPI_UNDEFINED;
    else
        *count = (int)(bytes / (MPI_Count)dt->size);
    return MPI_SUCCESS;
}
MPIR_WEAK(Get_count)

static MPI_Count elements(const cu_dtype *dt, MPI_Count bytes)
{
    if (dt->size == 0)
        return 0;
    long long n = cu_dtype_count_elements(dt, (size_t)bytes);
    return n < 0 ? MPI_UNDEFINED : n;
}

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPIR_ENTER("MPI_Get_elements");
    cu_dtype *dt;
    int rc = status_type("MPI_Get_elements", status, datatype, &dt, count);
    if (rc)
        return rc;
    MPI_Count n = elements(dt, status->clumpi_count);
    *count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
}
MPIR_WEAK(Get_elements)

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    MPIR_ENTER("MPI_Get_elements_x");
    cu_dtype *dt;
    int rc = status_type("MPI_Get_elements_x", status, datatype, &dt, count);
    if (rc)
        return rc;
    *count = elements(dt, status->clumpi_count);
    return MPI_SUCCESS;
}
MPIR_WEAK(Get_elements_x)

/* MPI_Status_set_elements and its _x twin: the status then reads `count`
 * basic elements of datatype (Get_elements) and the matching Get_count. */
static int set_elements(const char *fn, MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count count)
{
    cu_dtype *dt;
    int rc = status_type(fn, status, datatype, &dt, status);
    if (rc)
        return rc;
    if (count < 0)
        return mpir_err_world(mpir_err(MPI_ERR_COUNT, fn, "invalid count %lld", count));
    /* The packed bytes of the first `count` basic elements: O(depth), not a
     * search over byte prefixes. */
    status->clumpi_count = (MPI_Count)cu_dtype_elements_bytes(dt, count);
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    MPIR_ENTER("MPI_Status_set_elements");
    return set_elements("MPI_Status_set_elements", status, datatype, count);
}
MPIR_WEAK(Status_set_elements)

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    MPIR_ENTER("MPI_Status_set_elements_x");
    return set_elements("MPI_Status_set_elements_x", status, datatype, count);
}
MPIR_WEAK(Status_set_elements_x)

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    MPIR_ENTER("MPI_Status_set_cancelled");
    if (status == MPI_STATUS_IGNORE)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, "MPI_Status_set_cancelled",
                                       "status is MPI_STATUS_IGNORE"));
    status->clumpi_cancelled = flag ? 1 : 0;
    return MPI_SUCCESS;
}
MPIR_WEAK(Status_set_cancelled)

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    MPIR_ENTER("MPI_Test_cancelled");
    if (status == MPI_STATUS_IGNORE || !flag)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, "MPI_Test_cancelled", "%s is NULL",
                                       flag ? "status" : "flag"));
    *flag = status->clumpi_cancelled;
    return MPI_SUCCESS;
}
MPIR_WEAK(Test_cancelled)
