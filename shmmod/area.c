/*
 * area.c — node areas: job-private shared memory that the device hands to
 * the collectives (a flag barrier, small reductions through memory). The
 * device names each area (/clumpi-<job>-..., so mpirun removes leftovers of
 * a job that died) and runs the create / attach / unlink protocol among the
 * area's ranks; this file only maps, unlinks and unmaps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "shmmod/shm_internal.h"
#include "src/util/log.h"

void *shm_area_map(const char *key, size_t bytes, int create)
{
    int fd = shm_open(key, create ? O_RDWR | O_CREAT | O_EXCL : O_RDWR, 0600);
    if (fd < 0) {
        cu_debug("shm: node area %s: shm_open: %s", key, strerror(errno));
        return NULL;
    }
    struct stat st;
    if ((create && ftruncate(fd, (off_t)bytes) != 0) ||
        (!create && (fstat(fd, &st) != 0 || (size_t)st.st_size < bytes))) {
        cu_debug("shm: node area %s: cannot size it to %zu bytes", key, bytes);
        close(fd);
        if (create)
            shm_unlink(key);
        return NULL;
    }
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        cu_debug("shm: node area %s: mmap(%zu): %s", key, bytes, strerror(errno));
        if (create)
            shm_unlink(key);
        return NULL;
    }
    return p;
}

void shm_area_unlink(const char *key)
{
    shm_unlink(key);
}

void shm_area_unmap(void *base, size_t bytes)
{
    if (base)
        munmap(base, bytes);
}
