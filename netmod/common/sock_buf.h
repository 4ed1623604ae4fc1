/*
 * sock_buf.h — larger kernel buffers for a provider's datagram socket.
 * libfabric's udp provider keeps the default socket buffers (about 200 KiB
 * on Linux), which a few 32 KiB trains from several peers overflow: every
 * overflow is a loss the agents' protocol must repair by retransmission.
 * The provider does not expose its socket, so it is found by its address.
 */
#ifndef NETMOD_COMMON_SOCK_BUF_H
#define NETMOD_COMMON_SOCK_BUF_H

#include <stddef.h>

/* The datagram socket of this process bound to the address name (as
 * fi_getname gave it) gets receive and send buffers of bytes (the kernel
 * caps them at net.core.rmem_max / wmem_max). 0: done; -1: no such socket. */
int netc_sock_bufs(const void *name, size_t namelen, int bytes);

#endif
