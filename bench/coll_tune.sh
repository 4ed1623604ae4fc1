#!/bin/sh
# bench/coll_tune.sh — the collectives' selection table from measurement,
# timed the way bench/coll times a default: every algorithm of every
# operation (bench/coll_algos.sh) runs in a job of its own, forced by
# CLUMPI_COLL_<OP>, through bench/coll's loop (its warm-up, its iteration
# counts, the slowest rank's average per call). One job forces one
# algorithm of each operation at once; a round runs as many jobs as the
# operation with the most algorithms needs, in an order that rotates round
# by round, so each algorithm is measured once per round, interleaved with
# the others. At each size the algorithm with the best median over the
# rounds becomes a row of the table (format and lookup rules:
# doc/TUNING.md); sizes between two measured ones take the nearer one's
# winner (geometric middle). Why this way: doc/PERFORMANCE.md.
#
# usage: bench/coll_tune.sh [-b BUILDDIR] [-n "2 4 8 16"] [-N "1 2"] [-o "OPS"]
#                           [-M MAX] [-f FACTOR] [-r ROUNDS] [-s SCALE%] [-t MS] [-a STAT]
#                           [-k PCT] [-q] [-d OUTDIR] [-w TABLE] [-T CSV]
#   BUILDDIR  clumpi build tree with bench/coll and src/tools/mpirun (.)
#   -n, -N    rank counts and node counts (emulated with mpirun --nodes)
#   -o        operations (default: every one bench/coll_algos.sh lists)
#   -M, -f    sizes 1 B to MAX (4 MiB) by FACTOR (2); blocks stop where all
#             ranks' blocks pass 16 MiB
#   -r, -s    rounds (4); bench/coll's iteration counts in percent (50)
#   -t        the least time of each point's timed loop, ms (20; bench/coll's
#             own default is 100, which over every algorithm and size would
#             make a run hours long)
#   -a        median (default) or best: which of an algorithm's rounds counts
#   -k        percent within which the winner of the size below keeps the
#             next size too (5): noise does not split a range
#   -q        short mode (the test's): 2 and 3 ranks, one node, up to 4 KiB,
#             factor 4, 2 rounds, 5% of the iterations, no least time
#   -d        where the CSV and the log go (bench-coll-tune)
#   -w        the table to write (OUTDIR/tuning.txt); the built-in one is
#             coll/tuning_default.txt:
#               bench/coll_tune.sh -w coll/tuning_default.txt && make
#   -T CSV    the table from an earlier run's CSV (-a, -k apply), without
#             measuring again
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/coll_algos.sh"
build=. nps="2 4 8 16" nodes="1 2" ops=$coll_tune_ops max=4194304 factor=2 rounds=4
scale=50 minms=20 outdir=bench-coll-tune table= from= keep=5 cap=16777216 stat=median
while getopts b:n:N:o:M:f:r:s:t:a:qd:w:T:k: f; do
    case $f in
    b) build=$OPTARG ;; n) nps=$OPTARG ;; N) nodes=$OPTARG ;; o) ops=$OPTARG ;;
    M) max=$OPTARG ;; f) factor=$OPTARG ;; r) rounds=$OPTARG ;; s) scale=$OPTARG ;;
    d) outdir=$OPTARG ;; w) table=$OPTARG ;; T) from=$OPTARG ;; k) keep=$OPTARG ;;
    a) stat=$OPTARG ;; t) minms=$OPTARG ;;
    q) nps="2 3" nodes=1 max=4096 factor=4 rounds=2 scale=5 minms=0 ;;
    *) sed -n '2,37p' "$0"; exit 2 ;;
    esac
