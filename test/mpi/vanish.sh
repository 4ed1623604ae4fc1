#!/bin/sh
# vanish.sh — a peer on another node disappears mid-transfer: the job must
# end, non-zero, within seconds of the death (VANISH_LIMIT, default 5, when
# mpirun sees it; VANISH_HIDDEN_LIMIT,
# default 10, when only the network can tell: there the opt-in probes run,
# CLUMPI_OFI_PROBE_S=5, netmod/ofi/alive.c, for the operations net
# never fails), with a message naming the lost rank,
# leaving no process of the job and no /dev/shm/clumpi-* segment behind.
#
# Two ways to lose a peer, each with the survivor sending (eager packets)
# and receiving (rendezvous by fi_read, and CTS + pipelined chunks):
#  seen    4 ranks on 2 emulated nodes (--nodes 2): mpirun sees the victim
#          die and names it, whatever the survivor's network said first
#  hidden  4 ranks on 2 "hosts" whose launcher (this machine, a wrapper)
#          keeps the victim's death from mpirun, as when a host vanishes:
#          only the survivor's completion queue can tell, and the survivor
#          must end the job naming the peer
# Run by make check; clumpi's mpirun only (--nodes, --launcher-exec).
here=$(dirname "$0")
. "$here/mpirun-env.sh"
clumpi_test_bin vanish.sh vanish
seen_limit=${VANISH_LIMIT:-5}
hidden_limit=${VANISH_HIDDEN_LIMIT:-15}
# the probe's 5 s plus its quiet second: 7-8 s on an idle machine, 10.1 s
# once beside another test of make check -j2; a sanitizer build under
# load took 13 s, so it gets 20
if ldd "$bin" 2>/dev/null | grep -q libasan; then
    seen_limit=${VANISH_LIMIT:-10}
    hidden_limit=${VANISH_HIDDEN_LIMIT:-20}
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out
# The hiding launcher: ranks on host "hide" run as its children and it
# lingers after they die; mpirun's end of the job takes it down.
cat >"$tmp/hide-launch" <<'EOF'
#!/bin/sh
h=$1
shift
if [ "$h" = hide ]; then "$@"; exec sleep 120; fi
exec "$@"
EOF
chmod +x "$tmp/hide-launch"

fails=0
fail() { echo "FAIL vanish: $*"; fails=$((fails + 1)); }

victim=2
for spec in "seen send" "seen read" "seen read CLUMPI_NO_RMA=1" \
            "hidden send" "hidden read CLUMPI_OFI_RMA=1" "hidden read CLUMPI_OFI_RMA=0"; do
    set -- $spec
    how=$1 mode=$2 vars=${3:-}
    if [ "$how" = seen ]; then
        where="--nodes 2" limit=$seen_limit
    else
        where="--hosts keep:2,hide:2 --launcher-exec $tmp/hide-launch" limit=$hidden_limit
        vars="$vars CLUMPI_OFI_PROBE_S=5"
    fi
    what="$how/$mode${vars:+ $vars}"
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    env $vars timeout -k 5 60 "$MPIRUN" $MPIRUN_FLAGS -n 4 $where --timeout 40 \
        "$bin" "$mode" "$victim" </dev/null >"$out" 2>&1
    rc=$?
    end=$(date +%s.%N)
    died=$(sed -n "s/^vanish: rank $victim dies at \([0-9.]*\),.*/\1/p" "$out")
    job=$(sed -n "s/^vanish: rank $victim dies at .*, job //p" "$out")
    secs=$(echo "$end ${died:-$start}" | awk '{printf "%.2f", $1 - $2}')
    echo "== $what: exit $rc, ${secs}s after the death:"
    [ -n "$died" ] || fail "$what: the victim did not get to its death (timed from the start)"
    sed 's/^/   | /' "$out" | head -n 20
    [ $rc -ne 0 ] || fail "$what: mpirun exited 0"
    [ $rc -ne 124 ] || fail "$what: the job hung until --timeout"
    awk -v s="$secs" -v l="$limit" 'BEGIN { exit !(s > l) }' &&
        fail "$what: took ${secs}s (limit ${limit}s)"
    grep -q "rank $victim[^0-9]" "$out" || fail "$what: no message names rank $victim"
    if [ "$how" = seen ]; then
        grep -q "^mpirun: rank $victim (.*) was killed by signal 9" "$out" ||
            fail "$what: mpirun does not name the victim's death"
    fi
    sleep 0.3
    left=$(pgrep -f "$bin" || true)
    [ -z "$left" ] || { sleep 1; left=$(pgrep -f "$bin" || true); }
    if [ -n "$left" ]; then
        fail "$what: processes left behind: $(echo $left)"
        kill -9 $left 2>/dev/null
    fi
    pgrep -f "$tmp/hide-launch" >/dev/null && fail "$what: the launcher was left behind"
    # this job's segments only (other jobs may run beside us)
    new=$(ls /dev/shm 2>/dev/null | grep "^clumpi-$job-" || true)
    [ -z "$new" ] || fail "$what: left in /dev/shm: $(echo $new)"
done
[ $fails -eq 0 ] && echo "vanish: all passed"
exit $((fails > 0))
