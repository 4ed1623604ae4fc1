/*
 * param.c — CLUMPI_* environment variables.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "src/util/log.h"
#include "src/util/param.h"

const char *cu_param_str(const char *name, const char *def)
{
    char var[128];
    snprintf(var, sizeof var, "CLUMPI_%s", name);
    const char *v = getenv(var);
    return (v && *v) ? v : def;
}

long cu_param_int(const char *name, long def)
{
    const char *v = cu_param_str(name, NULL);
    if (!v)
        return def;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 0);
    if (errno || end == v)
        cu_fatal("CLUMPI_%s=%s is not a number", name, v);
    switch (*end) {
    case 'k': case 'K': x <<= 10; end++; break;
    case 'm': case 'M': x <<= 20; end++; break;
    case 'g': case 'G': x <<= 30; end++; break;
    default: break;
    }
    if (*end)
        cu_fatal("CLUMPI_%s=%s is not a number", name, v);
    return x;
}
