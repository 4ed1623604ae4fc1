# test/rma: one-sided communication tests (standard MPI C, self-checking),
# run by test/mpi/run-mpi-test once per rank count of their "np:" line, and
# bench/rma (OSU-style one-sided benchmark, standard MPI only; bench/rma_run.sh
# runs it beside Open MPI).
RMA_TESTS = test/rma/ops test/rma/atomic test/rma/shared test/rma/dynamic test/rma/errors \
	test/rma/passive test/rma/winattr test/rma/netrma test/rma/busy_target test/rma/wininfo

test_rma_ops_SOURCES = test/rma/ops.c
test_rma_ops_LDADD = libmpi.la
test_rma_ops_LDFLAGS = $(AM_LDFLAGS) -no-install

test_rma_atomic_SOURCES = test/rma/atomic.c
test_rma_atomic_LDADD = libmpi.la
test_rma_atomic_LDFLAGS = $(AM_LDFLAGS) -no-install

test_rma_shared_SOURCES = test/rma/shared.c
test_rma_shared_LDADD = libmpi.la
test_rma_shared_LDFLAGS = $(AM_LDFLAGS) -no-install

test_rma_dynamic_SOURCES = test/rma/dynamic.c
test_rma_dynamic_LDADD = libmpi.la
test_rma_dynamic_LDFLAGS = $(AM_LDFLAGS) -no-install

test_rma_errors_SOURCES = test/rma/errors.c
test_rma_errors_LDADD = libmpi.la
test_rma_errors_LDFLAGS = $(AM_LDFLAGS) -no-install

test_rma_passive_SOURCES = test/rma/passive.c
test_rma_passive_LDADD = libmpi.la
test_rma_passive_LDFLAGS = $(AM_LDFLAGS) -no-install

test_rma_netrma_SOURCES = test/rma/netrma.c
test_rma_netrma_LDADD = $(MPI_INTERNAL_LIBS)
test_rma_netrma_LDFLAGS = $(AM_LDFLAGS) -no-install

test_rma_busy_target_SOURCES = test/rma/busy_target.c
test_rma_busy_target_LDADD = libmpi.la
test_rma_busy_target_LDFLAGS = $(AM_LDFLAGS) -no-install

test_rma_wininfo_SOURCES = test/rma/wininfo.c test/mpi/mtest.h
test_rma_wininfo_LDADD = libmpi.la
test_rma_wininfo_LDFLAGS = $(AM_LDFLAGS) -no-install

test_rma_winattr_SOURCES = test/rma/winattr.c
test_rma_winattr_LDADD = libmpi.la
test_rma_winattr_LDFLAGS = $(AM_LDFLAGS) -no-install

check_PROGRAMS += $(RMA_TESTS)
TESTS += $(RMA_TESTS)
# Offload mode: the NI agent serves the targets (a computing one included).
TESTS += test/rma/agent.sh
EXTRA_DIST += test/rma/agent.sh

noinst_PROGRAMS += bench/rma
bench_rma_SOURCES = bench/rma.c
bench_rma_LDADD = libmpi.la
bench_rma_LDFLAGS = $(AM_LDFLAGS) -no-install
EXTRA_DIST += bench/rma_run.sh

# make check-long: the matrix (1-8 ranks over 1-4 emulated nodes, offload mode)
check-long: check-long-rma
check-long-rma: $(RMA_TESTS) src/tools/mpirun
	$(SHELL) $(srcdir)/test/rma/matrix.sh "$(abs_builddir)" "$(abs_srcdir)"
.PHONY: check-long-rma
EXTRA_DIST += test/rma/matrix.sh
