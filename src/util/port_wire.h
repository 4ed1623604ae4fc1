/*
 * port_wire.h — the names of clumpi's ports and the first words a
 * connection to one carries (port_wire.c), shared by the MPI library
 * (src/port.c) and mpirun, which tells a spawning root that its children
 * ended before they connected.
 */
#ifndef CU_PORT_WIRE_H
#define CU_PORT_WIRE_H

#include <netinet/in.h>
#include <stdint.h>

#define CU_PORT_PREFIX "clumpi-port:"   /* clumpi-port:<IPv4>:<TCP port>:<tag> */
#define CU_PORT_HELLO  0x434c504fu      /* "CLPO": a root connects, tag follows */
#define CU_PORT_GONE   0x434c5047u      /* "CLPG": tag, then the spawned job's exit
                                         * status; the root answers CU_PORT_GONE */

/* Parses a port name into its socket address and tag: 0, or -1 when it is
 * not one of ours. */
int cu_port_parse(const char *name, struct sockaddr_in *sa, uint64_t *tag);

/* Tells the process listening at port that the job spawned for it ended
 * with status before connecting. 1 when that process took the news (it was
 * accepting on the port), 0 otherwise (the port is closed, or its process
 * does not answer within timeout_ms). */
int cu_port_tell_gone(const char *port, int status, int timeout_ms);

#endif
