# netns.sh — test hosts made of network namespaces, for running jobs
# "across hosts" on one machine. Sourced; needs root and iproute2.
#
#   netns_setup N     N namespaces (1..4) named $NETNS_PREFIX-h1..hN, each with
#                     lo up and eth0 = 10.200.0.<i>/24, joined by veth pairs on a
#                     bridge that holds 10.200.0.254 here; the default route of
#                     every namespace goes through the bridge, so ranks reach
#                     mpirun's PMI service on any address of this machine.
#                     Sets NETNS_HOSTS (comma-separated) and NETNS_NAMES.
#   netns_teardown    removes all of it (also the processes left inside)
#   netns_why         after a failed netns_setup: why, in one line
#
# Runs are serialised with a lock: the subnet is fixed, so two at once
# would collide on 10.200.0.0/24.

NETNS_PREFIX=${NETNS_PREFIX:-cu$$}
NETNS_BR=${NETNS_PREFIX}br
NETNS_NAMES=
NETNS_HOSTS=
NETNS_WHY=
NETNS_LOCK=${NETNS_LOCK:-/tmp/clumpi-netns.lock}

netns_why() { echo "$NETNS_WHY"; }

netns_setup() {
    n=$1
    if [ "$(id -u)" != 0 ]; then NETNS_WHY="not root: network namespaces need CAP_SYS_ADMIN"; return 1; fi
    if ! command -v ip >/dev/null 2>&1; then NETNS_WHY="no ip command (Debian package iproute2)"; return 1; fi
    if command -v flock >/dev/null 2>&1; then
        exec 9>"$NETNS_LOCK"
        flock -w 120 9 || { NETNS_WHY="another netns test holds $NETNS_LOCK"; return 1; }
    fi
    if ! err=$(ip link add "$NETNS_BR" type bridge 2>&1); then
        NETNS_WHY="cannot create a bridge: $err"; return 1
    fi
    ip addr add 10.200.0.254/24 dev "$NETNS_BR" && ip link set "$NETNS_BR" up || {
        NETNS_WHY="cannot configure the bridge"; return 1; }
    i=1
    while [ "$i" -le "$n" ]; do
        ns=$NETNS_PREFIX-h$i
        if ! err=$(ip netns add "$ns" 2>&1); then
            NETNS_WHY="cannot create a network namespace: $err"; return 1
        fi
        NETNS_NAMES="$NETNS_NAMES $ns"
        NETNS_HOSTS=${NETNS_HOSTS:+$NETNS_HOSTS,}$ns
        ip link add "${NETNS_PREFIX}v$i" type veth peer name "${NETNS_PREFIX}p$i" &&
        ip link set "${NETNS_PREFIX}p$i" netns "$ns" &&
        ip -n "$ns" link set "${NETNS_PREFIX}p$i" name eth0 &&
        ip -n "$ns" addr add "10.200.0.$i/24" dev eth0 &&
        ip -n "$ns" link set eth0 up &&
        ip -n "$ns" link set lo up &&
        ip -n "$ns" route add default via 10.200.0.254 &&
        ip link set "${NETNS_PREFIX}v$i" master "$NETNS_BR" &&
        ip link set "${NETNS_PREFIX}v$i" up || { NETNS_WHY="cannot wire namespace $ns"; return 1; }
        i=$((i + 1))
    done
    # With STP off (the default) bridge ports forward at once: no wait.
    return 0
}

netns_teardown() {
    for ns in $NETNS_NAMES; do
        # Whatever a failed test left running in there goes first.
        pids=$(ip netns pids "$ns" 2>/dev/null)
        [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
        ip netns del "$ns" 2>/dev/null
    done
    ip link del "$NETNS_BR" 2>/dev/null
    NETNS_NAMES=
    NETNS_HOSTS=
    return 0
}
