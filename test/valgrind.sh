#!/bin/sh
# valgrind.sh — make check-valgrind: a representative set of multi-rank
# tests with every rank, and in offload mode every NI agent, under
# valgrind's memcheck: point-to-point on one node and across 2 emulated
# nodes; Bcast (segmented too), Reduce, Allreduce and Alltoall on 1 and 3
# nodes; one-sided on one node and across 2 (active messages and network
# RMA); offload mode's point-to-point, agent-served one-sided operations
# and NI trees. A run fails on any memcheck error in any of its processes
# (invalid access, use of uninitialised bytes, definite or indirect leak)
# or when the test itself fails. test/valgrind.supp lists libfabric's own
# leaks. Not in make check: it takes minutes (each rank runs ~20-50x
# slower). Skipped (77) without valgrind or in a sanitizer build.
#
# Why CLUMPI_RNDV_COOP=0: in a cooperative rendezvous the sender writes
# half of the message into the receiver with process_vm_writev, which the
# receiver's memcheck cannot see, so it would take those bytes for
# uninitialised. Reads (process_vm_readv) are seen by the reader's memcheck.
#
# usage: valgrind.sh [PATTERN]   (only the runs whose label contains PATTERN)
# Environment: top_builddir, top_srcdir (make passes both), VALGRIND
# (default valgrind), MPI_TEST_TIMEOUT (seconds per run, default 600).
b=${top_builddir:-.}
s=${top_srcdir:-.}
cd "$b" || exit 2
b=$(pwd)
VALGRIND=${VALGRIND:-valgrind}
if ! command -v "$VALGRIND" >/dev/null 2>&1; then
    echo "SKIP: no $VALGRIND"; exit 77
fi
if ldd src/tools/mpirun test/mpi/pingpong 2>/dev/null | grep -q 'libasan\|libubsan'; then
    echo "SKIP: a sanitizer build cannot run under valgrind"; exit 77
fi
timeout=${MPI_TEST_TIMEOUT:-600}
# one folder per invocation: two at once must not remove each other's
logs=$b/test/valgrind-logs/$$
mkdir -p "$logs"
opts="-q --leak-check=full --show-leak-kinds=definite,indirect \
--errors-for-leak-kinds=definite,indirect --error-exitcode=99 --track-origins=yes \
--num-callers=30 --suppressions=$s/test/valgrind.supp"
# The agent is started by its node's first rank: through this wrapper.
cat >"$logs/agent" <<EOF
#!/bin/sh
exec $VALGRIND $opts --log-file="\$CLUMPI_VG_LOGS/agent.%p.log" "$b/netmod/agent/clumpi-agent" "\$@"
EOF
chmod +x "$logs/agent"
# (an agent under valgrind on a loaded machine starts in far more than
# the 30 s a rank waits for it by default)
agent="CLUMPI_NET=agent CLUMPI_AGENT_PATH=$logs/agent CLUMPI_AGENT_START_TIMEOUT=300"
fail=0
n=0
pattern=${1:-}

# run LABEL NODES NP "VAR=value ..." PROGRAM [ARGS...]
run() {
    label=$1 nodes=$2 np=$3 envs=$4
    shift 4
    case "$label" in *"$pattern"*) ;; *) return ;; esac
    n=$((n + 1))
    dir=$logs/$n
    mkdir -p "$dir"
    genv="-genv CLUMPI_RNDV_COOP 0 -genv CLUMPI_VG_LOGS $dir"
    for e in $envs; do genv="$genv -genv ${e%%=*} ${e#*=}"; done
    t0=$(date +%s)
    # shellcheck disable=SC2086
    timeout -k 5 $((timeout + 30)) src/tools/mpirun --nodes "$nodes" -n "$np" --timeout "$timeout" \
        $genv $VALGRIND $opts --log-file="$dir/rank.%p.log" "$@" </dev/null >"$dir/out" 2>&1
    rc=$?
    secs=$(($(date +%s) - t0))
    # memcheck's reports: lines "==pid== ..." (its own warnings, e.g. of a
    # system call it does not know, start with "--pid--" and are no error)
    errs=$(cat "$dir"/*.log 2>/dev/null | grep -c '^==[0-9]*== .')
    # an agent killed for being slow to stop never wrote its leak report
    slow=$(grep -c 'did not stop; killing it' "$dir/out")
    if [ $rc -eq 0 ] && [ "$errs" -eq 0 ] && [ "$slow" -eq 0 ]; then
        echo "ok: $label (${secs}s)"
    else
        echo "FAILED: $label: exit status $rc, $errs lines of memcheck reports (${secs}s)"
        echo "   $envs mpirun --nodes $nodes -n $np $VALGRIND ... $*"
        tail -n 20 "$dir/out"
        for f in "$dir"/*.log; do
            grep -q '^==[0-9]*== .' "$f" && { echo "--- $f"; grep '^==[0-9]*==' "$f" | head -n 200; }
        done
        fail=1
    fi
}

T=test
run "pingpong, one node" 1 2 "" $T/mpi/pingpong
run "pingpong, 2 nodes" 2 3 "" $T/mpi/pingpong
run "anysource, 2 nodes" 2 4 "" $T/mpi/anysource
for nodes in 1 3; do
    run "bcast, default, $nodes node(s)" $nodes 5 "" $T/coll/bcast
    run "bcast, binary segments of 1025 B, $nodes node(s)" $nodes 5 \
        "CLUMPI_COLL_BCAST=binary CLUMPI_COLL_SEGSIZE=1025" $T/coll/bcast
    run "reduce, default, $nodes node(s)" $nodes 5 "" $T/coll/reduce_algos reduce
    run "reduce, binary segments of 1025 B, $nodes node(s)" $nodes 5 \
        "CLUMPI_COLL_REDUCE=binary CLUMPI_COLL_SEGSIZE=1025" $T/coll/reduce_algos reduce
    run "allreduce, default, $nodes node(s)" $nodes 5 "" $T/coll/reduce_algos allreduce
    run "alltoall, default, $nodes node(s)" $nodes 5 "" $T/coll/alltoall
done
run "rma ops, one node" 1 3 "" $T/rma/ops
run "rma ops, 2 nodes" 2 4 "" $T/rma/ops
run "rma netrma, 2 nodes" 2 3 "" $T/rma/netrma
run "rma atomic, 2 nodes" 2 4 "" $T/rma/atomic
if [ -x netmod/agent/clumpi-agent ]; then
    run "agent: pingpong, 2 nodes" 2 3 "$agent" $T/mpi/pingpong
    run "agent: rma atomic served by the agent, 2 nodes" 2 4 "$agent" $T/rma/atomic
    run "agent: busy target served by its agent, 2 nodes" 2 2 "$agent CLUMPI_TEST_SERVED=1" \
        $T/rma/busy_target
    run "agent: bcast ni-binary, 3 nodes" 3 5 "$agent CLUMPI_COLL_BCAST=ni-binary" $T/coll/bcast
    run "agent: allreduce ni-binomial, 3 nodes" 3 5 "$agent CLUMPI_COLL_ALLREDUCE=ni-binomial" \
        $T/coll/reduce_algos allreduce
fi
if [ $fail -eq 0 ]; then
    rm -rf "$logs"
    rmdir "$b/test/valgrind-logs" 2>/dev/null
else
    echo "memcheck logs: $logs"
fi
exit $fail