done
[ "$factor" -ge 2 ] 2>/dev/null || { echo "coll_tune.sh: -f needs a factor of 2 or more" >&2; exit 2; }
case $stat in median|best) ;; *) echo "coll_tune.sh: -a is median or best" >&2; exit 2 ;; esac
mkdir -p "$outdir" || exit 1
table=${table:-$outdir/tuning.txt}
cores=$(nproc)
csv=${from:-$outdir/coll_tune.csv}
upper() { echo "$1" | tr 'a-z' 'A-Z'; }
nth() { shift $(($1 + 1)); echo "$1"; }   # nth K W0 W1 ...: W(K)
if [ -z "$from" ]; then
    sizes=1 s=1
    while [ $((s * factor)) -le "$max" ]; do s=$((s * factor)); sizes="$sizes,$s"; done
    : > "$csv"
    log=$outdir/coll_tune.log
    echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $cores cores, load before: $(cut -d' ' -f1-3 /proc/loadavg)" > "$log"
    for n in $nodes; do
        for np in $nps; do
            [ "$np" -ge "$n" ] || continue
            nflag=
            [ "$n" -gt 1 ] && nflag="--nodes $n"
            most=0
            for op in $ops; do
                k=$(coll_algos "$op" "$n" | wc -w)
                [ "$k" -gt $most ] && most=$k
            done
            echo "== $np ranks, $n node(s): load $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$log"
            r=0
            while [ $r -lt "$rounds" ]; do
                j=0
                while [ $j -lt $most ]; do
                    # job j of round r: each operation's algorithm (j + r) mod its count
                    env= list=
                    for op in $ops; do
                        # shellcheck disable=SC2046
                        set -- $(coll_algos "$op" "$n")
                        [ $j -lt $# ] || continue
                        env="$env CLUMPI_COLL_$(upper "$op")=$(nth $(((j + r) % $#)) "$@")"
                        list="$list${list:+,}$op"
                    done
                    echo "# round $((r + 1)):$env" >> "$log"
                    # shellcheck disable=SC2086
                    env $env "$build/src/tools/mpirun" -n "$np" $nflag "$build/bench/coll" \
                        -o "$list" -S "$sizes" -C $cap -s "$scale" -t "$minms" -c "$csv" >> "$log" 2>&1 ||
                        { echo "coll_tune.sh: $np ranks on $n node(s) failed; see $log" >&2
                          exit 1; }
                    j=$((j + 1))
                done
                r=$((r + 1))
            done
        done
    done
    echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$log"
fi

# The table: per op, nodes, ranks and size the fastest algorithm by its
# median (or best) round of bench/coll's slowest rank's average; runs of one
# winner merged into a range of bytes. The size is the one the library selects by: allgather's
# blocks times the ranks. A run's ranks outnumber its cores (oversub 1) when
# they pass this machine's (all emulated nodes share it).
{
    echo "# clumpi collectives' selection table (format: doc/TUNING.md)"
    echo "# measured by bench/coll_tune.sh on $(uname -n), $cores cores, $(date -u '+%Y-%m-%d')"
    # the load during each run, from the log beside the CSV
    log=$(dirname "$csv")/coll_tune.log
    [ -r "$log" ] && grep '^# [0-9l]\|^== ' "$log" | sed 's/^== /# /'
    echo "# regenerate: bench/coll_tune.sh -w FILE (doc/TUNING.md)"
    echo "# op nodes ranks oversub bytes algorithm"
    awk -F, -v stat="$stat" '$1 != "mpi" {
        k = $2 "," $4 "," $5 "," ($2 ~ /allgather$/ ? $6 * $4 : $6) "," $3
        n[k]++; t[k, n[k]] = $10
    }
    END {
        for (k in n) {   # the rounds sorted: best first
            for (i = 2; i <= n[k]; i++)
                for (j = i; j > 1 && t[k, j] < t[k, j - 1]; j--) {
                    x = t[k, j]; t[k, j] = t[k, j - 1]; t[k, j - 1] = x
                }
            m = int((n[k] + 1) / 2)
            print k "," (stat == "best" ? t[k, 1] : (t[k, m] + t[k, n[k] + 1 - m]) / 2)
        }
    }' "$csv" |
    sort -t, -k1,1 -k3,3n -k2,2n -k4,4n -k6,6g |
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
    { n++; name[n] = $5; t[n] = $6 }   # sorted fastest first
    END { finish() }'
} > "$table.tmp" && mv "$table.tmp" "$table"
echo "table: $table ($(grep -vc '^#' "$table") rows); data: $csv"
