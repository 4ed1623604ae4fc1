#!/bin/sh
# crash.sh — abort and crash propagation through mpirun.
#
# For each way a rank can end badly (MPI_Abort on COMM_WORLD and on a
# sub-communicator, SIGSEGV, SIGKILL, exit without MPI_Finalize with status 5
# and with 0), with the victim first, last or in the middle, and 2 to 8 ranks:
# mpirun must exit non-zero, quickly (the issue asks for 2 s; we allow
# CRASH_LIMIT, default 5 s, for loaded machines), leave no process of the job
# and no /dev/shm/clumpi-* segment behind. Under clumpi's mpirun its message
# must be short (at most CRASH_MAX_LINES lines, default 2; not counted in a
# sanitizer build) and name the rank.
here=$(dirname "$0")
. "$here/mpirun-env.sh"
bin=${MPI_TEST_BINDIR:-./test/mpi}/crash
[ -x "$bin" ] || { echo "crash.sh: $bin not built"; exit 99; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
limit=${CRASH_LIMIT:-5}
# Under AddressSanitizer a crashing rank prints its own report: no line count.
sanitized=no
ldd "$bin" 2>/dev/null | grep -q libasan && sanitized=yes
maxlines=${CRASH_MAX_LINES:-2}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

shm_list() { ls /dev/shm 2>/dev/null | grep '^clumpi' | sort; }

fails=0
fail() { echo "FAIL crash: $*"; fails=$((fails + 1)); }

for spec in "abort 2 1" "abort 4 0" "abort 8 3" "abortsub 3 1" "segv 2 0" "segv 4 3" \
            "kill 3 1" "exit 2 1" "exit 4 0" "exit0 3 2"; do
    set -- $spec
    mode=$1 np=$2 victim=$3
    before=$(shm_list)
    start=$(date +%s.%N)
    timeout -k 5 60 "$MPIRUN" $MPIRUN_FLAGS -n "$np" --timeout 50 "$bin" "$mode" "$victim" \
        </dev/null >"$out" 2>&1
    rc=$?
    end=$(date +%s.%N)
    secs=$(echo "$end $start" | awk '{printf "%.2f", $1 - $2}')
    lines=$(grep -c . "$out")
    echo "== $mode, $np ranks, victim $victim: exit $rc after ${secs}s, $lines lines:"
    sed 's/^/   | /' "$out" | head -n 20
    [ $rc -ne 0 ] || fail "$mode/$np/$victim: mpirun exited 0"
    awk -v s="$secs" -v l="$limit" 'BEGIN { exit !(s > l) }' &&
        fail "$mode/$np/$victim: took ${secs}s (limit ${limit}s)"
    if [ "$MPIRUN_IS_CLUMPI" = yes ] && [ "$sanitized" = no ]; then
        [ "$lines" -ge 1 ] && [ "$lines" -le "$maxlines" ] ||
            fail "$mode/$np/$victim: mpirun printed $lines lines, expected 1..$maxlines"
        grep -q "$victim" "$out" || fail "$mode/$np/$victim: the message does not name rank $victim"
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
    if [ -n "$new" ]; then
        sleep 1
        still=$(printf '%s\n' "$new" | while read -r f; do [ -e "/dev/shm/$f" ] && echo "$f"; done)
        [ -z "$still" ] || fail "$mode/$np/$victim: left in /dev/shm: $(echo $still)"
    fi
done
[ $fails -eq 0 ] && echo "PASS crash" && exit 0
echo "crash: $fails failures"
exit 1
