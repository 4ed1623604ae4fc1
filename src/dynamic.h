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

/* Whether the communicator receiving on context ctx (its point-to-point
 * context, or its intercommunicator's local one) holds routing slot `slot`:
 * the device asks when a process of another job is lost, to fail the
 * MPI_ANY_SOURCE receives that wait for it (mpid_set_ctx_holds). */
int mpir_dyn_ctx_holds(uint32_t ctx, int slot);

/* This process's random key (31 bits): orders the groups of different jobs
 * where world ranks cannot (Intercomm_merge). */
int mpir_dyn_key(void);

/* A key of this job (31 bits), the same at all its processes and unlike
 * other jobs' but by chance: tells whether world ranks compare
 * (Intercomm_merge). */
int mpir_dyn_job_key(void);

/* Comm_split_type SHARED on a communicator with processes of other jobs:
 * a color for this job's processes on my node (they share memory; other
 * jobs' do not), unlike any other job's: a hash of the job id and node. */
int mpir_dyn_node_color(void);

/* Nonzero when g holds processes of other jobs (routing slots). */
int mpir_group_foreign(const mpir_group *g);

/* A new port (port.c): its name into port_name (MPI_MAX_PORT_NAME bytes);
 * MPI_SUCCESS or an error code naming fn. */
int  mpir_port_open(const char *fn, char *port_name);
/* Closes a port this process opened: 0, or -1 when it has no such port. */
int  mpir_port_close(const char *port_name);
/* Accept (connecting 0) at a port of the root's, or connect to one, and
 * make *out, collectively over c. root_err, at the root, is an error found
 * before (nothing is waited for; every member returns its class).
 * accept_deadline_ns (cu_now_ns clock, 0: none): an accepting root waiting
 * for spawned processes gives up then, with MPI_ERR_SPAWN. */
int  mpir_port_join(const char *fn, mpir_comm *c, int root, int connecting,
                    const char *port_name, int root_err, long long accept_deadline_ns,
                    mpir_comm **out);

/* The parent intercommunicator of a spawned job (spawn.c): connects to the
 * parents' port (CLUMPI_PARENT_PORT, or the PMI key PARENT_ROOT_PORT_NAME)
 * at the end of MPI_Init; MPI_SUCCESS when there are none. */
int  mpir_spawn_init(void);
/* MPI_UNIVERSE_SIZE: what the process manager reports (clumpi's mpirun:
 * its slots or cores), at least the world's size. */
int  mpir_universe_size(void);
/* Communicator c is being freed (MPI_Comm_get_parent then says
 * MPI_COMM_NULL if it was the parent). */
void mpir_spawn_comm_gone(const mpir_comm *c);

/* Closes the ports still open (MPI_Finalize). */
void mpir_port_finalize(void);

#endif
