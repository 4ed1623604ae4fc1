#!/bin/sh
# spawn_fail.sh — failures around MPI_Comm_spawn (test/mpi/spawn.c):
#  abort      2 parents spawn 2 children that call MPI_Abort while the
#             parents wait for them: mpirun must end the whole job, non-zero,
#             within 20 s, leaving no process of either job behind
#  singleton  the program run without a launcher: MPI_Comm_spawn returns
#             MPI_ERR_SPAWN at once instead of hanging
here=$(dirname "$0")
. "$here/mpirun-env.sh"
clumpi_test_bin spawn_fail.sh spawn
nodes=${CLUMPI_TEST_NODES:-1}
[ "$nodes" -gt 2 ] && nodes=2
fail=0
start=$(date +%s)
out=$(timeout 60 "$MPIRUN" $MPIRUN_FLAGS -n 2 --nodes "$nodes" "$bin" abort 2>&1)
rc=$?
took=$(( $(date +%s) - start ))
echo "$out"
if [ $rc -eq 0 ] || [ $rc -eq 124 ] || [ $took -gt 20 ]; then
    echo "FAIL spawn_fail.sh: abort: exit $rc after $took s"
    fail=1
fi
sleep 0.5
if pgrep -f "$bin abort" > /dev/null; then
    echo "FAIL spawn_fail.sh: processes left behind:"
    pgrep -af "$bin abort"
    fail=1
fi
out=$(env -u PMI_FD -u PMI_PORT timeout 30 "$bin" singleton 2>&1)
rc=$?
echo "$out"
if [ $rc -ne 0 ] || ! echo "$out" | grep -q "PASS spawn"; then
    echo "FAIL spawn_fail.sh: singleton: exit $rc"
    fail=1
fi
[ $fail -eq 0 ] && echo "PASS spawn_fail.sh"
exit $fail
