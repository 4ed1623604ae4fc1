#!/bin/sh
# bench/progress_test.sh — keeps the progress-by-test-calls benchmark working
# (not its timings): bench/progress must finish on 1 rank (a ring to itself),
# 3 ranks on one node (more than 2 cores: the spinning loops compete) and
# 4 ranks on 2 emulated nodes, with every mode's header and one positive
# time per size (the program itself checks the bytes each rank received);
# a mode given by name runs alone; a bad argument is refused; bench/progress.c
# must build with Open MPI's mpicc when present (standard MPI only).
top_srcdir=${top_srcdir:-${srcdir:-.}}
build=${top_builddir:-.}
prog=$build/bench/progress mpirun=$build/src/tools/mpirun
[ -x "$prog" ] && [ -x "$mpirun" ] || { echo "build first"; exit 99; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }

# run NAME "MPIRUN_ARGS" "PROGRESS_ARGS": output in $out/NAME
run() {
    # shellcheck disable=SC2086  # word splitting of the argument lists is wanted
    "$mpirun" --timeout 120 $2 "$prog" $3 > "$out/$1" 2> "$out/$1.err" ||
        no "mpirun $2 bench/progress $3: exit $?: $(head -n 5 "$out/$1.err")"
}
# check NAME RANKS NODES MODES SIZES: the header, then per mode its header
# and one line per size with a positive time, in order
check() {
    awk -v np="$2" -v nodes="$3" -v modes="$4" -v sizes="$5" '
        NR == 1 { if ($0 !~ "^# progress .*, " np " ranks, " nodes " node\\(s\\), library: clumpi")
                      { print "header: " $0; bad = 1 }; next }
        /^# Size/ { next }
        /^# / { got = got (got ? " " : "") $2; k = 0; next }
        { k++; split(sizes, s, " ")
          if (NF != 2 || $1 != s[k] || !($2 > 0)) { print "line " NR ": " $0; bad = 1 } }
        END { if (got != modes) { print "modes: " got; bad = 1 }
              exit bad }' "$out/$1" > "$out/$1.bad" || no "$1: $(cat "$out/$1.bad")"
}
all="waitall testall test iprobe"
run self "-n 1" "-m 65536 -s 16384 -i 0.02"
check self 1 1 "$all" "16384 32768 65536"
run node "-n 3" "-m 65536 -s 1024 -i 0.02"
check node 3 1 "$all" "1024 2048 4096 8192 16384 32768 65536"
run nodes "-n 4 --nodes 2" "-m 16384 -s 256 -i 0.02"
check nodes 4 2 "$all" "256 512 1024 2048 4096 8192 16384"
run one "-n 2" "iprobe -m 4 -i 0.02"
check one 2 1 "iprobe" "1 2 4"

"$mpirun" -n 1 "$prog" nosuchmode > "$out/bad" 2>&1
rc=$?
[ $rc = 2 ] && grep -q '^usage: .*waitall|testall|test|iprobe' "$out/bad" ||
    no "bench/progress nosuchmode: exit $rc, $(head -n 3 "$out/bad")"

if command -v mpicc.openmpi >/dev/null 2>&1; then
    mpicc.openmpi -O2 -Wall -Wextra -o "$out/progress-openmpi" "$top_srcdir/bench/progress.c" \
        > "$out/cc.txt" 2>&1 || no "bench/progress.c with Open MPI's mpicc: $(cat "$out/cc.txt")"
fi
[ $fail = 0 ] && echo "ok: bench/progress on 1, 3 and 4 ranks (2 nodes), one mode, usage; Open MPI build"
exit $fail
