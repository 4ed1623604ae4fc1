/*
 * agent_ring.c — the rank<->agent segment: layout, creation by the node's
 * first rank, attachment by the other ranks and the agent. It is a memfd
 * without a name: the agent inherits it, the other ranks fetch it from
 * the first over an fd share (src/util/fdshare.h), so nothing of it can be
 * opened by others or left in /dev/shm.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "netmod/agent/agent_ring.h"
#include "src/util/fdshare.h"

#define PAGE 4096u
static size_t up(size_t x, size_t a) { return (x + a - 1) / a * a; }

size_t agt_seg_layout(agt_seg_hdr *h, const agt_layout *l)
{
    h->nlocal = l->nlocal, h->nnodes = l->nnodes, h->mtu = l->mtu;
    h->ncmd = l->ncmd, h->ncq = l->ncq, h->ntx = l->ntx, h->nrx = l->nrx, h->nworld = l->nworld;
    h->nbulk = l->nbulk, h->bulk_chunk = l->bulk_chunk;
    h->addr_off = up(sizeof *h, SHM_CACHELINE);
    h->bulk_addr_off = h->addr_off + (size_t)l->nnodes * AGT_ADDR_HEX;
    h->nodes_off = up(h->bulk_addr_off + (size_t)l->nnodes * AGT_ADDR_HEX, SHM_CACHELINE);
    h->bulk_off = up(h->nodes_off + (size_t)l->nworld * sizeof(uint32_t), PAGE);
    h->rank_off = up(h->bulk_off + (size_t)l->nbulk * (AGT_BULK_HDR + l->bulk_chunk), PAGE);
    size_t off = up(sizeof(agt_rank_blk), PAGE);
    h->cmd_off = off;
    off = up(off + shm_q_bytes(l->ncmd), PAGE);
    h->cq_off = off;
    off = up(off + shm_q_bytes(l->ncq), PAGE);
    h->tx_off = off;
    off = up(off + (size_t)l->ntx * l->mtu, PAGE);
    h->rx_off = off;
    off = up(off + (size_t)l->nrx * l->mtu, PAGE);
    h->rma_off = off;
    off = up(off + AGT_RMA_WINS * 64, PAGE);
    h->rank_stride = off;
    h->size = h->rank_off + (size_t)l->nlocal * off;
    return h->size;
}

void *agt_seg_create(const agt_layout *l, int *fd, int *err)
{
    agt_seg_hdr tmp;
    memset(&tmp, 0, sizeof tmp);
    size_t size = agt_seg_layout(&tmp, l);
    /* pages come as they are touched: the bulk buffers may be large */
    *fd = cu_memfd_make("clumpi-agent", size, 0);
    if (*fd < 0) {
        *err = *fd;
        return NULL;
    }
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
    if (base == MAP_FAILED) {
        *err = -errno;
        close(*fd);
        *fd = -1;
        return NULL;
    }
    agt_seg_hdr *h = base;
    memcpy(h, &tmp, sizeof tmp);
    for (uint32_t li = 0; li < l->nlocal; li++) {
        if (shm_q_init(agt_cmdq(h, (int)li), l->ncmd, 1) || shm_q_init(agt_cq(h, (int)li), l->ncq, 1)) {
            *err = -EINVAL;
            munmap(base, size);
            close(*fd);
            *fd = -1;
            return NULL;
        }
    }
    h->magic = AGT_MAGIC;
    return base;
}

void *agt_seg_attach(int fd, size_t *size, int *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(agt_seg_hdr)) {
        *err = -EPROTO;
        close(fd);
        return NULL;
    }
    void *base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (base == MAP_FAILED) {
        *err = -errno;
        return NULL;
    }
    agt_seg_hdr *h = base;
    if (h->magic != AGT_MAGIC || h->size != (uint64_t)st.st_size) {
        munmap(base, (size_t)st.st_size);
        *err = -EPROTO;
        return NULL;
    }
    *size = (size_t)st.st_size;
    return base;
}
