#!/bin/sh
# test_slurm.sh — clumpi programs under a real one-node Slurm of the test's
# own (test/tools/slurm.sh: munged, slurmctld and slurmd as root, stopped
# at the end): srun --mpi=pmix (the PMIx client) and --mpi=pmi2 (the PMI-1
# wire) with 1-8 ranks, each checking the job size, collectives and RMA;
# MPI_Abort and a crash ending the step, with srun -K and without it (then
# the ranks end the job themselves: mpid/peer_watch.c); mpirun inside salloc with and
# without -n, its ranks started through srun (the node's Slurm name is not
# this host's name, so mpirun takes it for another host); a rank killed
# before, during or after MPI_Init under srun leaves no process and nothing
# in /dev/shm (test/mpi/shm_names kill), with srun -K and without. Skips (77), saying
# why, without root or the packages (CI_WITH_SLURM=1 .ci/setup installs them).
. "${top_srcdir:-$(dirname "$0")/../..}/test/tools/common.sh"
. "$top_srcdir/test/tools/slurm.sh"

why=$(slurm_missing)
PMIX=yes
grep -q '^#define HAVE_PMIX 1' "$top_builddir/config.h" 2>/dev/null || PMIX=
# CI asked for Slurm (.ci/run): what would be a skip is a failure there.
if [ "${CI_WITH_SLURM:-0}" = 1 ] && [ -z "$why" ] && [ -z "$PMIX" ]; then
    why="clumpi was built without PMIx (configure found no pmix)"
fi
if [ -n "$why" ]; then
    [ "${CI_WITH_SLURM:-0}" = 1 ] && { echo "FAIL: CI_WITH_SLURM=1 but $why"; exit 99; }
    echo "SKIP: $why"
    exit 77
fi
LAUNCHED=$top_builddir/test/tools/launched
CRASH=$top_builddir/test/mpi/crash
SHMN=$top_builddir/test/mpi/shm_names
for p in "$LAUNCHED" "$CRASH" "$SHMN" "$MPIRUN"; do
    [ -x "$p" ] || { echo "no $p: make check builds it"; exit 99; }
done

trap 'slurm_stop; rm -rf "$TMP"' EXIT
# a copy under a name of its own: pgrep finds only this test's ranks, not
# test/mpi/shm_names.sh's running beside it under make -j
cp "$SHMN" "$TMP/shmn_slurm_$$" || exit 99
SHMN=$TMP/shmn_slurm_$$
trap 'exit 1' INT TERM
slurm_start "$TMP/slurm" || exit 99
shm_before=$(ls /dev/shm | grep -c '^clumpi-slurm')

# srun STEP-OPTIONS... program args: a step with a safety timeout.
srun_job() {
    t0=$(date +%s%N)
    timeout -k 5 60 srun "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    secs=$(( ($(date +%s%N) - t0) / 1000000 ))
}

plugins=pmi2
[ -n "$PMIX" ] && plugins="pmix pmi2"
[ -z "$PMIX" ] && echo "note: clumpi built without PMIx: srun --mpi=pmix not tested"
for mpi in $plugins; do
    for n in 1 2 3 4 5 6 7 8; do
        srun_job --mpi=$mpi -n $n "$LAUNCHED" $n
        check "srun --mpi=$mpi -n $n: every rank sees $n ranks, collectives and RMA agree" \
            [ $rc -eq 0 -a "$(grep -c " of $n ok nodes=1" "$TMP/out")" -eq $n ]
    done
    # The watch of a node's ranks from the start of MPI_Init reads the
    # others' environments: a large one must not look like a dead rank.
    CLUMPI_TEST_BIG_ENV=$(head -c 60000 /dev/zero | tr '\0' x) srun_job --mpi=$mpi -n 4 "$LAUNCHED" 4
    check "srun --mpi=$mpi -n 4 with a 60 KB environment variable: runs" \
        [ $rc -eq 0 -a "$(grep -c " of 4 ok nodes=1" "$TMP/out")" -eq 4 ]
    srun_job --mpi=$mpi -n 3 "$CRASH" abort 1
    check "srun --mpi=$mpi: MPI_Abort ends the step, non-zero, at once ($secs ms)" \
        [ $rc -ne 0 -a $rc -ne 124 -a $secs -lt 15000 ]
    srun_job --mpi=$mpi -K -n 3 "$CRASH" segv 2
    check "srun --mpi=$mpi -K: a crashed rank ends the step ($secs ms)" \
        [ $rc -ne 0 -a $rc -ne 124 -a $secs -lt 15000 ]
    # Without -K srun lets the other tasks run: the ranks end the job.
    for mode in segv exit exit0; do
        srun_job --mpi=$mpi -n 4 "$CRASH" $mode 2
        check "srun --mpi=$mpi (no -K): rank 2 ending by $mode ends the job ($secs ms)" \
            [ $rc -ne 0 -a $rc -ne 124 -a $secs -lt 15000 ]
    done
    check "... naming the dead rank" grep -q 'rank 2 on this node ended before MPI_Finalize' "$TMP/err"
    # A rank killed around MPI_Init, with -K and without it (then the
    # node's other ranks, which watch their slurmstepd siblings from the
    # start of MPI_Init, end the step).
    for spec in "before 0 1 -K" "during 3000 2 -K" "before 0 1" "during 3000 2" \
        "during 30000 0" "after 0 2"; do
        set -- $spec
        srun_job --mpi=$mpi $4 -n 3 "$SHMN" kill $1 $2 $3
        for _ in $(seq 50); do pgrep -f "$SHMN" >/dev/null || break; sleep 0.2; done
        left=$(pgrep -f "$SHMN" || true)
        check "srun --mpi=$mpi $4: rank $3 killed $1 MPI_Init (+$2 us) ends the step ($secs ms), no process left" \
            [ $rc -ne 0 -a $rc -ne 124 -a $secs -lt 15000 -a -z "$left" ]
        [ -z "$left" ] || kill -9 $left 2>/dev/null
        [ "$1 $4" = "before " ] && check "... saying a rank ended before MPI_Init finished" \
            grep -q 'ended before MPI_Init finished; ending the job' "$TMP/err"
    done
