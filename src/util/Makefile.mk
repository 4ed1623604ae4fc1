# src/util/: leaf utilities every layer may use.
libmpi_la_SOURCES += src/util/log.c src/util/log.h src/util/param.c src/util/param.h src/util/param_table.c \
	src/util/dtype.h src/util/pmi.h src/util/queue.h src/util/clock.h
# The library lock of MPI_THREAD_MULTIPLE (threads owner)
libmpi_la_SOURCES += src/util/biglock.h src/util/biglock.c
# Shared memory without names: memfds handed over a Unix socket
libmpi_la_SOURCES += src/util/fdshare.c src/util/fdshare.h
# PMI client (launcher owner): the PMI-1 wire, and PMIx when configure found
# OpenPMIx. Every program that speaks PMI takes both, and $(PMIX_LIBS).
CU_PMI_SOURCES = src/util/pmi.c
if HAVE_PMIX
CU_PMI_SOURCES += src/util/pmix.c src/util/pmix.h
endif
libmpi_la_SOURCES += $(CU_PMI_SOURCES)
# The name service's store (dynproc owner)
libmpi_la_SOURCES += src/util/names.h src/util/names.c
# Port names and the spawned job's "gone" notice: the library and mpirun
libmpi_la_SOURCES += src/util/port_wire.h src/util/port_wire.c
# Datatype engine (datatypes owner)
libmpi_la_SOURCES += src/util/dtype.c src/util/dtype_builtin.c src/util/dtype_impl.h \
	src/util/dtype_darray.c src/util/dtype_external.c
if HAVE_CRITERION
check_PROGRAMS += test/unit/test_dtype
TESTS += test/unit/test_dtype
# Links the engine alone so it is tested without the rest of the library.
test_unit_test_dtype_SOURCES = test/unit/test_dtype.c src/util/dtype.c src/util/dtype_builtin.c \
	src/util/dtype_external.c
test_unit_test_dtype_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
test_unit_test_dtype_LDADD = $(CRITERION_LIBS) -lpthread
# The MPI entry points (src/datatype.c) in a singleton MPI process.
check_PROGRAMS += test/unit/test_dtype_api
TESTS += test/unit/test_dtype_api
test_unit_test_dtype_api_SOURCES = test/unit/test_dtype_api.c
test_unit_test_dtype_api_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
test_unit_test_dtype_api_LDADD = libmpi.la $(CRITERION_LIBS)
endif
# Reduction-op kernels (reductions owner): shared by coll and the NI agent.
libmpi_la_SOURCES += src/util/op.c src/util/op.h
# One-sided operations on memory and their lock words: the device and the NI agent.
libmpi_la_SOURCES += src/util/rma_apply.c src/util/rma_apply.h
# Fault handlers of libfabric's dependencies (lead)
libmpi_la_SOURCES += src/util/sigfault.c src/util/sigfault.h
# The parameter table and its reader on their own (mpit owner).
if HAVE_CRITERION
check_PROGRAMS += test/unit/test_param
TESTS += test/unit/test_param
test_unit_test_param_SOURCES = test/unit/test_param.c src/util/param.c src/util/param_table.c \
	src/util/log.c
test_unit_test_param_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
test_unit_test_param_LDADD = $(CRITERION_LIBS)
endif
