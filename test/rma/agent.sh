#!/bin/sh
# agent.sh — make check's agent-served one-sided runs (CLUMPI_NET=agent over
# 2 emulated nodes: the target node's NI agent serves put/get/accumulate,
# atomics and locks, netmod/agent/agent_rma.c): a target that computes
# without MPI calls while origins on the other node (and its own node) work
# on it, and must finish first (busy_target, CLUMPI_TEST_SERVED=1);
# concurrent origins on one target with fetch_and_op, accumulate, exclusive
# read-modify-writes and a CAS spin lock (atomic); passive-target epochs
# (passive); and the active-message comparison (CLUMPI_RMA_AGENT=0) for
# correctness. The whole program list at 2 and 4 nodes is in matrix.sh
# (make check-long).
. "$(dirname "$0")/../../netmod/agent/test_env.sh"
T=$top_builddir/test/rma
RUNNER="$top_srcdir/test/mpi/run-mpi-test"
out=rma-agent.$$.out
fail=0
run() { # label nodes np-list env... prog
    label=$1 nodes=$2 nps=$3
    shift 3
    if env CLUMPI_TEST_NODES="$nodes" MPI_TEST_NP="$nps" srcdir="$top_srcdir" \
           MPI_TEST_TIMEOUT=100 "$@" >"$out" 2>&1; then
        echo "ok: $label, --nodes $nodes -n $nps"
    else
        echo "FAILED: $label, --nodes $nodes -n $nps"; cat "$out"; fail=1
    fi
}
run "busy target served by its agent" 2 "2 4" CLUMPI_TEST_SERVED=1 sh "$RUNNER" "$T/busy_target"
run "atomic (concurrent origins, lock contention)" 2 "4" sh "$RUNNER" "$T/atomic"
run "passive" 2 "4" sh "$RUNNER" "$T/passive"
run "atomic, target-progressed (CLUMPI_RMA_AGENT=0)" 2 "4" CLUMPI_RMA_AGENT=0 \
    sh "$RUNNER" "$T/atomic"
rm -f "$out"
exit $fail
