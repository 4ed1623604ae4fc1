/*
 * log.h — diagnostics to stderr, prefixed with the program and rank.
 * CLUMPI_VERBOSE=1 enables cu_debug output.
 */
#ifndef CU_LOG_H
#define CU_LOG_H

void cu_log_set_rank(int rank);
void cu_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cu_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cu_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
int  cu_verbose(void);

#endif
