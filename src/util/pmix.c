/*
 * pmix.c — the PMI client's PMIx side, on OpenPMIx's client library.
 *
 * PMI-1's key-value space is one flat space of the job; PMIx stores each
 * value under the process that put it, and a get names that process
 * (PMIX_RANK_UNDEF, "any process", does not search put data in OpenPMIx
 * 4.2). The keys clumpi uses say whose they are only by convention
 * ("ofi-<rank>", "shm-<node>"), so a get asks the rank a trailing number
 * names first and then every rank, each time from the local store only
 * (PMIX_OPTIONAL): the fence that follows the puts collects all the data
 * (PMIX_COLLECT_DATA), so these are lookups in memory, never messages.
 */
#include "config.h"
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "src/util/log.h"
#include "src/util/pmix.h"

static struct {
    pmix_proc_t me;
    int size;
} px;

int cu_pmix_offered(void)
{
    return getenv("PMIX_NAMESPACE") != NULL && getenv("PMIX_RANK") != NULL;
}

/* An integer of whichever width and sign the server chose. */
static int value_int(const pmix_value_t *v, long *out)
{
    switch (v->type) {
    case PMIX_INT: *out = v->data.integer; return 0;
    case PMIX_INT8: *out = v->data.int8; return 0;
    case PMIX_INT16: *out = v->data.int16; return 0;
    case PMIX_INT32: *out = v->data.int32; return 0;
    case PMIX_INT64: *out = (long)v->data.int64; return 0;
    case PMIX_UINT: *out = (long)v->data.uint; return 0;
    case PMIX_UINT8: *out = v->data.uint8; return 0;
    case PMIX_UINT16: *out = v->data.uint16; return 0;
    case PMIX_UINT32: *out = (long)v->data.uint32; return 0;
    case PMIX_UINT64: *out = (long)v->data.uint64; return 0;
    case PMIX_SIZE: *out = (long)v->data.size; return 0;
    default: return -1;
    }
}

/* Key `key` of process `rank` (or PMIX_RANK_WILDCARD: the job's) as an
 * integer, from what the server gave us at start. */
static int get_int(pmix_rank_t rank, const char *key, long *out)
{
    pmix_proc_t p;
    pmix_info_t opt;
    bool yes = true;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&p, px.me.nspace, rank);
    PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Get(&p, key, &opt, 1, &v);
    PMIX_INFO_DESTRUCT(&opt);
    if (rc != PMIX_SUCCESS || !v)
        return -1;
    int r = value_int(v, out);
    PMIX_VALUE_RELEASE(v);
    return r;
}

int cu_pmix_init(int *rank, int *size, int *appnum, char *nspace, size_t cap)
{
    pmix_status_t rc = PMIx_Init(&px.me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        cu_warn("PMIx: cannot reach the launcher's PMIx server (PMIX_NAMESPACE=%s): %s",
                getenv("PMIX_NAMESPACE"), PMIx_Error_string(rc));
        return -1;
    }
    long n = 0, a = 0;
    if (get_int(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &n) < 0 || n < 1 ||
        px.me.rank >= (pmix_rank_t)n) {
        cu_warn("PMIx: the server gives no usable job size (rank %u)", (unsigned)px.me.rank);
        PMIx_Finalize(NULL, 0);
        return -1;
    }
    if (get_int(px.me.rank, PMIX_APPNUM, &a) < 0 || a < 0)
        a = 0;
    if (strlen(px.me.nspace) >= cap) {
        cu_warn("PMIx: namespace '%s' too long", px.me.nspace);
        PMIx_Finalize(NULL, 0);
        return -1;
    }
    strcpy(nspace, px.me.nspace);
    px.size = (int)n;
    *rank = (int)px.me.rank;
    *size = (int)n;
    *appnum = (int)a;
    return 0;
}

int cu_pmix_finalize(void)
{
    return PMIx_Finalize(NULL, 0) == PMIX_SUCCESS ? 0 : -1;
}

void cu_pmix_abort(int code, const char *msg)
{
    /* The server ends every process of the namespace (NULL, 0). */
    PMIx_Abort(code, msg && *msg ? msg : "MPI_Abort", NULL, 0);
}

int cu_pmix_put(const char *key, const char *value)
{
    pmix_value_t v;
    v.type = PMIX_STRING;
    v.data.string = (char *)value;   /* PMIx_Put copies it */
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    if (rc != PMIX_SUCCESS) {
        cu_warn("PMIx: put of key '%s' failed: %s", key, PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

/* The value of key put by rank r: 1 found, 0 not there, -1 too long. */
static int get_from(int r, const char *key, char *value, size_t len)
{
    pmix_proc_t p;
    pmix_info_t opt;
    bool yes = true;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&p, px.me.nspace, (pmix_rank_t)r);
    PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Get(&p, key, &opt, 1, &v);
    PMIX_INFO_DESTRUCT(&opt);
    if (rc != PMIX_SUCCESS || !v)
        return 0;
    int got = 0;
    if (v->type == PMIX_STRING && v->data.string) {
        got = strlen(v->data.string) < len ? 1 : -1;
        if (got > 0)
            strcpy(value, v->data.string);
    }
    PMIX_VALUE_RELEASE(v);
    return got;
}

int cu_pmix_get(const char *key, char *value, size_t len)
{
    /* "name-<n>": rank n first, as most keys are a rank's own */
    const char *dash = strrchr(key, '-');
    int hint = -1;
    if (dash && dash[1]) {
        char *end;
        long h = strtol(dash + 1, &end, 10);
        if (!*end && h >= 0 && h < px.size)
            hint = (int)h;
    }
    int got = hint >= 0 ? get_from(hint, key, value, len) : 0;
    for (int r = 0; r < px.size && got == 0; r++)
        if (r != hint)
            got = get_from(r, key, value, len);
    return got > 0 ? 0 : -1;
}

int cu_pmix_fence(void)
{
    pmix_status_t rc = PMIx_Commit();
    if (rc == PMIX_SUCCESS) {
        pmix_info_t col;
        bool yes = true;
        PMIX_INFO_LOAD(&col, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        rc = PMIx_Fence(NULL, 0, &col, 1);   /* NULL: every process of the namespace */
        PMIX_INFO_DESTRUCT(&col);
    }
    if (rc != PMIX_SUCCESS) {
        cu_warn("PMIx: fence failed: %s", PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

int cu_pmix_universe_size(void)
{
    long u = 0;
    return get_int(PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE, &u) == 0 && u > 0 && u <= 1 << 30
               ? (int)u : 0;
}

int cu_pmix_node_map(int size, int *node_of)
{
    long *id = malloc((size_t)size * sizeof *id);
    if (!id)
        return -1;
    int nnodes = 0;
    for (int r = 0; r < size; r++) {
        if (get_int((pmix_rank_t)r, PMIX_NODEID, &id[r]) < 0) {
            free(id);
            return -1;
        }
        node_of[r] = -1;
        for (int q = 0; q < r && node_of[r] < 0; q++)
            if (id[q] == id[r])
                node_of[r] = node_of[q];
        if (node_of[r] < 0)
            node_of[r] = nnodes++;
    }
    free(id);
    return nnodes;
}
