#!/bin/sh
# shm_names.sh — nothing of a job is reachable by name or left in /dev/shm.
#
# Every shared segment (the node's, windows', node areas', the agent's) is
# a memfd handed over a socket: shm_names checks from inside the ranks that
# no mapping lies under /dev/shm, on one node, on emulated nodes and in
# offload mode. A squatter who pre-creates the names the segments used to
# have (job id, window context, leader) does not stop a job or its windows.
# A rank killed before, during or after MPI_Init, under our mpirun and under
# MPICH's Hydra (which removes nothing for us), leaves no process and no
# /dev/shm entry of its job.
here=$(dirname "$0")
. "$here/mpirun-env.sh"
clumpi_test_bin shm_names.sh shm_names
TMP=$(mktemp -d "${TMPDIR:-/tmp}/clumpi-shmnames.XXXXXX")
trap 'rm -rf "$TMP"; rm -f /dev/shm/clumpi-$ID-*' EXIT
# a copy under a name of its own: pgrep finds only this test's ranks
cp "$bin" "$TMP/shmn_$$"
bin=$TMP/shmn_$$
ID=squat$$
fails=0
fail() { echo "FAIL shm_names: $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }

HYDRA=
for c in mpiexec.hydra mpiexec.mpich; do
    command -v "$c" >/dev/null 2>&1 && { HYDRA=$(command -v "$c"); break; }
done

# ours JOB: this job's entries in /dev/shm
ours() { ls /dev/shm 2>/dev/null | grep -e "clumpi-$1-" -e "clumpi-$1\$" || true; }
# left: wait a moment for the job's processes to go, then say what stayed
no_leftovers() {
    what=$1 job=$2
    for _ in 1 2 3 4 5 6 7 8 9 10; do pgrep -f "$bin" >/dev/null || break; sleep 0.2; done
    p=$(pgrep -f "$bin" || true)
    [ -z "$p" ] || { fail "$what: processes left: $p"; kill -9 $p 2>/dev/null; }
    l=$(ours "$job")
    [ -z "$l" ] || fail "$what: left in /dev/shm: $(echo $l)"
    [ -n "$p$l" ] || ok "$what: nothing left"
}

# --- no names, from inside the ranks -----------------------------------------
for run in "-n 1" "-n 2" "-n 3" "-n 5 --nodes 2" "agent -n 4 --nodes 2"; do
    set -- $run
    envs=
    [ "$1" = agent ] && { envs="CLUMPI_NET=agent"; shift; }
    env $envs timeout -k 5 60 "$MPIRUN" $MPIRUN_FLAGS -v "$@" --timeout 50 "$bin" >"$TMP/out" 2>&1 </dev/null
    rc=$?
    job=$(sed -n 's/^mpirun: job \([0-9a-zA-Z]*\): .*/\1/p' "$TMP/out")
    if [ $rc -eq 0 ] && grep -q "shm_names: ok" "$TMP/out"; then ok "mpirun $run: no segment has a name"
    else fail "mpirun $run: exit $rc"; sed 's/^/   | /' "$TMP/out" | head -20; fi
    [ -z "$(ours "$job")" ] || fail "mpirun $run: left in /dev/shm: $(ours "$job")"
done

# --- a squatter on the old names ----------------------------------------------
# (the job id is ours to choose under Hydra: CLUMPI_JOB_ID)
for c in $(seq 0 40); do
    for l in 0 1 2 3 4; do
        : >"/dev/shm/clumpi-$ID-win$c-$l"
    done
    : >"/dev/shm/clumpi-$ID-na$c-0-0000000000000000"
done
: >"/dev/shm/clumpi-$ID-0-0000000000000000"
: >"/dev/shm/clumpi-$ID-agent-0-0000000000000000"
chmod 0644 /dev/shm/clumpi-$ID-* 2>/dev/null
[ "$(id -u)" -eq 0 ] && chown nobody /dev/shm/clumpi-$ID-* 2>/dev/null
nsquat=$(ours "$ID" | wc -l)
if [ -n "$HYDRA" ]; then
    for np in 1 3 5; do
        CLUMPI_JOB_ID=$ID timeout -k 5 60 "$HYDRA" -n $np "$bin" >"$TMP/out" 2>&1 </dev/null
        rc=$?
        if [ $rc -eq 0 ] && grep -q "shm_names: ok" "$TMP/out"; then ok "Hydra, $np ranks, $nsquat squatted names: runs, windows allocate"
        else fail "Hydra, $np ranks, squatted names: exit $rc"; sed 's/^/   | /' "$TMP/out" | head -20; fi
    done
    [ "$(ours "$ID" | wc -l)" -eq "$nsquat" ] || fail "the squatter's files changed"
else
    echo "SKIP the Hydra runs: MPICH's Hydra (mpiexec.hydra) is not installed"
fi
rm -f /dev/shm/clumpi-$ID-*

# --- a rank killed before, during or after MPI_Init ------------------------------
for spec in "before 0 1" "during 0 0" "during 3000 2" "during 20000 1" "during 80000 0" "after 0 2"; do
    set -- $spec
    timeout -k 5 60 "$MPIRUN" $MPIRUN_FLAGS -v -n 3 --timeout 50 "$bin" kill "$@" >"$TMP/out" 2>&1 </dev/null
    rc=$?
    job=$(sed -n 's/^mpirun: job \([0-9a-zA-Z]*\): .*/\1/p' "$TMP/out")
    [ $rc -ne 0 ] || fail "mpirun, killed $1 MPI_Init ($2 us): exit 0"
    no_leftovers "mpirun, rank $3 killed $1 MPI_Init (+$2 us)" "$job"
    if [ -n "$HYDRA" ]; then
        CLUMPI_JOB_ID=$ID-$1-$2 timeout -k 5 60 "$HYDRA" -n 3 "$bin" kill "$@" >"$TMP/out" 2>&1 </dev/null
        rc=$?
        [ $rc -ne 0 ] || fail "Hydra, killed $1 MPI_Init ($2 us): exit 0"
        no_leftovers "Hydra, rank $3 killed $1 MPI_Init (+$2 us)" "$ID-$1-$2"
    fi
done

[ $fails -eq 0 ] && echo "shm_names: all passed"
[ $fails -eq 0 ]
