/*
 * group.c — process groups: ordered sets of world ranks.
 *
 * A group object is shared by reference: communicators hold one, and each
 * handle given to the user holds one (MPI_Comm_group returns the same handle
 * again with one more reference), so the handle stays valid until the last
 * holder lets go. Empty results are always MPI_GROUP_EMPTY.
 */
#include <stdlib.h>
#include <string.h>
#include "src/core.h"

static mpir_group group_empty = { 0, MPI_UNDEFINED, NULL, 1, MPI_GROUP_EMPTY };

void mpir_group_init(void)
{
    group_empty.refcount = 1;
    mpir_handle_set(&mpir_groups, MPI_GROUP_EMPTY & 0xffffff, &group_empty);
}

void mpir_group_finalize(void)
{
    for (int i = 1; i < mpir_groups.cap; i++) {
        mpir_group *g = mpir_groups.obj[i];
        if (g && g != &group_empty) {
            free(g->world_ranks);
            free(g);
        }
        mpir_groups.obj[i] = NULL;
    }
    mpir_groups.nfree_hint = 1;
}

int mpir_group_find(const mpir_group *g, int w)
{
    for (int i = 0; i < g->size; i++)
        if (g->world_ranks[i] == w)
            return i;
    return MPI_UNDEFINED;
}

/* Each process of other jobs among the n world ranks wr (their routing
 * slots) gets one reference more or less: a slot lives while a group
 * names it. */
static void dyn_refs(const int *wr, int n, void (*f)(int))
{
    int ws = mpid_world_size();
    for (int i = 0; i < n; i++)
        if (wr[i] >= ws)
            f(wr[i]);
}

mpir_group *mpir_group_new(int size, const int *world_ranks)
{
    if (size <= 0) {
        group_empty.refcount++;
        return &group_empty;
    }
    mpir_group *g = malloc(sizeof *g);
    int *wr = malloc((size_t)size * sizeof(int));
    if (!g || !wr) {
        free(g);
        free(wr);
        return NULL;
    }
    memcpy(wr, world_ranks, (size_t)size * sizeof(int));
    dyn_refs(wr, size, mpid_dyn_ref);
    g->size = size;
    g->world_ranks = wr;
    g->refcount = 1;
    g->rank = mpir_group_find(g, mpid_world_rank());
    g->handle = mpir_handle_new(&mpir_groups, g);
    if (g->handle == MPI_GROUP_NULL) {
        dyn_refs(wr, size, mpid_dyn_unref);
        free(wr);
        free(g);
        return NULL;
    }
    return g;
}

void mpir_group_retain(mpir_group *g)
{
    g->refcount++;
}

void mpir_group_release(mpir_group *g)
{
    if (!g || --g->refcount > 0 || g == &group_empty)
        return;
    mpir_handle_free(&mpir_groups, g->handle);
    dyn_refs(g->world_ranks, g->size, mpid_dyn_unref);
    free(g->world_ranks);
    free(g);
}

/* ---- helpers ---------------------------------------------------------------- */

#define GET_GROUP(fn, h, gp, argname)                                           \
    do {                                                                       \
        (gp) = mpir_group_get(h);                                              \
        if (!(gp))                                                             \
            return mpir_err_world(mpir_err(MPI_ERR_GROUP, fn,                  \
                                           "invalid group %s (0x%x)", argname,  \
                                           (unsigned)(h)));                     \
    } while (0)

#define NULL_ARG(fn, p, name)                                                  \
    do {                                                                       \
        if (!(p))                                                              \
            return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "%s is NULL", name)); \
    } while (0)

/* Sorted view of a group's world ranks, for membership tests in O(log n). */
static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int *sorted_ranks(const mpir_group *g)
{
    int *s = malloc((size_t)(g->size ? g->size : 1) * sizeof(int));
    if (s && g->size) {
        memcpy(s, g->world_ranks, (size_t)g->size * sizeof(int));
        qsort(s, (size_t)g->size, sizeof(int), cmp_int);
    }
    return s;
}

static int in_sorted(const int *s, int n, int w)
{
    return n > 0 && bsearch(&w, s, (size_t)n, sizeof(int), cmp_int) != NULL;
}

/* Makes a group from a list and returns its handle through *out. */
static int finish(const char *fn, int n, const int *wr, MPI_Group *out)
{
    mpir_group *g = mpir_group_new(n, wr);
    if (!g)
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    *out = g->handle;
    return MPI_SUCCESS;
}

/* ---- queries ----------------------------------------------------------------- */

