/*
 * handle.c — tables that turn integer MPI handles into objects.
 */
#include <stdlib.h>
#include "src/mpir.h"

#define TABLE(kind) { (kind), NULL, 0, 1 }
mpir_table mpir_comms       = TABLE(CLUMPI_KIND_COMM);
mpir_table mpir_groups      = TABLE(CLUMPI_KIND_GROUP);
mpir_table mpir_dtypes      = TABLE(CLUMPI_KIND_DATATYPE);
mpir_table mpir_ops         = TABLE(CLUMPI_KIND_OP);
mpir_table mpir_requests    = TABLE(CLUMPI_KIND_REQUEST);
mpir_table mpir_errhandlers = TABLE(CLUMPI_KIND_ERRHANDLER);
mpir_table mpir_infos       = TABLE(CLUMPI_KIND_INFO);
mpir_table mpir_messages    = TABLE(CLUMPI_KIND_MESSAGE);
mpir_table mpir_wins        = TABLE(CLUMPI_KIND_WIN);

static int grow(mpir_table *t, int need)
{
    if (need < t->cap)
        return 0;
    int cap = t->cap ? t->cap : 64;
    while (cap <= need)
        cap *= 2;
    if (cap > 0xffffff)
        return -1;
    void **obj = realloc(t->obj, (size_t)cap * sizeof(*obj));
    if (!obj)
        return -1;
    for (int i = t->cap; i < cap; i++)
        obj[i] = NULL;
    t->obj = obj;
    t->cap = cap;
    return 0;
}

void mpir_handle_set(mpir_table *t, int index, void *obj)
{
    if (grow(t, index) == 0) {
        t->obj[index] = obj;
        if (t->nfree_hint <= index)
            t->nfree_hint = index + 1;
    }
}

int mpir_handle_new(mpir_table *t, void *obj)
{
    /* Search from the hint so that freshly freed slots are reused and the
     * table stays small; handles are checked by kind and index only. */
    int i = t->nfree_hint > 0 ? t->nfree_hint : 1;
    for (; i < t->cap; i++)
        if (!t->obj[i])
            break;
    if (grow(t, i) != 0)
        return CLUMPI_HANDLE(t->kind, 0);
    t->obj[i] = obj;
    t->nfree_hint = i + 1;
    return CLUMPI_HANDLE(t->kind, i);
}

void mpir_handle_free(mpir_table *t, int handle)
{
    unsigned idx = (unsigned)handle & 0xffffffu;
    if ((int)((unsigned)handle >> 24) != t->kind || idx == 0 || idx >= (unsigned)t->cap)
        return;
    t->obj[idx] = NULL;
    if ((int)idx < t->nfree_hint)
        t->nfree_hint = (int)idx;
}
