/*
 * mpit_util.h — reading MPI_T performance variables in the tests (mpit.c,
 * mpit_protocol.c): a variable's index by name and class, a handle bound to
 * no object, and a counter's value. Each fails the test (mtest.h's CHECK)
 * rather than return an error.
 */
#ifndef MPIT_UTIL_H
#define MPIT_UTIL_H

#include "mtest.h"

static inline int pvar_index(const char *name, int cls)
{
    int i = -1, rc = MPI_T_pvar_get_index(name, cls, &i);
    CHECK(rc == MPI_SUCCESS, "MPI_T_pvar_get_index(%s): error %d", name, rc);
    return i;
}

static inline MPI_T_pvar_handle pv_alloc(MPI_T_pvar_session s, const char *name, int cls)
{
    MPI_T_pvar_handle h;
    int count = 0, rc = MPI_T_pvar_handle_alloc(s, pvar_index(name, cls), NULL, &h, &count);
    CHECK(rc == MPI_SUCCESS, "MPI_T_pvar_handle_alloc(%s): error %d", name, rc);
    CHECK(count == 1, "%s: count %d", name, count);
    return h;
}

static inline unsigned long long pv_read(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = ~0ULL;
    int rc = MPI_T_pvar_read(s, h, &v);
    CHECK(rc == MPI_SUCCESS, "MPI_T_pvar_read: error %d", rc);
    return v;
}

#endif
