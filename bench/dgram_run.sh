#!/bin/sh
# bench/dgram_run.sh — the datagram transport's reliability grid (issue 18;
# Verstoep et al. on NI-level retransmission, Bilas's VMMC ack every 6):
# point-to-point latency and bandwidth (bench/pt2pt, ranks 0 and 1 on two
# nodes) and broadcast / allreduce time (bench/coll, one rank per node) in
# offload mode, for the reliable transport at 0% loss and for
# CLUMPI_AGENT_TRANSPORT=dgram at every injected loss rate x explicit-ack
# interval, and who retransmits (CLUMPI_AGENT_REL: the agents, ni, or the
# ranks end to end, host, Verstoep et al.'s l-hrx; under host the NI
# broadcast goes through the agents' tree repaired from the root's rank,
# the NI allreduce falls back to the host tree of the same shape).
# Interleaved: each round runs every configuration of a layout
# back to back, so the machine's load hits them alike. Results: OUT/dgram.csv
# (one row per measurement; bench/dgram_plot.sh takes medians over rounds),
# the programs' output in OUT/dgram.log with the load before each layout,
# failed or timed-out runs with their command lines in OUT/failed.txt.
#
# usage: bench/dgram_run.sh [-b BUILDDIR] [-N "2 4 8"] [-l LOSSES] [-a ACKS]
#                           [-m MAXBYTES | -S SIZES] [-C COLL] [-r ROUNDS] [-f FIRST]
#                           [-t SECONDS] [-i ITERS_SCALE] [-I LOSS=FACTOR...]
#                           [-B BENCHES] [-P PREFIX] [-R ARQS] [-L RELS] [-W WINDOWS]
#                           [-d OUTDIR] [-q]
#   -N node counts (pt2pt runs on the smallest), -l loss probabilities
#   (default "0 0.001 0.01 0.05 0.3"), -a ack intervals (default "1 2 6 W/2",
#   W/2 from CLUMPI_AGENT_WINDOW, 16), -m largest size (1 MiB; the sizes
#   are the powers of two up to it), -S a list of sizes instead (e.g.
#   "1 1024 65536 1048576": a pt2pt job per size; the reductions take 8 B
#   for anything smaller), -C the
#   collective algorithms (CLUMPI_COLL_BCAST and _ALLREDUCE; default
#   ni-binary: the agents forward and combine, so retransmission is hop by
#   hop), -r rounds (3), -f the first round's number (1; a grid run in
#   pieces numbers them apart, and their CSVs join: the first one whole,
#   the others without their header line), -t time limit per run (300 s),
#   -i iteration scale for pt2pt (0.1; bench/coll gets the same as a
#   percentage), -I the iterations' factor by loss rate: each LOSS=FACTOR
#   applies from that loss up, the highest that fits wins (default
#   "0.05=0.1": a tenth from 5% loss up, where each loss costs a timeout of
#   milliseconds), -B the
#   benchmarks (default "lat bw bcast allreduce"), -P a command to run
#   mpirun under (e.g. "chrt -r 1": real-time priority, so that other jobs
#   on shared cores do not swamp a latency comparison), -R the
#   retransmission schemes (CLUMPI_AGENT_ARQ; default sack; "gbn sack"
#   measures both, labelled dgram-ARQ-aACK-lLOSS), -L the
#   retransmission levels of the dgram rows (CLUMPI_AGENT_REL; default
#   "ni"; "ni host" adds the rows labelled dgram-host-...), -W the dgram
#   rows' windows (CLUMPI_AGENT_WINDOW, packets per node pair; default the
#   library's, 16; "8 16 32" labels them dgram-wW-...), -q quick (2 nodes,
#   losses 0 and 0.05, acks 6, up to 64 KiB, one round).
#   A loss above 0 also duplicates and reorders that fraction / 10 of the
#   datagrams (CLUMPI_AGENT_DUP, _REORDER), seed 1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=. nodes_list="2 4 8" losses="0 0.001 0.01 0.05 0.3" acks="1 2 6 W/2" maxb=1048576
coll=ni-binary rounds=3 first=1 limit=300 scale=0.1 outdir=bench-dgram-results quick=0
benches="lat bw bcast allreduce" prefix= arqs=sack rels=ni sizes= lossf="0.05=0.1" wins=-
while getopts b:N:l:a:m:S:C:r:f:t:i:I:B:P:R:L:W:d:q f; do
    case $f in
    b) build=$OPTARG ;; N) nodes_list=$OPTARG ;; l) losses=$OPTARG ;; a) acks=$OPTARG ;;
    m) maxb=$OPTARG ;; S) sizes=$OPTARG ;; C) coll=$OPTARG ;; r) rounds=$OPTARG ;;
    f) first=$OPTARG ;; t) limit=$OPTARG ;; i) scale=$OPTARG ;; I) lossf=$OPTARG ;;
    B) benches=$OPTARG ;; P) prefix=$OPTARG ;; R) arqs=$OPTARG ;; L) rels=$OPTARG ;;
    W) wins=$OPTARG ;; d) outdir=$OPTARG ;;
    q) quick=1 ;; *) exit 2 ;;
    esac
