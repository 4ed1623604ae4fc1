/*
 * names.c — the store of the name service (MPI_Publish_name and friends):
 * one file per published service in a directory every job that should see
 * the others' names shares: CLUMPI_NAMESERVER, by default
 * /tmp/clumpi-names-<uid> (mode 0700; a shared file system makes it span
 * hosts). A file is named by its service name hex-encoded and holds the
 * port name. mpirun serves the PMI requests from it (and removes what its
 * job left published when the job ends); a singleton uses it directly.
 * Publishing writes a temporary file and links it into place, so a name
 * appears whole, once: a second publish of a name finds it taken.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "src/util/names.h"
#include "src/util/param.h"

/* The file of service into buf; 0, or -ENAMETOOLONG, or the directory's
 * -errno. */
static int name_path(const char *service, char *buf, size_t cap)
{
    char dir[512];
    const char *env = cu_param_str("NAMESERVER");
    if (env && *env)
        snprintf(dir, sizeof dir, "%s", env);
    else
        snprintf(dir, sizeof dir, "/tmp/clumpi-names-%ld", (long)getuid());
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return -errno;
    size_t n = (size_t)snprintf(buf, cap, "%s/", dir);
    for (const unsigned char *s = (const unsigned char *)service; *s; s++) {
        if (n + 3 >= cap)
            return -ENAMETOOLONG;
        n += (size_t)snprintf(buf + n, cap - n, "%02x", *s);
    }
    return 0;
}

int cu_names_publish(const char *service, const char *port)
{
    char path[1024], tmp[1100];
    int rc = name_path(service, path, sizeof path);
    if (rc)
        return rc;
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    size_t len = strlen(port);
    rc = write(fd, port, len) == (ssize_t)len ? 0 : -EIO;
    if (close(fd) != 0 && rc == 0)
        rc = -EIO;
    if (rc == 0 && link(tmp, path) != 0)
        rc = -errno;
    unlink(tmp);
    return rc;
}

int cu_names_lookup(const char *service, char *port, size_t cap)
{
    char path[1024];
    int rc = name_path(service, path, sizeof path);
    if (rc)
        return rc;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = read(fd, port, cap - 1);
    close(fd);
    if (n <= 0)
        return -ENOENT;
    port[n] = '\0';
    return 0;
}

int cu_names_unpublish(const char *service, const char *port)
{
    char have[1024];
    int rc = cu_names_lookup(service, have, sizeof have);
    if (rc)
        return rc;
    if (port && strcmp(have, port) != 0)
        return -ENOENT;   /* published, but with another port */
    char path[1024];
    rc = name_path(service, path, sizeof path);
    return rc ? rc : unlink(path) == 0 ? 0 : -errno;
}
