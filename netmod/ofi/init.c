/*
 * init.c — provider choice, the endpoint and its queues, and address
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
 * AV on the first send to it (fab_resolve), so init costs O(1) per rank
 * whatever the job size, and ranks that never talk never look each other up.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/fi_rma.h>
#include "netmod/ofi/fab.h"
#include "netmod/common/addr_hex.h"
#include "netmod/common/fabric_select.h"
#include "netmod/common/nic_discover.h"
#include "src/util/log.h"
#include "src/util/param.h"
#include "src/util/pmi.h"

struct fab_state fab_st = { .cqw = { .fd = -1 } };

int fab_mr_reg(void *buf, size_t len, uint64_t access, struct fid_mr **mr, void **desc)
{
    *mr = NULL;
    *desc = NULL;
    if (!fab_st.mr_local)
        return 0;
    int rc = fi_mr_reg(fab_st.domain, buf, len, access, 0, 0, 0, mr, NULL);
    if (rc)
        return rc;
    *desc = fi_mr_desc(*mr);
    return 0;
}

int fab_resolve(int dest)
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
    int rc = fi_av_insert(fab_st.av, addr, 1, &fa, 0, NULL);
    if (rc != 1 || fa == FI_ADDR_NOTAVAIL) {
        cu_warn("ofi: cannot add the address of rank %d: %s", dest,
                rc < 0 ? fi_strerror(-rc) : "rejected");
        return -EHOSTUNREACH;
    }
    fab_st.addr[dest] = fa;
    return 0;
}

static const char *addr_str(char *buf, size_t cap)
{
    char a[256];
    size_t alen = sizeof a;
    if (fi_getname(&fab_st.ep->fid, a, &alen) || !fab_st.info->addr_format)
        return "?";
    size_t blen = cap;
    fi_av_straddr(fab_st.av, a, buf, &blen);
    return buf;
}

static int fail(const char *what, int rc)
{
    cu_warn("ofi: %s failed: %s (provider %s)", what, fi_strerror(rc < 0 ? -rc : rc),
            fab_st.info ? fab_st.info->fabric_attr->prov_name : "?");
    return rc < 0 ? rc : -rc;
}

static int open_endpoint(void)
{
    struct fi_info *i = fab_st.info;
    int rc;
    fab_st.mr_local = (i->domain_attr->mr_mode & FI_MR_LOCAL) != 0;
    fab_st.multi_recv = (i->caps & FI_MULTI_RECV) != 0;
    /* libfabric's net provider (1.17, Debian 12's) stops reading a
     * connection whose next message finds no posted receive, and a receive
     * posted later resumes only the first such connection. A slab serves
     * one and keeps its room while the others stay unread: a receiver that
     * fell behind a burst from several peers waited forever. One-packet
     * buffers are each taken by the connection they resume. */
    if (fab_st.multi_recv && !strcmp(i->fabric_attr->prov_name, "net"))
        fab_st.multi_recv = 0;
    if ((rc = fi_fabric(i->fabric_attr, &fab_st.fabric, NULL)))
        return fail("fi_fabric", rc);
    if ((rc = fi_domain(fab_st.fabric, i, &fab_st.domain, NULL)))
        return fail("fi_domain", rc);

    struct fi_cq_attr cqa = { 0 };
    cqa.format = FI_CQ_FORMAT_DATA;
    cqa.size = i->tx_attr->size + i->rx_attr->size;
    /* idle ranks block on it (wait.c) */
    if ((rc = netc_cq_wait_open(fab_st.fabric, fab_st.domain, &cqa, &fab_st.cq, &fab_st.cqw)))
        return fail("fi_cq_open", rc);
    if (fab_st.cqw.fd < 0)
        cu_debug("ofi: no waitable completion queue; idle waits are bounded polls");

    struct fi_av_attr ava = { 0 };
    ava.type = i->domain_attr->av_type != FI_AV_UNSPEC ? i->domain_attr->av_type : FI_AV_TABLE;
    if ((rc = fi_av_open(fab_st.domain, &ava, &fab_st.av, NULL)))
        return fail("fi_av_open", rc);
    if ((rc = fi_endpoint(fab_st.domain, i, &fab_st.ep, NULL)))
        return fail("fi_endpoint", rc);
    if ((rc = fi_ep_bind(fab_st.ep, &fab_st.av->fid, 0)))
        return fail("binding the address vector", rc);
    if ((rc = fi_ep_bind(fab_st.ep, &fab_st.cq->fid, FI_TRANSMIT | FI_RECV)))
        return fail("binding the completion queue", rc);
    if (fab_st.multi_recv) {
        /* a slab is released once less than one largest packet is left */
        size_t min = OFI_PKT_MAX;
        if (fi_setopt(&fab_st.ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min, sizeof min))
            fab_st.multi_recv = 0;
    }
    if ((rc = fi_enable(fab_st.ep)))
        return fail("fi_enable", rc);
    fab_st.inject_max = i->tx_attr->inject_size;

    /* Receive buffers. Multi-recv: a few slabs, each holding many packets
     * of any size (CLUMPI_OFI_SLAB largest packets' worth; small slabs are
     * released and reposted often, which tests use). Otherwise one packet
     * each. CLUMPI_OFI_RX_BUFS sets how many. */
    long nrx = cu_param_int("OFI_RX_BUFS");
    if (nrx <= 0)
        nrx = fab_st.multi_recv ? 4 : 64;
    if (nrx < 2)
        nrx = 2;
    long slab = cu_param_int("OFI_SLAB");
    if (slab < 2)
        slab = 2;
    size_t bsize = fab_st.multi_recv ? (size_t)slab * OFI_PKT_MAX : OFI_PKT_MAX;
    fab_st.rx = calloc((size_t)nrx, sizeof *fab_st.rx);
    if (!fab_st.rx)
        return -ENOMEM;
    for (int k = 0; k < nrx; k++) {
        fab_rxbuf *b = &fab_st.rx[k];
        b->size = bsize;
        b->buf = malloc(bsize);
        if (!b->buf)
            return -ENOMEM;
        fab_st.nrx = k + 1;
        if ((rc = fab_mr_reg(b->buf, bsize, FI_RECV, &b->mr, &b->desc)))
            return fail("registering receive buffers", rc);
        if ((rc = fab_post_rx(b)))
            return fail("posting receive buffers", rc);
    }
    /* send buffers are made on demand, up to CLUMPI_OFI_TX_BUFS */
    fab_st.tx_max = (int)cu_param_int("OFI_TX_BUFS");
    if (fab_st.tx_max < 1)
        fab_st.tx_max = 1;
    return 0;
}

