/*
 * biglock.h — the library's one lock for MPI_THREAD_MULTIPLE.
 *
 * Every MPI call runs under it (MPIR_ENTER), recursively per thread, so
 * that calls made from user callbacks (ops, attribute and error-handler
 * callbacks, generalized requests) re-enter freely. Only taken once
 * MULTIPLE was granted (cu_mt): below that a program pays one branch on a
 * global per call.
 *
 * Waits give it away (the device's wait loops): between passes a thread
 * lets another one waiting for the lock run (cu_lock_yield), and a thread
 * blocking in the kernel (futex, eventfd, fd polls) becomes "the sleeper":
 * it releases the lock for the duration of the block but still owns the
 * device's armed idle state, so any other thread taking the lock first
 * kicks it awake (the device's kick hook) and waits until it is back.
 * Threads that take the lock again inside a wait loop do not kick it: the
 * sleeper watches the channels for them, and its wake-up (any packet)
 * lets them look again.
 */
#ifndef CU_BIGLOCK_H
#define CU_BIGLOCK_H

/* Nonzero once MPI_THREAD_MULTIPLE is granted. Hidden: every entry point
 * and wait pass tests it, a direct load instead of one through the GOT. */
extern int cu_mt __attribute__((visibility("hidden")));

/* Turns the lock on (MPI_Init_thread or MPI_T_init_thread granting
 * MULTIPLE); once on, a second call writes nothing (MPI_T threads may run). */
void cu_lock_enable(void);
/* The device's way to wake the sleeper (called under the lock, while the
 * sleeper is blocked; it must touch nothing but the wake-up word/fd). */
void cu_lock_set_kick(void (*kick)(void));

/* Recursive enter/exit of the library; the outermost enter kicks a
 * sleeper and waits for it. */
void cu_lock_enter(void);
void cu_lock_exit(void);

/* In a wait loop, between passes: when another thread waits for the lock,
 * hands it over and takes it back (without kicking a sleeper). */
void cu_lock_yield(void);
/* In a wait loop: sched_yield with the lock released. */
void cu_lock_sched_yield(void);

/* Around a block outside the device (a socket wait inside an MPI call):
 * suspend releases the lock entirely, resume takes it back at the same
 * depth (kicking a sleeper, as an entry does). */
int  cu_lock_suspend(void);
void cu_lock_resume(int depth);

/* Around a block in the kernel (the caller holds the lock, the device is
 * armed): sleep_begin releases the lock entirely and marks the caller as
 * the sleeper; sleep_end takes it back at the same depth, clears the mark
 * and wakes the threads that waited for it. */
int  cu_lock_sleep_begin(void);
void cu_lock_sleep_end(int depth);

#endif
