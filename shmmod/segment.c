/*
 * segment.c — the node's shared segment: a memfd created by local rank 0,
 * which puts the key of its fd share (src/util/fdshare.h) in PMI and hands
 * the fd to the other local ranks. The memory has no name anywhere, so no
 * other process can open or squat it and nothing is left in /dev/shm
 * however the job ends.
 *
 * PMI barriers are collective over the whole job, so every rank makes the
 * same two cu_pmi_barrier() calls whatever happens here (also ranks alone on
 * their node, and ranks whose attach failed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "shmmod/shm_internal.h"
#include "src/util/fdshare.h"
#include "src/util/log.h"
#include "src/util/pmi.h"

static size_t align_up(size_t x, size_t a) { return (x + a - 1) & ~(a - 1); }

void shm_layout_compute(shm_layout *lay, uint32_t nlocal, uint32_t nunits,
                        uint32_t nctrl, uint32_t nfrags, uint32_t fragsize)
{
    size_t off = align_up(sizeof(shm_seg_hdr), SHM_PAGE);
    lay->rank_off = off;
    off = align_up(off + (size_t)nlocal * sizeof(shm_rank_blk), SHM_PAGE);
    lay->q_off = off;
    lay->ctrl_off = align_up(shm_q_bytes(nunits), SHM_CACHELINE);
    lay->q_stride = align_up(lay->ctrl_off + shm_q_bytes(nctrl), SHM_PAGE);
    off += (size_t)nlocal * lay->q_stride;
    lay->pool_off = off;
    lay->frag_off = align_up((size_t)nfrags * sizeof(uint32_t), SHM_PAGE);
    lay->pool_stride = lay->frag_off + (size_t)nfrags * align_up(fragsize, SHM_PAGE);
    off += (size_t)nlocal * lay->pool_stride;
    lay->size = off;
}

static shm_queue *data_q(void *base, const shm_layout *lay, int r)
{
    return (shm_queue *)((char *)base + lay->q_off + (size_t)r * lay->q_stride);
}

static shm_queue *ctrl_q(void *base, const shm_layout *lay, int r)
{
    return (shm_queue *)((char *)base + lay->q_off + (size_t)r * lay->q_stride + lay->ctrl_off);
}

#define SEG_SERVE_MS 60000   /* the peers fetch right after the barrier; a slow
                                start under a loaded host or valgrind is seconds */

/* Local rank 0: create, size and initialise the segment; *fd stays open
 * for the other local ranks to fetch. */
static int seg_create(uint32_t nlocal, uint32_t nunits, uint32_t nctrl, uint32_t nfrags, int *fd)
{
    shm_layout_compute(&shm_st.lay, nlocal, nunits, nctrl, nfrags, SHM_FRAG_SIZE);
    size_t size = shm_st.lay.size;
    /* a full /dev/shm is a clean error here rather than a SIGBUS on some
     * later send: cu_memfd_make reserves the pages */
    *fd = cu_memfd_make("clumpi-shm", size, 1);
    if (*fd < 0)
        return *fd;
    void *b = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, *fd, 0);
    if (b == MAP_FAILED) {
        int rc = -errno;
        close(*fd);
        *fd = -1;
        return rc;
    }
    shm_seg_hdr *h = b;
    h->size = size;
    h->local_size = nlocal;
    h->nunits = nunits;
    h->nctrl = nctrl;
    h->nfrags = nfrags;
    h->fragsize = SHM_FRAG_SIZE;
    atomic_init(&h->attached, 1);
    for (uint32_t r = 0; r < nlocal; r++) {
        shm_rank_blk *blk = (shm_rank_blk *)((char *)b + shm_st.lay.rank_off) + r;
        atomic_init(&blk->pid, 0);
        atomic_init(&blk->futex, 0);
        /* every local rank may produce into every queue */
        shm_q_init(data_q(b, &shm_st.lay, (int)r), nunits, nlocal);
        shm_q_init(ctrl_q(b, &shm_st.lay, (int)r), nctrl, nlocal);
        shm_pool p;
        shm_pool_bind(&p, b, &shm_st.lay, (int)r, nfrags, SHM_FRAG_SIZE);
        shm_pool_init(&p);
    }
    atomic_thread_fence(memory_order_release);
    h->magic = SHM_MAGIC;
    shm_st.base = b;
    shm_st.size = size;
    return 0;
}

