/*
 * ofi_init.c — provider choice, the endpoint and its queues, and address
 * exchange through PMI.
 *
 * Provider: CLUMPI_OFI_PROVIDER (any fi_info provider string: "net", "tcp",
 * "tcp;ofi_rxm", "udp;ofi_rxd", "sockets", ...), else the first of
 * OFI_DEFAULT_PROVIDERS that offers reliable datagram messaging here.
 * Interface: CLUMPI_OFI_IFACE names a libfabric domain ("lo", "eth0"); by
 * default the first domain that is not loopback, so that the address works
 * from other hosts (on one machine, traffic to our own address never leaves
 * it), loopback only when nothing else exists.
 *
 * Addresses: each rank puts its hex-encoded fi_getname under "ofi-<rank>"
 * before one PMI barrier; a peer's address is fetched and inserted into the
 * AV on the first send to it (ofi_resolve), so init costs O(1) per rank
 * whatever the job size, and ranks that never talk never look each other up.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/fi_rma.h>
#include "netmod/ofi/ofi.h"
#include "netmod/verbs/discover.h"
#include "src/util/log.h"
#include "src/util/param.h"
#include "src/util/pmi.h"

struct ofi_state ofi_st = { .wait_fd = -1 };

#define OFI_VERSION FI_VERSION(1, 10)

/* Fastest first, measured here over loopback (1-byte ping-pong through
 * this channel, see bench/net.sh): net 5.3 us, tcp;ofi_rxm 8.6 us,
 * sockets and udp;ofi_rxd slower still. verbs leads where hardware
 * exists. The last entry (NULL) takes any reliable provider but shm. */
static const char *const OFI_DEFAULT_PROVIDERS[] = {
    "verbs;ofi_rxm", "net", "tcp;ofi_rxm", "sockets", "udp;ofi_rxd", NULL
};

static struct fi_info *make_hints(const char *prov, const char *iface, uint64_t caps,
                                  int manual)
{
    struct fi_info *h = fi_allocinfo();
    if (!h)
        return NULL;
    h->ep_attr->type = FI_EP_RDM;
    h->caps = caps;
    /* we give every operation a fi_context2, so both modes are fine */
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    if (manual)   /* no provider thread: progress is ours (ofi_poll) */
        h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    /* per-sender order of packets is the device's contract */
    h->tx_attr->msg_order = FI_ORDER_SAS;
    h->rx_attr->msg_order = FI_ORDER_SAS;
    if (prov)
        h->fabric_attr->prov_name = strdup(prov);
    if (iface)
        h->domain_attr->name = strdup(iface);
    return h;
}

static int is_loopback(const struct fi_info *i)
{
    if (i->domain_attr && i->domain_attr->name && !strcmp(i->domain_attr->name, "lo"))
        return 1;
    if (i->src_addr && i->src_addrlen >= sizeof(struct sockaddr_in)) {
        const struct sockaddr *sa = i->src_addr;
        if (sa->sa_family == AF_INET)
            return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
        if (sa->sa_family == AF_INET6 && i->src_addrlen >= sizeof(struct sockaddr_in6))
            return !memcmp(&((const struct sockaddr_in6 *)sa)->sin6_addr, &in6addr_loopback,
                           sizeof in6addr_loopback);
    }
    return 0;
}

/* The first usable entry of one query: not the node-local shm provider
 * (unless asked for by name), not loopback unless the user named it or it
 * is all there is. */
static struct fi_info *query(const char *prov, const char *iface)
{
    /* Multi-recv and manual progress where offered, then without. */
    static const struct { uint64_t caps; int manual; } tries[] = {
        { FI_MSG | FI_MULTI_RECV, 1 }, { FI_MSG | FI_MULTI_RECV, 0 },
        { FI_MSG, 1 }, { FI_MSG, 0 },
    };
    for (size_t t = 0; t < sizeof tries / sizeof tries[0]; t++) {
        struct fi_info *h = make_hints(prov, iface, tries[t].caps, tries[t].manual);
        struct fi_info *list = NULL;
        if (!h)
            return NULL;
        int rc = fi_getinfo(OFI_VERSION, NULL, NULL, 0, h, &list);
        fi_freeinfo(h);
        if (rc || !list)
            continue;
        struct fi_info *pick = NULL, *lo = NULL;
        for (struct fi_info *i = list; i; i = i->next) {
            const char *pn = i->fabric_attr->prov_name;
            if (!prov && pn && !strcmp(pn, "shm"))
                continue;
            if (!iface && is_loopback(i)) {
                if (!lo)
                    lo = i;
                continue;
            }
            pick = i;
            break;
        }
        if (!pick)
            pick = lo;
        if (pick) {
            struct fi_info *d = fi_dupinfo(pick);
            fi_freeinfo(list);
            return d;
        }
        fi_freeinfo(list);
    }
    return NULL;
}

