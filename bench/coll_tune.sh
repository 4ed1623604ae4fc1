#!/bin/sh
# bench/coll_tune.sh — the collectives' selection table from measurement:
# bench/coll_tune times every algorithm of every operation (bench/coll_algos.sh)
# against the others, interleaved, for each rank count on one node and on
# emulated nodes; the fastest (minimum over rounds) at each size becomes a
# row of the table (format and lookup rules: doc/TUNING.md). Sizes between
# two measured ones take the nearer one's winner (geometric middle).
#
# usage: bench/coll_tune.sh [-b BUILDDIR] [-n "2 4 8 16"] [-N "1 2"] [-o "OPS"]
#                           [-M MAX] [-r ROUNDS] [-t MS] [-q] [-d OUTDIR] [-w TABLE]
#   BUILDDIR  clumpi build tree with bench/coll_tune and src/tools/mpirun (.)
#   -n, -N    rank counts and node counts (emulated with mpirun --nodes)
#   -o        operations (default: every one bench/coll_algos.sh lists)
#   -M, -r, -t  largest size (4 MiB), rounds (5), milliseconds per timing (4)
#   -k        percent within which the winner of the size below keeps the
#             next size too (5): noise does not split a range
#   -q        short mode (the test's): 2 and 3 ranks, one node, up to 4 KiB, 2 rounds
#   -d        where the CSV and the log go (bench-coll-tune)
#   -w        the table to write (OUTDIR/tuning.txt); the built-in one is
#             coll/tuning_default.txt:
#               bench/coll_tune.sh -w coll/tuning_default.txt && make
# A CSV of an earlier run is turned into a table without measuring again:
#   bench/coll_tune.sh -T OUTDIR/coll_tune.csv -w TABLE
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/coll_algos.sh"
build=. nps="2 4 8 16" nodes="1 2" ops=$coll_tune_ops max=4194304 rounds=5 ms=4
outdir=bench-coll-tune table= from= keep=5
while getopts b:n:N:o:M:r:t:qd:w:T:k: f; do
    case $f in
    b) build=$OPTARG ;; n) nps=$OPTARG ;; N) nodes=$OPTARG ;; o) ops=$OPTARG ;;
    M) max=$OPTARG ;; r) rounds=$OPTARG ;; t) ms=$OPTARG ;; d) outdir=$OPTARG ;;
    w) table=$OPTARG ;; T) from=$OPTARG ;; k) keep=$OPTARG ;;
    q) nps="2 3" nodes=1 max=4096 rounds=2 ms=1 ;;
    *) sed -n '2,22p' "$0"; exit 2 ;;
    esac
done
mkdir -p "$outdir" || exit 1
table=${table:-$outdir/tuning.txt}
cores=$(nproc)
csv=${from:-$outdir/coll_tune.csv}
if [ -z "$from" ]; then
    : > "$csv"
    log=$outdir/coll_tune.log
    echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $cores cores, load before: $(cut -d' ' -f1-3 /proc/loadavg)" > "$log"
    for n in $nodes; do
        for np in $nps; do
            [ "$np" -ge "$n" ] || continue
            args=
            for op in $ops; do
                args="$args -o $op:$(coll_algos "$op" "$n" | tr ' ' ',')"
            done
            nflag=
            [ "$n" -gt 1 ] && nflag="--nodes $n"
            echo "== $np ranks, $n node(s): load $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$log"
            # shellcheck disable=SC2086
            "$build/src/tools/mpirun" -n "$np" $nflag "$build/bench/coll_tune" $args \
                -M "$max" -r "$rounds" -t "$ms" -c "$csv" >> "$log" 2>&1 ||
                { echo "coll_tune.sh: $np ranks on $n node(s) failed; see $log" >&2; exit 1; }
        done
    done
    echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$log"
fi

# The table: per op, nodes, ranks and size the fastest algorithm; runs of
# one winner merged into a range of bytes. A run's ranks outnumber its
# cores (oversub 1) when they pass this machine's (all emulated nodes share it).
{
    echo "# clumpi collectives' selection table (format: doc/TUNING.md)"
    echo "# measured by bench/coll_tune.sh on $(uname -n), $cores cores, $(date -u '+%Y-%m-%d')"
    # the load during each run, from the log beside the CSV
    log=$(dirname "$csv")/coll_tune.log
    [ -r "$log" ] && grep '^# \|^== ' "$log" | sed 's/^== /# /'
    echo "# regenerate: bench/coll_tune.sh -w FILE (doc/TUNING.md)"
    echo "# op nodes ranks oversub bytes algorithm"
    tail -n +2 "$csv" | grep -v '^op,' | sort -t, -k1,1 -k3,3n -k2,2n -k4,4n -k7,7g |
    awk -F, -v cores="$cores" -v keep="$keep" '
    function emit(lo, hi, algo) {
        printf "%s %d %d %d %d-%s %s\n", op, nodes, ranks, (ranks > cores), lo, hi, algo
    }
    function finish() { size_done(); if (algo != "") emit(lo, "", algo); algo = ""; n = 0 }
    # a size measured: its fastest wins, unless the winner of the size before
    # is within keep percent of it (noise should not split a range)
    function size_done(   w, i) {
        if (n == 0) return
        w = name[1]
        for (i = 1; i <= n; i++)
            if (name[i] == algo && t[i] <= t[1] * (1 + keep / 100)) w = algo
        if (algo == "") { algo = w; lo = 0 }
        else if (w != algo) { b = int(sqrt(last * size)); emit(lo, b, algo); algo = w; lo = b + 1 }
        last = size; n = 0
    }
    $1 "," $2 "," $3 != group { finish(); group = $1 "," $2 "," $3; op = $1; ranks = $2; nodes = $3 }
    $4 != size { size_done(); size = $4 }
    { n++; name[n] = $5; t[n] = $7 }   # sorted fastest first
    END { finish() }'
} > "$table.tmp" && mv "$table.tmp" "$table"
echo "table: $table ($(grep -vc '^#' "$table") rows); data: $csv"
