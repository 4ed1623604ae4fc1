/*
 * port.c — ports (MPI-3.1 10.4.2): MPI_Open_port, MPI_Close_port,
 * MPI_Comm_accept and MPI_Comm_connect.
 *
 * A port is a TCP socket listening at the opening process:
 * "clumpi-port:<IPv4 address>:<TCP port>:<tag>", the tag a random 64-bit
 * number a connecting root presents first (a stray connection, or one to a
 * port closed and reopened at the same TCP port, is turned away); the
 * process manager may present it too, to say that the job spawned for the
 * port ended before connecting (src/util/port_wire.h). The
 * socket carries the handshake only (dynamic.c); the intercommunicator's
 * traffic goes over the network channel. A connect waits at most
 * CLUMPI_PORT_TIMEOUT seconds (default 60) for the accepting root.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>
#include "src/core.h"
#include "src/dynamic.h"
#include "src/util/clock.h"
#include "src/util/param.h"
#include "src/util/port_wire.h"


typedef struct port {
    struct port *next;
    int fd;                        /* listening */
    uint64_t tag;
    char name[MPI_MAX_PORT_NAME];
} port;

static port *ports;   /* the ports this process has open */

static port *port_find(const char *name)
{
    for (port *p = ports; p; p = p->next)
        if (!strncmp(p->name, name, MPI_MAX_PORT_NAME))
            return p;
    return NULL;
}

/* An IPv4 address other hosts may reach us at: the host name's, else
 * loopback. */
static void host_addr(char *buf, size_t cap)
{
    char host[256];
    struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai = NULL;
    snprintf(buf, cap, "127.0.0.1");
    if (gethostname(host, sizeof host) != 0 || getaddrinfo(host, NULL, &hints, &ai) != 0)
        return;
    for (struct addrinfo *a = ai; a; a = a->ai_next) {
        const struct sockaddr_in *sin = (const struct sockaddr_in *)a->ai_addr;
        if (a->ai_family == AF_INET && inet_ntop(AF_INET, &sin->sin_addr, buf, (socklen_t)cap))
            break;
    }
    freeaddrinfo(ai);
}

static long long port_deadline(void)
{
    return cu_now_ns() + cu_param_int("PORT_TIMEOUT") * 1000000000LL;
}

/* Checks an info argument: MPI_INFO_NULL or a valid info. */
static int check_info(const char *fn, MPI_Info info)
{
    if (info != MPI_INFO_NULL && !mpir_handle_get(&mpir_infos, info))
        return mpir_err(MPI_ERR_INFO, fn, "invalid info (0x%x)", (unsigned)info);
    return MPI_SUCCESS;
}

int mpir_port_open(const char *fn, char *port_name)
{
    port *p = calloc(1, sizeof *p);
    if (!p)
        return mpir_err(MPI_ERR_NO_MEM, fn, "out of memory");
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
    socklen_t sl = sizeof sa;
    p->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (p->fd < 0 || bind(p->fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(p->fd, 16) != 0 || getsockname(p->fd, (struct sockaddr *)&sa, &sl) != 0) {
        int e = errno;
        if (p->fd >= 0)
            close(p->fd);
        free(p);
        return mpir_err(MPI_ERR_OTHER, fn, "cannot listen on a TCP port: %s", strerror(e));
    }
    if (getrandom(&p->tag, sizeof p->tag, 0) != (ssize_t)sizeof p->tag)
        p->tag = (uint64_t)cu_now_ns() * 0x9e3779b97f4a7c15ull;
    char ip[64];
    host_addr(ip, sizeof ip);
    snprintf(p->name, sizeof p->name, CU_PORT_PREFIX "%s:%u:%016" PRIx64, ip,
             (unsigned)ntohs(sa.sin_port), p->tag);
    p->next = ports;
    ports = p;
    memcpy(port_name, p->name, strlen(p->name) + 1);
    return MPI_SUCCESS;
}

int PMPI_Open_port(MPI_Info info, char *port_name)
{
    static const char fn[] = "MPI_Open_port";
    MPIR_ENTER(fn);
    int rc = check_info(fn, info);
    if (rc == MPI_SUCCESS && !port_name)
        rc = mpir_err(MPI_ERR_ARG, fn, "port_name is NULL");
    if (rc == MPI_SUCCESS)
        rc = mpir_port_open(fn, port_name);
    return rc ? mpir_err_world(rc) : MPI_SUCCESS;
}
MPIR_WEAK(Open_port)

int mpir_port_close(const char *port_name)
{
    for (port **pp = &ports; *pp; pp = &(*pp)->next) {
        port *p = *pp;
        if (strncmp(p->name, port_name, MPI_MAX_PORT_NAME))
            continue;
        *pp = p->next;
        close(p->fd);
        free(p);
        return 0;
    }
    return -1;
}

int PMPI_Close_port(const char *port_name)
{
    static const char fn[] = "MPI_Close_port";
    MPIR_ENTER(fn);
    if (!port_name)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "port_name is NULL"));
    if (mpir_port_close(port_name) == 0)
        return MPI_SUCCESS;
    return mpir_err_world(mpir_err(MPI_ERR_PORT, fn, "port_name \"%.64s\" is not a port this "
                                   "process opened (or it is closed already)", port_name));
}
MPIR_WEAK(Close_port)

