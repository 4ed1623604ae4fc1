/*
 * log.c — diagnostics on stderr, one line each, prefixed "clumpi[rank]".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "src/util/log.h"
#include "src/util/param.h"

static int log_rank = -1;
static cu_param_cache log_verbose;

void cu_log_set_rank(int rank) { log_rank = rank; }

int cu_verbose(void)
{
    return (int)cu_param_cached(&log_verbose, "VERBOSE");
}

static void vlog(const char *what, const char *fmt, va_list ap)
{
    char line[1024];
    int n;
    if (log_rank >= 0)
        n = snprintf(line, sizeof line, "clumpi[%d]: %s", log_rank, what);
    else
        n = snprintf(line, sizeof line, "clumpi: %s", what);
    if (n < 0 || (size_t)n >= sizeof line)
        n = 0;
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    /* One write per line so lines of different ranks do not interleave. */
    size_t len = 0;
    while (line[len] && len < sizeof line - 2)
        len++;
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}

void cu_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog("", fmt, ap);
    va_end(ap);
}

void cu_debug(const char *fmt, ...)
{
    if (!cu_verbose())
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog("", fmt, ap);
    va_end(ap);
}

void cu_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog("fatal: ", fmt, ap);
    va_end(ap);
    _exit(1);
}
