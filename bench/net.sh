#!/usr/bin/env bash
# net.sh — the network channel against raw libfabric and Open MPI, side by
# side in one run on this machine, medians of interleaved runs, all three on
# the same interface IFACE (default lo; on one machine a non-loopback address
# is looped back by the kernel too, but the three must not differ):
#   fi       raw fi_pingpong -e rdm -p PROVIDER -d IFACE
#   clumpi   bench/pt2pt between two emulated nodes (mpirun -n 2 --nodes 2),
#            CLUMPI_OFI_PROVIDER=PROVIDER CLUMPI_OFI_IFACE=IFACE
#   openmpi  bench/pt2pt under Open MPI's TCP transport (--mca btl tcp,self
#            --mca btl_tcp_if_include IFACE)
#   shm      clumpi shared-memory latency in a job with the network channel
#            loaded (-n 3 --nodes 2: ranks 0,1 share node 0) and without it
#            (-n 3, one node: the same number of processes, so that on a
#            machine with few cores both runs are equally (over)subscribed)
# Targets: 1-byte latency <= 1.05x fi_pingpong and <= Open MPI;
# 1 MiB bandwidth >= 0.95x fi_pingpong; shm latency with the netmod within 5%.
# fi_pingpong's MB/s is a ping-pong figure (size / half round trip), so the
# 1 MiB comparison uses clumpi's ping-pong at 1 MiB the same way; the
# streaming bandwidth (pt2pt bw, a window of 64) is printed too.
#
# usage: bench/net.sh [-r REPS] [-p PROVIDER] [-i IFACE] [BUILD_DIR]
#   BUILD_DIR  a clumpi build tree (src/tools/mpirun, bench/pt2pt); default .
#   -r REPS    interleaved runs of each (default 3)
#   -p PROV    libfabric provider (default net)
#   -i IFACE   network interface / libfabric domain (default lo)
set -uo pipefail
reps=3 prov=net iface=lo
while getopts "r:p:i:h" o; do
    case $o in
        r) reps=$OPTARG ;; p) prov=$OPTARG ;; i) iface=$OPTARG ;;
        *) sed -n '2,26p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