int fab_open(const mpid_chan_info *info)
{
    fab_st.rank = info->world_rank;
    fab_st.size = info->world_size;
    fab_st.node = info->node;
    fab_st.peer_lost = info->peer_lost;
    fab_st.info = netc_fabric_choose(OFI_PKT_MAX);
    int rc = fab_st.info ? open_endpoint() : -ENODEV;
    char key[32], val[CU_PMI_VALLEN_MAX];
    val[0] = '\0';
    if (rc == 0) {
        unsigned char a[CU_PMI_VALLEN_MAX / 2 - 1];
        size_t alen = sizeof a;
        if ((rc = fi_getname(&fab_st.ep->fid, a, &alen)))
            rc = fail("fi_getname", rc);
        else
            netc_hex_encode(a, alen, val);
    }
    if (rc == 0) {
        fab_rma_open();       /* rendezvous by fi_read, or pipelined */
        fab_rma_win_open();   /* windows by fi_write/fi_read/fi_atomic, or messages */
    }
    fab_st.cap = info->world_size + MPID_DYN_MAX;
    fab_st.addr = malloc(sizeof *fab_st.addr * (size_t)fab_st.cap);
    fab_st.dyn_src = calloc(MPID_DYN_MAX, sizeof *fab_st.dyn_src);
    if ((!fab_st.addr || !fab_st.dyn_src || fab_alive_open()) && rc == 0)
        rc = -ENOMEM;
    for (int r = 0; fab_st.addr && r < fab_st.cap; r++)
        fab_st.addr[r] = FI_ADDR_NOTAVAIL;
    if (info->dynamic) {
        /* opened for peers of other jobs only: the world talks over shm */
        if (rc == 0)
            fab_st.up = 1;
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
    fab_st.up = 1;
    if (info->local_rank == 0 && cu_verbose()) {
        char as[256], rdma[256];
        netc_nic_discover(rdma, sizeof rdma);
        cu_debug("ofi: node %d: provider %s, fabric %s, domain %s, address %s, %s, "
                 "inject %zu, %s, %s; rdma: %s",
                 info->node, fab_st.info->fabric_attr->prov_name, fab_st.info->fabric_attr->name,
                 fab_st.info->domain_attr->name, addr_str(as, sizeof as),
                 fab_st.multi_recv ? "multi-recv" : "fixed receive buffers", fab_st.inject_max,
                 fab_st.cqw.fd >= 0 ? "wait fd" : "no wait fd",
                 fab_st.rd_on ? "rendezvous by fi_read" : "pipelined rendezvous", rdma);
    }
    return 0;
}

void fab_close(void)
{
    if (fab_st.rx_waited)
        cu_debug("ofi: rank %d: a released receive slab waited for packets still filling "
                 "%lu times (progress.c)", fab_st.rank, fab_st.rx_waited);
    if (fab_st.ep)
        fi_close(&fab_st.ep->fid);
    fab_alive_close();
    fab_tx_release_all();
    for (int k = 0; k < fab_st.nrx; k++) {
        if (fab_st.rx[k].mr)
            fi_close(&fab_st.rx[k].mr->fid);
        free(fab_st.rx[k].buf);
    }
    free(fab_st.rx);
    if (fab_st.av)
        fi_close(&fab_st.av->fid);
    if (fab_st.cq)
        fi_close(&fab_st.cq->fid);
    netc_cq_wait_close(&fab_st.cqw);
    if (fab_st.domain)
        fi_close(&fab_st.domain->fid);
    if (fab_st.fabric)
        fi_close(&fab_st.fabric->fid);
    if (fab_st.info)
        fi_freeinfo(fab_st.info);
    free(fab_st.addr);
    free(fab_st.dyn_src);
    memset(&fab_st, 0, sizeof fab_st);
    fab_st.cqw.fd = -1;
}