int PMPI_Group_size(MPI_Group group, int *size)
{
    static const char fn[] = "MPI_Group_size";
    MPIR_ENTER(fn);
    mpir_group *g;
    GET_GROUP(fn, group, g, "group");
    NULL_ARG(fn, size, "size");
    *size = g->size;
    return MPI_SUCCESS;
}
MPIR_WEAK(Group_size)

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    static const char fn[] = "MPI_Group_rank";
    MPIR_ENTER(fn);
    mpir_group *g;
    GET_GROUP(fn, group, g, "group");
    NULL_ARG(fn, rank, "rank");
    *rank = g->rank;
    return MPI_SUCCESS;
}
MPIR_WEAK(Group_rank)

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    static const char fn[] = "MPI_Group_translate_ranks";
    MPIR_ENTER(fn);
    mpir_group *g1, *g2;
    GET_GROUP(fn, group1, g1, "group1");
    GET_GROUP(fn, group2, g2, "group2");
    if (n < 0)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "n is negative (%d)", n));
    if (n == 0)
        return MPI_SUCCESS;
    NULL_ARG(fn, ranks1, "ranks1");
    NULL_ARG(fn, ranks2, "ranks2");
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= g1->size))
            return mpir_err_world(mpir_err(MPI_ERR_RANK, fn,
                                           "ranks1[%d] = %d is not a rank of group1 (size %d)",
                                           i, ranks1[i], g1->size));
    for (int i = 0; i < n; i++)
        ranks2[i] = ranks1[i] == MPI_PROC_NULL
                        ? MPI_PROC_NULL
                        : mpir_group_find(g2, g1->world_ranks[ranks1[i]]);
    return MPI_SUCCESS;
}
MPIR_WEAK(Group_translate_ranks)

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    static const char fn[] = "MPI_Group_compare";
    MPIR_ENTER(fn);
    mpir_group *g1, *g2;
    GET_GROUP(fn, group1, g1, "group1");
    GET_GROUP(fn, group2, g2, "group2");
    NULL_ARG(fn, result, "result");
    if (g1->size != g2->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    if (g1->size == 0 ||
        !memcmp(g1->world_ranks, g2->world_ranks, (size_t)g1->size * sizeof(int))) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    int *s1 = sorted_ranks(g1), *s2 = sorted_ranks(g2);
    if (!s1 || !s2) {
        free(s1);
        free(s2);
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    }
    *result = memcmp(s1, s2, (size_t)g1->size * sizeof(int)) ? MPI_UNEQUAL : MPI_SIMILAR;
    free(s1);
    free(s2);
    return MPI_SUCCESS;
}
MPIR_WEAK(Group_compare)

/* ---- set operations ----------------------------------------------------------- */

enum { OP_UNION, OP_INTERSECTION, OP_DIFFERENCE };

static int set_op(const char *fn, int op, MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    mpir_group *g1, *g2;
    GET_GROUP(fn, group1, g1, "group1");
    GET_GROUP(fn, group2, g2, "group2");
    NULL_ARG(fn, newgroup, "newgroup");
    int *s1 = sorted_ranks(g1), *s2 = sorted_ranks(g2);
    int *out = malloc((size_t)(g1->size + g2->size + 1) * sizeof(int));
    if (!s1 || !s2 || !out) {
        free(s1);
        free(s2);
        free(out);
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    }
    int n = 0;
    /* Results keep group1's order, then (union) group2's for the rest. */
    for (int i = 0; i < g1->size; i++) {
        int in2 = in_sorted(s2, g2->size, g1->world_ranks[i]);
        if (op == OP_UNION || (op == OP_INTERSECTION) == in2)
            out[n++] = g1->world_ranks[i];
    }
    if (op == OP_UNION)
        for (int i = 0; i < g2->size; i++)
            if (!in_sorted(s1, g1->size, g2->world_ranks[i]))
                out[n++] = g2->world_ranks[i];
    int rc = finish(fn, n, out, newgroup);
    free(s1);
    free(s2);
    free(out);
    return rc;
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    MPIR_ENTER("MPI_Group_union");
    return set_op("MPI_Group_union", OP_UNION, group1, group2, newgroup);
}
MPIR_WEAK(Group_union)

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    MPIR_ENTER("MPI_Group_intersection");
    return set_op("MPI_Group_intersection", OP_INTERSECTION, group1, group2, newgroup);
}
MPIR_WEAK(Group_intersection)

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    MPIR_ENTER("MPI_Group_difference");
    return set_op("MPI_Group_difference", OP_DIFFERENCE, group1, group2, newgroup);
}
MPIR_WEAK(Group_difference)

/* ---- subsets by rank ------------------------------------------------------------ */

/* Marks the ranks in `ranks` in mark[] (size g->size); errors on a rank out
 * of range or named twice. */