b=$(cd "${1:-.}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
mpirun=$b/src/tools/mpirun pt2pt=$b/bench/pt2pt
[ -x "$mpirun" ] && [ -x "$pt2pt" ] || { echo "net.sh: no $mpirun or $pt2pt (make bench/pt2pt)" >&2; exit 2; }
command -v fi_pingpong >/dev/null || { echo "net.sh: fi_pingpong not found (apt-get install libfabric-bin)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
ompi=
if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null &&
    mpicc.openmpi -O2 -o "$work/pt2pt-ompi" "$here/pt2pt.c" 2>/dev/null; then
    ompi=$work/pt2pt-ompi
fi
port=$((47600 + $$ % 300))

# fi_pingpong SIZE ITERS -> "usec MB/s"
fi_run() {
    port=$((port + 1))
    # the control connection goes to 127.0.0.1; the data path uses -d IFACE
    timeout 120 fi_pingpong -p "$prov" -e rdm -d "$iface" -B "$port" -I "$2" -S "$1" >"$work/fis" 2>&1 &
    local spid=$!
    sleep 0.3
    timeout 120 fi_pingpong -p "$prov" -e rdm -d "$iface" -P "$port" -I "$2" -S "$1" 127.0.0.1 >"$work/fic" 2>&1
    wait $spid
    # fabtests prints sizes as 1, 1k, 1m
    local lab=$1
    [ "$1" -ge 1048576 ] && lab=$(($1 / 1048576))m
    awk -v s="$lab" '$1 == s && NF >= 8 { print $7, $6 }' "$work/fic" | tail -n 1
}
# value at SIZE of the test TEST in pt2pt output FILE
pick() { awk -v t="$2" -v s="$3" '/^# (lat|bw|bibw) /{cur=$2} cur==t && $1==s {print $2}' "$1" | tail -n 1; }

vals() { echo "$1 $2" >>"$work/vals"; }
load0=$(cut -d' ' -f1 /proc/loadavg)
for ((r = 1; r <= reps; r++)); do
    echo "# run $r of $reps" >&2
    read -r l _ <<<"$(fi_run 1 20000)"; vals fi_lat "$l"
    read -r l bwp <<<"$(fi_run 1048576 400)"; vals fi_bw "$bwp"
    export CLUMPI_OFI_PROVIDER=$prov CLUMPI_OFI_IFACE=$iface
    "$mpirun" -n 2 --nodes 2 "$pt2pt" lat -m 1 >"$work/c1" 2>&1
    vals c_lat "$(pick "$work/c1" lat 1)"
    "$mpirun" -n 2 --nodes 2 "$pt2pt" lat -s 1048576 -m 1048576 >"$work/c2" 2>&1
    l=$(pick "$work/c2" lat 1048576)
    vals c_bwp "$(awk -v l="$l" 'BEGIN { if (l > 0) printf "%.2f", 1048576 / l }')"
    "$mpirun" -n 2 --nodes 2 "$pt2pt" bw -s 1048576 -m 1048576 >"$work/c3" 2>&1
    vals c_bw "$(pick "$work/c3" bw 1048576)"
    if [ -n "$ompi" ]; then
        mpirun.openmpi "${root[@]}" --mca pml ob1 --mca btl tcp,self \
            --mca btl_tcp_if_include "$iface" -n 2 "$ompi" lat -m 1 >"$work/o1" 2>&1
        vals o_lat "$(pick "$work/o1" lat 1)"
    fi
    "$mpirun" -n 3 --nodes 2 "$pt2pt" lat -m 1 >"$work/s1" 2>&1
    vals shm_net "$(pick "$work/s1" lat 1)"
    "$mpirun" -n 3 "$pt2pt" lat -m 1 >"$work/s2" 2>&1
    vals shm_only "$(pick "$work/s2" lat 1)"
done

load1=$(cut -d' ' -f1 /proc/loadavg)
awk -v prov="$prov" -v iface="$iface" -v cores="$(nproc)" -v reps="$reps" \
    -v load0="$load0" -v load1="$load1" '
function med(k,   n, i, j, v, t) {
    n = 0
    for (i = 1; i <= cnt[k]; i++) if (x[k, i] > 0) v[++n] = x[k, i]
    if (!n) return -1
    for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
# ratio a/b of each run (the two measured back to back), then their median
# and range: what to read on a loaded machine
function ratio(a, b, tgt,   i, n, r, lo, hi) {
    n = 0; lo = 1e30; hi = -1
    for (i = 1; i <= cnt[a] && i <= cnt[b]; i++) {
        if (x[a, i] <= 0 || x[b, i] <= 0) continue   # a failed run
        r = x[a, i] / x[b, i]; x["r" a b, ++n] = r
        if (r < lo) lo = r; if (r > hi) hi = r
    }
    cnt["r" a b] = n
    if (!n) return "-"
    return sprintf("%.3f (runs %.3f..%.3f; target %s)", med("r" a b), lo, hi, tgt)
}
{ x[$1, ++cnt[$1]] = NF > 1 ? $2 : -1 }
END {
    printf "# bench/net.sh: provider %s, interface %s, %d interleaved runs, medians; %d cores, load %s -> %s\n", prov, iface, reps, cores, load0, load1
    fl = med("fi_lat"); cl = med("c_lat"); ol = med("o_lat")
    fb = med("fi_bw"); cb = med("c_bwp"); cs = med("c_bw")
    sn = med("shm_net"); so = med("shm_only")
    printf "1-byte latency (us): fi_pingpong %.2f  clumpi %.2f  Open MPI tcp %s\n", fl, cl, ol < 0 ? "-" : sprintf("%.2f", ol)
    printf "  clumpi / fi_pingpong = %s\n", ratio("c_lat", "fi_lat", "<= 1.05")
    if (ol > 0) printf "  clumpi / Open MPI     = %s\n", ratio("c_lat", "o_lat", "<= 1.00")
    printf "1 MiB ping-pong bandwidth (MB/s): fi_pingpong %.0f  clumpi %.0f  (clumpi streaming bw %.0f)\n", fb, cb, cs
    printf "  clumpi / fi_pingpong = %s\n", ratio("c_bwp", "fi_bw", ">= 0.95")
    printf "shm 1-byte latency (us): with netmod %.3f  shm only %.3f\n", sn, so
    printf "  with / without       = %s\n", ratio("shm_net", "shm_only", "<= 1.05")
}' "$work/vals"
