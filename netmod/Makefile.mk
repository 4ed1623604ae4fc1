# netmod/: inter-node channels. A convenience library of its own so that the
# libfabric and libibverbs flags stay here.
noinst_LTLIBRARIES = libnetmod.la
libnetmod_la_SOURCES = netmod/ofi/ofi.h netmod/ofi/ofi.c netmod/ofi/ofi_init.c \
	netmod/ofi/ofi_progress.c netmod/ofi/ofi_wait.c netmod/ofi/ofi_alive.c netmod/ofi/ofi_mr.c \
	netmod/ofi/ofi_rma.c netmod/ofi/ofi_dyn.c
libnetmod_la_CFLAGS = $(AM_CFLAGS) $(FABRIC_CFLAGS)
libnetmod_la_LIBADD = $(FABRIC_LIBS) $(VERBS_LIBS) libnetcommon.la
libmpi_la_LIBADD += libnetmod.la
include netmod/common/Makefile.mk
include netmod/agent/Makefile.mk
