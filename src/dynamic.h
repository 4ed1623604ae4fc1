/*
 * dynamic.h — hooks between the files of dynamic processes (dynamic.c,
 * port.c, spawn.c) and the intercommunicator code.
 */
#ifndef MPIR_DYNAMIC_H
#define MPIR_DYNAMIC_H

#include "src/mpir.h"

/* Makes *out, the intercommunicator between c's group and the group whose
 * root is at the other end of fd (a connected stream socket, at c's rank
 * root only; root_err, there, an error found before: nothing is built, the
 * other side is told). Collective over c (an intracommunicator); every
 * member returns the same class. errclass: the class of a broken or silent
 * connection; deadline_ns (cu_now_ns clock, 0: none) bounds the root's
 * wait for the other root. Errors are codes naming fn. */
int mpir_dyn_connect(const char *fn, mpir_comm *c, int root, int fd, int root_err,
                     int errclass, long long deadline_ns, mpir_comm **out);

/* Sends olen bytes to fd and receives ilen bytes from it at once, driving
 * progress while waiting, without changing fd's blocking mode. 0, or a
 * negative errno (-ECONNRESET: the peer closed; -ETIMEDOUT: the deadline
 * passed, when nonzero). */
int mpir_sock_swap(int fd, const void *out, size_t olen, void *in, size_t ilen,
                   long long deadline_ns);

/* This process's random key (31 bits): orders the groups of different jobs
 * where world ranks cannot (Intercomm_merge). */
int mpir_dyn_key(void);

/* Nonzero when g holds processes of other jobs (routing slots). */
int mpir_group_foreign(const mpir_group *g);

/* Closes the ports still open (MPI_Finalize). */
void mpir_port_finalize(void);

#endif
