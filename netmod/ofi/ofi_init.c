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
 * it), loopback only when nothing else exists; but loopback first when
 * mpirun started the whole job on this host (CLUMPI_ONE_HOST=1: emulated
 * nodes), see netmod/common/fabric_select.c.
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
#include "netmod/common/addr_hex.h"
#include "netmod/common/fabric_select.h"
#include "netmod/common/nic_discover.h"
#include "src/util/log.h"
#include "src/util/param.h"
#include "src/util/pmi.h"

struct ofi_state ofi_st = { .cqw = { .fd = -1 } };

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

int ofi_resolve(int dest)
{
    char key[32], val[CU_PMI_VALLEN_MAX];
    unsigned char addr[CU_PMI_VALLEN_MAX / 2];
    snprintf(key, sizeof key, "ofi-%d", dest);
    if (cu_pmi_get(key, val, sizeof val) != 0) {
        cu_warn("ofi: no network address published by rank %d", dest);
        return -EHOSTUNREACH;
    }
    if (netc_hex_decode(val, addr, sizeof addr) < 0) {
        cu_warn("ofi: malformed network address of rank %d", dest);
        return -EPROTO;
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
    /* idle ranks block on it (ofi_wait.c) */
    if ((rc = netc_cq_wait_open(ofi_st.fabric, ofi_st.domain, &cqa, &ofi_st.cq, &ofi_st.cqw)))
        return fail("fi_cq_open", rc);
    if (ofi_st.cqw.fd < 0)
        cu_debug("ofi: no waitable completion queue; idle waits are bounded polls");

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
     * of any size (CLUMPI_OFI_SLAB largest packets' worth; small slabs are
     * released and reposted often, which tests use). Otherwise one packet
     * each. CLUMPI_OFI_RX_BUFS sets how many. */
    long nrx = cu_param_int("OFI_RX_BUFS");
    if (nrx <= 0)
        nrx = ofi_st.multi_recv ? 4 : 64;
    if (nrx < 2)
        nrx = 2;
    long slab = cu_param_int("OFI_SLAB");
    if (slab < 2)
        slab = 2;
    size_t bsize = ofi_st.multi_recv ? (size_t)slab * OFI_PKT_MAX : OFI_PKT_MAX;
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
    ofi_st.tx_max = (int)cu_param_int("OFI_TX_BUFS");
    if (ofi_st.tx_max < 1)
        ofi_st.tx_max = 1;
    return 0;
}

int ofi_open(const mpid_chan_info *info)
{
    ofi_st.rank = info->world_rank;
    ofi_st.size = info->world_size;
    ofi_st.node = info->node;
    ofi_st.info = netc_fabric_choose(OFI_PKT_MAX);
    int rc = ofi_st.info ? open_endpoint() : -ENODEV;
    char key[32], val[CU_PMI_VALLEN_MAX];
    val[0] = '\0';
    if (rc == 0) {
        unsigned char a[CU_PMI_VALLEN_MAX / 2 - 1];
        size_t alen = sizeof a;
        if ((rc = fi_getname(&ofi_st.ep->fid, a, &alen)))
            rc = fail("fi_getname", rc);
        else
            netc_hex_encode(a, alen, val);
    }
    if (rc == 0) {
        ofi_rma_open();       /* rendezvous by fi_read, or pipelined */
        ofi_rma_win_open();   /* windows by fi_write/fi_read/fi_atomic, or messages */
    }
    ofi_st.cap = info->world_size + MPID_DYN_MAX;
    ofi_st.addr = malloc(sizeof *ofi_st.addr * (size_t)ofi_st.cap);
    ofi_st.dyn_src = calloc(MPID_DYN_MAX, sizeof *ofi_st.dyn_src);
    if ((!ofi_st.addr || !ofi_st.dyn_src || ofi_alive_open()) && rc == 0)
        rc = -ENOMEM;
    for (int r = 0; ofi_st.addr && r < ofi_st.cap; r++)
        ofi_st.addr[r] = FI_ADDR_NOTAVAIL;
    if (info->dynamic) {
        /* opened for peers of other jobs only: the world talks over shm */
        if (rc == 0)
            ofi_st.up = 1;
        return rc;
    }
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
        netc_nic_discover(rdma, sizeof rdma);
        cu_debug("ofi: node %d: provider %s, fabric %s, domain %s, address %s, %s, "
                 "inject %zu, %s, %s; rdma: %s",
                 info->node, ofi_st.info->fabric_attr->prov_name, ofi_st.info->fabric_attr->name,
                 ofi_st.info->domain_attr->name, addr_str(as, sizeof as),
                 ofi_st.multi_recv ? "multi-recv" : "fixed receive buffers", ofi_st.inject_max,
                 ofi_st.cqw.fd >= 0 ? "wait fd" : "no wait fd",
                 ofi_st.rd_on ? "rendezvous by fi_read" : "pipelined rendezvous", rdma);
    }
    return 0;
}

void ofi_close(void)
{
    if (ofi_st.rx_waited)
        cu_debug("ofi: rank %d: a released receive slab waited for packets still filling "
                 "%lu times (ofi_progress.c)", ofi_st.rank, ofi_st.rx_waited);
    if (ofi_st.ep)
        fi_close(&ofi_st.ep->fid);
    ofi_alive_close();
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
    netc_cq_wait_close(&ofi_st.cqw);
    if (ofi_st.domain)
        fi_close(&ofi_st.domain->fid);
    if (ofi_st.fabric)
        fi_close(&ofi_st.fabric->fid);
    if (ofi_st.info)
        fi_freeinfo(ofi_st.info);
    free(ofi_st.addr);
    free(ofi_st.dyn_src);
    memset(&ofi_st, 0, sizeof ofi_st);
    ofi_st.cqw.fd = -1;
}
