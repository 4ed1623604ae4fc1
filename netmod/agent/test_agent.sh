#!/bin/sh
# test_agent.sh — offload mode (CLUMPI_NET=agent): the point-to-point suite
# of test/mpi through its own runner (run-mpi-test) across 2 and 4 emulated
# nodes, both send paths (all PIO, all DMA), a slow agent with a tiny window
# (credit stalls), NI collectives when built (coll/*_ni.c), and an agent
# killed mid-run: the job must end within 5 s with a message, leaving no
# process or segment behind.
# make check runs a lean subset (cross-node point-to-point with both send
# paths and rendezvous, persistent on 4 nodes, two NI trees, the agent
# kill); AGENT_TEST_FULL=1 (make check-agent) the whole matrix,
# AGENT_TEST_LONG=1 (make check-long) adds 5-8 nodes.
. "$(dirname "$0")/test_env.sh"
fail=0
out=agent-test.$$.out
T=$top_builddir/test/mpi
RUNNER="$top_srcdir/test/mpi/run-mpi-test"

# suite NODES [NP-list] -- programs: each program at the rank counts of its
# "np:" line (or NP-list), split over NODES emulated nodes.
suite() {
    nodes=$1; nps=$2; shift 3
    for p in "$@"; do
        [ -x "$T/$p" ] || { echo "FAILED: $T/$p not built"; fail=1; continue; }
        if env CLUMPI_TEST_NODES="$nodes" ${nps:+MPI_TEST_NP="$nps"} srcdir="$top_srcdir" \
               MPI_TEST_TIMEOUT=100 sh "$RUNNER" "$T/$p" >"$out" 2>&1; then
            echo "ok: $p, --nodes $nodes${nps:+, -n $nps}"
        else
            echo "FAILED: $p, --nodes $nodes${nps:+, -n $nps}"; cat "$out"; fail=1
        fi
    done
}
run() { # nodes np env... -- prog args...
    nodes=$1 np=$2; shift 2
    envs=
    while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    shift
    if env $envs timeout -k 5 120 "$MPIRUN" --nodes "$nodes" -n "$np" --timeout 100 "$@" </dev/null >"$out" 2>&1; then
        echo "ok: --nodes $nodes -n $np$envs $*"
    else
        echo "FAILED: --nodes $nodes -n $np$envs $*"; cat "$out"; fail=1
    fi
}

# Nodes with different chunk sizes: each direction's first read fails at
# the owner's agent (-ENOTSUP, sent as the read's last chunk after grants
# it will not use), the device falls back to CTS for that peer, and every
# message still arrives.
bulk_mixed() {
    run 2 2 BULK_TEST_CHUNK=8192 -- sh -c \
        '[ "$PMI_RANK" = 0 ] && export CLUMPI_AGENT_BULK_CHUNK=8192; exec "$0"' "$T/bulk"
}

# Trains: a multi-packet message leaves as one fabric send and, whole,
# reaches its rank as one entry (the agents' counters say so).
trains() {
    if env CLUMPI_AGENT_STATS=1 timeout -k 5 120 "$MPIRUN" --nodes 2 -n 2 --timeout 100 \
           "$T/pingpong" </dev/null >"$out" 2>&1 &&
       grep -q "trains sent [1-9][0-9]* delivered whole [1-9]" "$out"; then
        echo "ok: trains sent and delivered whole (pingpong, --nodes 2)"
    else
        echo "FAILED: trains sent and delivered whole (pingpong, --nodes 2)"; cat "$out"; fail=1
    fi
}

# Rendezvous crawling at one rank<->agent round trip per DMA packet under
# load is covered by the cross-node runs below: every
# order/persistent run streams rendezvous DATA through the DMA path.
if [ -z "${AGENT_TEST_FULL:-}" ]; then
    suite 2 "2" -- order anysource persistent sendrecv
    suite 4 "4" -- persistent
    run 2 2 CLUMPI_AGENT_PIO_MAX=0 CLUMPI_EAGER_LIMIT=0 -- "$T/order"
    run 2 2 CLUMPI_AGENT_WINDOW=2 CLUMPI_AGENT_DELAY_NS=2000 -- "$T/order"
    # the bulk path: default chunks; many small chunks through one landing
    # buffer (every grant waits for the one before); off (CTS + DATA)
    suite 2 "2" -- bulk
    run 2 3 CLUMPI_AGENT_BULK_CHUNK=4096 CLUMPI_AGENT_BULK=1 -- "$T/bulk"
    run 2 2 CLUMPI_AGENT_BULK=0 -- "$T/bulk"
    bulk_mixed
    trains
