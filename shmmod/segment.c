/*
 * segment.c — the node's shared segment: created by local rank 0, named
 * through PMI, attached by the other local ranks, unlinked as soon as all have
 * attached (so nothing is left in /dev/shm even if the job dies later).
 *
 * Name: /clumpi-<job_id>-<node>-<16 random hex>: the job prefix lets mpirun
 * remove leftovers of a dead job; the random part makes it unguessable, and
 * O_EXCL with mode 0600 keeps it private to the job's user.
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
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "shmmod/shm_internal.h"
#include "src/util/log.h"
#include "src/util/pmi.h"

static size_t align_up(size_t x, size_t a) { return (x + a - 1) & ~(a - 1); }

void shm_layout_compute(shm_layout *lay, uint32_t nlocal, uint32_t ncells,
                        uint32_t nctrl, uint32_t nfrags, uint32_t fragsize)
{
    size_t off = align_up(sizeof(shm_seg_hdr), SHM_PAGE);
    lay->rank_off = off;
    off = align_up(off + (size_t)nlocal * sizeof(shm_rank_blk), SHM_PAGE);
    lay->q_off = off;
    lay->ctrl_off = align_up(shm_q_bytes(ncells), SHM_CACHELINE);
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

static int make_name(char *buf, size_t len, const mpid_chan_info *info)
{
    unsigned char rnd[8];
    size_t got = 0;
    while (got < sizeof rnd) {
        ssize_t n = getrandom(rnd + got, sizeof rnd - got, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        got += (size_t)n;
    }
    int n = snprintf(buf, len, "/clumpi-%s-%d-", info->job_id ? info->job_id : "0", info->node);
    for (size_t i = 0; i < sizeof rnd && n + 2 < (int)len; i++)
        n += snprintf(buf + n, len - (size_t)n, "%02x", rnd[i]);
    return (size_t)n + 1 < len ? 0 : -ENAMETOOLONG;
}

/* Local rank 0: create, size and initialise the segment. */
static int seg_create(uint32_t nlocal, uint32_t ncells, uint32_t nctrl, uint32_t nfrags,
                      const mpid_chan_info *info)
{
    int rc = make_name(shm_st.name, sizeof shm_st.name, info);
    if (rc)
        return rc;
    shm_layout_compute(&shm_st.lay, nlocal, ncells, nctrl, nfrags, SHM_FRAG_SIZE);
    size_t size = shm_st.lay.size;
    int fd = shm_open(shm_st.name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        return -errno;
    /* reserve the pages now: a full /dev/shm is a clean error here rather
     * than a SIGBUS on some later send */
    if (ftruncate(fd, (off_t)size) < 0 || (rc = posix_fallocate(fd, 0, (off_t)size)) != 0) {
        rc = rc ? -rc : -errno;
        close(fd);
        shm_unlink(shm_st.name);
        return rc;
    }
    void *b = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    close(fd);
    if (b == MAP_FAILED) {
        rc = -errno;
        shm_unlink(shm_st.name);
        return rc;
    }
    shm_seg_hdr *h = b;
    h->size = size;
    h->local_size = nlocal;
    h->ncells = ncells;
    h->nctrl = nctrl;
    h->nfrags = nfrags;
    h->fragsize = SHM_FRAG_SIZE;
    atomic_init(&h->attached, 1);
    for (uint32_t r = 0; r < nlocal; r++) {
        shm_rank_blk *blk = (shm_rank_blk *)((char *)b + shm_st.lay.rank_off) + r;
        atomic_init(&blk->pid, 0);
        atomic_init(&blk->futex, 0);
        /* every local rank may produce into every queue */
        shm_q_init(data_q(b, &shm_st.lay, (int)r), ncells, nlocal);
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

static int seg_attach(const char *name, uint32_t nlocal)
{
    size_t nlen = strlen(name);
    if (nlen >= sizeof shm_st.name)
        return -ENAMETOOLONG;
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0)
        return -errno;
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
    memcpy(shm_st.name, name, nlen + 1);
    shm_layout_compute(&shm_st.lay, nlocal, h->ncells, h->nctrl, h->nfrags, h->fragsize);
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

int shm_segment_setup(const mpid_chan_info *info, uint32_t ncells, uint32_t nctrl,
                      uint32_t nfrags)
{
    uint32_t nlocal = (uint32_t)info->local_size;
    char key[CU_PMI_KEYLEN_MAX], val[CU_PMI_VALLEN_MAX];
    int rc = 0, brc;
    snprintf(key, sizeof key, "shm-%d", info->node);

    if (nlocal <= 1) {        /* nobody to talk to: same barriers, no segment */
        brc = cu_pmi_barrier();
        if (!brc)
            brc = cu_pmi_barrier();
        return brc ? -EIO : 0;
    }
    if (info->local_rank == 0) {
        rc = seg_create(nlocal, ncells, nctrl, nfrags, info);
        if (rc)
            cu_warn("shm: cannot create segment %s: %s", shm_st.name, strerror(-rc));
        /* an empty name tells the peers that creation failed */
        if (cu_pmi_put(key, rc ? "" : shm_st.name) != 0 && !rc)
            rc = -EIO;
    }
    brc = cu_pmi_barrier();
    if (info->local_rank != 0 && !rc && !brc) {
        rc = cu_pmi_get(key, val, sizeof val) != 0 ? -EIO : 0;
        if (!rc && val[0] == '\0')
            rc = -ENOENT;
        if (!rc)
            rc = seg_attach(val, nlocal);
        if (rc)
            cu_warn("shm: cannot attach segment %s: %s", val, strerror(rc < 0 ? -rc : rc));
    }
    if (!rc && !brc)
        seg_bind(info);
    int brc2 = cu_pmi_barrier();
    if (info->local_rank == 0 && shm_st.base) {
        /* every local rank has attached (or failed): the name is no longer
         * needed; unlinking now leaves nothing behind if the job dies */
        shm_unlink(shm_st.name);
        shm_st.unlinked = 1;
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
        if (!shm_st.unlinked && shm_st.local_rank == 0)
            shm_unlink(shm_st.name);
        munmap(shm_st.base, shm_st.size);
        shm_st.base = NULL;
    }
}