/* Closes every port left open (MPI_Finalize). */
void mpir_port_finalize(void)
{
    while (ports) {
        port *p = ports;
        ports = p->next;
        close(p->fd);
        free(p);
    }
}

/* The arguments every member checks: comm an intracommunicator, root a
 * rank of it, newcomm not NULL, info valid. */
static int check_common(const char *fn, MPI_Comm comm, MPI_Info info, int root,
                        MPI_Comm *newcomm, mpir_comm **c)
{
    mpir_comm *cc = *c = mpir_comm_get(comm);
    if (!cc)
        return mpir_err_world(mpir_err(MPI_ERR_COMM, fn, "invalid communicator (comm=0x%x)",
                                       (unsigned)comm));
    int rc = mpir_check_intra(fn, cc);
    if (rc == MPI_SUCCESS && (root < 0 || root >= cc->group->size))
        rc = mpir_err(MPI_ERR_ROOT, fn, "invalid root %d (comm size %d)", root, cc->group->size);
    if (rc == MPI_SUCCESS && !newcomm)
        rc = mpir_err(MPI_ERR_ARG, fn, "newcomm is NULL");
    if (rc == MPI_SUCCESS && cc->dev.rank == root)
        rc = check_info(fn, info);
    return rc ? mpir_err_comm(comm, rc) : MPI_SUCCESS;
}

/* At the accepting root: the next connection to p that presents its tag,
 * by deadline_ns (0: none; then the spawned processes of this port are
 * given up: MPI_ERR_SPAWN). */
static int accept_one(const char *fn, port *p, long long deadline_ns, int *fd)
{
    for (;;) {
        if (deadline_ns && cu_now_ns() > deadline_ns)
            return mpir_err(MPI_ERR_SPAWN, fn, "the spawned processes did not connect within "
                            "CLUMPI_SPAWN_TIMEOUT (%ld s); the process manager does not "
                            "report whether they ended", cu_param_int("SPAWN_TIMEOUT"));
        struct pollfd pf = { .fd = p->fd, .events = POLLIN };
        int n = mpir_poll(&pf, 1, 1);
        if (n < 0 && errno != EINTR)
            return mpir_err(MPI_ERR_PORT, fn, "waiting on the port failed: %s", strerror(errno));
        if (n <= 0) {
            mpid_progress();
            continue;
        }
        int s = accept4(p->fd, NULL, NULL, SOCK_CLOEXEC);
        if (s < 0)
            continue;
        uint32_t hello[3], status = 0;
        /* a stray connection gets a few seconds to say who it is */
        long long dl = cu_now_ns() + 5000000000LL;
        int ok = mpir_sock_swap(s, NULL, 0, hello, sizeof hello, dl) == 0 &&
                 ((uint64_t)hello[1] << 32 | hello[2]) == p->tag;
        if (ok && hello[0] == CU_PORT_HELLO) {
            *fd = s;
            return MPI_SUCCESS;
        }
        /* the process manager: the job spawned for this port ended first */
        if (ok && hello[0] == CU_PORT_GONE &&
            mpir_sock_swap(s, &hello[0], sizeof hello[0], &status, sizeof status, dl) == 0) {
            close(s);
            return mpir_err(MPI_ERR_SPAWN, fn, "the spawned processes ended (status %u) "
                            "before connecting to their parents", (unsigned)status);
        }
        close(s);
    }
}

