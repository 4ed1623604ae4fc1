/*
 * thread.h — the MPI layer's thread support: the level MPI_Init_thread
 * granted and the critical section every entry point holds under
 * MPI_THREAD_MULTIPLE (the lock itself: src/util/biglock.h).
 */
#ifndef MPIR_THREAD_H
#define MPIR_THREAD_H

#include "src/util/biglock.h"

extern int mpir_thread_provided;   /* the level MPI_Init_thread granted */

/* Grants min(required, MPI_THREAD_MULTIPLE) (at least SINGLE), turns the
 * lock on for MULTIPLE and records the calling thread as the main one.
 * Called by MPI_Init/MPI_Init_thread once the device is up. */
int mpir_thread_init(int required);

struct pollfd;
/* poll(2) with the library lock released under MULTIPLE: a wait on a
 * socket inside an MPI call (ports, connect/accept) lets the other
 * threads go on. */
int mpir_poll(struct pollfd *p, unsigned long n, int timeout_ms);

/* Enters the library's critical section when MULTIPLE was granted;
 * returns whether it did (the guard's value). */
static inline int mpir_cs_enter(void)
{
    if (__builtin_expect(cu_mt, 0)) {
        cu_lock_enter();
        return 1;
    }
    return 0;
}

/* Scope-exit end of the guard: leaves what mpir_cs_enter entered. */
static inline void mpir_cs_leave(int *held)
{
    if (__builtin_expect(*held, 0))
        cu_lock_exit();
}

/* A guard variable whose scope is the rest of the function body. */
#define MPIR_CS_GUARD                                                        \
    int mpir_cs_held_ __attribute__((cleanup(mpir_cs_leave), unused)) = mpir_cs_enter()

#endif
