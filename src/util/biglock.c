/*
 * biglock.c — the global recursive lock of MPI_THREAD_MULTIPLE and its
 * sleeper hand-off (biglock.h).
 *
 * A plain mutex plus a per-thread depth: the mutex is taken by the
 * outermost enter only. glibc's mutex is not fair, and a thread in a wait
 * loop that unlocks and locks again at once would starve the others, so
 * the waiters are counted and a yielding thread, when there are any, waits
 * until one of them took the lock (the acquisition counter moved) before
 * competing again.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include "src/util/biglock.h"

int cu_mt;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t  back = PTHREAD_COND_INITIALIZER;   /* the sleeper is back */
static __thread int depth;
static atomic_int  waiters;     /* threads blocked on the mutex or on `back` */
static atomic_uint takes;       /* acquisitions so far */
static int sleeping;            /* under lock: a thread blocks in the kernel */
static unsigned backs;          /* under lock: sleeps ended so far */
static void (*kick_fn)(void);

/* A waiter that was not woken within this time kicks the sleeper itself:
 * a backstop, the sleeper's own wake-ups are the mechanism. */
#define BACKSTOP_NS 50000000L

void cu_lock_enable(void)
{
    if (!cu_mt)   /* once on, others read it unlocked: no second write */
        cu_mt = 1;
}

void cu_lock_set_kick(void (*kick)(void))
{
    kick_fn = kick;
}

/* Takes the mutex; then, while a sleeper owns the device, waits for it to
 * come back, kicking it when `kick` (an entry from outside a wait loop),
 * or when it came back and blocked again before we had our turn (what we
 * wait for may have happened meanwhile). */
static void take(int kick)
{
    if (pthread_mutex_trylock(&lock) != 0) {
        atomic_fetch_add(&waiters, 1);
        pthread_mutex_lock(&lock);
        atomic_fetch_sub(&waiters, 1);
    }
    unsigned seen = backs;
    while (sleeping) {
        if (backs != seen)
            kick = 1;
        if (kick && kick_fn)
            kick_fn();
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += BACKSTOP_NS;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        atomic_fetch_add(&waiters, 1);
        int rc = pthread_cond_timedwait(&back, &lock, &ts);
        atomic_fetch_sub(&waiters, 1);
        if (rc != 0)
            kick = 1;
    }
    atomic_fetch_add_explicit(&takes, 1, memory_order_relaxed);
}

void cu_lock_enter(void)
{
    if (depth++ == 0)
        take(1);
}

void cu_lock_exit(void)
{
    if (--depth == 0)
        pthread_mutex_unlock(&lock);
}

/* Lets a waiting thread have the lock: unlock, and wait (yielding the
 * core) until some thread took it or nobody waits any more. */
static void hand_over(int core)
{
    unsigned t = atomic_load_explicit(&takes, memory_order_relaxed);
    pthread_mutex_unlock(&lock);
    if (core)
        sched_yield();
    for (int i = 0; i < 64 && atomic_load(&waiters) > 0 &&
                    atomic_load_explicit(&takes, memory_order_relaxed) == t; i++)
        sched_yield();
    take(0);
}

void cu_lock_yield(void)
{
    if (depth > 0 && atomic_load_explicit(&waiters, memory_order_relaxed) > 0)
        hand_over(0);
}

void cu_lock_sched_yield(void)
{
    if (depth > 0)
        hand_over(1);
    else
        sched_yield();
}

int cu_lock_suspend(void)
{
    int d = depth;
    if (d > 0) {
        depth = 0;
        pthread_mutex_unlock(&lock);
    }
    return d;
}

void cu_lock_resume(int d)
{
    if (d > 0) {
        take(1);
        depth = d;
    }
}

int cu_lock_sleep_begin(void)
{
    int d = depth;
    if (d > 0) {
        sleeping = 1;
        depth = 0;
        pthread_mutex_unlock(&lock);
    }
    return d;
}

void cu_lock_sleep_end(int d)
{
    if (d > 0) {
        pthread_mutex_lock(&lock);   /* a sleeper waits out nobody: it is the owner */
        sleeping = 0;
        backs++;
        depth = d;
        atomic_fetch_add_explicit(&takes, 1, memory_order_relaxed);
        pthread_cond_broadcast(&back);
    }
}
