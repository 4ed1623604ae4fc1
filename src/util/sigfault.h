/*
 * sigfault.h — keep a crashing rank's death visible to the launcher.
 */
#ifndef CU_SIGFAULT_H
#define CU_SIGFAULT_H

/* Reset to the default action the fault-signal handlers (SIGSEGV, SIGBUS,
 * SIGILL, SIGFPE) that libfabric's PSM dependencies install when they are
 * loaded: they print a backtrace and exit(1), so mpirun would report "exited
 * with status 1" instead of the signal. Handlers installed by the program
 * itself are left alone. */
void cu_sigfault_reset_foreign(void);

#endif
