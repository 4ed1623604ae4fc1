#!/bin/sh
# bench/coll_plot.sh — gnuplot PNG and SVG plots of bench/coll results:
# per operation and rank count, latency (avg over ranks) against message
# size, one line per MPI and algorithm; per operation and size, latency
# against node count (against ranks when all runs share one node).
#
# usage: bench/coll_plot.sh RESULTS.csv [OUTDIR]
set -eu
csv=$1
out=${2:-$(dirname "$csv")/plots}
mkdir -p "$out"
command -v gnuplot >/dev/null || { echo "gnuplot not found" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# series: size.<op>.<ranks>/<mpi>-<algo> (bytes avg) and
#         nodes.<op>.<bytes>/<mpi>-<algo> (nodes ranks avg)
tail -n +2 "$csv" | awk -F, -v d="$tmp" '{
    s = d "/size." $2 "." $4; system("mkdir -p " s)
    print $6, $9 >> (s "/" $1 "-" $3)
    n = d "/nodes." $2 "." $6; system("mkdir -p " n)
    print $5, $4, $9 >> (n "/" $1 "-" $3)
}'
nodes_max=$(tail -n +2 "$csv" | cut -d, -f5 | sort -n | tail -1)

plot() {  # plot OUTBASE TITLE XLABEL LOGX XCOL YCOL DIR
    for term in png svg; do
        if [ $term = png ]; then t="pngcairo size 900,600"; else t="svg size 900,600"; fi
        {
            echo "set terminal $t"
            echo "set output '$1.$term'"
            echo "set title '$2'"
            echo "set xlabel '$3'"
            echo "set ylabel 'latency (us, avg over ranks)'"
            [ "$4" = 1 ] && echo "set logscale x 2"
            echo "set logscale y"
            echo "set key left top"
            echo "set grid"
            printf "plot "
            sep=
            for f in "$7"/*; do
                printf "%s'%s' using %s:%s with linespoints title '%s'" "$sep" "$f" "$5" "$6" \
                    "$(basename "$f")"
                sep=", "
            done
            echo
        } > "$tmp/plot.gp"
        gnuplot "$tmp/plot.gp"
    done
}
for d in "$tmp"/size.*; do
    k=${d##*/size.}; op=${k%.*}; np=${k##*.}
    plot "$out/$op-size-np$np" "$op, $np ranks" "bytes" 1 1 2 "$d"
done
for d in "$tmp"/nodes.*; do
    k=${d##*/nodes.}; op=${k%.*}; b=${k##*.}
    if [ "$nodes_max" -gt 1 ]; then
        plot "$out/$op-nodes-$b" "$op, $b bytes" "nodes" 0 1 3 "$d"
    else
        plot "$out/$op-ranks-$b" "$op, $b bytes (one node)" "ranks" 0 2 3 "$d"
    fi
done
echo "plots in $out"
