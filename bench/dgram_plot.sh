#!/bin/sh
# bench/dgram_plot.sh — summary and plots of a bench/dgram_run.sh grid:
# medians and minimums over rounds per (benchmark, nodes, configuration,
# size) in OUTDIR/medians.csv (with a header line); OUTDIR/summary.txt with
# tables per benchmark and node count (a column per configuration; medians,
# then minimums) and the ratio of the dgram transport (ack 6, 0% loss) to
# the reliable one; PNG and SVG per benchmark and node count: against size
# per loss rate (ack 6, and reliable) and per ack interval (the loss rates
# measured at more than one), and, for grids of few sizes (dgram_run.sh
# -S), against the loss rate and against the ack interval, a line per size.
#
# usage: bench/dgram_plot.sh RESULTS.csv [OUTDIR]   (default: the results' folder/plots)
# A grid run in pieces (dgram_run.sh -f numbers their rounds apart): join
# their CSVs first, every header line but the first dropped.
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
    echo "# medians (and then minimums) over $(cut -d, -f9 "$med" | sort -n |
        awk '{ v[NR] = $1 } END { printf v[1] == v[NR] ? "%s" : "%s-%s", v[1], v[NR] }')" \
        "rounds per point; load at the start of each layout $(tail -n +2 "$csv" | cut -d, -f10 | sort -g |
        awk '{ v[NR] = $1 } END { if (NR) printf "%s-%s", v[1], v[NR] }')"
    for b in lat bw bcast allreduce; do
        for n in $(awk -F, -v b=$b '$1 == b { print $2 }' "$med" | sort -nu); do
          for col in 7 8; do
            echo
            what=median; [ $col = 8 ] && what=minimum
            echo "## $b ($(unit $b)), $n nodes, $what"
            awk -F, -v b=$b -v n=$n -v col=$col '
                $1 == b && $2 == n {
                    if (!($3 in seen)) { seen[$3] = 1; cols[++nc] = $3 }
                    if (!($6 in sz)) { sz[$6] = 1; rows[++nr] = $6 }
                    v[$3, $6] = $col
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
    done
} > "$sum"
# the medians as CSV, with a header line (sorted in place; the awk above
# skipped it as no benchmark's)
sed -i '1i bench,nodes,config,ack,loss,bytes,median,min,rounds' "$med"

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

# against the loss rate (ack 6) and the ack interval (each loss rate
# measured at several), a line per size; only for grids of at most 6 sizes
# (-S), where a line per size stays readable. The x axis is ordinal: loss 0
# has no place on a log scale.
for b in lat bw bcast allreduce; do
    for n in $(awk -F, -v b=$b '$1 == b { print $2 }' "$med" | sort -nu); do
        nsz=$(awk -F, -v b=$b -v n=$n '$1 == b && $2 == n { print $6 }' "$med" | sort -u | wc -l)
        [ "$nsz" -le 6 ] || continue
        ly=1; [ $b = bw ] && ly=0
        files=
        for s in $(awk -F, -v b=$b -v n=$n '$1 == b && $2 == n { print $6 }' "$med" | sort -nu); do
            # reliable first, then dgram (sack, NI-level: dgram-aACK-lLOSS) by loss
            awk -F, -v b=$b -v n=$n -v s=$s '
                $1 == b && $2 == n && $6 == s && $3 == "reliable" { print -1, $7 }
                $1 == b && $2 == n && $6 == s && $4 == 6 && $3 ~ /^dgram-a[0-9]+-l/ { print $5 + 0, $7 }' \
                "$med" | sort -g |
                awk '{ printf "%d %s %s\n", NR - 1, $1 < 0 ? "reliable" : $1 * 100 "%", $2 }' \
                > "$tmp/${s}B"
            [ -s "$tmp/${s}B" ] && files="$files $tmp/${s}B"
        done
        [ -n "$files" ] && gp_plot "$out/dgram-$b-n$n-vsloss" \
            "$b, $n nodes, against loss (ack every 6)" "loss" "$(unit $b)" 0 $ly 1 "3:xtic(2)" $files
        rm -f "$tmp"/*
        files=
        for c in $(awk -F, -v b=$b -v n=$n '$1 == b && $2 == n && $3 ~ /^dgram-a[0-9]+-l/ {
                       print $6 "," $5 }' "$med" |
                   sort -t, -k1,1n -k2,2g -u); do
            s=${c%,*} l=${c#*,}
            f=$tmp/${s}B-loss$(awk -v l="$l" 'BEGIN { print l * 100 }')%
            awk -F, -v b=$b -v n=$n -v s=$s -v l=$l '
                $1 == b && $2 == n && $6 == s && $5 == l && $3 ~ /^dgram-a[0-9]+-l/ {
                    print $4, $7 }' "$med" |
                sort -n > "$f"
            [ "$(wc -l < "$f")" -gt 1 ] && files="$files $f"
        done
        [ -n "$files" ] && gp_plot "$out/dgram-$b-n$n-vsack" \
            "$b, $n nodes, against the explicit-ack interval" "ack every N datagrams" \
            "$(unit $b)" 0 $ly 1 2 $files
        rm -f "$tmp"/*
    done
done
echo "$sum, $med, plots in $out"
