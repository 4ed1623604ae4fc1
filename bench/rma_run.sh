#!/usr/bin/env bash
# rma_run.sh — bench/rma.c built with clumpi's mpicc and Open MPI's (when
# installed), run side by side in one go: every configuration below, REPS
# interleaved rounds, medians, one table of usec/op with the ratio Open MPI
# / clumpi (above 1: clumpi faster) and each cell's range over the rounds.
# Configurations are "flavor:sync[:c]" (c: the target computes without MPI
# calls, see bench/rma.c -c).
# With -a, clumpi against itself across 2 emulated nodes instead: offload
# mode, the target node's NI agent serving the operations (CLUMPI_NET=agent,
# Bilas), against direct mode, the target's own progress serving them
# (CLUMPI_NET=direct, active messages); ratio direct / agent.
#
# usage: bench/rma_run.sh [-a] [-r REPS] [-m MAXBYTES] [-i ITER_SCALE] [-t TESTS]
#                         [-C "CONFIG ..."] [-N "MPIRUN_FLAGS"] [CLUMPI_PREFIX]
#   CLUMPI_PREFIX  clumpi install (bin/mpicc, bin/mpirun); default ./_inst
#   -N FLAGS       extra clumpi mpirun flags, e.g. "--nodes 2" (Open MPI
#                  runs on one node regardless: compare like with like)
set -euo pipefail
reps=3 max=65536 scale=0.5 tests=put_lat,get_lat,put_bw,acc_lat,fop_lat nflags=
configs="allocate:flush allocate:lock allocate:fence allocate:pscw create:flush create:lock allocate:flush:c create:flush:c"
agent=0 userconf= usermax= usertests=
while getopts "ar:m:i:t:C:N:h" o; do
    case $o in
        a) agent=1 ;;
        r) reps=$OPTARG ;; m) usermax=$OPTARG ;; i) scale=$OPTARG ;; t) usertests=$OPTARG ;;
        C) userconf=$OPTARG ;; N) nflags=$OPTARG ;;
        *) sed -n '2,18p' "$0"; exit 2 ;;
    esac
done
if [ $agent = 1 ]; then
    configs="allocate:flush:c create:flush:c create:lock:c allocate:flush create:flush"
    tests=put_lat,get_lat,acc_lat,fop_lat max=8
fi
[ -n "$userconf" ] && configs=$userconf
[ -n "$usermax" ] && max=$usermax
[ -n "$usertests" ] && tests=$usertests
shift $((OPTIND - 1))
here=$(cd "$(dirname "$0")" && pwd)
prefix=${1:-$PWD/_inst}
[ -x "$prefix/bin/mpicc" ] || { echo "rma_run.sh: no clumpi at $prefix" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)

names=(clumpi) runs=("$prefix/bin/mpirun $nflags -n 2 $work/rma-clumpi")
"$prefix/bin/mpicc" -O2 -o "$work/rma-clumpi" "$here/rma.c"
if [ $agent = 1 ]; then
    names=(agent direct)
    runs=("env CLUMPI_NET=agent $prefix/bin/mpirun --nodes 2 -n 2 $work/rma-clumpi"
          "env CLUMPI_NET=direct $prefix/bin/mpirun --nodes 2 -n 2 $work/rma-clumpi")
elif command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null &&
   mpicc.openmpi -O2 -o "$work/rma-openmpi" "$here/rma.c"; then
    names+=(openmpi)
    runs+=("mpirun.openmpi ${root[*]} -n 2 --bind-to core $work/rma-openmpi")
fi

echo "# bench/rma_run.sh: ${names[*]}; $reps interleaved rounds, medians; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= reps; r++)); do
    for c in $configs; do
        IFS=: read -r flavor sync comp <<<"$c"
        args="-w $flavor -s $sync -m $max -i $scale -t $tests${comp:+ -c}"
        for i in "${!names[@]}"; do
            out="$work/${names[$i]}.$c.$r"
            timeout 600 ${runs[$i]} $args >"$out" 2>"$out.err" ||
                echo "rma_run.sh: ${names[$i]} $c failed: $(head -3 "$out.err")" >&2
        done
    done
done
# median and range per (name, config, test, bytes), then one row per (config, test, bytes)
for i in "${!names[@]}"; do
    for c in $configs; do
        cat "$work/${names[$i]}.$c".[0-9]* 2>/dev/null |
            awk -v n="${names[$i]}" -v c="$c" '!/^#/ && NF == 4 { print n, c, $1, $2, $3 }'
    done
done | sort -k1,1 -k2,2 -k3,3 -k4,4n -k5,5g |
awk '{ k = $1 " " $2 " " $3 " " $4; v[k, ++n[k]] = $5 }
     END { for (k in n) { m = n[k]; print k, (m % 2) ? v[k, (m + 1) / 2] : (v[k, m / 2] + v[k, m / 2 + 1]) / 2,
                          v[k, 1] "-" v[k, m] } }' >"$work/med"
a=${names[0]} b=${names[1]:-openmpi}
printf "%-18s %-8s %8s %10s %10s %7s  %s\n" config test bytes "$a" "$b" ratio "ranges ($a; $b)"
awk -v a="$a" -v b="$b" '{ key = $2 " " $3 " " $4; val[$1, key] = $5; rng[$1, key] = $6; keys[key] = 1 }
     END { for (k in keys) { split(k, f, " "); c = val[a, k]; o = val[b, k];
           printf "%-18s %-8s %8s %10s %10s %7s  %s; %s\n", f[1], f[2], f[3], c == "" ? "-" : c,
                  o == "" ? "-" : o, (c > 0 && o != "") ? sprintf("%.2fx", o / c) : "-",
                  rng[a, k] == "" ? "-" : rng[a, k], rng[b, k] == "" ? "-" : rng[b, k] } }' \
    "$work/med" | sort -k1,1 -k2,2 -k3,3n