/* At the connecting root: a connection to the port's process, hello sent. */
static int connect_one(const char *fn, const char *port_name, long long deadline, int *fd)
{
    struct sockaddr_in sa;
    uint64_t tag;
    if (!port_name)
        return mpir_err(MPI_ERR_PORT, fn, "port_name is NULL at the root");
    if (strnlen(port_name, MPI_MAX_PORT_NAME) >= MPI_MAX_PORT_NAME ||
        cu_port_parse(port_name, &sa, &tag) != 0)
        return mpir_err(MPI_ERR_PORT, fn, "port_name \"%.64s\" is not a port name of this MPI "
                        "(MPI_Open_port gives them)", port_name);
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0)
        return mpir_err(MPI_ERR_OTHER, fn, "socket: %s", strerror(errno));
    int rc = connect(s, (struct sockaddr *)&sa, sizeof sa);
    if (rc != 0 && errno == EINPROGRESS) {
        struct pollfd pf = { .fd = s, .events = POLLOUT };
        while ((rc = mpir_poll(&pf, 1, 1)) == 0 || (rc < 0 && errno == EINTR)) {
            if (cu_now_ns() > deadline)
                break;
            mpid_progress();
        }
        int e = 0;
        socklen_t el = sizeof e;
        if (rc > 0 && getsockopt(s, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && e == 0)
            rc = 0;
        else
            errno = rc == 0 ? ETIMEDOUT : e ? e : errno, rc = -1;
    }
    uint32_t hello[3] = { CU_PORT_HELLO, (uint32_t)(tag >> 32), (uint32_t)tag };
    if (rc != 0 || mpir_sock_swap(s, hello, sizeof hello, NULL, 0, deadline) != 0) {
        int e = errno;
        close(s);
        return mpir_err(MPI_ERR_PORT, fn, "no port \"%.64s\" to connect to: %s", port_name,
                        strerror(e));
    }
    *fd = s;
    return MPI_SUCCESS;
}

int mpir_port_join(const char *fn, mpir_comm *c, int root, int connecting, const char *port_name,
                   int root_err, long long accept_deadline_ns, mpir_comm **out)
{
    int fd = -1, err = root_err;
    /* only a connecting root waits for a peer that may never come */
    long long deadline = connecting ? port_deadline() : 0;
    if (c->dev.rank == root && err == MPI_SUCCESS && connecting) {
        err = connect_one(fn, port_name, deadline, &fd);
    } else if (c->dev.rank == root && err == MPI_SUCCESS) {
        port *p = port_name ? port_find(port_name) : NULL;
        if (!p)
            err = mpir_err(MPI_ERR_PORT, fn, "port_name \"%.64s\" is not a port this process "
                           "has open", port_name ? port_name : "(NULL)");
        else
            err = accept_one(fn, p, accept_deadline_ns, &fd);
    }
    int rc = mpir_dyn_connect(fn, c, root, fd, err, MPI_ERR_PORT, deadline, out);
    if (fd >= 0)
        close(fd);
    return rc;
}

/* The entry points of accept (connecting 0) and connect. */
static int accept_connect(const char *fn, int connecting, const char *port_name, MPI_Info info,
                          int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    mpir_comm *c, *ic = NULL;
    int rc = check_common(fn, comm, info, root, newcomm, &c);
    if (rc)
        return rc;
    rc = mpir_port_join(fn, c, root, connecting, port_name, MPI_SUCCESS, 0, &ic);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
    *newcomm = ic->handle;
    return MPI_SUCCESS;
}

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_accept";
    MPIR_ENTER(fn);
    return accept_connect(fn, 0, port_name, info, root, comm, newcomm);
}
MPIR_WEAK(Comm_accept)

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                      MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_connect";
    MPIR_ENTER(fn);
    return accept_connect(fn, 1, port_name, info, root, comm, newcomm);
}
MPIR_WEAK(Comm_connect)
