#!/usr/bin/env bash
# compare.sh — an OSU-style benchmark (bench/pt2pt.c, or bench/progress.c
# with -b progress) built with clumpi's mpicc and with Open MPI's and MPICH's
# (when installed), run side by side on this machine, medians of several
# interleaved runs, printed as one table with ratios. A ratio above 1 means
# clumpi is better (lower time, higher bandwidth); absolute numbers vary
# from machine to machine, ratios matter.
#
# usage: bench/compare.sh [-b BENCH] [-n NP] [-N FLAGS] [-O FLAGS] [-p PEERS]
#                         [-r REPS] [-m MAXBYTES] [-i ITER_SCALE] [-R] [CLUMPI_PREFIX]
#   CLUMPI_PREFIX  where clumpi is installed (bin/mpicc, bin/mpirun);
#                  default: ./_inst (the README's build)
#   -b BENCH       bench/BENCH.c: pt2pt (default) or progress
#   -n NP          ranks (default 2); more than the cores: the peers run
#                  with --oversubscribe and unbound, as clumpi does then
#   -N FLAGS       extra clumpi mpirun flags, e.g. "--nodes 2"
#   -O FLAGS       extra Open MPI mpirun flags, e.g. "--mca btl tcp,self"
#   -p PEERS       which of "openmpi mpich" to run beside clumpi (default both)
#   -r REPS        runs of each MPI, interleaved (default 3)
#   -m MAXBYTES    largest message (default: the benchmark's, 4 MiB for pt2pt)
#   -i SCALE       scale the iteration counts (progress: the time per size)
#   -R             print each median with its range over the runs
set -euo pipefail
reps=3 max= scale=1 bench=pt2pt np=2 cflags= oflags= peers="openmpi mpich" ranges=0
while getopts "b:n:N:O:p:r:m:i:Rh" o; do
    case $o in
        b) bench=$OPTARG ;; n) np=$OPTARG ;; N) cflags=$OPTARG ;; O) oflags=$OPTARG ;;
        p) peers=$OPTARG ;; r) reps=$OPTARG ;; m) max=$OPTARG ;; i) scale=$OPTARG ;;
        R) ranges=1 ;;
        *) sed -n '2,24p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
here=$(cd "$(dirname "$0")" && pwd)
prefix=${1:-$PWD/_inst}
if [ -x "$prefix/bin/mpicc" ]; then
    cmpicc=$prefix/bin/mpicc cmpirun=$prefix/bin/mpirun
else
    echo "compare.sh: no clumpi at $prefix (give its install prefix)" >&2
    exit 2
fi
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[ -f "$here/$bench.c" ] || { echo "compare.sh: no $here/$bench.c" >&2; exit 2; }
bargs="-i $scale${max:+ -m $max}"
# Oversubscribed: Open MPI must be told, and binding would stack ranks.
obind=(--bind-to core) hbind=(-bind-to core)
if [ "$np" -gt "$(nproc)" ]; then
    obind=(--oversubscribe --bind-to none) hbind=(-bind-to none)
fi

names=() runs=()
build() { # name mpicc run-command...
    local name=$1 cc=$2
    shift 2
    if "$cc" -O2 -o "$work/$bench-$name" "$here/$bench.c" 2>"$work/$name.cc.log"; then
        names+=("$name")
        runs+=("$* $work/$bench-$name $bargs")
    else
        echo "compare.sh: building with $cc failed:" >&2
        cat "$work/$name.cc.log" >&2
        [ "$name" = clumpi ] && exit 1
    fi
}
build clumpi "$cmpicc" "$cmpirun" $cflags -n "$np"
[[ " $peers " = *" openmpi "* ]] && command -v mpicc.openmpi >/dev/null &&
    command -v mpirun.openmpi >/dev/null &&
    build openmpi mpicc.openmpi mpirun.openmpi "${root[@]}" $oflags -n "$np" "${obind[@]}"
[[ " $peers " = *" mpich "* ]] && command -v mpicc.mpich >/dev/null &&
    command -v mpiexec.mpich >/dev/null &&
    build mpich mpicc.mpich mpiexec.mpich -n "$np" "${hbind[@]}"

load0=$(cut -d' ' -f1 /proc/loadavg)
for ((r = 1; r <= reps; r++)); do
    for i in "${!names[@]}"; do
        echo "# run $r: ${runs[$i]}" >&2
        ${runs[$i]} >"$work/${names[$i]}.$r" 2>"$work/${names[$i]}.$r.err" ||
            { echo "compare.sh: ${names[$i]} run failed:" >&2; cat "$work/${names[$i]}.$r.err" >&2; exit 1; }
    done
done

echo "# bench/compare.sh: $bench, $np ranks${cflags:+ (clumpi $cflags)}${oflags:+ (openmpi $oflags)}; ${names[*]}; $reps interleaved runs each, medians; $(nproc) cores, $(uname -r), load $load0 -> $(cut -d' ' -f1 /proc/loadavg)"
# One line per (mpi, test, size, value), then medians and ratios. A test's
# header is "# name Title..." (lower-case name; "# Size" is the column line).
for n in "${names[@]}"; do
    for ((r = 1; r <= reps; r++)); do
        awk -v mpi="$n" '/^# [a-z]+ /{t=$2; next} /^[0-9]/{print mpi, t, $1, $2}' "$work/$n.$r"
    done
done | awk -v order="${names[*]}" -v ranges="$ranges" '
function sorted(key, v,   n, i, j, tmp) {
    n = cnt[key]
    for (i = 1; i <= n; i++) v[i] = vals[key, i]
    for (i = 2; i <= n; i++) { tmp = v[i]; for (j = i - 1; j >= 1 && v[j] > tmp; j--) v[j + 1] = v[j]; v[j + 1] = tmp }
    return n
}
function median(key,   n, v) {
    n = sorted(key, v)
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
# the median, with -R its range: "12.30 (11.9-14.2)"
function cell(key,   n, v) {
    if (!ranges) return sprintf("%12.2f", median(key))
    n = sorted(key, v)
    return sprintf("%28s", sprintf("%.2f (%.4g-%.4g)", median(key), v[1], v[n]))
}
{ key = $1 SUBSEP $2 SUBSEP $3; vals[key, ++cnt[key]] = $4
  if (!(($2 SUBSEP $3) in seen)) { seen[$2, $3] = 1; rows[++nrows] = $2 SUBSEP $3 } }
END {
    nm = split(order, m, " ")
    w = ranges ? 28 : 12
    hdr = sprintf("%-8s %9s %" w "s", "test", "size", m[1])
    for (k = 2; k <= nm; k++) hdr = hdr sprintf(" %" w "s %8s", m[k], "ratio")
    print hdr
    for (r = 1; r <= nrows; r++) {
        split(rows[r], ts, SUBSEP)
        rate = ts[1] == "bw" || ts[1] == "bibw"
        c = median(m[1] SUBSEP rows[r])
        line = sprintf("%-8s %9d %s", ts[1], ts[2], cell(m[1] SUBSEP rows[r]))
        for (k = 2; k <= nm; k++) {
            key = m[k] SUBSEP rows[r]
            if (!(key in cnt)) { line = line sprintf(" %" w "s %8s", "-", "-"); continue }
            o = median(key)
            ratio = rate ? (o > 0 ? c / o : 0) : (c > 0 ? o / c : 0)
            line = line sprintf(" %s %7.2fx", cell(key), ratio)
        }
        print line
    }
    print "# times in us (ratio = other / clumpi); bw, bibw: MB/s (ratio = clumpi / other); ratio > 1: clumpi better"
}'
