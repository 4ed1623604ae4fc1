#!/bin/sh
# bench/ni_test.sh — keeps the host-versus-NI benchmark working (not its
# timings): bench/ni_run.sh -q (2 emulated nodes; NI forwarding, host
# forwarding on the agent, direct mode) must finish without a failed or hung
# run and write every expected CSV row with sane fields; bench/ni_plot.sh
# must turn them into plots and a summary; bench/ni.c must build with
# Open MPI's mpicc when present (standard MPI only).
top_srcdir=${top_srcdir:-${srcdir:-.}}
here=$top_srcdir/bench
build=${top_builddir:-.}
[ -x "$build/bench/ni" ] && [ -x "$build/src/tools/mpirun" ] || { echo "build first"; exit 99; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }

sh "$here/ni_run.sh" -b "$build" -q -t 60 -d "$out" > "$out/run.txt" 2>&1 ||
    no "ni_run.sh -q exited $?"
[ -s "$out/failed.txt" ] && no "runs failed or hung: $(cat "$out/failed.txt")"
csv=$out/ni.csv
head -n 1 "$csv" | grep -q '^mpi,label,net,bcast,allreduce,pattern,ranks,nodes,ppn,bytes,' ||
    no "CSV header: $(head -n 1 "$csv")"
# -q: sizes 16 and 65536; lat, tput, qr, allreduce once and asp at polls 0 and
# 50 per size: 12 rows for each of the 3 configurations, on 2 nodes x 1 rank.
for lab in ni-binary hostmsg-binary direct-binary; do
    for pat in lat:2 tput:2 asp:4 qr:2 allreduce:2; do
        got=$(awk -F, -v l="$lab" -v p="${pat%:*}" '$2 == l && $6 == p' "$csv" | wc -l)
        [ "$got" = "${pat#*:}" ] || no "$lab ${pat%:*}: $got rows, want ${pat#*:}"
    done
done
# sane fields (a latency may be 0: under load the ack can look slower than both)
bad=$(tail -n +2 "$csv" | awk -F, 'NF != 16 || $7 != 2 || $8 != 2 || $9 != 1 ||
          ($10 != 16 && $10 != 65536) || $14 < 0 || ($6 != "lat" && !($14 > 0)) || $13 < 2 ||
          ($6 == "tput" && !($16 > 0))' | head -3)
[ -z "$bad" ] || no "bad rows: $bad"
awk -F, '$2 == "ni-binary" && $3 != "agent" || $2 == "direct-binary" && $3 != "direct"' "$csv" |
    grep -q . && no "net column does not match the configuration"

if command -v gnuplot >/dev/null 2>&1; then
    sh "$here/ni_plot.sh" "$csv" "$out/plots" > "$out/plot.txt" 2>&1 || no "ni_plot.sh: $(cat "$out/plot.txt")"
    for f in lat-n2x1.png tput-n2x1.svg asp-n2x1-poll50.png lat16-ppn1.png summary.txt; do
        [ -s "$out/plots/$f" ] || no "ni_plot.sh made no $f"
    done
    [ "$(grep -c ' lat ' "$out/plots/summary.txt")" = 2 ] || no "summary.txt: $(cat "$out/plots/summary.txt")"
fi
if command -v mpicc.openmpi >/dev/null 2>&1; then
    mpicc.openmpi -O2 -o "$out/ni-openmpi" "$here/ni.c" > "$out/cc.txt" 2>&1 ||
        no "bench/ni.c with Open MPI's mpicc: $(cat "$out/cc.txt")"
fi
[ $fail = 0 ] || { echo "--- ni_run.sh output"; cat "$out/run.txt"; }
[ $fail = 0 ] && echo "ok: ni_run.sh -q, $(($(wc -l < "$csv") - 1)) rows; ni_plot.sh; Open MPI build"
exit $fail
