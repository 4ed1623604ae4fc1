# coll: files of this folder (see top Makefile.am)
# Collective algorithms (one family per file) and the selection table.
libmpi_la_SOURCES += coll/coll.h coll/coll_impl.h coll/algos.h coll/select.h coll/select.c \
	coll/coll_util.c coll/hier.c coll/internal.c \
	coll/barrier_dissemination.c coll/barrier_binomial.c coll/barrier_hier.c \
	coll/bcast_binomial.c coll/bcast_binary.c coll/bcast_knomial.c coll/bcast_flat.c \
	coll/bcast_scatter_allgather.c coll/bcast_hier.c \
	coll/gather_binomial.c coll/gather_linear.c coll/gatherv_linear.c \
	coll/scatter_binomial.c coll/scatter_linear.c coll/scatterv_linear.c \
	coll/allgather_ring.c coll/allgather_recdbl.c coll/allgather_bruck.c \
	coll/allgather_hier.c coll/allgatherv_ring.c \
	coll/alltoall_pairwise.c coll/alltoall_bruck.c coll/alltoall_linear.c \
	coll/alltoallv_linear.c coll/alltoallw_linear.c

# Reductions: coll/op_apply.c, reduce_*.c, allreduce_*.c, reduce_scatter*.c,
# scan*.c (maintained with src/coll_reduce_entry.c) — list them here.

# Group set operations and Dims_create, linked without the device.
if HAVE_CRITERION
check_PROGRAMS += test/unit/test_group
TESTS += test/unit/test_group
test_unit_test_group_SOURCES = test/unit/test_group.c src/group.c src/dims.c src/errors.c \
	src/errhandler.c src/handle.c
test_unit_test_group_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
test_unit_test_group_LDADD = $(CRITERION_LIBS)
endif
