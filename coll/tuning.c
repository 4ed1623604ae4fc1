/*
 * tuning.c — the measured selection table: its text parsed into sorted
 * rows, and the row for a call (format and rules: doc/TUNING.md).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll/tuning.h"

#define FIELDS 6

static int fail(char *err, size_t len, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail(char *err, size_t len, const char *file, int line, const char *fmt, ...)
{
    int n = snprintf(err, len, "%s:%d: ", file, line);
    if (n >= 0 && (size_t)n < len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + n, len - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* A count of bytes: digits and an optional k, m or g (powers of 1024). */
static int parse_bytes(const char *s, size_t *out)
{
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    switch (tolower((unsigned char)*end)) {
    case 'k': shift = 10; end++; break;
    case 'm': shift = 20; end++; break;
    case 'g': shift = 30; end++; break;
    default: break;
    }
    if (errno || *end || v > (SIZE_MAX >> shift))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

/* A positive int. */
static int parse_count(const char *s, int *out)
{
    size_t v;
    if (parse_bytes(s, &v) || v < 1 || v > 1u << 24)
        return -1;
    *out = (int)v;
    return 0;
}

/* "N", "LO-HI" or "LO-" (no upper bound). */
static int parse_range(const char *text, size_t *lo, size_t *hi)
{
    char s[64];
    if (snprintf(s, sizeof s, "%s", text) >= (int)sizeof s)
        return -1;
    char *dash = strchr(s, '-');
    if (!dash)
        return parse_bytes(s, lo) ? -1 : (*hi = *lo, 0);
    *dash = 0;
    if (parse_bytes(s, lo))
        return -1;
    if (!dash[1]) {
        *hi = SIZE_MAX;
        return 0;
    }
    return parse_bytes(dash + 1, hi) || *hi < *lo ? -1 : 0;
}

static int cmp_rows(const void *pa, const void *pb)
{
    const coll_tuning_row *a = pa, *b = pb;
    if (a->op != b->op) return a->op < b->op ? -1 : 1;
    if (a->nodes != b->nodes) return a->nodes < b->nodes ? -1 : 1;
    if (a->oversub != b->oversub) return a->oversub < b->oversub ? -1 : 1;
    if (a->ranks != b->ranks) return a->ranks < b->ranks ? -1 : 1;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    return a->line - b->line;
}

static int same_group(const coll_tuning_row *a, const coll_tuning_row *b)
{
    return a->op == b->op && a->nodes == b->nodes && a->oversub == b->oversub &&
           a->ranks == b->ranks;
}

void coll_tuning_free(coll_tuning *t)
{
    free(t->rows);
    free(t->first);
    memset(t, 0, sizeof *t);
}

/* One line's fields into row r; 1 for a row, 0 for a blank or comment. */
static int parse_line(char *s, const char *file, int line, const coll_tuning_names *names,
                      coll_tuning_row *r, char *err, size_t errlen)
{
    char *hash = strchr(s, '#');
    if (hash)
        *hash = 0;
    char *f[FIELDS + 1];
    int n = 0;
    for (char *tok = strtok(s, " \t\r"); tok; tok = strtok(NULL, " \t\r"))
        if (n <= FIELDS)
            f[n++] = tok;
    if (n == 0)
        return 0;
    if (n != FIELDS)
        return fail(err, errlen, file, line, "%s fields; a row is: op nodes ranks oversub "
                    "bytes algorithm", n < FIELDS ? "too few" : "too many");
    memset(r, 0, sizeof *r);
    r->line = line;
    if ((r->op = names->op(f[0])) < 0)
        return fail(err, errlen, file, line, "unknown operation '%s'", f[0]);
    if (parse_count(f[1], &r->nodes))
        return fail(err, errlen, file, line, "nodes '%s' is not a positive number", f[1]);
    if (parse_count(f[2], &r->ranks))
        return fail(err, errlen, file, line, "ranks '%s' is not a positive number", f[2]);
    if (!strcmp(f[3], "0") || !strcmp(f[3], "1"))
        r->oversub = f[3][0] - '0';
    else if (!strcmp(f[3], "*"))
        r->oversub = -1;
    else
        return fail(err, errlen, file, line, "oversub '%s' is not 0, 1 or *", f[3]);
    if (parse_range(f[4], &r->lo, &r->hi))
        return fail(err, errlen, file, line, "bytes '%s' is not N, LO-HI or LO- (LO <= HI; "
                    "k, m, g suffixes)", f[4]);
    char valid[512] = "";
    if ((r->algo = names->algo(r->op, f[5], valid, sizeof valid)) < 0)
        return fail(err, errlen, file, line, "%s has no algorithm '%s'; valid: %s", f[0], f[5],
                    valid);
    return 1;
}

int coll_tuning_parse(const char *text, const char *file, const coll_tuning_names *names,
                      coll_tuning *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    int cap = 0, line = 0;
    const char *p = text;
    char buf[1024];
    while (*p) {
        line++;
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len >= sizeof buf) {
            coll_tuning_free(t);
            return fail(err, errlen, file, line, "line longer than %zu characters",
                        sizeof buf - 1);
        }
        memcpy(buf, p, len);
        buf[len] = 0;
        p += len + (nl != NULL);
        if (t->nrows == cap) {
            cap = cap ? 2 * cap : 64;
            coll_tuning_row *rows = realloc(t->rows, (size_t)cap * sizeof *rows);
            if (!rows) {
                coll_tuning_free(t);
                return fail(err, errlen, file, line, "out of memory");
            }
            t->rows = rows;
        }
        int rc = parse_line(buf, file, line, names, &t->rows[t->nrows], err, errlen);
        if (rc < 0) {
            coll_tuning_free(t);
            return -1;
        }
        t->nrows += rc;
    }
    if (t->nrows)
        qsort(t->rows, (size_t)t->nrows, sizeof *t->rows, cmp_rows);
    for (int i = 1; i < t->nrows; i++) {
        const coll_tuning_row *a = &t->rows[i - 1], *b = &t->rows[i];
        if (same_group(a, b) && a->hi >= b->lo) {
            int l1 = a->line < b->line ? a->line : b->line;
            int l2 = a->line < b->line ? b->line : a->line;
            coll_tuning_free(t);
            return fail(err, errlen, file, l2, "bytes overlap the row of line %d (same op, "
                        "nodes, ranks and oversub)", l1);
        }
    }
    t->nops = names->nops;
    if (!(t->first = calloc((size_t)t->nops + 1, sizeof *t->first))) {
        coll_tuning_free(t);
        return fail(err, errlen, file, line, "out of memory");
    }
    for (int k = 0, i = 0; k <= t->nops; k++) {
        while (i < t->nrows && t->rows[i].op < k)
            i++;
        t->first[k] = i;
    }
    return 0;
}

