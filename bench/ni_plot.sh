#!/bin/sh
# bench/ni_plot.sh — medians, a summary table and gnuplot PNG/SVG plots of
# bench/ni results (bench/ni_run.sh): repeated runs (rounds) of a
# configuration are reduced to their median. Writes, in OUTDIR:
#   ni-median.csv   the input's columns, one row per label, pattern, layout,
#                   size and poll interval (the run with the median value)
#   summary.txt     per layout, pattern and size: every label side by side
#                   (us; MB/s for tput)
#   <pattern>-n<nodes>x<ppn>[-poll<X>].png/.svg
#                   against message size, one line per label: lat (latency
#                   to the last receiver), tput (MB/s at the root), asp (us
#                   per row, receivers computing), qr (us per iteration),
#                   allreduce (us per call)
#   lat16-ppn<P>, tput<max>-ppn<P>
#                   16-byte latency and largest-size throughput against the
#                   number of nodes (Verstoep et al. quote 16 bytes on 64 nodes)
# Rows of another MPI (bench/ni_run.sh -o: one node) join every layout with
# as many ranks.
#
# usage: bench/ni_plot.sh RESULTS.csv [OUTDIR]
set -eu
. "$(dirname "$0")/plot_lib.sh"
plot_init "$@"

# columns: 1 mpi 2 label 3 net 4 bcast 5 allreduce 6 pattern 7 ranks 8 nodes
# 9 ppn 10 bytes 11 poll_us 12 compute_us 13 iters 14 value_us 15 aux_us 16 mbps
med=$out/ni-median.csv
head -n 1 "$csv" > "$med"
tail -n +2 "$csv" | sort -t, -k2,2 -k6,6 -k7,7n -k8,8n -k10,10n -k11,11n -k14,14n | awk -F, '
    function flush() { if (n) print row[int((n + 1) / 2)]; n = 0 }
    { k = $2 FS $6 FS $7 FS $8 FS $10 FS $11
      if (k != last) flush()
      last = k; row[++n] = $0 }
    END { flush() }' >> "$med"

# the labels in order of first appearance, and the clumpi layouts
labels=$(tail -n +2 "$csv" | cut -d, -f2 | awk '!seen[$0]++')
layouts=$(tail -n +2 "$med" | awk -F, '$1 == "clumpi" { print $8, $9 }' | sort -k1,1n -k2,2n -u)

# series files: DIR/<label>, "x y" rows sorted by x
series() {  # series PLOTDIR XCOL YCOL AWK-CONDITION
    mkdir -p "$tmp/$1"
    tail -n +2 "$med" | awk -F, -v d="$tmp/$1" -v xc="$2" -v yc="$3" "$4"' {
        f = d "/" $2; print $xc, $yc > f }'
    for f in "$tmp/$1"/*; do
        [ -f "$f" ] && sort -n -o "$f" "$f"
    done
    ls "$tmp/$1"/* >/dev/null 2>&1
}
# rows of layout N x P: clumpi with those nodes and ranks per node, or
# another MPI with as many ranks
in_layout() { echo "((\$1 == \"clumpi\" && \$8 == $1 && \$9 == $2) || (\$1 != \"clumpi\" && \$7 == $1 * $2))"; }

ylab_of() {
    case $1 in
    lat) echo "latency to the last receiver (us)" ;;
    tput) echo "throughput at the root (MB/s)" ;;
    asp) echo "time per row until every receiver is done (us)" ;;
    qr) echo "time per iteration, slowest rank (us)" ;;
    allreduce) echo "allreduce latency, slowest rank (us)" ;;
    esac
}

echo "$layouts" | while read -r n p; do
    [ -n "$n" ] || continue
    for pat in lat tput qr allreduce; do
        ycol=14; [ $pat = tput ] && ycol=16
        d=$pat-n${n}x$p
        series "$d" 10 $ycol "$(in_layout "$n" "$p") && \$6 == \"$pat\"" || continue
        gp_plot "$out/$d" "$pat, $n nodes x $p ranks" "bytes" "$(ylab_of "$pat")" 1 1 1 2 \
            "$tmp/$d"/*
    done
    for x in $(tail -n +2 "$med" | awk -F, '$6 == "asp" { print $11 }' | sort -n -u); do
        c=$(tail -n +2 "$med" | awk -F, '$6 == "asp" { print $12; exit }')
        d=asp-n${n}x$p-poll$x
        series "$d" 10 14 "$(in_layout "$n" "$p") && \$6 == \"asp\" && \$11 == $x" || continue
        when="every $x us"; [ "$x" = 0 ] && when="never"
        gp_plot "$out/$d" "asp: receivers compute $c us per row (+-jitter), poll $when; $n nodes x $p ranks" \
            "bytes" "$(ylab_of asp)" 1 1 1 2 "$tmp/$d"/*
    done
done

# against the node count: 16-byte latency, largest-size throughput
small=$(tail -n +2 "$med" | awk -F, '$6 == "lat" && $10 >= 16 { print $10 }' | sort -n | head -1)
big=$(tail -n +2 "$med" | awk -F, '$6 == "tput" { print $10 }' | sort -n | tail -1)
for p in $(echo "$layouts" | awk '{ print $2 }' | sort -n -u); do
    if [ -n "$small" ] && series "lat$small-ppn$p" 8 14 \
           "\$1 == \"clumpi\" && \$6 == \"lat\" && \$9 == $p && \$10 == $small"; then
        gp_plot "$out/lat$small-ppn$p" "broadcast latency, $small bytes, $p rank(s) per node" \
            "nodes" "$(ylab_of lat)" 0 0 1 2 "$tmp/lat$small-ppn$p"/*
    fi
    if [ -n "$big" ] && series "tput$big-ppn$p" 8 16 \
           "\$1 == \"clumpi\" && \$6 == \"tput\" && \$9 == $p && \$10 == $big"; then
        gp_plot "$out/tput$big-ppn$p" "broadcast throughput, $big bytes, $p rank(s) per node" \
            "nodes" "$(ylab_of tput)" 0 0 1 2 "$tmp/tput$big-ppn$p"/*
    fi
done

# summary: one line per layout, pattern, size (poll), the labels side by side
tail -n +2 "$med" | awk -F, -v labels="$(echo $labels)" '
    BEGIN { nl = split(labels, L, " ") }
    { key = sprintf("%3d %3d %-9s %8d %5s", $8, $9, $6, $10, $6 == "asp" ? $11 : "-")
      if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
      v[key, $2] = $6 == "tput" ? $16 : $14 }
    END {
      printf "%3s %3s %-9s %8s %5s", "nod", "ppn", "pattern", "bytes", "poll"
      for (i = 1; i <= nl; i++) printf " %16s", L[i]
      print ""
      for (k = 1; k <= nk; k++) {
        printf "%s", keys[k]
        for (i = 1; i <= nl; i++)
          printf " %16s", ((keys[k], L[i]) in v) ? sprintf("%.1f", v[keys[k], L[i]]) : "-"
        print ""
      }
    }' | sort -k1,1n -k2,2n -k3,3 -k4,4n -k5,5n > "$out/summary.txt.tmp"
{
    echo "# medians over rounds; us (tput: MB/s at the root); asp poll 0 = receivers never poll"
    grep '^nod' "$out/summary.txt.tmp"
    grep -v '^nod' "$out/summary.txt.tmp"
} > "$out/summary.txt"
rm -f "$out/summary.txt.tmp"
echo "plots, medians and summary.txt in $out"