else
PT2PT="pingpong anysource order truncate probe persistent ssend bsend sendrecv completion cancel dtype procnull"
suite 2 "" -- $PT2PT comms coll bulk rndv_dtype rndv_reg
# the bulk path's chunks and grants: small chunks, one landing buffer or a
# window of one, a slow agent, off; 4 nodes of 2 ranks reading at once
run 2 3 CLUMPI_AGENT_BULK_CHUNK=4096 CLUMPI_AGENT_BULK=1 -- "$T/bulk"
run 3 3 CLUMPI_AGENT_BULK_CHUNK=8192 CLUMPI_AGENT_BULK_WINDOW=1 CLUMPI_AGENT_BULK_BOUNCE=1 -- "$T/bulk"
run 2 4 CLUMPI_AGENT_BULK_CHUNK=65536 CLUMPI_AGENT_WINDOW=2 CLUMPI_AGENT_DELAY_NS=2000 -- "$T/bulk"
run 2 2 CLUMPI_AGENT_BULK=0 -- "$T/bulk"
run 4 8 CLUMPI_AGENT_BULK_CHUNK=16384 CLUMPI_AGENT_BULK=3 -- "$T/bulk"
bulk_mixed
trains
# the programs that take any rank count, at 4 and 8 ranks over 4 nodes
suite 4 "4 8" -- pingpong anysource order sendrecv completion persistent
suite 4 "8" -- stress
# all DMA / all PIO, between nodes (-n 2: the pair spans both)
run 2 2 CLUMPI_AGENT_PIO_MAX=0 -- "$T/pingpong"
run 2 2 CLUMPI_AGENT_PIO_MAX=100000 CLUMPI_EAGER_LIMIT=0 -- "$T/order"
run 2 4 CLUMPI_AGENT_WINDOW=2 CLUMPI_AGENT_DELAY_NS=2000 -- "$T/stress"
# a larger MTU: fewer, larger packets per message (both send paths)
run 2 2 CLUMPI_AGENT_MTU=16384 -- "$T/pingpong"
run 2 4 CLUMPI_AGENT_MTU=5000 CLUMPI_AGENT_PIO_MAX=0 -- "$T/stress"
fi

# NI-level collectives (Verstoep et al. §4-5): every algorithm against a reference.
NI=$top_builddir/test/unit/test_agent_coll
if [ -x "$NI" ] && [ -z "${AGENT_TEST_FULL:-}" ]; then
    run 2 4 -- "$NI" ni-binary
    run 3 3 -- "$NI" ni-binomial
elif [ -x "$NI" ]; then
    for nodes in 1 2 3 4; do
        for ppn in 1 2 3; do
            run "$nodes" $((nodes * ppn)) -- "$NI" ni-binary
            run "$nodes" $((nodes * ppn)) -- "$NI" ni-binomial
        done
    done
    run 3 6 -- "$NI" host-message
    run 3 6 -- "$NI" host-packet
    run 4 4 -- "$NI" host-packet-binary   # a computing forwarder delays its subtree
    run 4 8 CLUMPI_AGENT_WINDOW=2 CLUMPI_AGENT_DELAY_NS=2000 -- "$NI" host-packet
    run 3 6 CLUMPI_AGENT_WINDOW=2 CLUMPI_AGENT_DELAY_NS=2000 -- "$NI" ni-binomial
    run 4 8 CLUMPI_AGENT_WINDOW=2 CLUMPI_AGENT_POOL=1 -- "$NI" ni-binary
    # a larger MTU: reductions in fewer, larger packets of whole elements
    run 3 6 CLUMPI_AGENT_MTU=5000 -- "$NI" ni-binomial
    run 4 4 CLUMPI_AGENT_MTU=16384 CLUMPI_AGENT_WINDOW=2 -- "$NI" ni-binary
    CLUMPI_NET=direct run 2 4 -- "$NI" ni-binary   # no agent: the host's tree
    # 5-8 nodes (check-long): deeper trees, both shapes, a slow agent
    if [ -n "${AGENT_TEST_LONG:-}" ]; then
        for nodes in 5 6 7 8; do
            run "$nodes" "$nodes" -- "$NI" ni-binary
            run "$nodes" $((nodes * 2)) -- "$NI" ni-binomial
        done
        run 8 16 CLUMPI_AGENT_WINDOW=4 CLUMPI_AGENT_DELAY_NS=5000 -- "$NI" ni-binary
        run 8 24 -- "$NI" ni-binomial
    fi