done
mpirun=$build/src/tools/mpirun pt=$build/bench/pt2pt cb=$build/bench/coll
[ -x "$mpirun" ] && [ -x "$pt" ] && [ -x "$cb" ] ||
    { echo "dgram_run.sh: build $pt, $cb and $mpirun first" >&2; exit 2; }
[ -n "${CLUMPI_AGENT_PATH:-}" ] || CLUMPI_AGENT_PATH=$(cd "$build" && pwd)/netmod/agent/clumpi-agent
export CLUMPI_AGENT_PATH CLUMPI_NET=agent
[ $quick = 1 ] && nodes_list=2 losses="0 0.05" acks=6 maxb=65536 rounds=1
# the sizes: pt2pt's "-s MIN -m MAX" ranges (one per listed size, else
# one), bench/coll's list (the reductions skip sizes below 8 B)
for s in $sizes; do
    case $s in *[!0-9]* | 0) echo "dgram_run.sh: -S takes sizes in bytes above 0, not '$s'" >&2; exit 2 ;; esac
done
if [ -n "$sizes" ]; then
    ptr=$(for s in $sizes; do printf "%s:%s " "$s" "$s"; done)
    csz="-S $(for s in $sizes; do [ "$s" -lt 8 ] && s=8; echo "$s"; done | sort -nu | paste -sd, -)"
else
    ptr=1:$maxb csz="-m 8 -M $maxb"
fi
half=$(( ${CLUMPI_AGENT_WINDOW:-16} / 2 ))
acks=$(echo "$acks" | sed "s|W/2|$half|g")
pct=$(awk -v s="$scale" 'BEGIN { p = int(s * 100 + 0.5); print p < 1 ? 1 : p }')
min_nodes=$(echo $nodes_list | tr ' ' '\n' | sort -n | head -1)
mkdir -p "$outdir"
csv=$outdir/dgram.csv log=$outdir/dgram.log failed=$outdir/failed.txt
echo "round,nodes,config,transport,ack,loss,bench,bytes,value,load" > "$csv"
: > "$log"; : > "$failed"

# the configurations: "label transport ack loss arq rel window" lines
# (window -: the library's); reliable at 0% only
cfgs="reliable reliable - 0 - ni -"
for loss in $losses; do
    for ack in $acks; do
        for rel in $rels; do
            for arq in $arqs; do
                for win in $wins; do
                    lab=a$ack-l$loss
                    [ "$arqs" = "$arq" ] || lab=$arq-$lab
                    [ "$win" = - ] || lab=w$win-$lab
                    [ "$rel" = ni ] || lab=$rel-$lab
                    cfgs="$cfgs
dgram-$lab dgram $ack $loss $arq $rel $win"
                done
            done
        done
    done
done

