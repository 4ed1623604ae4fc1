#!/bin/sh
# test_agent.sh — offload mode (CLUMPI_NET=agent): the point-to-point suite
# across 2 and 4 emulated nodes, both send paths (all PIO, all DMA), a slow
# agent with a tiny window (credit stalls), and an agent killed mid-run: the
# job must end within 5 s with a message, leaving no process or segment.
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
MPIRUN=${MPIRUN:-$top_builddir/src/tools/mpirun}
export CLUMPI_NET=agent
export CLUMPI_AGENT_PATH=${CLUMPI_AGENT_PATH:-$top_builddir/netmod/agent/clumpi-agent}
[ -x "$MPIRUN" ] && [ -x "$CLUMPI_AGENT_PATH" ] || { echo "build first"; exit 99; }
fail=0
run() { # nodes np env... -- prog
    nodes=$1 np=$2; shift 2
    envs=
    while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    shift
    if env $envs timeout -k 5 120 "$MPIRUN" --nodes "$nodes" -n "$np" --timeout 100 "$@" </dev/null >agent-test.out 2>&1; then
        echo "ok: --nodes $nodes -n $np$envs $*"
    else
        echo "FAILED: --nodes $nodes -n $np$envs $*"; cat agent-test.out; fail=1
    fi
}
T=$top_builddir/test/mpi
for p in pingpong anysource order probe ssend sendrecv truncate persistent; do
    run 2 2 -- "$T/$p"
done
for p in pingpong anysource order stress; do
    run 4 8 -- "$T/$p"
done
run 2 4 CLUMPI_AGENT_PIO_MAX=0 -- "$T/pingpong"
run 2 4 CLUMPI_AGENT_PIO_MAX=100000 CLUMPI_EAGER_LIMIT=0 -- "$T/order"
run 2 4 CLUMPI_AGENT_WINDOW=2 CLUMPI_AGENT_DELAY_NS=2000 -- "$T/stress"

# Agent killed mid-run.
job=agentkill$$
( sleep 1; pkill -KILL -f "clumpi-agent /clumpi-$job-agent-0-" ) &
killer=$!
start=$(date +%s)
CLUMPI_JOB_ID=$job timeout -k 5 60 "$MPIRUN" --nodes 2 -n 4 --timeout 50 "$T/stress" 1000000 </dev/null >agent-kill.out 2>&1
rc=$?
wait $killer
end=$(date +%s)
if [ $rc -eq 0 ]; then echo "FAILED: job survived its agent"; fail=1; fi
if ! grep -q "NI agent of node" agent-kill.out; then echo "FAILED: no message"; cat agent-kill.out; fail=1; fi
if [ $((end - start)) -gt 7 ]; then echo "FAILED: took $((end - start)) s"; fail=1; fi
sleep 0.5
if ls /dev/shm 2>/dev/null | grep -q "clumpi-$job-"; then echo "FAILED: segments left"; fail=1; fi
if pgrep -f "clumpi-$job-" >/dev/null; then echo "FAILED: processes left"; fail=1; fi
[ $fail -eq 0 ] && echo "ok: agent killed -> job ended in $((end - start)) s, nothing left"
rm -f agent-test.out agent-kill.out
exit $fail
