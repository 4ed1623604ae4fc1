/*
 * param.h — runtime parameters from CLUMPI_* environment variables. One place
 * reads them, so the README's table of variables can be checked against it.
 */
#ifndef CU_PARAM_H
#define CU_PARAM_H

#include <stddef.h>

/* CLUMPI_<name> as an integer (accepts k/m/g suffixes), or def when unset. A
 * malformed value is a fatal error naming the variable. */
long        cu_param_int(const char *name, long def);
const char *cu_param_str(const char *name, const char *def);

#endif
