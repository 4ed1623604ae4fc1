#!/bin/sh
# bench/dgram_plot.sh — summary and plots of a bench/dgram_run.sh grid:
# medians over rounds per (benchmark, nodes, configuration, size) in
# OUTDIR/medians.csv; OUTDIR/summary.txt with one table per benchmark and
# node count (a column per configuration) and the ratio of the dgram
# transport (ack 6, 0% loss) to the reliable one; PNG and SVG per benchmark
# and node count: against loss (ack 6, and reliable) and against the ack
# interval (the loss rates measured at more than one).
#
# usage: bench/dgram_plot.sh RESULTS.csv [OUTDIR]   (default: the results' folder/plots)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/plot_lib.sh"
plot_init "$@"
med=$out/medians.csv sum=$out/summary.txt

# medians (and minimums) over rounds: bench,nodes,config,ack,loss,bytes,median,min,n
tail -n +2 "$csv" | sort -t, -k7,7 -k2,2n -k3,3 -k8,8n -k9,9g |
    awk -F, '{ k = $7 "," $2 "," $3 "," $5 "," $6 "," $8 }
             k != prev { if (n) out(); prev = k; n = 0 }
             { v[n++] = $9 }
             END { if (n) out() }
             function out(  m) {
                 m = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
                 printf "%s,%g,%g,%d\n", prev, m, v[0], n
             }' > "$med"

unit() { case $1 in bw) echo "MB/s" ;; *) echo "us" ;; esac; }
{
    echo "# medians over $(tail -n +2 "$csv" | cut -d, -f1 | sort -u | wc -l) rounds; load" \
        "at the start of each layout $(tail -n +2 "$csv" | cut -d, -f10 | sort -g |
        awk '{ v[NR] = $1 } END { if (NR) printf "%s-%s", v[1], v[NR] }')"
    for b in lat bw bcast allreduce; do
        for n in $(awk -F, -v b=$b '$1 == b { print $2 }' "$med" | sort -nu); do
            echo
            echo "## $b ($(unit $b)), $n nodes"
            awk -F, -v b=$b -v n=$n '
                $1 == b && $2 == n {
                    if (!($3 in seen)) { seen[$3] = 1; cols[++nc] = $3 }
                    if (!($6 in sz)) { sz[$6] = 1; rows[++nr] = $6 }
                    v[$3, $6] = $7
                }
                END {
                    printf "%-9s", "bytes"
                    for (c = 1; c <= nc; c++) printf " %16s", cols[c]
                    ratio = ("reliable" in seen) && ("dgram-a6-l0" in seen)
                    if (ratio) printf " %9s", "dgram/rel"
                    printf "\n"
                    for (r = 1; r <= nr; r++) {
                        s = rows[r]; printf "%-9s", s
                        for (c = 1; c <= nc; c++)
                            printf " %16s", ((cols[c], s) in v) ? sprintf("%.4g", v[cols[c], s]) : "-"
                        if (ratio && v["reliable", s] > 0)
                            printf " %9.2f", v["dgram-a6-l0", s] / v["reliable", s]
                        printf "\n"
                    }
                }' "$med"
        done
    done
} > "$sum"

# series files: one per configuration, "bytes median" lines
series() { # bench nodes config -> file name
    f=$tmp/$3
    awk -F, -v b="$1" -v n="$2" -v c="$3" '$1 == b && $2 == n && $3 == c { print $6, $7 }' \
        "$med" > "$f"
    [ -s "$f" ] && echo "$f"
}
for b in lat bw bcast allreduce; do
    for n in $(awk -F, -v b=$b '$1 == b { print $2 }' "$med" | sort -nu); do
        ly=1; [ $b = bw ] && ly=0
        files=
        for c in reliable $(awk -F, -v b=$b -v n=$n '$1 == b && $2 == n && $4 == 6 { print $5, $3 }' \
                            "$med" | sort -u | sort -g | cut -d' ' -f2); do
            files="$files $(series $b $n $c)"
        done
        [ -n "${files# }" ] && gp_plot "$out/dgram-$b-n$n-loss" "$b, $n nodes: loss (ack every 6)" \
            bytes "$(unit $b)" 1 $ly 1 2 $files
        rm -f "$tmp"/*
        files=
        # the loss rates measured at more than one ack interval
        for c in $(awk -F, -v b=$b -v n=$n '$1 == b && $2 == n && $4 != "-" {
                           if (!(($5, $4) in seen)) { seen[$5, $4] = 1; k[$5]++ }
                           cfg[$3] = $5 }
                       END { for (c in cfg) if (k[cfg[c]] > 1) print c }' "$med" | sort); do
            files="$files $(series $b $n $c)"
        done
        [ -n "${files# }" ] && gp_plot "$out/dgram-$b-n$n-ack" "$b, $n nodes: ack interval" \
            bytes "$(unit $b)" 1 $ly 1 2 $files
        rm -f "$tmp"/*
    done
done
echo "$sum, $med, plots in $out"
