/*
 * param.c — reading and writing the runtime parameters of param_table.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int cu_param_try_int_at(int idx, long *out)
{
    const char *v = text_at(idx);
    if (!v) {
        *out = cu_param_defs[idx].idef;
        return 0;
    }
    return parse_int(v, out);
}

long cu_param_int_at(int idx)
{
    long x;
    if (cu_param_try_int_at(idx, &x))
        cu_fatal("%s=%s is not a number in %d..%d (k, m, g suffixes allowed)",
                 cu_param_defs[idx].name, text_at(idx), INT_MIN, INT_MAX);
    return x;
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
