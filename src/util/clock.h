/*
 * clock.h — the monotonic clock in nanoseconds, for spin budgets,
 * timeouts and naps in every layer (header only: it sits on wait paths).
 */
#ifndef CU_CLOCK_H
#define CU_CLOCK_H

#include <time.h>

static inline long long cu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif
