#!/bin/sh
# bench/ni_run.sh — host-versus-NI broadcast grid (Verstoep et al. §5.4, §7.4):
# runs bench/ni for every configuration on every layout of emulated nodes,
# interleaved (round by round, every configuration of a layout back to
# back) so that the machine's load hits them alike. Results: OUT/ni.csv
# (one row per run, label, pattern, size; bench/ni_plot.sh takes medians
# over rounds), the programs' tables in OUT/ni.log, and the runs that
# failed or hit the time limit (with their command lines) in OUT/failed.txt.
#
# usage: bench/ni_run.sh [-b BUILDDIR] [-N "2 4 8"] [-P "1 2"] [-c CONFIGS]
#                        [-r ROUNDS] [-t SECONDS] [-d OUTDIR] [-q] [-o]
#                        [-- bench/ni options...]
#   -N nodes, -P ranks per node, -r rounds (default 1), -t time limit per run
#   (default 300), -q quick (2 nodes x 1 rank, 3 configurations, bench/ni -q),
#   -o also builds bench/ni with Open MPI's mpicc and runs it on one node
#   with as many ranks (a reference: Open MPI's own tuned broadcast).
#   CONFIGS: words LABEL=NET:BCAST[:ALLREDUCE]; a configuration whose
#   broadcast algorithm this build lacks is left out, an allreduce name it
#   lacks becomes the default (checked by a 2-rank probe), so new names
#   (e.g. host-packet) only need to be listed here.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=. nodes_list="2 4 8" ppn_list="1 2" rounds=1 limit=300 outdir=bench-ni-results
quick=0 openmpi=0 cset=0
# forwarding x tree: NI (agent forwards), host-packet (a rank forwards each
# packet, agent transport), host-message (ranks forward whole messages,
# agent transport), and direct mode's host algorithms
configs="ni-binary=agent:ni-binary:ni-binary ni-binomial=agent:ni-binomial:ni-binomial
hostpkt-binary=agent:host-packet-binary hostpkt-binomial=agent:host-packet
hostmsg-binary=agent:binary:reduce_bcast hostmsg-binomial=agent:binomial:reduce_bcast
direct-binary=direct:binary:reduce_bcast direct-binomial=direct:binomial:reduce_bcast"
while getopts b:N:P:c:r:t:d:qo f; do
    case $f in
    b) build=$OPTARG ;; N) nodes_list=$OPTARG ;; P) ppn_list=$OPTARG ;; c) configs=$OPTARG cset=1 ;;
    r) rounds=$OPTARG ;; t) limit=$OPTARG ;; d) outdir=$OPTARG ;; q) quick=1 ;; o) openmpi=1 ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
mpirun=$build/src/tools/mpirun prog=$build/bench/ni
[ -x "$mpirun" ] && [ -x "$prog" ] || { echo "ni_run.sh: build $prog and $mpirun first" >&2; exit 2; }
[ -n "${CLUMPI_AGENT_PATH:-}" ] || CLUMPI_AGENT_PATH=$(cd "$build" && pwd)/netmod/agent/clumpi-agent
export CLUMPI_AGENT_PATH
if [ $quick = 1 ]; then
    nodes_list=2 ppn_list=1 rounds=1
    [ $cset = 1 ] ||
        configs="ni-binary=agent:ni-binary hostmsg-binary=agent:binary direct-binary=direct:binary"
    set -- -q "$@"
fi
mkdir -p "$outdir"
csv=$outdir/ni.csv log=$outdir/ni.log failed=$outdir/failed.txt
: > "$csv"; : > "$log"; : > "$failed"

# run TIMELIMIT ENV... -- COMMAND...: one job under a hard time limit; a
# failure or hang is logged with its command line, never fatal to the grid.
run() {
    t=$1; shift
    envs=
    while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    shift
    env $envs timeout -k 5 "$t" "$@" </dev/null >>"$log" 2>&1
    rc=$?
    if [ $rc != 0 ]; then
        what=failed; [ $rc = 124 ] || [ $rc = 137 ] && what="hung (time limit $t s)"
        echo "$(date -u +%H:%M:%S) $what, status $rc:$envs $*" | tee -a "$failed" >&2
    fi
    return $rc
}

# available OP NAME: does this build know the algorithm (2 ranks, direct mode)?
available() {
    [ "$2" = default ] && return 0
    var=CLUMPI_COLL_$(echo "$1" | tr 'a-z' 'A-Z')
    out=$(env "$var=$2" CLUMPI_NET=direct timeout -k 5 60 "$mpirun" -n 2 --timeout 50 "$prog" \
          -p "$3" -m 8 -M 8 -s 1 -x 0 -C 0 -Q 0 2>&1 </dev/null)
    [ $? = 0 ] && ! echo "$out" | grep -q skipped
}

# the configurations this build can run: "label net bcast allreduce" lines
cfgs=
for c in $configs; do
    lab=${c%%=*} spec=${c#*=}
    net=${spec%%:*} rest=${spec#*:}
    bc=${rest%%:*} ar=default
    [ "$rest" != "$bc" ] && ar=${rest#*:}
    if ! available bcast "$bc" tput; then
        echo "# $lab left out: no bcast algorithm $bc in this build" | tee -a "$log"
        continue
    fi
    if ! available allreduce "$ar" allreduce; then
        echo "# $lab: no allreduce algorithm $ar in this build, default used" | tee -a "$log"
        ar=default
    fi
    cfgs="$cfgs$lab $net $bc $ar
"
done

if [ $openmpi = 1 ] && command -v mpicc.openmpi >/dev/null 2>&1; then
    mpicc.openmpi -O2 -o "$outdir/ni-openmpi" "$here/ni.c" ||
        { echo "ni_run.sh: build with Open MPI failed" >&2; openmpi=0; }
fi

r=1
while [ $r -le "$rounds" ]; do
    for nodes in $nodes_list; do
        for ppn in $ppn_list; do
            np=$((nodes * ppn))
            echo "# round $r, $nodes nodes x $ppn ranks, $(uptime | sed 's/.*load/load/')" | tee -a "$log"
            echo "$cfgs" | while read -r lab net bc ar; do
                [ -n "$lab" ] || continue
                envs="CLUMPI_NET=$net CLUMPI_COLL_BCAST=$bc"
                [ "$ar" != default ] && envs="$envs CLUMPI_COLL_ALLREDUCE=$ar"
                run "$limit" $envs -- "$mpirun" -n "$np" --nodes "$nodes" \
                    --timeout $((limit - 5)) "$prog" -l "$lab" -c "$csv" "$@"
            done
            if [ $openmpi = 1 ]; then
                run "$limit" -- mpirun.openmpi --allow-run-as-root --oversubscribe -n "$np" \
                    "$outdir/ni-openmpi" -l openmpi -c "$csv" "$@"
            fi
        done
    done
    r=$((r + 1))
done
echo "results: $csv, tables: $log, failures: $failed (plot: $here/ni_plot.sh $csv)"