static int seg_attach(const char *keytext, uint32_t nlocal)
{
    cu_fdshare_key key;
    if (cu_fdshare_key_parse(keytext, &key))
        return -EPROTO;
    int fd = cu_fdshare_fetch(&key, SEG_SERVE_MS);
    if (fd < 0)
        return fd;
    struct stat st;
    if (fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof(shm_seg_hdr)) {
        close(fd);
        return -EPROTO;
    }
    size_t size = (size_t)st.st_size;
    void *b = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    close(fd);
    if (b == MAP_FAILED)
        return -errno;
    shm_seg_hdr *h = b;
    if (h->magic != SHM_MAGIC || h->local_size != nlocal || h->size != size) {
        munmap(b, size);
        return -EPROTO;
    }
    shm_layout_compute(&shm_st.lay, nlocal, h->nunits, h->nctrl, h->nfrags, h->fragsize);
    shm_st.base = b;
    shm_st.size = size;
    atomic_fetch_add(&h->attached, 1);
    return 0;
}

/* Fill shm_st.peers etc. from the mapped segment. */
static void seg_bind(const mpid_chan_info *info)
{
    shm_seg_hdr *h = shm_st.base;
    void *b = shm_st.base;
    for (int r = 0; r < shm_st.local_size; r++) {
        shm_peer *p = &shm_st.peers[r];
        p->data = data_q(b, &shm_st.lay, r);
        p->ctrl = ctrl_q(b, &shm_st.lay, r);
        p->data_head = p->ctrl_head = 0;
        p->blk = (shm_rank_blk *)((char *)b + shm_st.lay.rank_off) + r;
        shm_pool_bind(&p->pool, b, &shm_st.lay, r, h->nfrags, h->fragsize);
        p->world = info->local_ranks[r];
    }
    shm_st.me = shm_st.peers[shm_st.local_rank].blk;
    shm_st.my_data = shm_st.peers[shm_st.local_rank].data;
    shm_st.my_ctrl = shm_st.peers[shm_st.local_rank].ctrl;
    shm_st.my_pool = &shm_st.peers[shm_st.local_rank].pool;
    shm_st.data_head = shm_st.ctrl_head = 0;
    atomic_store(&shm_st.me->efd, shm_st.efd + 1);   /* before pid: peers read it after */
    atomic_store(&shm_st.me->pid, (int32_t)getpid());
}

int shm_segment_setup(const mpid_chan_info *info, uint32_t nunits, uint32_t nctrl,
                      uint32_t nfrags)
{
    uint32_t nlocal = (uint32_t)info->local_size;
    char key[CU_PMI_KEYLEN_MAX], val[CU_PMI_VALLEN_MAX];
    int rc = 0, brc, fd = -1;
    cu_fdshare share = { .lfd = -1 };
    snprintf(key, sizeof key, "shm-%d", info->node);

    if (nlocal <= 1) {        /* nobody to talk to: same barriers, no segment */
        brc = cu_pmi_barrier();
        if (!brc)
            brc = cu_pmi_barrier();
        return brc ? -EIO : 0;
    }
    if (info->local_rank == 0) {
        char text[CU_FDSHARE_KEYTEXT] = "";
        rc = seg_create(nlocal, nunits, nctrl, nfrags, &fd);
        if (!rc)
            rc = cu_fdshare_open(&share);
        if (rc)
            cu_warn("shm: cannot create the node's segment: %s", strerror(-rc));
        else
            cu_fdshare_key_text(&share.key, text);
        /* an empty key tells the peers that creation failed */
        if (cu_pmi_put(key, text) != 0 && !rc)
            rc = -EIO;
    }
    brc = cu_pmi_barrier();
    if (info->local_rank == 0 && !rc && !brc) {
        rc = cu_fdshare_serve(&share, fd, (int)nlocal - 1, SEG_SERVE_MS);
        if (rc)
            cu_warn("shm: the node's other ranks did not fetch the segment: %s", strerror(-rc));
    } else if (info->local_rank != 0 && !brc) {
        rc = cu_pmi_get(key, val, sizeof val) != 0 ? -EIO : 0;
        if (!rc && val[0] == '\0')
            rc = -ENOENT;
        if (!rc)
            rc = seg_attach(val, nlocal);
        if (rc)
            cu_warn("shm: cannot attach the node's segment: %s", strerror(rc < 0 ? -rc : rc));
    }
    /* nothing names the memory: it lives as long as its mappings */
    cu_fdshare_close(&share);
    if (fd >= 0)
        close(fd);
    if (!rc && !brc)
        seg_bind(info);
    int brc2 = cu_pmi_barrier();
    if (info->local_rank == 0 && shm_st.base) {
        shm_seg_hdr *h = shm_st.base;
        uint32_t a = atomic_load(&h->attached);
        if (a != nlocal && !rc)
            rc = -EPROTO, cu_warn("shm: only %u of %u local ranks attached", a, nlocal);
    }
    if (!rc && (brc || brc2))
        rc = -EIO;
    if (rc && shm_st.base) {
        munmap(shm_st.base, shm_st.size);
        shm_st.base = NULL;
    }
    return rc;
}

void shm_segment_teardown(void)
{
    if (shm_st.base) {
        munmap(shm_st.base, shm_st.size);
        shm_st.base = NULL;
    }
}
