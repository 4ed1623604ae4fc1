#!/bin/sh
# crash.sh — abort and crash propagation through mpirun.
#
# For each way a rank can end badly (MPI_Abort on COMM_WORLD and on a
# sub-communicator, SIGSEGV, SIGKILL, exit without MPI_Finalize with status 5
# and with 0), with the victim first, last or in the middle, and 2 to 8 ranks:
# mpirun must exit non-zero, quickly (within 2 s when quiet; we allow
# CRASH_LIMIT, default 5 s, for loaded machines), leave no process of the job
# and no /dev/shm/clumpi-* segment behind. Under clumpi's mpirun, which
# documents it: exactly one line from mpirun, naming the rank and the cause
# (the signal, MPI_Abort, the status, the missing MPI_Finalize), and the exit
# status it documents (the abort code, the rank's status, 128+signal).
# The "coll" runs kill the victim while the others wait in a shared-memory
# allreduce (flags in the node area, no message to fail on).
here=$(dirname "$0")
. "$here/mpirun-env.sh"
bin=${MPI_TEST_BINDIR:-./test/mpi}/crash
[ -x "$bin" ] || { echo "crash.sh: $bin not built"; exit 99; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
limit=${CRASH_LIMIT:-5}
# AddressSanitizer catches SIGSEGV itself (report, exit 1): no cause check then.
sanitized=no
ldd "$bin" 2>/dev/null | grep -q libasan && sanitized=yes
out=$(mktemp)
trap 'rm -f "$out"' EXIT

shm_list() { ls /dev/shm 2>/dev/null | grep '^clumpi' | sort; }

fails=0
fail() { echo "FAIL crash: $*"; fails=$((fails + 1)); }

# mode ranks victim | what mpirun's line must say | its exit status
for spec in "abort 2 1|MPI_Abort|3" "abort 4 0|MPI_Abort|3" "abort 8 3|MPI_Abort|3" \
            "abortsub 3 1|MPI_Abort|4" "segv 2 0|signal 11|139" "segv 4 3|signal 11|139" \
            "kill 3 1|signal 9|137" "exit 2 1|status 5|5" "exit 4 0|status 5|5" \
            "exit0 3 2|MPI_Finalize|" "kill 4 2 coll|signal 9|137" \
            "segv 3 0 coll|signal 11|139" "exit 5 4 coll|status 5|5"; do
    cause=$(echo "$spec" | cut -d'|' -f2)
    want_rc=$(echo "$spec" | cut -d'|' -f3)
    set -- $(echo "$spec" | cut -d'|' -f1)
    mode=$1 np=$2 victim=$3 where=${4:-}
    [ "$sanitized" = yes ] && [ "$mode" = segv ] && cause= want_rc=
    before=$(shm_list)
    start=$(date +%s.%N)
    CLUMPI_COLL_ALLREDUCE=shm timeout -k 5 60 "$MPIRUN" $MPIRUN_FLAGS -n "$np" --timeout 50 \
        "$bin" "$mode" "$victim" $where </dev/null >"$out" 2>&1
    rc=$?
    end=$(date +%s.%N)
    secs=$(echo "$end $start" | awk '{printf "%.2f", $1 - $2}')
    echo "== $mode, $np ranks, victim $victim${where:+ in $where}: exit $rc after ${secs}s:"
    sed 's/^/   | /' "$out" | head -n 20
    [ $rc -ne 0 ] || fail "$mode/$np/$victim: mpirun exited 0"
    awk -v s="$secs" -v l="$limit" 'BEGIN { exit !(s > l) }' &&
        fail "$mode/$np/$victim: took ${secs}s (limit ${limit}s)"
    if [ "$MPIRUN_IS_CLUMPI" = yes ]; then
        mline=$(grep '^mpirun' "$out")
        [ "$(grep -c '^mpirun' "$out")" -eq 1 ] ||
            fail "$mode/$np/$victim: expected exactly one line from mpirun"
        echo "$mline" | grep -q "rank $victim" ||
            fail "$mode/$np/$victim: mpirun's line does not name rank $victim"
        [ -z "$cause" ] || echo "$mline" | grep -q "$cause" ||
            fail "$mode/$np/$victim: mpirun's line does not give the cause ('$cause')"
        [ -z "$want_rc" ] || [ "$rc" = "$want_rc" ] ||
            fail "$mode/$np/$victim: exit status $rc, expected $want_rc"
    fi
    # leftovers: processes of the job, segments
    sleep 0.3
    left=$(pgrep -f "$bin" || true)
    if [ -n "$left" ]; then
        sleep 1
        left=$(pgrep -f "$bin" || true)
    fi
    if [ -n "$left" ]; then
        fail "$mode/$np/$victim: processes left behind: $(echo $left)"
        kill -9 $left 2>/dev/null
    fi
    after=$(shm_list)
    new=$(printf '%s\n' "$after" | grep -vxF -e "$before" -e '' || true)
    [ -z "$before" ] && new=$after
    # under clumpi's mpirun the job names its segments: only ours count
    # (tests running beside this one make and remove theirs meanwhile)
    job=$(sed -n 's/^crash: job \([0-9a-zA-Z]*\)$/\1/p' "$out" | head -n 1)
    [ -z "$job" ] || new=$(printf '%s\n' "$after" | grep "^clumpi-$job-" || true)
    if [ -n "$new" ]; then
        sleep 1
        still=$(printf '%s\n' "$new" | while read -r f; do [ -e "/dev/shm/$f" ] && echo "$f"; done)
        [ -z "$still" ] || fail "$mode/$np/$victim: left in /dev/shm: $(echo $still)"
    fi
done
# mpirun started with SIGCHLD ignored (as some shells and harnesses leave
# it) must still see its children, the agents of offload mode among them:
# a job across 2 nodes ends normally, and a crash still ends it with the line.
if [ "$MPIRUN_IS_CLUMPI" = yes ] && command -v perl >/dev/null; then
    for spec in "ok 0" "segv 1"; do
        set -- $spec
        CLUMPI_NET=agent timeout -k 5 60 perl -e '$SIG{CHLD} = "IGNORE"; exec @ARGV or die' \
            "$MPIRUN" $MPIRUN_FLAGS -n 3 --nodes 2 --timeout 50 "$bin" "$1" 1 </dev/null >"$out" 2>&1
        rc=$?
        echo "== SIGCHLD ignored, $1: exit $rc:"
        sed 's/^/   | /' "$out" | head -n 10
        if [ "$1" = ok ]; then
            [ $rc -eq 0 ] || fail "SIGCHLD ignored: a clean job exited $rc"
        else
            [ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "SIGCHLD ignored: a crash gave exit $rc"
            grep -q '^mpirun.*rank 1' "$out" || fail "SIGCHLD ignored: no line naming rank 1"
        fi
    done
fi
[ $fails -eq 0 ] && echo "PASS crash" && exit 0
echo "crash: $fails failures"
exit 1