static int mark_ranks(const char *fn, const mpir_group *g, int n, const int *ranks, char *mark)
{
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r < 0 || r >= g->size)
            return mpir_err(MPI_ERR_RANK, fn, "ranks[%d] = %d is not a rank of the group (size %d)",
                            i, r, g->size);
        if (mark[r])
            return mpir_err(MPI_ERR_RANK, fn, "rank %d appears twice in ranks", r);
        mark[r] = 1;
    }
    return MPI_SUCCESS;
}

static int incl_excl(const char *fn, int incl, MPI_Group group, int n, const int ranks[],
                     MPI_Group *newgroup)
{
    mpir_group *g;
    GET_GROUP(fn, group, g, "group");
    NULL_ARG(fn, newgroup, "newgroup");
    if (n < 0 || n > g->size)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "n = %d is not in [0, group size %d]",
                                       n, g->size));
    if (n > 0)
        NULL_ARG(fn, ranks, "ranks");
    char *mark = calloc((size_t)g->size + 1, 1);
    int *out = malloc((size_t)(g->size + 1) * sizeof(int));
    if (!mark || !out) {
        free(mark);
        free(out);
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    }
    int rc = mark_ranks(fn, g, n, ranks, mark);
    if (rc == MPI_SUCCESS) {
        int k = 0;
        if (incl)
            for (int i = 0; i < n; i++)
                out[k++] = g->world_ranks[ranks[i]];
        else
            for (int i = 0; i < g->size; i++)
                if (!mark[i])
                    out[k++] = g->world_ranks[i];
        rc = finish(fn, k, out, newgroup);
    } else {
        rc = mpir_err_world(rc);
    }
    free(mark);
    free(out);
    return rc;
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    MPIR_ENTER("MPI_Group_incl");
    return incl_excl("MPI_Group_incl", 1, group, n, ranks, newgroup);
}
MPIR_WEAK(Group_incl)

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    MPIR_ENTER("MPI_Group_excl");
    return incl_excl("MPI_Group_excl", 0, group, n, ranks, newgroup);
}
MPIR_WEAK(Group_excl)

/* Expands (first, last, stride) triples into a rank list, checking each. */
static int expand_ranges(const char *fn, const mpir_group *g, int n, int ranges[][3],
                         int **list, int *count)
{
    long total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0)
            return mpir_err(MPI_ERR_ARG, fn, "ranges[%d] has stride 0", i);
        if (first < 0 || first >= g->size || last < 0 || last >= g->size)
            return mpir_err(MPI_ERR_RANK, fn,
                            "ranges[%d] = (%d, %d, %d) names a rank outside the group (size %d)",
                            i, first, last, stride, g->size);
        if ((stride > 0 && first > last) || (stride < 0 && first < last))
            continue;   /* empty range */
        total += ((long)last - first) / stride + 1;
        if (total > g->size)
            return mpir_err(MPI_ERR_RANK, fn, "ranges name more ranks than the group has (%d)",
                            g->size);
    }
    int *l = malloc((size_t)(total + 1) * sizeof(int));
    if (!l)
        return mpir_err(MPI_ERR_NO_MEM, fn, "out of memory");
    int k = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride > 0)
            for (long r = first; r <= last; r += stride)
                l[k++] = (int)r;
        else
            for (long r = first; r >= last; r += stride)
                l[k++] = (int)r;
    }
    *list = l;
    *count = k;
    return MPI_SUCCESS;
}

static int range_incl_excl(const char *fn, int incl, MPI_Group group, int n, int ranges[][3],
                           MPI_Group *newgroup)
{
    mpir_group *g;
    GET_GROUP(fn, group, g, "group");
    NULL_ARG(fn, newgroup, "newgroup");
    if (n < 0)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "n is negative (%d)", n));
    if (n > 0)
        NULL_ARG(fn, ranges, "ranges");
    int *list = NULL, k = 0;
    int rc = expand_ranges(fn, g, n, ranges, &list, &k);
    if (rc != MPI_SUCCESS)
        return mpir_err_world(rc);
    rc = incl_excl(fn, incl, group, k, list, newgroup);
    free(list);
    return rc;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    MPIR_ENTER("MPI_Group_range_incl");
    return range_incl_excl("MPI_Group_range_incl", 1, group, n, ranges, newgroup);
}
MPIR_WEAK(Group_range_incl)

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    MPIR_ENTER("MPI_Group_range_excl");
    return range_incl_excl("MPI_Group_range_excl", 0, group, n, ranges, newgroup);
}
MPIR_WEAK(Group_range_excl)

int PMPI_Group_free(MPI_Group *group)
{
    static const char fn[] = "MPI_Group_free";
    MPIR_ENTER(fn);
    NULL_ARG(fn, group, "group");
    mpir_group *g;
    GET_GROUP(fn, *group, g, "*group");
    mpir_group_release(g);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
MPIR_WEAK(Group_free)
