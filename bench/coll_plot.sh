#!/bin/sh
# bench/coll_plot.sh — gnuplot PNG and SVG plots of bench/coll results
# (the best of a point's rounds): per operation and rank count, latency
# (avg over ranks) against message size, one line per MPI and algorithm
# (one bar each when the operation has no size, as barrier); per operation
# and size, latency against node count (against ranks when all runs share
# one node); per operation, clumpi's default time over the better peer's
# against message size, one line per rank count (OP-ratio), when the
# results hold a peer's runs.
#
# usage: bench/coll_plot.sh RESULTS.csv [OUTDIR]
set -eu
. "$(dirname "$0")/plot_lib.sh"
plot_init "$@"

# series: size.<op>.<ranks>/<mpi>-<algo> (bytes avg) and
#         nodes.<op>.<bytes>/<mpi>-<algo> (nodes ranks avg)
tail -n +2 "$csv" | awk -F, -v d="$tmp" '{
    s = d "/size." $2 "." $4; system("mkdir -p " s)
    print $6, $9 >> (s "/" $1 "-" $3)
    n = d "/nodes." $2 "." $6; system("mkdir -p " n)
    print $5, $4, $9 >> (n "/" $1 "-" $3)
}'
# several rounds of one point: its best (as the tables take it)
for f in "$tmp"/*/*; do
    sort -n -k1,1 -k2,2 "$f" | awk '{ k = NF == 2 ? $1 : $1 " " $2
        if (!(k in best) || $NF < best[k]) { if (!(k in best)) order[n++] = k; best[k] = $NF } }
        END { for (i = 0; i < n; i++) print order[i], best[order[i]] }' > "$f.best"
    mv "$f.best" "$f"
done
# clumpi's default over the better peer, per operation: one line per rank
# count and node count
awk -F, -f "$(dirname "$0")/coll_ratio.awk" "$csv" | awk -v d="$tmp" '$4 > 0 && $6 > 0 {
    s = d "/ratio." $1; system("mkdir -p " s)
    print $4, $5 / $6 >> (s "/np" $2 ($3 > 1 ? "-nodes" $3 : ""))
}'
for d in "$tmp"/ratio.*; do
    [ -d "$d" ] || continue
    op=${d##*/ratio.}
    for f in "$d"/*; do sort -n -o "$f" "$f"; done
    gp_plot "$out/$op-ratio" "$op: clumpi default / the better peer (below 1: clumpi faster)" \
        "bytes" "time ratio" 1 0 1 2 $(ls "$d"/* | sort -V)
done
ylab='latency (us, avg over ranks)'
nodes_max=$(tail -n +2 "$csv" | cut -d, -f5 | sort -n | tail -1)

for d in "$tmp"/size.*; do
    k=${d##*/size.}; op=${k%.*}; np=${k##*.}
    if [ "$(cat "$d"/* | awk '$1 > 0 { print; exit }')" ]; then
        gp_plot "$out/$op-size-np$np" "$op, $np ranks" "bytes" "$ylab" 1 1 1 2 "$d"/*
    else    # no sizes (barrier): one bar per MPI and algorithm
        gp_bars "$out/$op-np$np" "$op, $np ranks" "$ylab" 2 "$d"/*
    fi
done
for d in "$tmp"/nodes.*; do
    k=${d##*/nodes.}; op=${k%.*}; b=${k##*.}
    if [ "$nodes_max" -gt 1 ]; then
        gp_plot "$out/$op-nodes-$b" "$op, $b bytes" "nodes" "$ylab" 0 1 1 3 "$d"/*
    else
        gp_plot "$out/$op-ranks-$b" "$op, $b bytes (one node)" "ranks" "$ylab" 0 1 2 3 "$d"/*
    fi
done
echo "plots in $out"
