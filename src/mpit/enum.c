/*
 * enum.c — MPI_T enumerations: the named values of integer control
 * variables (src/util/param_table.c). An MPI_T_enum points at its entry of
 * cu_param_enums.
 */
#include "src/mpit/mpit.h"
#include "src/util/param.h"

/* The enumeration behind e, or NULL when e is not one of ours. */
static const cu_param_enum *enum_of(MPI_T_enum e)
{
    for (int i = 0; i < cu_param_nenums; i++)
        if ((const void *)e == (const void *)&cu_param_enums[i])
            return &cu_param_enums[i];
    return NULL;
}

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    static const char fn[] = "MPI_T_enum_get_info";
    MPIR_T_ENTER(fn);
    const cu_param_enum *e = enum_of(enumtype);
    if (!e)
        return mpir_t_err(MPI_T_ERR_INVALID_HANDLE, fn, "enumtype is not an enumeration");
    if (!num)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "num is NULL");
    *num = e->nitems;
    mpir_t_string(name, name_len, e->name);
    return MPI_SUCCESS;
}
MPIR_WEAK(T_enum_get_info)

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name,
                         int *name_len)
{
    static const char fn[] = "MPI_T_enum_get_item";
    MPIR_T_ENTER(fn);
    const cu_param_enum *e = enum_of(enumtype);
    if (!e)
        return mpir_t_err(MPI_T_ERR_INVALID_HANDLE, fn, "enumtype is not an enumeration");
    if (index < 0 || index >= e->nitems)
        return mpir_t_err(MPI_T_ERR_INVALID_ITEM, fn, "index %d is not in 0..%d", index,
                          e->nitems - 1);
    if (!value)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "value is NULL");
    *value = e->items[index].value;
    mpir_t_string(name, name_len, e->items[index].name);
    return MPI_SUCCESS;
}
MPIR_WEAK(T_enum_get_item)