# run ENV... -- COMMAND...: one job under the time limit, its output to
# $cur (and the log); a failure or hang is logged, never fatal to the grid.
run() {
    envs=
    while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    shift
    env $envs timeout -k 5 "$limit" $prefix "$@" </dev/null >"$cur" 2>&1
    rc=$?
    cat "$cur" >> "$log"
    if [ $rc != 0 ]; then
        what=failed; [ $rc = 124 ] || [ $rc = 137 ] && what="hung (time limit $limit s)"
        echo "$(date -u +%H:%M:%S) $what, status $rc:$envs $*" | tee -a "$failed" >&2
    fi
    return $rc
}

cur=$outdir/.cur.$$ ccsv=$outdir/.coll.$$
trap 'rm -f "$cur" "$ccsv"' EXIT
r=$first
while [ $r -lt $((first + rounds)) ]; do
    for nodes in $nodes_list; do
        load=$(cut -d' ' -f1 /proc/loadavg)
        echo "# round $r, $nodes nodes, $(uptime | sed 's/.*load/load/')" | tee -a "$log"
        echo "$cfgs" | while read -r lab tr ack loss arq rel win; do
            envs="CLUMPI_AGENT_TRANSPORT=$tr"
            if [ "$tr" = dgram ]; then
                envs="$envs CLUMPI_AGENT_REL=$rel"
                [ "$win" = - ] || envs="$envs CLUMPI_AGENT_WINDOW=$win"
                d=$(awk -v l="$loss" 'BEGIN { print l / 10 }')
                envs="$envs CLUMPI_AGENT_ARQ=$arq CLUMPI_AGENT_ACK_EVERY=$ack CLUMPI_AGENT_LOSS=$loss"
                envs="$envs CLUMPI_AGENT_DUP=$d CLUMPI_AGENT_REORDER=$d CLUMPI_AGENT_SEED=1"
            fi
            # fewer iterations at high loss (-I; timeouts of ms each)
            fac=$(echo "$lossf" | tr ' ' '\n' | awk -F= -v l="$loss" '
                      $1 != "" && l + 0 >= $1 + 0 && $1 + 0 >= best { best = $1 + 0; f = $2 }
                      END { print f == "" ? 1 : f }')
            is=$(awk -v s="$scale" -v f="$fac" 'BEGIN { print s * f }')
            ip=$(awk -v p="$pct" -v f="$fac" 'BEGIN { p = int(p * f + 0.5); print (p < 1 ? 1 : p) }')
            row="$r,$nodes,$lab,$tr,$ack,$loss"
            echo "## $lab" >> "$log"
            ops=$(for b in $benches; do
                      case $b in bcast | allreduce) printf "%s%s" "${sep:-}" $b; sep=, ;; esac
                  done)
            if [ "$nodes" = "$min_nodes" ]; then
                for b in $benches; do
                    case $b in lat | bw) ;; *) continue ;; esac
                    for rg in $ptr; do
                        run $envs -- "$mpirun" -n 2 --nodes 2 --timeout $((limit - 5)) "$pt" "$b" \
                            -s "${rg%:*}" -m "${rg#*:}" -i "$is" &&
                            awk -v row="$row" -v b="$b" -v ld="$load" \
                                '/^[0-9]/ { print row "," b "," $1 "," $2 "," ld }' "$cur" >> "$csv"
                    done
                done
            fi
            rm -f "$ccsv"
            [ -n "$ops" ] &&
            run $envs CLUMPI_COLL_BCAST="$coll" CLUMPI_COLL_ALLREDUCE="$coll" -- \
                "$mpirun" -n "$nodes" --nodes "$nodes" --timeout $((limit - 5)) "$cb" \
                -o "$ops" $csz -s "$ip" -c "$ccsv" &&
                awk -F, -v row="$row" -v ld="$load" \
                    'NR > 1 { print row "," $2 "," $6 "," $9 "," ld }' "$ccsv" >> "$csv"
        done
    done
    r=$((r + 1))
done
echo "results: $csv, output: $log, failures: $failed (plot: $here/dgram_plot.sh $csv)"
