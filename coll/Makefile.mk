# coll: files of this folder (see top Makefile.am)
# Internal collectives (core issue): used by communicator creation and Finalize.
libmpi_la_SOURCES += coll/coll.h coll/coll_impl.h coll/coll_util.c \
	coll/barrier_dissemination.c coll/bcast_binomial.c coll/allgather.c \
	coll/allgather_ring.c coll/allgather_bruck.c

# Group set operations and Dims_create, linked without the device.
if HAVE_CRITERION
check_PROGRAMS += test/unit/test_group
TESTS += test/unit/test_group
test_unit_test_group_SOURCES = test/unit/test_group.c src/group.c src/dims.c src/errors.c \
	src/errhandler.c src/handle.c
test_unit_test_group_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
test_unit_test_group_LDADD = $(CRITERION_LIBS)
endif
