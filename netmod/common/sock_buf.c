/*
 * sock_buf.c — see sock_buf.h.
 */
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include "netmod/common/sock_buf.h"

int netc_sock_bufs(const void *name, size_t namelen, int bytes)
{
    struct rlimit rl;
    int maxfd = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int)rl.rlim_cur
                                                                          : 65536;
    for (int fd = 0; fd < maxfd; fd++) {
        int type = 0;
        socklen_t tl = sizeof type;
        struct sockaddr_storage sa;
        socklen_t sl = sizeof sa;
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) || type != SOCK_DGRAM ||
            getsockname(fd, (struct sockaddr *)&sa, &sl) || sl != namelen ||
            memcmp(&sa, name, namelen))
            continue;
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
        return 0;
    }
    return -1;
}
