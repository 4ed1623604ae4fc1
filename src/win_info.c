/*
 * win_info.c — a window's hints (MPI-3.1 sections 11.2.1-11.2.3, 11.2.7):
 * the predefined keys read at creation, MPI_Win_set_info and
 * MPI_Win_get_info.
 *
 * The hints are the program's promises about its use of the window:
 * no_locks, accumulate_ordering, accumulate_ops, same_size and
 * same_disp_unit (every flavor), alloc_shared_noncontig (shared windows).
 * The library keeps the ones in force; it needs none of them to be
 * correct, so a promise changes nothing it does and an unknown key or a
 * value it cannot read is ignored, as hints may be. MPI_Win_get_info
 * reports every predefined key of the window's flavor with the value in
 * force (the default when none was given). alloc_shared_noncontig reads
 * "false" whatever was asked: the memory is contiguous across ranks.
 * MPI_Win_set_info changes the usage promises (no_locks and the accumulate
 * ones); the keys that describe the window's creation (same_size,
 * same_disp_unit, alloc_shared_noncontig) keep their creation values, as
 * the standard lets an implementation do.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "src/core.h"
#include "src/win.h"

/* accumulate_ordering bits, in the order the value lists them */
static const char *const orders[] = { "rar", "raw", "war", "waw" };
#define ORDER_ALL 0xf

void mpir_win_hints_default(mpir_win_hints *h)
{
    *h = (mpir_win_hints){ .acc_order = ORDER_ALL };
}

/* "true"/"false" into *out; other values leave it. */
static void read_bool(const char *v, int *out)
{
    if (!strcasecmp(v, "true"))
        *out = 1;
    else if (!strcasecmp(v, "false"))
        *out = 0;
}

/* "none" or a comma-separated list of rar, raw, war, waw into *out. */
static void read_order(const char *v, int *out)
{
    if (!strcasecmp(v, "none")) {
        *out = 0;
        return;
    }
    int mask = 0;
    char buf[MPI_MAX_INFO_VAL + 1];
    snprintf(buf, sizeof buf, "%s", v);
    char *save = NULL;
    for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        int k = 0;
        while (k < 4 && strcasecmp(t, orders[k]))
            k++;
        if (k == 4)
            return;   /* a word we do not know: the whole value is ignored */
        mask |= 1 << k;
    }
    if (mask)
        *out = mask;
}

static void read_ops(const char *v, int *out)
{
    if (!strcasecmp(v, "same_op"))
        *out = 1;
    else if (!strcasecmp(v, "same_op_no_op"))
        *out = 0;
}

/* The value of key in info, or NULL. */
static const char *lookup(MPI_Info info, const char *key, char *buf)
{
    int flag = 0;
    if (mpir_Info_get(info, key, MPI_MAX_INFO_VAL, buf, &flag) != MPI_SUCCESS || !flag)
        return NULL;
    return buf;
}

int mpir_win_hints_read(const char *fn, mpir_win_hints *h, MPI_Info info, int creation)
{
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    if (!mpir_handle_get(&mpir_infos, info))
        return mpir_err(MPI_ERR_INFO, fn, "invalid info (0x%x)", (unsigned)info);
    char buf[MPI_MAX_INFO_VAL + 1];
    const char *v;
    if ((v = lookup(info, "no_locks", buf)))
        read_bool(v, &h->no_locks);
    if ((v = lookup(info, "accumulate_ordering", buf)))
        read_order(v, &h->acc_order);
    if ((v = lookup(info, "accumulate_ops", buf)))
        read_ops(v, &h->acc_same_op);
    if (creation) {
        if ((v = lookup(info, "same_size", buf)))
            read_bool(v, &h->same_size);
        if ((v = lookup(info, "same_disp_unit", buf)))
            read_bool(v, &h->same_disp_unit);
    }
    return MPI_SUCCESS;
}

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    static const char fn[] = "MPI_Win_set_info";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    if (info == MPI_INFO_NULL)
        return mpir_err_win(w, mpir_err(MPI_ERR_INFO, fn, "info is MPI_INFO_NULL"));
    /* Read into a copy: an invalid info changes nothing. */
    mpir_win_hints h = w->hints;
    int rc = mpir_win_hints_read(fn, &h, info, 0);
    if (rc != MPI_SUCCESS)
        return mpir_err_win(w, rc);
    w->hints = h;
    return MPI_SUCCESS;
}
MPIR_WEAK(Win_set_info)

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    static const char fn[] = "MPI_Win_get_info";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    if (!info_used)
        return mpir_err_win(w, mpir_err(MPI_ERR_ARG, fn, "info_used is NULL"));
    const mpir_win_hints *h = &w->hints;
    char order[32] = "";
    for (int k = 0; k < 4; k++)
        if (h->acc_order & (1 << k))
            snprintf(order + strlen(order), sizeof order - strlen(order), "%s%s",
                     order[0] ? "," : "", orders[k]);
    const char *keys[] = { "no_locks", "accumulate_ordering", "accumulate_ops", "same_size",
                           "same_disp_unit", "alloc_shared_noncontig" };
    const char *vals[] = { h->no_locks ? "true" : "false", order[0] ? order : "none",
                           h->acc_same_op ? "same_op" : "same_op_no_op",
                           h->same_size ? "true" : "false",
                           h->same_disp_unit ? "true" : "false", "false" };
    int nkeys = w->flavor == MPI_WIN_FLAVOR_SHARED ? 6 : 5;
    MPI_Info in = MPI_INFO_NULL;
    int rc = mpir_Info_create(&in);
    for (int k = 0; rc == MPI_SUCCESS && k < nkeys; k++)
        rc = mpir_Info_set(in, keys[k], vals[k]);
    if (rc != MPI_SUCCESS) {
        if (in != MPI_INFO_NULL)
            mpir_Info_free(&in);
        return mpir_err_win(w, mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    }
    *info_used = in;
    return MPI_SUCCESS;
}
MPIR_WEAK(Win_get_info)