/* "net, tcp;ofi_rxm, ..." : what fi_info would list (no hints). */
static void list_providers(char *out, size_t cap)
{
    struct fi_info *list = NULL;
    size_t used = 0;
    out[0] = '\0';
    if (fi_getinfo(OFI_VERSION, NULL, NULL, 0, NULL, &list) || !list) {
        snprintf(out, cap, "none");
        return;
    }
    for (struct fi_info *i = list; i; i = i->next) {
        const char *pn = i->fabric_attr->prov_name;
        if (!pn)
            continue;
        char pat[128];
        snprintf(pat, sizeof pat, ", %s,", pn);
        char tmp[1100];
        snprintf(tmp, sizeof tmp, ", %s,", out);
        if (strstr(tmp, pat))
            continue;
        int w = snprintf(out + used, cap - used, "%s%s", used ? ", " : "", pn);
        if (w < 0 || (size_t)w >= cap - used)
            break;
        used += (size_t)w;
    }
    fi_freeinfo(list);
}

static struct fi_info *choose(void)
{
    const char *prov = cu_param_str("OFI_PROVIDER", NULL);
    const char *iface = cu_param_str("OFI_IFACE", NULL);
    if (prov && !*prov)
        prov = NULL;
    if (iface && !*iface)
        iface = NULL;
    struct fi_info *i = NULL;
    if (prov) {
        i = query(prov, iface);
    } else {
        for (size_t k = 0; !i && k < sizeof OFI_DEFAULT_PROVIDERS / sizeof OFI_DEFAULT_PROVIDERS[0]; k++)
            i = query(OFI_DEFAULT_PROVIDERS[k], iface);
    }
    if (!i) {
        char avail[1024];
        list_providers(avail, sizeof avail);
        cu_warn("ofi: %s%s%s%s%s offers reliable messaging (FI_EP_RDM, FI_MSG) here; "
                "providers fi_info reports: %s. Set CLUMPI_OFI_PROVIDER to one of them",
                prov ? "provider \"" : "no libfabric provider", prov ? prov : "",
                prov ? "\"" : "", iface ? " on interface " : "", iface ? iface : "", avail);
    }
    return i;
}

int ofi_mr_reg(void *buf, size_t len, uint64_t access, struct fid_mr **mr, void **desc)
{
    *mr = NULL;
    *desc = NULL;
    if (!ofi_st.mr_local)
        return 0;
    int rc = fi_mr_reg(ofi_st.domain, buf, len, access, 0, 0, 0, mr, NULL);
    if (rc)
        return rc;
    *desc = fi_mr_desc(*mr);
    return 0;
}

static void hex_encode(const unsigned char *in, size_t n, char *out)
{
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = d[in[i] >> 4];
        out[2 * i + 1] = d[in[i] & 15];
    }
    out[2 * n] = '\0';
}

