/*
 * mr.c — memory peers may access remotely: registration under keys a
 * peer cannot guess, for one message (rendezvous reads) or one window.
 *
 * Each exposure is its own fi_mr_reg of exactly the bytes the peer needs,
 * closed when the message or window is done, so no key outlives the memory
 * it names (a cache would have to learn about free() to be as safe, and
 * registering pins nothing on the software providers here: net, tcp;ofi_rxm
 * register in well under a microsecond, against 64 KiB or more moved). The
 * mode bits the provider returned are honoured:
 *   FI_MR_PROV_KEY  the provider picks the key (fi_mr_key); else we request
 *                   a random one (getrandom), masked to mr_key_size, never 0,
 *                   retried on a collision (-FI_ENOKEY);
 *   FI_MR_VIRT_ADDR remote addresses are virtual addresses; else they are
 *                   offsets from the start of the registration (fab_raddr);
 *   FI_MR_ENDPOINT  the registration is bound to our endpoint and enabled;
 *   FI_MR_ALLOCATED only allocated memory may be registered: user buffers
 *                   and windows are, so nothing to do;
 *   FI_MR_LOCAL     local buffers of reads and writes need descriptors too
 *                   (fab_mr_local);
 *   FI_MR_RAW       keys longer than 64 bits: not supported (no remote
 *                   access, the device uses its other paths).
 * Keys cross the network like the data itself (in the RTS payload or the
 * window's creation exchange): a peer that can see the traffic can see
 * the data anyway; a key no longer lets anyone read anything once the
 * message is complete.
 */
#include <errno.h>
#include <sys/random.h>
#include "netmod/ofi/fab.h"
#include "src/util/log.h"

static int random_key(uint64_t *key)
{
    if (fab_st.rnd_left == 0) {
        ssize_t want = (ssize_t)sizeof fab_st.rnd_pool;
        if (getrandom(fab_st.rnd_pool, sizeof fab_st.rnd_pool, 0) != want)
            return -EIO;
        fab_st.rnd_left = sizeof fab_st.rnd_pool / sizeof fab_st.rnd_pool[0];
    }
    uint64_t k = fab_st.rnd_pool[--fab_st.rnd_left];
    size_t ks = fab_st.info->domain_attr->mr_key_size;
    if (ks < 8)
        k &= (1ull << (8 * ks)) - 1;
    *key = k ? k : 1;
    return 0;
}

int fab_mr_remote_ok(void)
{
    const struct fi_domain_attr *d = fab_st.info->domain_attr;
    return !(d->mr_mode & (FI_MR_RAW | FI_MR_HMEM)) && d->mr_key_size > 0;
}

static int expose(const void *base, size_t len, uint64_t access, uint64_t *key,
                  struct fid_mr **mr)
{
    uint64_t mode = fab_st.info->domain_attr->mr_mode;
    int rc = -FI_ENOKEY;
    *mr = NULL;
    for (int tries = 0; tries < 8 && rc == -FI_ENOKEY; tries++) {
        uint64_t want = 0;
        if (!(mode & FI_MR_PROV_KEY) && random_key(&want))
            return -EIO;
        rc = fi_mr_reg(fab_st.domain, base, len, access, 0, want, 0, mr, NULL);
        if (rc == 0) {
            *key = fi_mr_key(*mr);   /* ours, or the provider's with FI_MR_PROV_KEY */
        }
    }
    if (rc) {
        *mr = NULL;
        return rc;
    }
    if ((mode & FI_MR_ENDPOINT) &&
        ((rc = fi_mr_bind(*mr, &fab_st.ep->fid, 0)) || (rc = fi_mr_enable(*mr)))) {
        fi_close(&(*mr)->fid);
        *mr = NULL;
        return rc;
    }
    if (*key == FI_KEY_NOTAVAIL) {
        fi_close(&(*mr)->fid);
        *mr = NULL;
        return -FI_ENOKEY;
    }
    return 0;
}

/* Both kinds of exposure (a rendezvous message, a window): a registration
 * peers reach under *key, as a handle for fab_mr_unexpose; -ENOTSUP (and
 * the device takes its other path) when it cannot be made. */
int fab_mr_expose(const void *base, size_t len, uint64_t access, const char *what,
                  uint64_t *key, void **handle)
{
    struct fid_mr *mr;
    int rc = expose(base, len, access, key, &mr);
    if (rc) {
        cu_debug("ofi: cannot register %zu bytes for %s: %s", len, what, fi_strerror(-rc));
        return -ENOTSUP;
    }
    *handle = mr;
    return 0;
}

void fab_mr_unexpose(void *handle)
{
    if (handle)
        fi_close(&((struct fid_mr *)handle)->fid);
}

int fab_mr_local(const struct iovec *v, size_t n, uint64_t access, struct fid_mr **mr,
                 void **desc)
{
    for (size_t k = 0; k < n; k++) {
        int rc = fab_mr_reg(v[k].iov_base, v[k].iov_len, access, &mr[k], &desc[k]);
        if (rc) {
            fab_mr_local_end(mr, k);
            return rc;
        }
    }
    return 0;
}

void fab_mr_local_end(struct fid_mr **mr, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (mr[k]) {
            fi_close(&mr[k]->fid);
            mr[k] = NULL;
        }
}

/* ---- the channel's rendezvous exposures (net_rma's expose / unexpose) ---- */

int fab_rma_expose(int dest, const void *base, size_t len, uint64_t *key, void **handle)
{
    (void)dest;   /* keys are per registration; any peer holding one may read */
    if (!fab_st.rd_on)
        return -ENOTSUP;
    return fab_mr_expose(base, len, FI_REMOTE_READ, "a remote read (pipelined instead)", key,
                         handle);
}
