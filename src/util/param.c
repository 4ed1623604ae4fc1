/*
 * param.c — reading and writing the runtime parameters of param_table.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "src/util/log.h"
#include "src/util/param.h"

#define PREFIX     "CLUMPI_"
#define PREFIX_LEN (sizeof PREFIX - 1)

unsigned cu_param_gen = 1;
static char **written;   /* [cu_param_count]: values set by cu_param_set_*, or NULL */

int cu_param_find(const char *name)
{
    if (!name)
        return -1;
    if (!strncmp(name, PREFIX, PREFIX_LEN))
        name += PREFIX_LEN;
    for (int i = 0; i < cu_param_count; i++)
        if (!strcmp(cu_param_defs[i].name + PREFIX_LEN, name))
            return i;
    return -1;
}

static int must_find(const char *name)
{
    int i = cu_param_find(name);
    if (i < 0)
        cu_fatal("parameter CLUMPI_%s is missing from the table (src/util/param_table.c)", name);
    return i;
}

/* The text in force: a written value, else a non-empty environment value. */
static const char *text_at(int idx)
{
    if (written && written[idx])
        return *written[idx] ? written[idx] : NULL;
    const char *v = getenv(cu_param_defs[idx].name);
    return (v && *v) ? v : NULL;
}

const char *cu_param_str_at(int idx)
{
    const char *v = text_at(idx);
    return v ? v : cu_param_defs[idx].sdef;
}

/* An integer with an optional k/m/g suffix, within int's range: 0, or -1
 * when v is not such a number. */
static int parse_int(const char *v, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 0);
    if (errno || end == v)
        return -1;
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end || x > (INT_MAX >> shift) || x < (INT_MIN >> shift))
        return -1;
    *out = x * (1L << shift);
    return 0;
}

int cu_param_in_enum(int idx, long v)
{
    int e = cu_param_defs[idx].enum_id;
    if (e < 0)
        return 1;
    for (int i = 0; i < cu_param_enums[e].nitems; i++)
        if (cu_param_enums[e].items[i].value == v)
            return 1;
    return 0;
}

/* Other spellings of the items "off" and "on", so that 0/1, off/on, no/yes
 * and false/true all work. */
static const char *const spellings[][3] = {
    { "off", "no", "false" },
    { "on", "yes", "true" },
};
#define NSPELL 3

/* Whether text names item it: its own name or another spelling of it. */
static int names_item(const cu_param_item *it, const char *text)
{
    if (!strcasecmp(text, it->name))
        return 1;
    for (size_t s = 0; s < sizeof spellings / sizeof spellings[0]; s++)
        if (!strcmp(it->name, spellings[s][0]))
            for (int k = 1; k < NSPELL; k++)
                if (!strcasecmp(text, spellings[s][k]))
                    return 1;
    return 0;
}

/* text as the value of integer parameter idx: 0, or -1 when malformed. */
static int parse_at(int idx, const char *text, long *out)
{
    int e = cu_param_defs[idx].enum_id;
    if (e >= 0)
        for (int i = 0; i < cu_param_enums[e].nitems; i++)
            if (names_item(&cu_param_enums[e].items[i], text)) {
                *out = cu_param_enums[e].items[i].value;
                return 0;
            }
    long x;
    if (parse_int(text, &x) || !cu_param_in_enum(idx, x))
        return -1;
    *out = x;
    return 0;
}

int cu_param_try_int_at(int idx, long *out)
{
    const char *v = text_at(idx);
    if (!v) {
        *out = cu_param_defs[idx].idef;
        return 0;
    }
    return parse_at(idx, v, out);
}

/* What parameter idx accepts, for the message of a malformed value. */
static void accepted(int idx, char *buf, size_t n)
{
    const cu_param_def *d = &cu_param_defs[idx];
    size_t at = 0;
#define PUT(...) do { int w_ = snprintf(buf + at, n - at, __VA_ARGS__); \
                      if (w_ > 0) at = at + (size_t)w_ < n ? at + (size_t)w_ : n - 1; } while (0)
    buf[0] = 0;
    if (d->type == CU_PARAM_STR) {
        PUT("%s", d->check ? d->check("") : "any text");
    } else if (d->enum_id < 0) {
        PUT("an integer in %d..%d (k, m, g suffixes allowed)", INT_MIN, INT_MAX);
    } else {
        const cu_param_enum *e = &cu_param_enums[d->enum_id];
        for (int i = 0; i < e->nitems; i++)
            PUT("%s%d", i ? "/" : "", e->items[i].value);
        for (int i = 0; i < e->nitems; i++)
            PUT("%s%s", i ? "/" : ", ", e->items[i].name);
        /* the other spellings, in the same order: ", no/yes, false/true" */
        for (int k = 1; k < NSPELL; k++) {
            int first = 1;
            for (int i = 0; i < e->nitems; i++)
                for (size_t s = 0; s < sizeof spellings / sizeof spellings[0]; s++)
                    if (!strcmp(e->items[i].name, spellings[s][0])) {
                        PUT("%s%s", first ? ", " : "/", spellings[s][k]);
                        first = 0;
                    }
        }
    }