static int hex_val(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int ofi_resolve(int dest)
{
    char key[32], val[CU_PMI_VALLEN_MAX];
    unsigned char addr[CU_PMI_VALLEN_MAX / 2];
    snprintf(key, sizeof key, "ofi-%d", dest);
    if (cu_pmi_get(key, val, sizeof val) != 0) {
        cu_warn("ofi: no network address published by rank %d", dest);
        return -EHOSTUNREACH;
    }
    size_t n = strlen(val) / 2;
    for (size_t i = 0; i < n; i++) {
        int h = hex_val(val[2 * i]), l = hex_val(val[2 * i + 1]);
        if (h < 0 || l < 0) {
            cu_warn("ofi: malformed network address of rank %d", dest);
            return -EPROTO;
        }
        addr[i] = (unsigned char)(h << 4 | l);
    }
    fi_addr_t fa = FI_ADDR_NOTAVAIL;
    int rc = fi_av_insert(ofi_st.av, addr, 1, &fa, 0, NULL);
    if (rc != 1 || fa == FI_ADDR_NOTAVAIL) {
        cu_warn("ofi: cannot add the address of rank %d: %s", dest,
                rc < 0 ? fi_strerror(-rc) : "rejected");
        return -EHOSTUNREACH;
    }
    ofi_st.addr[dest] = fa;
    return 0;
}

static const char *addr_str(char *buf, size_t cap)
{
    char a[256];
    size_t alen = sizeof a;
    if (fi_getname(&ofi_st.ep->fid, a, &alen) || !ofi_st.info->addr_format)
        return "?";
    size_t blen = cap;
    fi_av_straddr(ofi_st.av, a, buf, &blen);
    return buf;
}

static int fail(const char *what, int rc)
{
    cu_warn("ofi: %s failed: %s (provider %s)", what, fi_strerror(rc < 0 ? -rc : rc),
            ofi_st.info ? ofi_st.info->fabric_attr->prov_name : "?");
    return rc < 0 ? rc : -rc;
}

static int open_endpoint(void)
{
    struct fi_info *i = ofi_st.info;
    int rc;
    ofi_st.mr_local = (i->domain_attr->mr_mode & FI_MR_LOCAL) != 0;
    ofi_st.multi_recv = (i->caps & FI_MULTI_RECV) != 0;
    if ((rc = fi_fabric(i->fabric_attr, &ofi_st.fabric, NULL)))
        return fail("fi_fabric", rc);
    if ((rc = fi_domain(ofi_st.fabric, i, &ofi_st.domain, NULL)))
        return fail("fi_domain", rc);

    struct fi_cq_attr cqa = { 0 };
    cqa.format = FI_CQ_FORMAT_DATA;
    cqa.size = i->tx_attr->size + i->rx_attr->size;
    cqa.wait_obj = FI_WAIT_FD;   /* idle ranks block on it (ofi_wait.c) */
    if (fi_cq_open(ofi_st.domain, &cqa, &ofi_st.cq, NULL)) {
        cu_debug("ofi: no FI_WAIT_FD completion queue; idle waits are bounded polls");
        cqa.wait_obj = FI_WAIT_NONE;
        if ((rc = fi_cq_open(ofi_st.domain, &cqa, &ofi_st.cq, NULL)))
            return fail("fi_cq_open", rc);
    }
    ofi_st.wait_fd = -1;
    if (cqa.wait_obj == FI_WAIT_FD) {
        int fd = -1;
        if (fi_control(&ofi_st.cq->fid, FI_GETWAIT, &fd) == 0)
            ofi_st.wait_fd = fd;
    }

    struct fi_av_attr ava = { 0 };
    ava.type = i->domain_attr->av_type != FI_AV_UNSPEC ? i->domain_attr->av_type : FI_AV_TABLE;
    if ((rc = fi_av_open(ofi_st.domain, &ava, &ofi_st.av, NULL)))
        return fail("fi_av_open", rc);
    if ((rc = fi_endpoint(ofi_st.domain, i, &ofi_st.ep, NULL)))
        return fail("fi_endpoint", rc);
    if ((rc = fi_ep_bind(ofi_st.ep, &ofi_st.av->fid, 0)))
        return fail("binding the address vector", rc);
    if ((rc = fi_ep_bind(ofi_st.ep, &ofi_st.cq->fid, FI_TRANSMIT | FI_RECV)))
        return fail("binding the completion queue", rc);
    if (ofi_st.multi_recv) {
        /* a slab is released once less than one largest packet is left */
        size_t min = OFI_PKT_MAX;
        if (fi_setopt(&ofi_st.ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min, sizeof min))
            ofi_st.multi_recv = 0;
    }
    if ((rc = fi_enable(ofi_st.ep)))
        return fail("fi_enable", rc);
    ofi_st.inject_max = i->tx_attr->inject_size;

    /* Receive buffers. Multi-recv: a few slabs, each holding many packets
     * of any size. Otherwise one packet each. CLUMPI_OFI_RX_BUFS sets how
     * many. */
    long nrx = cu_param_int("OFI_RX_BUFS", ofi_st.multi_recv ? 4 : 64);
    if (nrx < 2)
        nrx = 2;
    size_t bsize = ofi_st.multi_recv ? 16 * OFI_PKT_MAX : OFI_PKT_MAX;
    ofi_st.rx = calloc((size_t)nrx, sizeof *ofi_st.rx);
    if (!ofi_st.rx)
        return -ENOMEM;
    for (int k = 0; k < nrx; k++) {
        ofi_rxbuf *b = &ofi_st.rx[k];
        b->size = bsize;
        b->buf = malloc(bsize);
        if (!b->buf)
            return -ENOMEM;
        ofi_st.nrx = k + 1;
        if ((rc = ofi_mr_reg(b->buf, bsize, FI_RECV, &b->mr, &b->desc)))
            return fail("registering receive buffers", rc);
        if ((rc = ofi_post_rx(b)))
            return fail("posting receive buffers", rc);
    }
    /* send buffers are made on demand, up to CLUMPI_OFI_TX_BUFS */
    ofi_st.tx_max = (int)cu_param_int("OFI_TX_BUFS", 64);
    if (ofi_st.tx_max < 1)
        ofi_st.tx_max = 1;
    return 0;
}

int ofi_open(const mpid_chan_info *info)
{
    ofi_st.rank = info->world_rank;
    ofi_st.size = info->world_size;
    ofi_st.node = info->node;
    ofi_st.info = choose();
    int rc = ofi_st.info ? open_endpoint() : -ENODEV;
    char key[32], val[CU_PMI_VALLEN_MAX];
    val[0] = '\0';
    if (rc == 0) {
        unsigned char a[CU_PMI_VALLEN_MAX / 2 - 1];
        size_t alen = sizeof a;
        if ((rc = fi_getname(&ofi_st.ep->fid, a, &alen)))
            rc = fail("fi_getname", rc);
        else
            hex_encode(a, alen, val);
    }
    ofi_st.addr = malloc(sizeof *ofi_st.addr * (size_t)info->world_size);
    if (!ofi_st.addr && rc == 0)
        rc = -ENOMEM;
    for (int r = 0; ofi_st.addr && r < info->world_size; r++)
        ofi_st.addr[r] = FI_ADDR_NOTAVAIL;
    /* Everyone reaches the barrier, failed or not, so no rank hangs in it:
     * an empty address tells peers we have none. */
    snprintf(key, sizeof key, "ofi-%d", info->world_rank);
    if (cu_pmi_put(key, val) != 0 && rc == 0)
        rc = -EIO;
    if (cu_pmi_barrier() != 0 && rc == 0)
        rc = -EIO;
    if (rc)
        return rc;
    ofi_st.up = 1;
    if (info->local_rank == 0 && cu_verbose()) {
        char as[256], rdma[256];
        verbs_discover(rdma, sizeof rdma);
        cu_debug("ofi: node %d: provider %s, fabric %s, domain %s, address %s, %s, "
                 "inject %zu, %s; rdma: %s",
                 info->node, ofi_st.info->fabric_attr->prov_name, ofi_st.info->fabric_attr->name,
                 ofi_st.info->domain_attr->name, addr_str(as, sizeof as),
                 ofi_st.multi_recv ? "multi-recv" : "fixed receive buffers", ofi_st.inject_max,
                 ofi_st.wait_fd >= 0 ? "wait fd" : "no wait fd", rdma);
    }
    return 0;
}

void ofi_close(void)
{
    if (ofi_st.ep)
        fi_close(&ofi_st.ep->fid);
    ofi_tx_release_all();
    for (int k = 0; k < ofi_st.nrx; k++) {
        if (ofi_st.rx[k].mr)
            fi_close(&ofi_st.rx[k].mr->fid);
        free(ofi_st.rx[k].buf);
    }
    free(ofi_st.rx);
    if (ofi_st.av)
        fi_close(&ofi_st.av->fid);
    if (ofi_st.cq)
        fi_close(&ofi_st.cq->fid);
    if (ofi_st.domain)
        fi_close(&ofi_st.domain->fid);
    if (ofi_st.fabric)
        fi_close(&ofi_st.fabric->fid);
    if (ofi_st.info)
        fi_freeinfo(ofi_st.info);
    free(ofi_st.addr);
    memset(&ofi_st, 0, sizeof ofi_st);
    ofi_st.wait_fd = -1;
}
