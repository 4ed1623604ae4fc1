# netmod/: inter-node channels. A convenience library of its own so that the
# libfabric and libibverbs flags stay here.
noinst_LTLIBRARIES = libnetmod.la
libnetmod_la_SOURCES = netmod/ofi/fab.h netmod/ofi/fab.c netmod/ofi/init.c \
	netmod/ofi/progress.c netmod/ofi/wait.c netmod/ofi/alive.c netmod/ofi/mr.c \
	netmod/ofi/rma.c netmod/ofi/dyn.c
libnetmod_la_CFLAGS = $(AM_CFLAGS) $(FABRIC_CFLAGS)
libnetmod_la_LIBADD = $(FABRIC_LIBS) $(VERBS_LIBS) libnetcommon.la
libmpi_la_LIBADD += libnetmod.la
include netmod/common/Makefile.mk
include netmod/agent/Makefile.mk