done
# Dynamic processes: ports and the name service within one job; under
# PMIx (Slurm cannot spawn) MPI_Comm_spawn fails with MPI_ERR_SPAWN at once.
MPI_BIN=$top_builddir/test/mpi
for mpi in $plugins; do
    for t in port names; do
        [ -x "$MPI_BIN/$t" ] || continue
        srun_job --mpi=$mpi -n 3 "$MPI_BIN/$t"
        check "srun --mpi=$mpi: test/mpi/$t with 3 ranks" [ $rc -eq 0 ]
    done
done
if [ -n "$PMIX" ] && [ -x "$MPI_BIN/spawn" ]; then
    srun_job --mpi=pmix -n 2 "$MPI_BIN/spawn" singleton
    check "srun --mpi=pmix: MPI_Comm_spawn fails with MPI_ERR_SPAWN ($secs ms)" \
        [ $rc -eq 0 -a $secs -lt 15000 ]
fi
[ -n "$PMIX" ] && {
    # A PMIx launcher nested in a PMI-1 one's job (or the reverse): the
    # PMI_FD or PMI_PORT given to the process wins over inherited PMIX_*.
    srun_job --mpi=pmix -n 1 "$MPIRUN" -n 3 "$LAUNCHED" 3
    check "mpirun inside an srun --mpi=pmix step: its ranks use mpirun's PMI" \
        [ $rc -eq 0 -a "$(grep -c ' of 3 ok' "$TMP/out")" -eq 3 ]
}

# mpirun inside an allocation: no -n runs its task count, through srun.
salloc_job() {
    t0=$(date +%s%N)
    timeout -k 5 60 salloc "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    secs=$(( ($(date +%s%N) - t0) / 1000000 ))
}
# The allocation's layout, on hosts that are all this machine (--launcher
# fork): SLURM_TASKS_PER_NODE gives the slots, their sum the default -n.
layout() {
    env SLURM_JOB_ID=77 SLURM_JOB_NODELIST='a[1-2],b' SLURM_TASKS_PER_NODE='2(x2),1' \
        SLURM_NTASKS="${NT:-}" "$MPIRUN" -v --launcher fork "$@" "$PMI_PROG" \
        >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
}
layout
check "a nodelist a[1-2],b with 2(x2),1 tasks: 5 ranks on 3 nodes" \
    [ $rc -eq 0 -a "$(grep -c ' of 5 ok nodes=3' "$TMP/out")" -eq 5 ]
check "... 2, 2 and 1 ranks on a1, a2 and b" \
    [ "$(grep -Eo 'host [ab][12]?, [0-9] ranks?' "$TMP/err" | tr '\n' ' ')" = \
      "host a1, 2 ranks host a2, 2 ranks host b, 1 rank " ]
NT=4 layout
check "SLURM_NTASKS=4 is the default -n" [ $rc -eq 0 -a "$(grep -c ' of 4 ok' "$TMP/out")" -eq 4 ]
layout -n 3 -ppn 1
check "-n 3 -ppn 1 on the allocation: one rank per node" \
    [ $rc -eq 0 -a "$(grep -c ' of 3 ok nodes=3' "$TMP/out")" -eq 3 ]

salloc_job -n 5 "$MPIRUN" -v "$LAUNCHED" 5
check "salloc -n 5 mpirun (no -n): 5 ranks" \
    [ $rc -eq 0 -a "$(grep -c ' of 5 ok nodes=1' "$TMP/out")" -eq 5 ]
check "salloc -n 5 mpirun: the node's ranks started through srun" \
    grep -q 'host clumpinode (remote), 5 ranks' "$TMP/err"
salloc_job -n 4 "$MPIRUN" -n 2 "$LAUNCHED" 2
check "salloc -n 4 mpirun -n 2: -n wins (2 ranks)" \
    [ $rc -eq 0 -a "$(grep -c ' of 2 ok' "$TMP/out")" -eq 2 ]
salloc_job -n 3 "$MPIRUN" --hosts localhost "$LAUNCHED" 1
check "salloc -n 3 mpirun --hosts localhost: the allocation left aside (1 rank here)" \
    [ $rc -eq 0 -a "$(grep -c ' of 1 ok' "$TMP/out")" -eq 1 ]
salloc_job -n 3 "$MPIRUN" "$CRASH" segv 1
check "salloc mpirun: a crashed rank ends the job ($secs ms)" \
    [ $rc -ne 0 -a $rc -ne 124 -a $secs -lt 15000 ]

shm_after=$(ls /dev/shm | grep -c '^clumpi-slurm')
check "nothing of the srun jobs left in /dev/shm ($shm_before before, $shm_after after)" \
    [ "$shm_after" -le "$shm_before" ]
finish
