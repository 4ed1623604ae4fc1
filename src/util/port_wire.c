/*
 * port_wire.c — port names and the spawned job's "gone" notice
 * (port_wire.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "src/util/port_wire.h"

int cu_port_parse(const char *name, struct sockaddr_in *sa, uint64_t *tag)
{
    char ip[64];
    unsigned tport;
    int used = 0;
    size_t pl = strlen(CU_PORT_PREFIX);
    if (!name || strncmp(name, CU_PORT_PREFIX, pl) ||
        sscanf(name + pl, "%63[0-9.]:%u:%" SCNx64 "%n", ip, &tport, tag, &used) != 3 ||
        name[pl + (size_t)used] != '\0' || tport == 0 || tport > 65535)
        return -1;
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)tport);
    return inet_pton(AF_INET, ip, &sa->sin_addr) == 1 ? 0 : -1;
}

static long long ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until fd is ready for events or the deadline (ms_now clock). */
static int ready(int fd, short events, long long deadline)
{
    for (;;) {
        long long left = deadline - ms_now();
        struct pollfd p = { .fd = fd, .events = events };
        int n = poll(&p, 1, left > 0 ? (int)left : 0);
        if (n > 0)
            return 1;
        if ((n == 0 || errno != EINTR) || left <= 0)
            return 0;
    }
}

int cu_port_tell_gone(const char *port, int status, int timeout_ms)
{
    struct sockaddr_in sa;
    uint64_t tag;
    if (cu_port_parse(port, &sa, &tag) != 0)
        return 0;
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0)
        return 0;
    long long deadline = ms_now() + timeout_ms;
    uint32_t msg[4] = { CU_PORT_GONE, (uint32_t)(tag >> 32), (uint32_t)tag, (uint32_t)status };
    uint32_t ack = 0;
    int e = 0, ok = 0;
    socklen_t el = sizeof e;
    if (connect(s, (struct sockaddr *)&sa, sizeof sa) == 0 ||
        (errno == EINPROGRESS && ready(s, POLLOUT, deadline) &&
         getsockopt(s, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && e == 0))
        ok = send(s, msg, sizeof msg, MSG_NOSIGNAL) == (ssize_t)sizeof msg;
    /* the root answers once it took the notice as its spawn's failure */
    ok = ok && ready(s, POLLIN, deadline) && recv(s, &ack, sizeof ack, MSG_WAITALL) ==
         (ssize_t)sizeof ack && ack == CU_PORT_GONE;
    close(s);
    return ok;
}
