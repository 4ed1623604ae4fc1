/*
 * nic_discover.h — RDMA NIC discovery through libibverbs (optional at build
 * time). Used for verbose output and, later, placement near a NIC.
 */
#ifndef NETMOD_COMMON_NIC_DISCOVER_H
#define NETMOD_COMMON_NIC_DISCOVER_H
#include <stddef.h>

/* Writes a one-line description of the RDMA devices present ("mlx5_0
 * (port 1 active), ..." or "no RDMA device", "libibverbs not built in")
 * into buf. Returns the number of devices, 0 when there is none. */
int netc_nic_discover(char *buf, size_t cap);

#endif
