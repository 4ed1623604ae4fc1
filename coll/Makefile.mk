# coll: files of this folder (see top Makefile.am)
# Collective algorithms (one family per file) and the selection table.
libmpi_la_SOURCES += coll/coll.h coll/coll_impl.h coll/algos.h coll/select.h coll/select.c \
	coll/coll_util.c coll/scratch.c coll/hier.c coll/internal.c \
	coll/barrier_dissemination.c coll/barrier_binomial.c coll/barrier_hier.c \
	coll/shm_sync.h coll/shm_sync.c coll/shm_reduce.c coll/barrier_shm.c \
	coll/gather_shm.c coll/scatter_shm.c coll/allgather_shm.c coll/alltoall_shm.c \
	coll/reduce_shm.c \
	coll/bcast_binomial.c coll/bcast_binary.c coll/bcast_knomial.c coll/bcast_flat.c \
	coll/bcast_scatter_allgather.c coll/bcast_hier.c coll/bcast_shm.c \
	coll/gather_binomial.c coll/gather_linear.c \
	coll/scatter_binomial.c coll/scatter_linear.c \
	coll/allgather_ring.c coll/allgather_recdbl.c coll/allgather_bruck.c \
	coll/allgather_hier.c coll/allgatherv_ring.c \
	coll/alltoall_pairwise.c coll/alltoall_bruck.c coll/alltoall_linear.c \
	coll/alltoallv_linear.c coll/alltoallw_linear.c
# The measured selection table: coll/tuning_default.txt (written by
# bench/coll_tune.sh) becomes a C string of the library, parsed at MPI_Init
# by coll/tuning.c as CLUMPI_COLL_TUNING's files are.
libmpi_la_SOURCES += coll/tuning.h coll/tuning.c
nodist_libmpi_la_SOURCES = coll/tuning_default.c
EXTRA_DIST += coll/tuning_default.txt
CLEANFILES += coll/tuning_default.c
coll/tuning_default.c: $(srcdir)/coll/tuning_default.txt
	$(AM_V_GEN)$(MKDIR_P) coll && { \
	  echo '/* generated from coll/tuning_default.txt by coll/Makefile.mk */'; \
	  echo 'extern const char coll_tuning_default[];'; \
	  echo 'const char coll_tuning_default[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n"/' \
	    $(srcdir)/coll/tuning_default.txt; \
	  echo '    "";'; } > $@.tmp && mv $@.tmp $@
if HAVE_CRITERION
check_PROGRAMS += test/unit/test_tuning
TESTS += test/unit/test_tuning
test_unit_test_tuning_SOURCES = test/unit/test_tuning.c coll/tuning.c
test_unit_test_tuning_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
test_unit_test_tuning_LDADD = $(CRITERION_LIBS)
endif

# NI-level collectives (offload mode, netmod/agent)
libmpi_la_SOURCES += coll/ni.h coll/ni.c coll/bcast_ni.c coll/reduce_ni.c coll/fadd_ni.c

# Reductions: coll/op_apply.c, reduce_*.c, allreduce_*.c, reduce_scatter*.c,
# scan*.c (maintained with src/coll_reduce_entry.c) — list them here.

# Collective tests: one program per family, run by test/coll/run-coll once
# per algorithm (forced through CLUMPI_COLL_<OP>) and rank count; each
# test/coll/<name>.sh names the variants. `make check-long` runs them on
# 1..9 and 16 ranks with bigger counts and every root.
COLL_TEST_PROGS = test/coll/bcast test/coll/gather test/coll/scatter test/coll/allgather \
	test/coll/alltoall test/coll/errors test/coll/commfree
COLL_TESTS = test/coll/barrier.sh test/coll/bcast.sh test/coll/gather.sh \
	test/coll/scatter.sh test/coll/allgather.sh test/coll/alltoall.sh test/coll/errors.sh \
	test/coll/commfree.sh
