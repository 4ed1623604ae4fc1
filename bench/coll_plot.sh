#!/bin/sh
# bench/coll_plot.sh — gnuplot PNG and SVG plots of bench/coll results:
# per operation and rank count, latency (avg over ranks) against message
# size, one line per MPI and algorithm (one bar each when the operation has
# no size, as barrier); per operation and size, latency
# against node count (against ranks when all runs share one node).
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
