#!/bin/sh
# dyn_vanish.sh — a connected process of another job dies (SIGKILL)
# (test/mpi/dyn_vanish.c). Job A (the server, 2 ranks) accepts job B (the
# client, 1 rank) through the name service (3 ranks in 2.).
# 1. MPI_ERRORS_ARE_FATAL: once both sides have talked, every rank of A
#    waits in MPI_Recv from B's rank, which is killed. A's mpirun must end,
#    non-zero, within LIMIT seconds (10 by default; the probes of
#    CLUMPI_DYN_PROBE_S, 5 s, find the death), its message naming the lost
#    process of the other job, leaving none of its processes and none of
#    the two jobs' names in /dev/shm.
# 2. MPI_ERRORS_RETURN ("keep"): B's rank is killed while A's ranks have
#    receives and sends with it pending; these and new ones must fail
#    (MPI_ERR_OTHER) within LIMIT seconds, the intercommunicator be
#    disconnected, and A then accept a second client job and exchange data
#    with it; A, the second client and their mpiruns must succeed.
# With CLUMPI_TEST_NODES A spans that many emulated nodes (in offload mode
# too, CLUMPI_NET=agent); without CLUMPI_NET, 2 is run again in offload
# mode on 2 nodes.
here=$(dirname "$0")
. "$here/mpirun-env.sh"
clumpi_test_bin dyn_vanish.sh dyn_vanish
limit=${LIMIT:-10}
nodes=${CLUMPI_TEST_NODES:-1}
[ "$nodes" -gt 2 ] && nodes=2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CLUMPI_NAMESERVER="$tmp/names"
fail=0
# shm_left FILE...: /dev/shm names of the jobs whose output FILEs name them
# (clumpi-JOB-*, clumpi's mpirun sets CLUMPI_JOB_ID) still there a second
# later; other processes make and remove theirs meanwhile
shm_left() {
    jobs=$(sed -n 's/^dyn_vanish: job \([0-9a-zA-Z]*\)$/\1/p' "$@" | sort -u)
    [ -z "$jobs" ] && return
    sleep 1
    for j in $jobs; do ls /dev/shm 2>/dev/null | grep "^clumpi-$j-"; done
}

# start_pair NP MODE NAME [ARGS]: the server job (NP ranks) in MODE and a
# client job that writes its rank's pid to $tmp/pid; sets spid, cpid.
start_pair() {
    np=$1 mode=$2 name=$3
    shift 3
    rm -f "$tmp/pid"
    timeout 60 "$MPIRUN" $MPIRUN_FLAGS -n "$np" --nodes "$nodes" "$bin" "$mode" "$name" "$@" \
        > "$tmp/server.out" 2>&1 &
    spid=$!
    timeout 60 "$MPIRUN" $MPIRUN_FLAGS -n 1 "$bin" client "$name" "$tmp/pid" \
        > "$tmp/client.out" 2>&1 &
    cpid=$!
    for i in $(seq 300); do
        [ -s "$tmp/pid" ] && break
        sleep 0.1
    done
    if [ ! -s "$tmp/pid" ]; then
        echo "FAIL dyn_vanish.sh ($mode): the client never connected"
        cat "$tmp/server.out" "$tmp/client.out"
        kill $spid $cpid 2>/dev/null
        exit 1
    fi
    sleep 0.5   # the server ranks wait for the client by now
}

# 1. the fatal handler ends the server job
start_pair 2 server "vanish $$"
start=$(date +%s)
kill -9 "$(cat "$tmp/pid")"
wait $spid
src=$?
took=$(( $(date +%s) - start ))
wait $cpid
cat "$tmp/server.out" "$tmp/client.out"
if [ $src -eq 0 ] || [ $src -eq 124 ] || [ $took -gt "$limit" ]; then
    echo "FAIL dyn_vanish.sh: the server ended with status $src after $took s"
    fail=1
elif ! grep -q "lost the connection to a process of another job" "$tmp/server.out"; then
    echo "FAIL dyn_vanish.sh: the server's message does not name the lost process"
    fail=1
elif grep -q "FAIL" "$tmp/server.out"; then
    echo "FAIL dyn_vanish.sh: the server's error handler was not fatal"
    fail=1
fi
sleep 0.2
left=$(pgrep -f "$bin (server|client) vanish $$" 2>/dev/null)
if [ -n "$left" ]; then
    echo "FAIL dyn_vanish.sh: processes left after the server ended: $left"
    kill -9 $left 2>/dev/null
    fail=1
fi
left=$(shm_left "$tmp/server.out" "$tmp/client.out")
if [ -n "$left" ]; then
    echo "FAIL dyn_vanish.sh: left in /dev/shm: $(echo $left)"
    fail=1
fi
[ $fail -eq 0 ] && echo "ok: MPI_ERRORS_ARE_FATAL ended the server $took s after the kill"

# 2. MPI_ERRORS_RETURN: the server goes on and accepts another client.
# keep_case NP WHAT: one run with a server of NP ranks, in the
# environment set before.
keep_case() {
    start_pair "$1" keep "keep $$" "again $$"
    shift
    start=$(date +%s)
    kill -9 "$(cat "$tmp/pid")"
    wait $cpid
    for i in $(seq $((limit * 10))); do
        grep -q "accepting another" "$tmp/server.out" && break
        sleep 0.1
    done
    took=$(( $(date +%s) - start ))
    timeout 60 "$MPIRUN" $MPIRUN_FLAGS -n 1 "$bin" client2 "again $$" > "$tmp/client2.out" 2>&1
    c2rc=$?
    wait $spid
    src=$?
    cat "$tmp/server.out" "$tmp/client.out" "$tmp/client2.out"
    if ! grep -q "accepting another" "$tmp/server.out" || [ $took -gt "$limit" ]; then
        echo "FAIL dyn_vanish.sh (keep, $1): the server did not get past the lost client" \
             "in $limit s"
        fail=1
    elif [ $src -ne 0 ] || [ $c2rc -ne 0 ] || ! grep -q "PASS dyn_vanish" "$tmp/server.out" ||
         ! grep -q "PASS dyn_vanish" "$tmp/client2.out"; then
        echo "FAIL dyn_vanish.sh (keep, $1): server exit $src, second client exit $c2rc"
        fail=1
    elif ! grep -q "lost the connection to a process of another job.*operations with it fail" \
            "$tmp/server.out"; then
        echo "FAIL dyn_vanish.sh (keep, $1): no warning names the lost process"
        fail=1
    else
        echo "ok ($1): MPI_ERRORS_RETURN: the server's operations failed $took s after the" \
             "kill, and it served another client"
    fi
}
export CLUMPI_DYN_PROBE_S=2   # probes judged sooner: a quicker test
keep_case 3 "${CLUMPI_NET:-direct}, 3 ranks on $nodes node(s)"
# offload mode (other jobs are reached through a direct endpoint beside
# the agent), unless the caller chose a mode
agent=${CLUMPI_AGENT_PATH:-${top_builddir:-.}/netmod/agent/clumpi-agent}
if [ -n "${CLUMPI_NET:-}" ]; then
    :
elif [ ! -x "$agent" ]; then
    echo "SKIP dyn_vanish.sh (keep, agent): no NI agent at $agent (set CLUMPI_AGENT_PATH)"
else
    export CLUMPI_AGENT_PATH=$agent
    nodes=2
    export CLUMPI_NET=agent
    keep_case 2 "agent, 2 ranks on 2 nodes"
    unset CLUMPI_NET
fi
[ $fail -eq 0 ] && echo "PASS dyn_vanish.sh"
exit $fail
