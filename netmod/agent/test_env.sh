# test_env.sh — sourced by the offload-mode test scripts (test_agent.sh,
# test/rma/agent.sh): the build's mpirun and agent, CLUMPI_NET=agent, and
# exit 99 (skipped as an error) when they are not built; the runners the
# offload scripts share (they use the caller's out, fail, T and RUNNER).
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
MPIRUN=${MPIRUN:-$top_builddir/src/tools/mpirun}
export MPIRUN
export CLUMPI_NET=agent
export CLUMPI_AGENT_PATH=${CLUMPI_AGENT_PATH:-$top_builddir/netmod/agent/clumpi-agent}
[ -x "$MPIRUN" ] && [ -x "$CLUMPI_AGENT_PATH" ] || { echo "build first"; exit 99; }

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

# agent_stop SIGNAL PATTERN [VAR=value...]: a 2-node job (bench/pt2pt, or
# the command line in STOP_PROG)
# whose first agent found among mpirun's descendants gets SIGNAL once the
# job runs (found by pid, never by name: other jobs may be running); the
# job must fail within 5 s with a line matching PATTERN, leaving no
# process or segment. KILL: its node's ranks see it die; STOP: the peer
# agent must notice the silence (CLUMPI_AGENT_PEER_TIMEOUT, dgram).
desc() { for c in $(pgrep -P "$1"); do echo "$c"; desc "$c"; done; }
alive() { # pid: running (a zombie whose parent is gone counts as ended)
    st=$(ps -o stat= -p "$1" 2>/dev/null)
    [ -n "$st" ] && [ "${st#Z}" = "$st" ]
}
agent_stop() {
    sig=$1 pat=$2; shift 2
    kout=agent-kill.$$.out
    start=$(date +%s.%N)
    env "$@" timeout -k 5 60 "$MPIRUN" --nodes 2 -n 2 --timeout 50 \
        ${STOP_PROG:-"$top_builddir/bench/pt2pt" lat -i 1000} </dev/null >"$kout" 2>&1 &
    mp=$!
    agent= procs= tries=0
    while [ -z "$agent" ] && [ $tries -lt 100 ]; do
        sleep 0.1; tries=$((tries + 1))
        procs=$(desc $mp)
        for p in $procs; do
            [ "$(cat /proc/"$p"/comm 2>/dev/null)" = clumpi-agent ] && { agent=$p; break; }
        done
    done
    job= kfail=0
    if [ -n "$agent" ]; then
        # the segment name is /clumpi-<job>-agent-<node>-<random>
        job=$(tr '\0' ' ' </proc/"$agent"/cmdline | sed -n 's|.*/clumpi-\([0-9a-f]*\)-agent-.*|\1|p')
        # only once the job runs (its first output line): an agent lost
        # while ranks still connect fails MPI_Init instead, another path
        w=0
        while [ ! -s "$kout" ] && [ $w -lt 100 ]; do sleep 0.1; w=$((w + 1)); done
        sleep 0.2
        procs=$(desc $mp)
        kstart=$(date +%s.%N)
        kill -"$sig" "$agent"
    else
        echo "FAILED: no agent found under mpirun (pid $mp)"; kfail=1
        kstart=$start
    fi
    wait $mp
    rc=$?
    end=$(date +%s.%N)
    secs=$(echo "$end $kstart" | awk '{printf "%.1f", $1 - $2}')
    if [ $rc -eq 0 ]; then echo "FAILED: job survived its agent's SIG$sig"; kfail=1; fi
    if ! grep -q "$pat" "$kout"; then
        echo "FAILED: no message matching \"$pat\""; cat "$kout"; kfail=1
    fi
    if [ "$(echo "$secs" | awk '{print ($1 > 5)}')" = 1 ]; then
        echo "FAILED: took $secs s"; kfail=1
    fi
    sleep 0.5
    if [ -n "$job" ] && ls /dev/shm 2>/dev/null | grep -q "clumpi-$job-"; then
        echo "FAILED: segments left"; ls /dev/shm | grep "clumpi-$job-"; kfail=1
    fi
    for p in $procs; do
        if alive "$p"; then echo "FAILED: process $p left: $(ps -o args= -p "$p")"; kfail=1; fi
    done
    [ $kfail -eq 0 ] &&
        echo "ok: agent got SIG$sig $* -> job ended in $secs s with a message, nothing left"
    [ $kfail -eq 0 ] || fail=1
    rm -f "$kout"
}

# refused VAR=value... -- PATTERN [WRONG]: a job of 4 ranks on 2 nodes (a
# node's first rank and another) fails with a line matching PATTERN, and
# none matching WRONG
refused() {
    envs=
    while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    if env $envs timeout -k 5 60 "$MPIRUN" --nodes 2 -n 4 --timeout 50 "$T/order" \
           </dev/null >"$out" 2>&1; then
        echo "FAILED:$envs: the job ran"; fail=1
    elif ! grep -q "$2" "$out"; then
        echo "FAILED:$envs: no message matching \"$2\""; cat "$out"; fail=1
    elif [ -n "${3:-}" ] && grep -q "$3" "$out"; then
        echo "FAILED:$envs: a message matching \"$3\""; cat "$out"; fail=1
    else
        echo "ok:$envs refused with a message"
    fi
}
