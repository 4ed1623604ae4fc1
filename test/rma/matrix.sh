#!/bin/sh
# matrix.sh — make check-long's one-sided matrix: every test/rma program
# with 1 to 8 ranks over 1 to 4 emulated nodes (direct mode: shared memory,
# single copy and active messages over the network channel), plus each
# program's env: variants (run-mpi-test), and every program in offload mode
# (CLUMPI_NET=agent: served by the target node's NI agent; busy_target must
# finish while its target computes) on 2 and 4 nodes, 2-8 ranks, and once
# with the agents' service off (CLUMPI_RMA_AGENT=0: active messages).
# usage: matrix.sh BUILD_DIR SRC_DIR   (make check-long-rma passes both)
b=${1:-.}
s=${2:-.}
cd "$b" || exit 2
export srcdir="$s"
status=0
run() { # label, then env assignments and the program
    label=$1
    shift
    if env "$@" >"rma-matrix.log" 2>&1; then
        echo "ok   $label"
    else
        echo "FAIL $label"
        grep -v '^== \./\|^== ok' rma-matrix.log | tail -20
        status=1
    fi
}
progs="ops atomic shared dynamic errors passive winattr netrma busy_target"
for n in 1 2 3 4; do
    for p in $progs; do
        run "$p on $n node(s), 1-8 ranks" CLUMPI_TEST_NODES=$n MPI_TEST_NP="1 2 3 4 5 6 7 8" \
            "$s/test/mpi/run-mpi-test" "test/rma/$p"
    done
done
# Network RMA with NIC atomics (tcp;ofi_rxm offers them; net does not, so
# the runs above take the accumulate fallback).
for n in 2 4; do
    for p in ops atomic netrma; do
        run "$p, tcp;ofi_rxm with NIC atomics, $n nodes" CLUMPI_OFI_PROVIDER="tcp;ofi_rxm" \
            CLUMPI_OFI_ATOMICS=1 CLUMPI_TEST_NODES=$n MPI_TEST_NP="2 3 5" \
            "$s/test/mpi/run-mpi-test" "test/rma/$p"
    done
done
for n in 2 4; do
    for p in $progs; do
        run "$p, CLUMPI_NET=agent, $n nodes" CLUMPI_NET=agent CLUMPI_TEST_SERVED=1 \
            CLUMPI_AGENT_PATH="$b/netmod/agent/clumpi-agent" CLUMPI_TEST_NODES=$n \
            MPI_TEST_NP="$n 5 8" "$s/test/mpi/run-mpi-test" "test/rma/$p"
        run "$p, CLUMPI_NET=agent CLUMPI_RMA_AGENT=0, $n nodes" CLUMPI_NET=agent \
            CLUMPI_RMA_AGENT=0 CLUMPI_AGENT_PATH="$b/netmod/agent/clumpi-agent" \
            CLUMPI_TEST_NODES=$n MPI_TEST_NP="$n" "$s/test/mpi/run-mpi-test" "test/rma/$p"
    done
done
rm -f rma-matrix.log
exit $status