check_PROGRAMS += $(COLL_TEST_PROGS)
TESTS += $(COLL_TESTS)
EXTRA_DIST += test/coll/run-coll $(COLL_TESTS) test/coll/ctest.h
# Every collective test program is test/coll/<name>.c (automake's default
# source) linked with libmpi, without libtool's wrapper script (mpirun
# starts the real program).
COLL_TEST_LIBS = libmpi.la
COLL_TEST_LINK = $(AM_LDFLAGS) -no-install
test_coll_bcast_LDADD = $(COLL_TEST_LIBS)
test_coll_bcast_LDFLAGS = $(COLL_TEST_LINK)
test_coll_gather_LDADD = $(COLL_TEST_LIBS)
test_coll_gather_LDFLAGS = $(COLL_TEST_LINK)
test_coll_scatter_LDADD = $(COLL_TEST_LIBS)
test_coll_scatter_LDFLAGS = $(COLL_TEST_LINK)
test_coll_allgather_LDADD = $(COLL_TEST_LIBS)
test_coll_allgather_LDFLAGS = $(COLL_TEST_LINK)
test_coll_alltoall_LDADD = $(COLL_TEST_LIBS)
test_coll_alltoall_LDFLAGS = $(COLL_TEST_LINK)
test_coll_errors_LDADD = $(COLL_TEST_LIBS)
test_coll_errors_LDFLAGS = $(COLL_TEST_LINK)
test_coll_commfree_LDADD = $(COLL_TEST_LIBS)
test_coll_commfree_LDFLAGS = $(COLL_TEST_LINK)

# Collective benchmark (standard MPI; bench/coll_run.sh also builds it with
# the peers' mpicc, bench/coll_plot.sh plots the CSV).
noinst_PROGRAMS += bench/coll
bench_coll_SOURCES = bench/coll.c
bench_coll_LDADD = libmpi.la
bench_coll_LDFLAGS = $(AM_LDFLAGS) -no-install
EXTRA_DIST += bench/coll_run.sh bench/coll_plot.sh

# Group set operations and Dims_create, linked without the device.
if HAVE_CRITERION
check_PROGRAMS += test/unit/test_group
TESTS += test/unit/test_group
test_unit_test_group_SOURCES = test/unit/test_group.c src/group.c src/dims.c src/errors.c \
	src/errhandler.c src/handle.c src/util/biglock.c
test_unit_test_group_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
test_unit_test_group_LDADD = $(CRITERION_LIBS)
endif

# Reductions (reductions owner): op application, the reduce, allreduce,
# reduce-scatter and scan families.
libmpi_la_SOURCES += coll/reduce_impl.h coll/reduce_util.c coll/op_apply.c \
	coll/reduce_binomial.c coll/reduce_binary.c coll/reduce_rabenseifner.c coll/reduce_hier.c \
	coll/allreduce_recdbl.c coll/allreduce_ring.c coll/allreduce_rabenseifner.c \
	coll/allreduce_reduce_bcast.c coll/allreduce_hier.c coll/allreduce_shm.c \
	coll/reduce_scatter.c coll/reduce_scatter_shm.c coll/scan.c coll/recdbl_step.c

# Reduction tests: test/coll/reduce_algos runs once per algorithm of each
# reduction (reduce.sh, allreduce.sh, reduce_scatter.sh, scan.sh through
# run-coll); op_pairs checks every predefined op on every type (np: line).
RED_TEST_PROGS = test/coll/reduce_algos test/coll/op_pairs
RED_TESTS = test/coll/reduce.sh test/coll/allreduce.sh test/coll/reduce_scatter.sh \
	test/coll/scan.sh
check_PROGRAMS += $(RED_TEST_PROGS)
TESTS += $(RED_TESTS) test/coll/op_pairs
EXTRA_DIST += $(RED_TESTS)
test_coll_reduce_algos_LDADD = $(COLL_TEST_LIBS)
test_coll_reduce_algos_LDFLAGS = $(COLL_TEST_LINK)
test_coll_op_pairs_LDADD = $(COLL_TEST_LIBS)
test_coll_op_pairs_LDFLAGS = $(COLL_TEST_LINK)

