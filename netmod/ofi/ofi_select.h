/*
 * ofi_select.h — libfabric provider choice and address encoding, shared by
 * the direct-mode channel (netmod/ofi) and the NI agent (netmod/agent), so
 * that both modes pick the same provider under the same CLUMPI_OFI_* knobs.
 * Depends on no channel state: the agent links it without the channel.
 */
#ifndef NETMOD_OFI_SELECT_H
#define NETMOD_OFI_SELECT_H

#include <rdma/fabric.h>
#include <stddef.h>

#define OFI_VERSION FI_VERSION(1, 10)

/* The fi_info to open (fi_freeinfo it), chosen by CLUMPI_OFI_PROVIDER /
 * CLUMPI_OFI_IFACE or the default order; NULL (with a message naming the
 * providers present) when nothing offers FI_EP_RDM + FI_MSG. `largest` is
 * the biggest message the caller sends: each must stay one eager message. */
struct fi_info *ofi_choose(size_t largest);

/* Endpoint names travel through PMI (and the agent's segment) as hex. */
void ofi_hex_encode(const unsigned char *in, size_t n, char *out);   /* out: 2n+1 */
int  ofi_hex_decode(const char *in, unsigned char *out, size_t cap); /* bytes, or -1 */

#endif
