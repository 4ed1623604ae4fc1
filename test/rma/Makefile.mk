# test/rma: one-sided communication tests (standard MPI C, self-checking),
# run by test/mpi/run-mpi-test once per rank count of their "np:" line, and
# bench/rma (OSU-style one-sided benchmark, standard MPI only).
RMA_TESTS =

check_PROGRAMS += $(RMA_TESTS)
TESTS += $(RMA_TESTS)

noinst_PROGRAMS += bench/rma
bench_rma_SOURCES = bench/rma.c
bench_rma_LDADD = libmpi.la
bench_rma_LDFLAGS = $(AM_LDFLAGS) -no-install
