# bench: benchmark programs (standard MPI only). bench/compare.sh builds
# bench/pt2pt.c with each MPI's mpicc and runs them side by side.
noinst_PROGRAMS += bench/pt2pt
bench_pt2pt_SOURCES = bench/pt2pt.c
bench_pt2pt_LDADD = libmpi.la
bench_pt2pt_LDFLAGS = $(AM_LDFLAGS) -no-install
EXTRA_DIST += bench/compare.sh
# Shared by the benchmarks: bench_util.h (header-only, so each program still
# builds with one mpicc command) and plot_lib.sh (gnuplot helpers).
EXTRA_DIST += bench/bench_util.h bench/plot_lib.sh bench/coll_ratio.awk
# Host-versus-NI broadcast benchmark (Verstoep et al.): bench/ni_run.sh runs the
# grid, bench/ni_plot.sh plots it, ni_test.sh runs the quick grid in make check.
noinst_PROGRAMS += bench/ni
bench_ni_SOURCES = bench/ni.c
bench_ni_LDADD = libmpi.la
bench_ni_LDFLAGS = $(AM_LDFLAGS) -no-install
TESTS += bench/ni_test.sh
EXTRA_DIST += bench/ni_run.sh bench/ni_plot.sh bench/ni_test.sh
# The datagram transport's reliability grid (loss x ack interval, dgram
# against reliable): bench/dgram_run.sh runs it, bench/dgram_plot.sh plots it.
EXTRA_DIST += bench/dgram_run.sh bench/dgram_plot.sh
# Progress by test calls: a ring completed by MPI_Waitall, loops of
# MPI_Testall, MPI_Test, MPI_Iprobe (bench/compare.sh -b progress runs it
# beside Open MPI); progress_test.sh runs it briefly in make check.
noinst_PROGRAMS += bench/progress
bench_progress_SOURCES = bench/progress.c
bench_progress_LDADD = libmpi.la
bench_progress_LDFLAGS = $(AM_LDFLAGS) -no-install
TESTS += bench/progress_test.sh
EXTRA_DIST += bench/progress_test.sh
