/*
 * names.h — the name service's store (names.c), shared by mpirun's PMI
 * server and the PMI client of a singleton.
 */
#ifndef CU_NAMES_H
#define CU_NAMES_H

#include <stddef.h>

/* service -> port. 0, -EEXIST when service is published already, another
 * -errno when the store cannot be written. */
int cu_names_publish(const char *service, const char *port);
/* The port of service into port (cap bytes). 0, or -ENOENT. */
int cu_names_lookup(const char *service, char *port, size_t cap);
/* Removes service, when published with port (any port when NULL). 0, or
 * -ENOENT. */
int cu_names_unpublish(const char *service, const char *port);

#endif
