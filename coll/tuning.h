/*
 * tuning.h — the measured selection table (doc/TUNING.md, "The
 * collectives' selection table"): rows of text "op nodes ranks oversub bytes algorithm", parsed
 * into rows and looked up per call. The names are resolved by the caller
 * (coll/select.c), so the parser knows no algorithm and runs on its own in
 * test/unit/test_tuning.c.
 */
#ifndef COLL_TUNING_H
#define COLL_TUNING_H

#include <stddef.h>

typedef struct coll_tuning_row {
    int    op;        /* the resolver's operation id */
    int    nodes;     /* nodes the run spanned (1: one node) */
    int    ranks;
    int    oversub;   /* 0, 1, or -1: either */
    size_t lo, hi;    /* bytes, inclusive (hi SIZE_MAX: no bound) */
    int    algo;      /* the resolver's algorithm index */
    int    line;
} coll_tuning_row;

typedef struct coll_tuning {
    coll_tuning_row *rows;   /* sorted by op, nodes, oversub, ranks, lo */
    int              nrows;
    int             *first;  /* rows of op k: [first[k], first[k + 1]) */
    int              nops;
} coll_tuning;

/* Names to ids: op returns an id in [0, nops) or -1; algo returns an
 * index or -1 after writing the valid names, comma separated, to valid. */
typedef struct coll_tuning_names {
    int nops;
    int (*op)(const char *name);
    int (*algo)(int op, const char *name, char *valid, size_t len);
} coll_tuning_names;

/* Parses text (file names it in messages). 0 on success; else -1 with
 * "file:line: what" in err, and t left empty. */
int coll_tuning_parse(const char *text, const char *file, const coll_tuning_names *names,
                      coll_tuning *t, char *err, size_t errlen);
/* The same for the file at path. */
int coll_tuning_load(const char *path, const coll_tuning_names *names, coll_tuning *t,
                     char *err, size_t errlen);
void coll_tuning_free(coll_tuning *t);

/* The algorithm index the table gives a call, or -1 when it has no row for
 * it: rows of the call's node class (one node or several) and, where the
 * table has any, of its oversubscription; the nearest node count; the
 * nearest rank count within a factor of two (the larger on a tie); the row
 * whose bytes hold the size. */
int coll_tuning_lookup(const coll_tuning *t, int op, int ranks, int nodes, int oversub,
                       size_t bytes);
/* The lookup in two steps, for a caller that keeps the first per
 * communicator: the group of rows a call of these ranks, nodes and
 * oversubscription takes (the index of its first row, or -1), and the
 * algorithm index of the group's row holding bytes (or -1). */
int coll_tuning_group(const coll_tuning *t, int op, int ranks, int nodes, int oversub);
int coll_tuning_in_group(const coll_tuning *t, int group, size_t bytes);

#endif