#undef PUT
}

static _Noreturn void malformed(int idx, const char *text)
{
    char acc[256];
    accepted(idx, acc, sizeof acc);
    cu_fatal("%s=%s is not a valid value; accepted: %s", cu_param_defs[idx].name, text, acc);
}

long cu_param_int_at(int idx)
{
    long x;
    if (cu_param_try_int_at(idx, &x))
        malformed(idx, text_at(idx));
    return x;
}

/* Whether text is a valid value of parameter idx. */
static int valid_at(int idx, const char *text)
{
    long x;
    if (cu_param_defs[idx].type == CU_PARAM_INT)
        return parse_at(idx, text, &x) == 0;
    return !cu_param_defs[idx].check || !cu_param_defs[idx].check(text);
}

void cu_param_check_all(void)
{
    for (int i = 0; i < cu_param_count; i++) {
        const char *v = text_at(i);
        if (v && !valid_at(i, v))
            malformed(i, v);
    }
}

/* CLUMPI_* variables that are not parameters: those mpirun sets for its
 * ranks (src/tools/launch.c, spawnjob.c), mpicc's, and the test suite's. */
static const char *const not_params[] = {
    "JOB_ID", "LOCAL_RANK", "LOCAL_SIZE", "PMI_SECRET", "PARENT_PORT",
    "CC", "CFLAGS", "LDFLAGS", "BUILD_DIR", "VG_LOGS", "TEST_*",
};

static int is_not_param(const char *name)
{
    for (size_t i = 0; i < sizeof not_params / sizeof not_params[0]; i++) {
        size_t len = strlen(not_params[i]);
        if (not_params[i][len - 1] == '*' ? !strncmp(name, not_params[i], len - 1)
                                          : !strcmp(name, not_params[i]))
            return 1;
    }
    return 0;
}

/* Edit distance of a and b (each at most 63 characters counted). */
static int distance(const char *a, const char *b)
{
    int row[64];
    int la = (int)strnlen(a, 63), lb = (int)strnlen(b, 63);
    for (int j = 0; j <= lb; j++)
        row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

void cu_param_check_var(const char *name, const char *value)
{
    if (strncmp(name, PREFIX, PREFIX_LEN))
        return;
    int idx = cu_param_find(name);
    if (idx >= 0) {
        if (value && *value && !valid_at(idx, value))
            malformed(idx, value);
        return;
    }
    if (is_not_param(name + PREFIX_LEN))
        return;
    int best = 0, bestd = 1 << 30;
    for (int i = 0; i < cu_param_count; i++) {
        int d = distance(name, cu_param_defs[i].name);
        if (d < bestd) {
            bestd = d;
            best = i;
        }
    }
    cu_warn("%s is not a clumpi parameter (ignored); did you mean %s?", name,
            cu_param_defs[best].name);
}

void cu_param_warn_unknown(char **env)
{
    for (char **e = env; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        char name[128];
        size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
        if (strncmp(*e, PREFIX, PREFIX_LEN) || len >= sizeof name)
            continue;
        memcpy(name, *e, len);
        name[len] = 0;
        if (cu_param_find(name) < 0)
            cu_param_check_var(name, NULL);
    }
}

const char *cu_param_str(const char *name) { return cu_param_str_at(must_find(name)); }
long cu_param_int(const char *name) { return cu_param_int_at(must_find(name)); }

int cu_param_set_str(int idx, const char *s)
{
    if (idx < 0 || idx >= cu_param_count || (s && strlen(s) >= CU_PARAM_STR_MAX))
        return -1;
    if (!written && !(written = calloc((size_t)cu_param_count, sizeof *written)))
        return -1;
    char *copy = strdup(s ? s : "");
    if (!copy)
        return -1;
    free(written[idx]);
    written[idx] = copy;
    if (++cu_param_gen == 0)
        cu_param_gen = 1;
    return 0;
}

int cu_param_set_int(int idx, long v)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", v);
    return cu_param_set_str(idx, text);
}
