#!/bin/sh
# bench/coll_run.sh — the collective matrix side by side: bench/coll run by
# clumpi's default (and with -a every algorithm, forced through
# CLUMPI_COLL_<OP>), then the same program built with Open MPI's and MPICH's
# mpicc, interleaved round by round, for each rank count on one node and on
# emulated nodes (clumpi only: the peers have no emulated nodes, so their
# one-node times stand beside those rows). Writes OUTDIR/coll.csv (one row per
# mpi, op, algorithm, ranks, nodes, size and round) and OUTDIR/table.md: per
# point clumpi's default time / the better peer's (below 1: clumpi faster),
# the best of the rounds of each (slowest rank's average).
#
# usage: bench/coll_run.sh [-b BUILDDIR] [-n "2 4 8 16"] [-N "1 2"] [-o "OPS"]
#                          [-S "8 1024 65536 1048576"] [-r ROUNDS] [-s SCALE%]
#                          [-t MS] [-p "openmpi mpich"] [-a] [-R TABLE] [-d OUTDIR]
#                          [-T CSV]
# -R TABLE: clumpi also runs with CLUMPI_COLL_TUNING=TABLE (labelled
# clumpi-alt), right after each default run, and table.md gains a second
# table: the default's time over that run's (an A/B of a selection table;
# an empty file is the rules alone).
# BUILDDIR: clumpi build tree (default .); needs bench/coll and
# src/tools/mpirun built there (make bench/coll). -T CSV: the table of an
# earlier run only. -s, -t: bench/coll's iteration counts in percent (30) and
# the least time of each point's timed loop (100 ms). Plots:
# bench/coll_plot.sh OUTDIR/coll.csv.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/coll_algos.sh"
build=. nps="2 4 8 16" nodes="1 2" rounds=3 scale=30 minms=100 peers="openmpi mpich" all=0 from=
ops="allreduce reduce bcast allgather alltoall gather scatter reduce_scatter barrier"
sizes="8 1024 65536 1048576" outdir=bench-coll-results alt=
while getopts b:n:N:o:S:r:s:t:p:aR:d:T: f; do
    case $f in
    b) build=$OPTARG ;; n) nps=$OPTARG ;; N) nodes=$OPTARG ;; o) ops=$OPTARG ;;
    S) sizes=$OPTARG ;; r) rounds=$OPTARG ;; s) scale=$OPTARG ;; t) minms=$OPTARG ;;
    p) peers=$OPTARG ;;
    a) all=1 ;; R) alt=$OPTARG ;; d) outdir=$OPTARG ;; T) from=$OPTARG ;;
    *) sed -n '2,24p' "$0"; exit 2 ;;
    esac
done
mkdir -p "$outdir" || exit 1
csv=${from:-$outdir/coll.csv}
table=$outdir/table.md
upper() { echo "$1" | tr 'a-z' 'A-Z'; }
list=$(echo $sizes | tr ' ' ,)
oplist=$(echo $ops | tr ' ' ,)

if [ -z "$from" ]; then
    : > "$csv"
    have=
    for m in $peers; do   # the peers: same source, their mpicc
        if command -v "mpicc.$m" >/dev/null 2>&1 &&
           "mpicc.$m" -O2 -o "$outdir/coll-$m" "$here/coll.c"; then
            have="$have $m"
        else
            echo "coll_run.sh: no $m build; its column stays empty" >&2
        fi
    done
    a="-S $list -s $scale -t $minms -c $csv"
    for r in $(seq "$rounds"); do
        for n in $nodes; do
            for np in $nps; do
                [ "$np" -ge "$n" ] || continue
                nflag=
                [ "$n" -gt 1 ] && nflag="--nodes $n"
                echo "== round $r: $np ranks, $n node(s), load $(cut -d' ' -f1 /proc/loadavg)"
                # shellcheck disable=SC2086
                "$build/src/tools/mpirun" -n "$np" $nflag "$build/bench/coll" -o "$oplist" $a \
                    > /dev/null
                if [ -n "$alt" ]; then
                    # shellcheck disable=SC2086
                    "$build/src/tools/mpirun" -n "$np" $nflag -genv CLUMPI_COLL_TUNING "$alt" \
                        "$build/bench/coll" -o "$oplist" $a -l clumpi-alt > /dev/null
                fi
                if [ $all = 1 ]; then
                    for op in $ops; do
                        for alg in $(coll_algos "$op" "$n"); do
                            # shellcheck disable=SC2086
                            "$build/src/tools/mpirun" -n "$np" $nflag \
                                -genv "CLUMPI_COLL_$(upper "$op")" "$alg" \
                                "$build/bench/coll" -o "$op" $a > /dev/null
                        done
                    done
                fi
                [ "$n" -gt 1 ] && continue
                for m in $have; do
                    case $m in
                    openmpi) run="mpirun.openmpi --allow-run-as-root --oversubscribe" ;;
                    *) run="mpirun.$m" ;;
                    esac
                    # shellcheck disable=SC2086
                    $run -n "$np" "$outdir/coll-$m" -o "$oplist" $a -l "$m" > /dev/null ||
                        echo "coll_run.sh: $m, $np ranks: exit $?" >&2
                done
            done
        done
    done
