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