# The reduction kernels alone, against a naive reference.
if HAVE_CRITERION
check_PROGRAMS += test/unit/test_op
TESTS += test/unit/test_op
test_unit_test_op_SOURCES = test/unit/test_op.c src/util/op.c src/util/op.h
test_unit_test_op_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
test_unit_test_op_LDADD = $(CRITERION_LIBS) -lpthread
endif

# Nonblocking and neighborhood collectives: the schedule engine, the
# algorithms as schedules, their entry points and the checks they share
# with the blocking entry points (src/coll_check.c).
libmpi_la_SOURCES += coll/sched.h coll/sched.c coll/nbc_bcast.c coll/nbc_gather.c \
	coll/nbc_allgather.c coll/nbc_reduce.c coll/neighbor.c \
	coll/inter.h coll/inter_bcast.c coll/inter_gather.c coll/inter_alltoall.c \
	coll/inter_reduce.c src/coll_inter.h src/coll_inter_entry.c \
	src/coll_check.h src/coll_check.c src/coll_nbc.h src/coll_nb_entry.c \
	src/coll_neighbor_entry.c

# Nonblocking and neighborhood collective tests (test/coll/nbc.sh,
# neighbor.sh: 1, 2, 3, 5, 8 ranks in make check, 1..9 with COLL_LONG=1;
# check-long-coll runs them).
NBC_TEST_PROGS = test/coll/nbc test/coll/neighbor
NBC_TESTS = test/coll/nbc.sh test/coll/neighbor.sh
check_PROGRAMS += $(NBC_TEST_PROGS)
TESTS += $(NBC_TESTS)
EXTRA_DIST += $(NBC_TESTS)
test_coll_nbc_LDADD = $(COLL_TEST_LIBS)
test_coll_nbc_LDFLAGS = $(COLL_TEST_LINK)
test_coll_neighbor_LDADD = $(COLL_TEST_LIBS)
test_coll_neighbor_LDFLAGS = $(COLL_TEST_LINK)

# make check-long: the collective tests above with COLL_LONG=1, one after
# the other, stopping at the first failure (test/coll/long.sh; after the
# lists: make expands a rule's prerequisites where it reads the rule).
# bcast.sh and reductions.sh take in barrier.sh's and the per-operation
# reduction scripts' algorithms (test/coll/zip-variants).
COLL_LONG_TESTS = test/coll/bcast.sh test/coll/gather.sh test/coll/scatter.sh \
	test/coll/allgather.sh test/coll/alltoall.sh test/coll/errors.sh test/coll/commfree.sh \
	test/coll/reductions.sh $(NBC_TESTS)
check-long: check-long-coll
check-long-coll: $(COLL_TEST_PROGS) $(RED_TEST_PROGS) $(NBC_TEST_PROGS) src/tools/mpirun
	$(SHELL) $(srcdir)/test/coll/long.sh "$(abs_builddir)" "$(abs_srcdir)" $(COLL_LONG_TESTS)
.PHONY: check-long check-long-coll
EXTRA_DIST += test/coll/long.sh test/coll/reductions.sh test/coll/zip-variants \
	test/coll/reduction-variants
CLEANFILES += test/coll/*.long.log

# Other MPIs' algorithm names (select.c's aliases), forced by aliases.sh.
check_PROGRAMS += test/coll/aliases
TESTS += test/coll/aliases.sh
EXTRA_DIST += test/coll/aliases.sh
# CLUMPI_COLL_TUNING tables run what they name; bench/coll_tune.sh -q.
TESTS += test/coll/tuning.sh
EXTRA_DIST += test/coll/tuning.sh
test_coll_aliases_SOURCES = test/coll/aliases.c test/mpi/mtest.h
test_coll_aliases_LDADD = $(COLL_TEST_LIBS)
test_coll_aliases_LDFLAGS = $(COLL_TEST_LINK)

# The selection table from measurement: bench/coll_tune.sh runs bench/coll,
# one job per algorithm forced by CLUMPI_COLL_<OP>, and writes the table.
EXTRA_DIST += bench/coll_tune.sh bench/coll_algos.sh