fi

# The table: best of the rounds (avg_us) per mpi, op, algorithm, ranks,
# nodes, bytes; the peers' one-node times stand for every node count.
awk -F, -v peers="$peers" -f "$here/coll_ratio.awk" "$csv" | awk -v peers="$peers" '
    {
        p = $3 SUBSEP $2 SUBSEP $1
        if (!(p in seen)) { seen[p] = 1; pts[++np_] = p }
        if ($1 != "barrier" && !($4 in szseen)) { szseen[$4] = 1; sz[++ns] = $4 + 0 }
        c[p SUBSEP $4] = $5; pv[p SUBSEP $4] = $6; pn[p SUBSEP $4] = $7
    }
    END {
        for (i = 1; i <= ns; i++) for (j = i + 1; j <= ns; j++)
            if (sz[j] < sz[i]) { t = sz[i]; sz[i] = sz[j]; sz[j] = t }
        printf "clumpi default / the better of %s (best of the rounds, slowest rank'"'"'s\n", peers
        printf "average; below 1: clumpi faster). Cells: ratio (clumpi µs / peer µs, peer).\n\n"
        printf "| nodes | ranks | op |"
        for (i = 1; i <= ns; i++)
            printf " %s |", (sz[i] >= 1048576 ? sz[i] / 1048576 " MiB" : sz[i] >= 1024 ? sz[i] / 1024 " KiB" : sz[i] " B")
        printf "\n|---|---|---|"
        for (i = 1; i <= ns; i++) printf "---|"
        printf "\n"
        # points in order: nodes, ranks, op as listed
        for (a = 1; a <= np_; a++) for (b = a + 1; b <= np_; b++) {
            split(pts[a], x, SUBSEP); split(pts[b], y, SUBSEP)
            if (x[1] + 0 > y[1] + 0 || (x[1] == y[1] && x[2] + 0 > y[2] + 0)) {
                t = pts[a]; pts[a] = pts[b]; pts[b] = t
            }
        }
        for (a = 1; a <= np_; a++) {
            split(pts[a], x, SUBSEP)
            printf "| %s | %s | %s |", x[1], x[2], x[3]
            for (i = 1; i <= ns; i++) {
                k = pts[a] SUBSEP (x[3] == "barrier" ? 0 : sz[i])
                if (!(k in c) || (x[3] == "barrier" && i > 1)) { printf " |"; continue }
                if (pv[k] <= 0) printf " %.3g µs |", c[k]
                else {
                    mark = (c[k] > pv[k]) ? "**" : ""
                    printf " %s%.2f%s (%.3g / %.3g, %s) |", mark, c[k] / pv[k], mark, c[k], pv[k], pn[k]
                }
            }
            printf "\n"
        }
    }' > "$table"
# The A/B (-R): the default's best over clumpi-alt's best, per point.
if grep -q '^clumpi-alt,' "$csv"; then
    awk -F, '
        NF >= 10 && ($1 == "clumpi" || $1 == "clumpi-alt") && $3 == "default" {
            k = $1 SUBSEP $5 SUBSEP $4 SUBSEP $2 SUBSEP $6
            if (!(k in best) || $9 + 0 < best[k]) best[k] = $9 + 0
            p = $5 SUBSEP $4 SUBSEP $2 SUBSEP $6
            if ($1 == "clumpi" && !(p in seen)) { seen[p] = 1; pts[++n] = p }
        }
        END {
            printf "\nclumpi default / clumpi with the -R table (best of the rounds; below 1: the default faster)\n\n"
            printf "| nodes | ranks | op | bytes | default µs | -R µs | ratio |\n|---|---|---|---|---|---|---|\n"
            for (i = 1; i <= n; i++) {
                a = "clumpi" SUBSEP pts[i]; b = "clumpi-alt" SUBSEP pts[i]
                if (!(b in best) || best[b] <= 0) continue
                split(pts[i], x, SUBSEP); r = best[a] / best[b]
                g += log(r); m++
                printf "| %s | %s | %s | %s | %.3g | %.3g | %s%.2f%s |\n", x[1], x[2], x[3], x[4],
                       best[a], best[b], (r > 1.1) ? "**" : "", r, (r > 1.1) ? "**" : ""
            }
            if (m) printf "\ngeometric mean of %d points: %.3f\n", m, exp(g / m)
        }' "$csv" >> "$table"
fi
cat "$table"
echo "results: $csv, $table (plots: $here/coll_plot.sh $csv)"