int coll_tuning_load(const char *path, const coll_tuning_names *names, coll_tuning *t,
                     char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t len = 0, cap = 4096;
    char *text = malloc(cap);
    for (size_t got; text && (got = fread(text + len, 1, cap - len - 1, f)) > 0;) {
        len += got;
        if (len + 1 == cap) {
            char *more = realloc(text, cap *= 2);
            if (!more)
                free(text);
            text = more;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!text || bad) {
        free(text);
        snprintf(err, errlen, "%s: %s", path, bad ? "read error" : "out of memory");
        return -1;
    }
    text[len] = 0;
    if (strlen(text) != len) {
        free(text);
        snprintf(err, errlen, "%s: not a text file (a zero byte)", path);
        return -1;
    }
    int rc = coll_tuning_parse(text, path, names, t, err, errlen);
    free(text);
    return rc;
}

/* How far apart two positive counts are: the larger over the smaller. */
static double ratio(int a, int b)
{
    return a > b ? (double)a / b : (double)b / a;
}

int coll_tuning_group(const coll_tuning *t, int op, int ranks, int nodes, int oversub)
{
    if (!t->first || op < 0 || op >= t->nops)
        return -1;
    int lo = t->first[op], hi = t->first[op + 1];
    int have_regime = 0;
    for (int i = lo; i < hi && !have_regime; i++)
        have_regime = (t->rows[i].nodes > 1) == (nodes > 1) &&
                      (t->rows[i].oversub < 0 || t->rows[i].oversub == oversub);
    /* the group (rows of one nodes, oversub, ranks) nearest the call */
    const coll_tuning_row *best = NULL;
    for (int i = lo; i < hi; i++) {
        const coll_tuning_row *r = &t->rows[i];
        if ((r->nodes > 1) != (nodes > 1))
            continue;
        if (have_regime && r->oversub >= 0 && r->oversub != oversub)
            continue;
        if (ratio(r->ranks, ranks) > 2.0)
            continue;
        if (best) {
            int dn = abs(r->nodes - nodes) - abs(best->nodes - nodes);
            double dr = ratio(r->ranks, ranks) - ratio(best->ranks, ranks);
            if (dn > 0 || (dn == 0 && (dr > 0 || (dr == 0 && r->ranks <= best->ranks))))
                continue;
        }
        best = r;
    }
    if (!best)
        return -1;
    /* the group's first row: rows sort by lo within a group */
    int i = (int)(best - t->rows);
    while (i > lo && same_group(&t->rows[i - 1], best))
        i--;
    return i;
}

int coll_tuning_in_group(const coll_tuning *t, int group, size_t bytes)
{
    if (group < 0)
        return -1;
    for (int i = group; i < t->nrows && same_group(&t->rows[i], &t->rows[group]); i++)
        if (bytes >= t->rows[i].lo && bytes <= t->rows[i].hi)
            return t->rows[i].algo;
    return -1;
}

int coll_tuning_lookup(const coll_tuning *t, int op, int ranks, int nodes, int oversub,
                       size_t bytes)
{
    return coll_tuning_in_group(t, coll_tuning_group(t, op, ranks, nodes, oversub), bytes);
}
