/*
 * category.c — MPI_T categories: each groups the control variables
 * (src/util/param_table.c) and performance variables (pvar.c) that name it.
 * The set never changes while the program runs, so the stamp is constant.
 */
#include <string.h>
#include "src/mpit/mpit.h"
#include "src/util/param.h"

static const struct { const char *name, *desc; } cats[] = {
    { "general", "diagnostics of the library and mpirun" },
    { "pt2pt", "point-to-point protocols (eager, rendezvous, single copy) and matching" },
    { "progress", "how ranks wait: spinning, yielding, blocking" },
    { "shm", "the shared-memory channel between ranks of a node" },
    { "network", "the channel between nodes (libfabric, direct mode)" },
    { "rma", "one-sided communication paths" },
    { "agent", "offload mode: the per-node NI agent" },
    { "collectives", "collective algorithms and their parameters" },
    { "launcher", "mpirun and the PMI connection of remote ranks" },
};
enum { NCATS = (int)(sizeof cats / sizeof cats[0]) };

static int valid(int i) { return i >= 0 && i < NCATS; }

int PMPI_T_category_get_num(int *num_cat)
{
    static const char fn[] = "MPI_T_category_get_num";
    MPIR_T_ENTER(fn);
    if (!num_cat)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "num_cat is NULL");
    *num_cat = NCATS;
    return MPI_SUCCESS;
}
MPIR_WEAK(T_category_get_num)

/* The members of category c among n variables whose category names are
 * given by cat_of: their count, and the first len of them in out. */
static int members(int c, int n, const char *(*cat_of)(int), int len, int *out)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!strcmp(cat_of(i), cats[c].name)) {
            if (out && k < len)
                out[k] = i;
            k++;
        }
    return k;
}

static const char *cvar_category(int i) { return cu_param_defs[i].category; }

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc,
                             int *desc_len, int *num_cvars, int *num_pvars, int *num_categories)
{
    static const char fn[] = "MPI_T_category_get_info";
    MPIR_T_ENTER(fn);
    if (!valid(cat_index))
        return mpir_t_err(MPI_T_ERR_INVALID_INDEX, fn, "cat_index %d is not in 0..%d",
                          cat_index, NCATS - 1);
    mpir_t_string(name, name_len, cats[cat_index].name);
    mpir_t_string(desc, desc_len, cats[cat_index].desc);
    if (num_cvars)
        *num_cvars = members(cat_index, cu_param_count, cvar_category, 0, NULL);
    if (num_pvars)
        *num_pvars = members(cat_index, mpir_t_pvar_count(), mpir_t_pvar_category, 0, NULL);
    if (num_categories)
        *num_categories = 0;   /* the categories are flat */
    return MPI_SUCCESS;
}
MPIR_WEAK(T_category_get_info)

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    static const char fn[] = "MPI_T_category_get_index";
    MPIR_T_ENTER(fn);
    if (!name || !cat_index)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "%s is NULL", name ? "cat_index" : "name");
    for (int i = 0; i < NCATS; i++)
        if (!strcmp(cats[i].name, name)) {
            *cat_index = i;
            return MPI_SUCCESS;
        }
    return mpir_t_err(MPI_T_ERR_INVALID_NAME, fn, "no category named \"%s\"", name);
}
MPIR_WEAK(T_category_get_index)

/* Common checks of the get_cvars/pvars/categories calls. */
static int list_args(const char *fn, int cat_index, int len, const int *indices)
{
    if (!valid(cat_index))
        return mpir_t_err(MPI_T_ERR_INVALID_INDEX, fn, "cat_index %d is not in 0..%d",
                          cat_index, NCATS - 1);
    if (len < 0 || (len > 0 && !indices))
        return mpir_t_err(MPI_T_ERR_INVALID, fn, len < 0 ? "len (%d) is negative"
                                                         : "indices is NULL (len %d)", len);
    return MPI_SUCCESS;
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    static const char fn[] = "MPI_T_category_get_cvars";
    MPIR_T_ENTER(fn);
    int rc = list_args(fn, cat_index, len, indices);
    if (rc == MPI_SUCCESS)
        members(cat_index, cu_param_count, cvar_category, len, indices);
    return rc;
}
MPIR_WEAK(T_category_get_cvars)

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    static const char fn[] = "MPI_T_category_get_pvars";
    MPIR_T_ENTER(fn);
    int rc = list_args(fn, cat_index, len, indices);
    if (rc == MPI_SUCCESS)
        members(cat_index, mpir_t_pvar_count(), mpir_t_pvar_category, len, indices);
    return rc;
}
MPIR_WEAK(T_category_get_pvars)

int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    static const char fn[] = "MPI_T_category_get_categories";
    MPIR_T_ENTER(fn);
    return list_args(fn, cat_index, len, indices);   /* no subcategories to list */
}
MPIR_WEAK(T_category_get_categories)

int PMPI_T_category_changed(int *stamp)
{
    static const char fn[] = "MPI_T_category_changed";
    MPIR_T_ENTER(fn);
    if (!stamp)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "stamp is NULL");
    *stamp = 0;
    return MPI_SUCCESS;
}
MPIR_WEAK(T_category_changed)
