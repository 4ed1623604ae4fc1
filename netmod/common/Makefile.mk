# netmod/common: what the direct-mode channel (netmod/ofi) and the NI agent
# (netmod/agent) share, built once and linked into both: the libfabric
# provider choice, blocking on a completion queue, endpoint names as hex,
# RDMA NIC discovery, datagram socket buffers. No file here includes ofi's or the agent's headers.
noinst_LTLIBRARIES += libnetcommon.la
libnetcommon_la_SOURCES = netmod/common/fabric_select.h netmod/common/fabric_select.c \
	netmod/common/cq_wait.h netmod/common/cq_wait.c \
	netmod/common/addr_hex.h netmod/common/addr_hex.c \
	netmod/common/nic_discover.h netmod/common/nic_discover.c \
	netmod/common/sock_buf.h netmod/common/sock_buf.c
libnetcommon_la_CFLAGS = $(AM_CFLAGS) $(FABRIC_CFLAGS)
