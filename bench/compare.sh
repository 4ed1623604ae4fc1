#!/usr/bin/env bash
# compare.sh — bench/pt2pt.c built with clumpi's mpicc and with Open MPI's and
# MPICH's (when installed), run side by side on this machine (2 ranks, one
# node), medians of several interleaved runs, printed as one table with
# ratios. A ratio above 1 means clumpi is better (lower latency, higher
# bandwidth); absolute numbers vary from machine to machine, ratios matter.
#
# usage: bench/compare.sh [-r REPS] [-m MAXBYTES] [-i ITER_SCALE] [CLUMPI_PREFIX]
#   CLUMPI_PREFIX  where clumpi is installed (bin/mpicc, bin/mpirun);
#                  default: ./_inst (the README's build), else mpicc on PATH
#   -r REPS        runs of each MPI, interleaved (default 3)
#   -m MAXBYTES    largest message (default 4194304)
#   -i SCALE       scale the iteration counts (default 1)
set -euo pipefail
reps=3 max=4194304 scale=1
while getopts "r:m:i:h" o; do
    case $o in
        r) reps=$OPTARG ;; m) max=$OPTARG ;; i) scale=$OPTARG ;;
        *) sed -n '2,16p' "$0"; exit 2 ;;
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

names=() runs=()
build() { # name mpicc run-command...
    local name=$1 cc=$2
    shift 2
    if "$cc" -O2 -o "$work/pt2pt-$name" "$here/pt2pt.c" 2>"$work/$name.cc.log"; then
        names+=("$name")
        runs+=("$* $work/pt2pt-$name -m $max -i $scale")
    else
        echo "compare.sh: building with $cc failed:" >&2
        cat "$work/$name.cc.log" >&2
        [ "$name" = clumpi ] && exit 1
    fi
}
build clumpi "$cmpicc" "$cmpirun" -n 2
command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null &&
    build openmpi mpicc.openmpi mpirun.openmpi "${root[@]}" -n 2 --bind-to core
command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null &&
    build mpich mpicc.mpich mpiexec.mpich -n 2 -bind-to core

echo "# bench/compare.sh: ${names[*]}; $reps interleaved runs each, medians; $(nproc) cores, $(uname -r)"
for ((r = 1; r <= reps; r++)); do
    for i in "${!names[@]}"; do
        echo "# run $r: ${runs[$i]}" >&2
        ${runs[$i]} >"$work/${names[$i]}.$r" 2>"$work/${names[$i]}.$r.err" ||
            { echo "compare.sh: ${names[$i]} run failed:" >&2; cat "$work/${names[$i]}.$r.err" >&2; exit 1; }
    done
done

# One line per (mpi, test, size, value), then medians and ratios.
for n in "${names[@]}"; do
    for ((r = 1; r <= reps; r++)); do
        awk -v mpi="$n" '/^# (lat|bw|bibw) /{t=$2; next} /^[0-9]/{print mpi, t, $1, $2}' "$work/$n.$r"
    done
done | awk -v order="${names[*]}" '
function median(key,   n, i, j, v, tmp) {
    n = cnt[key]
    for (i = 1; i <= n; i++) v[i] = vals[key, i]
    for (i = 2; i <= n; i++) { tmp = v[i]; for (j = i - 1; j >= 1 && v[j] > tmp; j--) v[j + 1] = v[j]; v[j + 1] = tmp }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
{ key = $1 SUBSEP $2 SUBSEP $3; vals[key, ++cnt[key]] = $4
  if (!(($2 SUBSEP $3) in seen)) { seen[$2, $3] = 1; rows[++nrows] = $2 SUBSEP $3 } }
END {
    nm = split(order, m, " ")
    hdr = sprintf("%-5s %9s %12s", "test", "size", m[1])
    for (k = 2; k <= nm; k++) hdr = hdr sprintf(" %12s %8s", m[k], "ratio")
    print hdr
    for (r = 1; r <= nrows; r++) {
        split(rows[r], ts, SUBSEP)
        c = median(m[1] SUBSEP rows[r])
        line = sprintf("%-5s %9d %12.2f", ts[1], ts[2], c)
        for (k = 2; k <= nm; k++) {
            key = m[k] SUBSEP rows[r]
            if (!(key in cnt)) { line = line sprintf(" %12s %8s", "-", "-"); continue }
            o = median(key)
            ratio = ts[1] == "lat" ? (c > 0 ? o / c : 0) : (o > 0 ? c / o : 0)
            line = line sprintf(" %12.2f %7.2fx", o, ratio)
        }
        print line
    }
    print "# lat: one-way latency in us (ratio = other / clumpi); bw, bibw: MB/s (ratio = clumpi / other); ratio > 1: clumpi better"
}'
