/*
 * cvar.c — MPI_T control variables: the runtime parameters of
 * src/util/param_table.c, each named as its environment variable. A read
 * gives the value in force (written, else the environment, else the
 * default); a write changes what the library reads from then on, when the
 * parameter's `when` allows it now.
 */
#include <stdlib.h>
#include <string.h>
#include "src/mpit/mpit.h"
#include "src/util/param.h"

struct clumpi_T_cvar {
    int idx;
    struct clumpi_T_cvar *next;   /* live handles */
};
static struct clumpi_T_cvar *live;
static int nlive;

static int valid_index(int i) { return i >= 0 && i < cu_param_count; }

static int live_handle(MPI_T_cvar_handle h)
{
    for (struct clumpi_T_cvar *c = live; c; c = c->next)
        if (c == h)
            return 1;
    return 0;
}

int PMPI_T_cvar_get_num(int *num_cvar)
{
    static const char fn[] = "MPI_T_cvar_get_num";
    MPIR_T_ENTER(fn);
    if (!num_cvar)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "num_cvar is NULL");
    *num_cvar = cu_param_count;
    return MPI_SUCCESS;
}
MPIR_WEAK(T_cvar_get_num)

/* Scope: constant when the library never reads the value again. */
static int scope_of(const cu_param_def *d)
{
    if (d->when == CU_PARAM_FIXED)
        return MPI_T_SCOPE_CONSTANT;
    return d->agree == CU_PARAM_ALL_EQ ? MPI_T_SCOPE_ALL_EQ : MPI_T_SCOPE_LOCAL;
}

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
                         int *desc_len, int *bind, int *scope)
{
    static const char fn[] = "MPI_T_cvar_get_info";
    MPIR_T_ENTER(fn);
    if (!valid_index(cvar_index))
        return mpir_t_err(MPI_T_ERR_INVALID_INDEX, fn, "cvar_index %d is not in 0..%d",
                          cvar_index, cu_param_count - 1);
    const cu_param_def *d = &cu_param_defs[cvar_index];
    mpir_t_string(name, name_len, d->name);
    mpir_t_string(desc, desc_len, d->desc);
    if (verbosity)
        *verbosity = MPI_T_VERBOSITY_USER_BASIC + (int)d->level;
    if (datatype)
        *datatype = d->type == CU_PARAM_INT ? MPI_INT : MPI_CHAR;
    if (enumtype)
        *enumtype = d->enum_id >= 0 ? (MPI_T_enum)(uintptr_t)&cu_param_enums[d->enum_id]
                                    : MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope)
        *scope = scope_of(d);
    return MPI_SUCCESS;
}
MPIR_WEAK(T_cvar_get_info)

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    static const char fn[] = "MPI_T_cvar_get_index";
    MPIR_T_ENTER(fn);
    if (!name || !cvar_index)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "%s is NULL", name ? "cvar_index" : "name");
    int i = -1;
    if (!strncmp(name, "CLUMPI_", 7))   /* full names only */
        i = cu_param_find(name);
    if (i < 0)
        return mpir_t_err(MPI_T_ERR_INVALID_NAME, fn, "no control variable named \"%s\"", name);
    *cvar_index = i;
    return MPI_SUCCESS;
}
MPIR_WEAK(T_cvar_get_index)

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count)
{
    static const char fn[] = "MPI_T_cvar_handle_alloc";
    MPIR_T_ENTER(fn);
    (void)obj_handle;   /* every variable binds to no object */
    if (!valid_index(cvar_index))
        return mpir_t_err(MPI_T_ERR_INVALID_INDEX, fn, "cvar_index %d is not in 0..%d",
                          cvar_index, cu_param_count - 1);
    if (!handle || !count)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "%s is NULL", handle ? "count" : "handle");
    if (nlive >= MPIR_T_MAX_HANDLES)
        return mpir_t_err(MPI_T_ERR_OUT_OF_HANDLES, fn, "%d control variable handles are live",
                          nlive);
    struct clumpi_T_cvar *c = malloc(sizeof *c);
    if (!c)
        return mpir_t_err(MPI_T_ERR_MEMORY, fn, "out of memory");
    c->idx = cvar_index;
    c->next = live;
    live = c;
    nlive++;
    *handle = c;
    *count = cu_param_defs[cvar_index].type == CU_PARAM_INT ? 1 : CU_PARAM_STR_MAX;
    return MPI_SUCCESS;
}
MPIR_WEAK(T_cvar_handle_alloc)

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    static const char fn[] = "MPI_T_cvar_handle_free";
    MPIR_T_ENTER(fn);
    if (!handle)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "handle is NULL");
    if (!live_handle(*handle))
        return mpir_t_err(MPI_T_ERR_INVALID_HANDLE, fn, "*handle is not a live handle");
    for (struct clumpi_T_cvar **p = &live; *p; p = &(*p)->next)
        if (*p == *handle) {
            *p = (*handle)->next;
            break;
        }
    free(*handle);
    nlive--;
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}
MPIR_WEAK(T_cvar_handle_free)

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    static const char fn[] = "MPI_T_cvar_read";
    MPIR_T_ENTER(fn);
    if (!live_handle(handle))
        return mpir_t_err(MPI_T_ERR_INVALID_HANDLE, fn, "handle is not a live handle");
    if (!buf)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "buf is NULL");
    if (cu_param_defs[handle->idx].type == CU_PARAM_INT) {
        long v;
        if (cu_param_try_int_at(handle->idx, &v))
            return mpir_t_err(MPI_T_ERR_INVALID, fn, "%s is set to something not an int",
                              cu_param_defs[handle->idx].name);
        *(int *)buf = (int)v;
    } else {
        const char *s = cu_param_str_at(handle->idx);
        int len = CU_PARAM_STR_MAX;
        mpir_t_string(buf, &len, s ? s : "");
    }
    return MPI_SUCCESS;
}
MPIR_WEAK(T_cvar_read)

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    static const char fn[] = "MPI_T_cvar_write";
    MPIR_T_ENTER(fn);
    if (!live_handle(handle))
        return mpir_t_err(MPI_T_ERR_INVALID_HANDLE, fn, "handle is not a live handle");
    if (!buf)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "buf is NULL");
    const cu_param_def *d = &cu_param_defs[handle->idx];
    if (d->when == CU_PARAM_FIXED)
        return mpir_t_err(MPI_T_ERR_CVAR_SET_NEVER, fn, "%s is read at start-up only",
                          d->name);
    if (d->when == CU_PARAM_BEFORE_INIT && mpir_state != MPIR_STATE_PRE)
        return mpir_t_err(MPI_T_ERR_CVAR_SET_NOT_NOW, fn, "%s can only be set before MPI_Init",
                          d->name);
    int rc;
    if (d->type == CU_PARAM_INT) {
        int v = *(const int *)buf;
        if (!cu_param_in_enum(handle->idx, v))
            return mpir_t_err(MPI_T_ERR_INVALID, fn, "%d is not a value of %s", v, d->name);
        rc = cu_param_set_int(handle->idx, v);
    } else {
        if (strnlen(buf, CU_PARAM_STR_MAX) >= CU_PARAM_STR_MAX)
            return mpir_t_err(MPI_T_ERR_INVALID, fn, "the value of %s is longer than %d bytes",
                              d->name, CU_PARAM_STR_MAX - 1);
        rc = cu_param_set_str(handle->idx, buf);
    }
    if (rc)
        return mpir_t_err(MPI_T_ERR_MEMORY, fn, "out of memory");
    return MPI_SUCCESS;
}
MPIR_WEAK(T_cvar_write)

void mpir_t_cvar_finalize(void)
{
    while (live) {
        struct clumpi_T_cvar *c = live;
        live = c->next;
        free(c);
    }
    nlive = 0;
}
