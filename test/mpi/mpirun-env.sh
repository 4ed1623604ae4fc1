# Sourced by the test scripts in test/mpi/: finds the launcher to use.
#   MPIRUN        the mpirun to test with (default: the one just built)
#   MPIRUN_FLAGS  extra options for every run (e.g. "--oversubscribe
#                 --allow-run-as-root" to validate the tests with Open MPI)
#   MPI_TEST_TIMEOUT  seconds one run may take (default 120)
# Tests run from the top build directory (automake's parallel harness).
if [ -z "${MPIRUN:-}" ]; then
    for c in ${top_builddir:+"$top_builddir/src/tools/mpirun"} ./src/tools/mpirun; do
        if [ -x "$c" ]; then MPIRUN=$c; break; fi
    done
fi
if [ -z "${MPIRUN:-}" ]; then
    echo "no mpirun found (set MPIRUN)" >&2
    exit 99
fi
MPIRUN_FLAGS=${MPIRUN_FLAGS:-}
MPI_TEST_TIMEOUT=${MPI_TEST_TIMEOUT:-120}
# Is this clumpi's launcher? (some checks hold only for clumpi)
case "$("$MPIRUN" --version 2>&1 | head -n 3)" in
    *clumpi*) MPIRUN_IS_CLUMPI=yes ;;
    *) MPIRUN_IS_CLUMPI=no ;;
esac
# For a script that needs clumpi's own mpirun and one program of test/mpi:
# clumpi_test_bin SCRIPT PROG skips (77) under another MPI's mpirun, fails
# (99) when PROG is not built, and else sets bin to PROG's absolute path.
clumpi_test_bin() {
    if [ "$MPIRUN_IS_CLUMPI" != yes ]; then
        echo "$1: needs clumpi's mpirun; skipped"
        exit 77
    fi
    bin=${MPI_TEST_BINDIR:-./test/mpi}/$2
    [ -x "$bin" ] || { echo "$1: $bin not built"; exit 99; }
    bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
}
