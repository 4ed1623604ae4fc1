/*
 * fabric_select.c — the libfabric provider and interface both netmods open
 * (see fabric_select.h).
 *
 * Provider: CLUMPI_OFI_PROVIDER, else the first of NETC_DEFAULT_PROVIDERS
 * that offers reliable datagram messaging here; interface: CLUMPI_OFI_IFACE,
 * else the first domain that is not loopback (see query).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netmod/common/fabric_select.h"
#include "src/util/log.h"
#include "src/util/param.h"

/* Fastest first, measured here over loopback (1-byte ping-pong through
 * the direct channel, see bench/net.sh): net 5.3 us, tcp;ofi_rxm 8.6 us,
 * sockets and udp;ofi_rxd slower still. verbs leads where hardware
 * exists. The last entry (NULL) takes any reliable provider but shm. */
static const char *const NETC_DEFAULT_PROVIDERS[] = {
    "verbs;ofi_rxm", "net", "tcp;ofi_rxm", "sockets", "udp;ofi_rxd", NULL
};

static struct fi_info *make_hints(const char *prov, const char *iface, uint64_t caps,
                                  int manual, int dgram)
{
    struct fi_info *h = fi_allocinfo();
    if (!h)
        return NULL;
    h->ep_attr->type = dgram ? FI_EP_DGRAM : FI_EP_RDM;
    h->caps = caps;
    /* we give every operation a fi_context2, so both modes are fine */
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    if (manual)   /* no provider thread: progress is ours (the caller polls the CQ) */
        h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    /* per-sender order of packets is the device's contract; over
     * datagrams the NI agent's own protocol restores it (agent_rel.c) */
    if (!dgram) {
        h->tx_attr->msg_order = FI_ORDER_SAS;
        h->rx_attr->msg_order = FI_ORDER_SAS;
    }
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
 * (unless asked for by name); not loopback unless the user named it or it
 * is all there is, so that the address works from other hosts; but
 * loopback first when the whole job is on this host (one_host: emulated
 * nodes). There another interface can vanish under a running job: the
 * netns tests make and delete a bridge while other tests run, and agents
 * that had picked it failed with "Cannot assign requested address". */
static struct fi_info *query(const char *prov, const char *iface, int one_host, int dgram)
{
    /* RMA reads (the direct channel's rendezvous), writes and atomics (its
     * windows), multi-recv and manual progress where offered, then
     * without. */
#define NETC_RD (FI_RMA | FI_READ | FI_REMOTE_READ)
#define NETC_WIN (NETC_RD | FI_WRITE | FI_REMOTE_WRITE)
    static const struct { uint64_t caps; int manual; } tries[] = {
        { FI_MSG | FI_MULTI_RECV | NETC_WIN | FI_ATOMIC, 1 },
        { FI_MSG | FI_MULTI_RECV | NETC_WIN | FI_ATOMIC, 0 },
        { FI_MSG | FI_MULTI_RECV | NETC_WIN, 1 }, { FI_MSG | FI_MULTI_RECV | NETC_WIN, 0 },
        { FI_MSG | FI_MULTI_RECV | NETC_RD, 1 }, { FI_MSG | FI_MULTI_RECV | NETC_RD, 0 },
        { FI_MSG | FI_MULTI_RECV, 1 }, { FI_MSG | FI_MULTI_RECV, 0 },
        { FI_MSG | NETC_RD, 1 }, { FI_MSG, 1 }, { FI_MSG, 0 },
    };
    /* datagrams: plain messages (the last two tries) */
    for (size_t t = dgram ? sizeof tries / sizeof tries[0] - 2 : 0;
         t < sizeof tries / sizeof tries[0]; t++) {
        struct fi_info *h = make_hints(prov, iface, tries[t].caps, tries[t].manual, dgram);
        struct fi_info *list = NULL;
        if (!h)
            return NULL;
        int rc = fi_getinfo(NETC_FI_VERSION, NULL, NULL, 0, h, &list);
        fi_freeinfo(h);
        if (rc || !list)
            continue;
        struct fi_info *pick = NULL, *other = NULL;
        for (struct fi_info *i = list; i; i = i->next) {
            const char *pn = i->fabric_attr->prov_name;
            if (!prov && pn && !strcmp(pn, "shm"))
                continue;
            /* net and tcp ignore the domain name in the hints (1.17: asking
             * for "lo" gave eth0), so filter here */
            if (iface && !(i->domain_attr->name && !strcmp(i->domain_attr->name, iface)) &&
                !(i->fabric_attr->name && !strcmp(i->fabric_attr->name, iface)))
                continue;
            if (!iface && is_loopback(i) != one_host) {
                if (!other)
                    other = i;
                continue;
            }
            pick = i;
            break;
        }
        if (!pick)
            pick = other;
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
    if (fi_getinfo(NETC_FI_VERSION, NULL, NULL, 0, NULL, &list) || !list) {
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

/* Utility providers that segment or rendezvous large messages themselves
 * may complete a large one after the small ones sent behind it (tcp;ofi_rxm
 * above FI_OFI_RXM_BUFFER_SIZE, 16 KiB by default: test/mpi/anysource lost
 * its per-sender order with our 64 KiB packets). FI_ORDER_SAS orders the
 * processing, not the completions, so every packet of ours must be one
 * eager message: raise rxm's eager size before its first fi_getinfo reads
 * it (provider init), also over a smaller value the user set. */
static void eager_at_least(size_t largest)
{
    size_t want = largest + 512;   /* rxm's own header, with room */
    const char *v = getenv("FI_OFI_RXM_BUFFER_SIZE");
    if (v && strtoull(v, NULL, 10) >= want)
        return;
    if (v)
        cu_debug("fabric: FI_OFI_RXM_BUFFER_SIZE=%s is below our largest packet; using %zu", v,
                 want);
    char buf[32];
    snprintf(buf, sizeof buf, "%zu", want);
    setenv("FI_OFI_RXM_BUFFER_SIZE", buf, 1);
}

struct fi_info *netc_fabric_choose(size_t largest)
{
    eager_at_least(largest);
    const char *prov = cu_param_str("OFI_PROVIDER");
    const char *iface = cu_param_str("OFI_IFACE");
    if (prov && !*prov)
        prov = NULL;
    if (iface && !*iface)
        iface = NULL;
    /* mpirun says so when it started every rank here */
    int one_host = cu_param_int("ONE_HOST") != 0;
    struct fi_info *i = NULL;
    if (prov) {
        i = query(prov, iface, one_host, 0);
    } else {
        for (size_t k = 0; !i && k < sizeof NETC_DEFAULT_PROVIDERS / sizeof NETC_DEFAULT_PROVIDERS[0]; k++)
            i = query(NETC_DEFAULT_PROVIDERS[k], iface, one_host, 0);
    }
    if (!i) {
        char avail[1024];
        list_providers(avail, sizeof avail);
        if (prov)
            cu_warn("fabric: provider \"%s\" (CLUMPI_OFI_PROVIDER)%s%s offers no reliable "
                    "messaging (FI_EP_RDM, FI_MSG) here; providers fi_info reports: %s. "
                    "Set CLUMPI_OFI_PROVIDER to one of them",
                    prov, iface ? " on interface " : "", iface ? iface : "", avail);
        else
            cu_warn("fabric: no libfabric provider%s%s offers reliable messaging (FI_EP_RDM, "
                    "FI_MSG) here; providers fi_info reports: %s. Set CLUMPI_OFI_PROVIDER to "
                    "one of them", iface ? " on interface " : "", iface ? iface : "", avail);
    }
    return i;
}

struct fi_info *netc_fabric_choose_dgram(void)
{
    const char *iface = cu_param_str("OFI_IFACE");
    if (iface && !*iface)
        iface = NULL;
    struct fi_info *i = query("udp", iface, cu_param_int("ONE_HOST") != 0, 1);
    if (!i)
        cu_warn("fabric: the udp provider%s%s offers no datagram endpoint (FI_EP_DGRAM, FI_MSG) "
                "here; set CLUMPI_AGENT_TRANSPORT=reliable", iface ? " on interface " : "",
                iface ? iface : "");
    return i;
}
