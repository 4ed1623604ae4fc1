#!/bin/sh
# test_slurm.sh — clumpi programs under a real one-node Slurm of the test's
# own (test/tools/slurm.sh: munged, slurmctld and slurmd as root, stopped
# at the end): srun --mpi=pmix (the PMIx client) and --mpi=pmi2 (the PMI-1
# wire) with 1-8 ranks, each checking the job size, collectives and RMA;
# MPI_Abort and a crash ending the step. Skips (77), saying
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
for p in "$LAUNCHED" "$CRASH" "$MPIRUN"; do
    [ -x "$p" ] || { echo "no $p: make check builds it"; exit 99; }
done

trap 'slurm_stop; rm -rf "$TMP"' EXIT
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
    srun_job --mpi=$mpi -n 3 "$CRASH" abort 1
    check "srun --mpi=$mpi: MPI_Abort ends the step, non-zero, at once ($secs ms)" \
        [ $rc -ne 0 -a $rc -ne 124 -a $secs -lt 15000 ]
    srun_job --mpi=$mpi -K -n 3 "$CRASH" segv 2
    check "srun --mpi=$mpi -K: a crashed rank ends the step ($secs ms)" \
        [ $rc -ne 0 -a $rc -ne 124 -a $secs -lt 15000 ]
done
[ -n "$PMIX" ] && {
    # A PMIx launcher nested in a PMI-1 one's job (or the reverse): the
    # PMI_FD or PMI_PORT given to the process wins over inherited PMIX_*.
    srun_job --mpi=pmix -n 1 "$MPIRUN" -n 3 "$LAUNCHED" 3
    check "mpirun inside an srun --mpi=pmix step: its ranks use mpirun's PMI" \
        [ $rc -eq 0 -a "$(grep -c ' of 3 ok' "$TMP/out")" -eq 3 ]
}

shm_after=$(ls /dev/shm | grep -c '^clumpi-slurm')
check "nothing of the srun jobs left in /dev/shm ($shm_before before, $shm_after after)" \
    [ "$shm_after" -le "$shm_before" ]
finish