fi
# NI collectives and point-to-point never block each other: members run
# ahead of a root that sends to a non-member first (test_agent_lag.c)
LAG=$top_builddir/test/unit/test_agent_lag
if [ -x "$LAG" ]; then
    run 3 7 -- "$LAG" ni-binomial
    run 3 7 -- "$LAG" ni-binary
    if [ -n "${AGENT_TEST_FULL:-}" ]; then
        run 2 4 -- "$LAG" ni-binomial
        run 4 8 -- "$LAG" ni-binary
        run 3 7 CLUMPI_AGENT_WINDOW=2 CLUMPI_AGENT_POOL=1 -- "$LAG" ni-binomial
        run 3 9 CLUMPI_AGENT_MTU=5000 -- "$LAG" ni-binary
    fi
fi
# Idle agents block: ranks wait 2 s for rank 0; each node's agent must use
# under 5% of a core meanwhile (test_agent_idle.c measures it)
IDLE=$top_builddir/test/unit/test_agent_idle
[ -x "$IDLE" ] && run 2 4 -- "$IDLE" 2
# A rank that does not run must not stall its node's agent
# (test_agent_stopped.c says how it once did)
STOPPED=$top_builddir/test/unit/test_agent_stopped
[ -x "$STOPPED" ] && run 2 4 -- "$STOPPED"
# MPIX_Counter served by the agents: a totally ordered broadcast
[ -x "$top_builddir/examples/ordered_bcast" ] && run 4 8 -- "$top_builddir/examples/ordered_bcast" 200

# Agent killed mid-run: find node 0's agent among mpirun's descendants and
# kill that pid (never by name: other jobs may be running).
desc() { for c in $(pgrep -P "$1"); do echo "$c"; desc "$c"; done; }
alive() { # pid: running (a zombie whose parent is gone counts as ended)
    st=$(ps -o stat= -p "$1" 2>/dev/null)
    [ -n "$st" ] && [ "${st#Z}" = "$st" ]
}
start=$(date +%s.%N)
timeout -k 5 60 "$MPIRUN" --nodes 2 -n 2 --timeout 50 "$top_builddir/bench/pt2pt" lat -i 1000 \
    </dev/null >agent-kill.$$.out 2>&1 &
mp=$!
agent= procs= tries=0
while [ -z "$agent" ] && [ $tries -lt 100 ]; do
    sleep 0.1; tries=$((tries + 1))
    procs=$(desc $mp)
    for p in $procs; do
        [ "$(cat /proc/"$p"/comm 2>/dev/null)" = clumpi-agent ] && { agent=$p; break; }
    done
done
job=
if [ -n "$agent" ]; then
    # the segment name is /clumpi-<job>-agent-<node>-<random>
    job=$(tr '\0' ' ' </proc/"$agent"/cmdline | sed -n 's|.*/clumpi-\([0-9a-f]*\)-agent-.*|\1|p')
    # kill only once the job runs (its first output line): an agent killed
    # while ranks still connect fails MPI_Init instead, another path
    w=0
    while [ ! -s agent-kill.$$.out ] && [ $w -lt 100 ]; do sleep 0.1; w=$((w + 1)); done
    sleep 0.2
    procs=$(desc $mp)
    kstart=$(date +%s.%N)
    kill -KILL "$agent"
else
    echo "FAILED: no agent found under mpirun (pid $mp)"; fail=1
    kstart=$start
fi
wait $mp
rc=$?
end=$(date +%s.%N)
secs=$(echo "$end $kstart" | awk '{printf "%.1f", $1 - $2}')
if [ $rc -eq 0 ]; then echo "FAILED: job survived its agent"; fail=1; fi
if ! grep -q "NI agent of node" agent-kill.$$.out; then
    echo "FAILED: no message"; cat agent-kill.$$.out; fail=1
fi
if [ "$(echo "$secs" | awk '{print ($1 > 5)}')" = 1 ]; then echo "FAILED: took $secs s"; fail=1; fi
sleep 0.5
if [ -n "$job" ] && ls /dev/shm 2>/dev/null | grep -q "clumpi-$job-"; then
    echo "FAILED: segments left"; ls /dev/shm | grep "clumpi-$job-"; fail=1
fi
for p in $procs; do
    if alive "$p"; then echo "FAILED: process $p left: $(ps -o args= -p "$p")"; fail=1; fi
done
[ $fail -eq 0 ] && echo "ok: agent killed -> job ended in $secs s with a message, nothing left"
rm -f "$out" agent-kill.$$.out
exit $fail
