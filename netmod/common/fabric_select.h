/*
 * fabric_select.h — the libfabric provider to open, chosen the same way by
 * the direct-mode channel (netmod/ofi) and the NI agent (netmod/agent), so
 * that both modes pick the same provider under the same CLUMPI_OFI_* knobs.
 * Depends on no channel state: the agent links it without the channel.
 */
#ifndef NETMOD_COMMON_FABRIC_SELECT_H
#define NETMOD_COMMON_FABRIC_SELECT_H

#include <rdma/fabric.h>
#include <stddef.h>

/* The libfabric API version both netmods ask for. */
#define NETC_FI_VERSION FI_VERSION(1, 10)

/* The fi_info to open (fi_freeinfo it), chosen by CLUMPI_OFI_PROVIDER /
 * CLUMPI_OFI_IFACE or the default order; NULL (with a message naming the
 * providers present) when nothing offers FI_EP_RDM + FI_MSG. `largest` is
 * the biggest message the caller sends: each must stay one eager message. */
struct fi_info *netc_fabric_choose(size_t largest);
/* The udp provider's unreliable datagram endpoint (FI_EP_DGRAM + FI_MSG) on
 * the interface netc_fabric_choose would take; NULL with a message. */
struct fi_info *netc_fabric_choose_dgram(void);

#endif
