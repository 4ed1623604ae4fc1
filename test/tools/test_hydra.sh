#!/bin/sh
# test_hydra.sh — the PMI client under MPICH's Hydra (package mpich): over
# PMI_FD (Hydra's default) and PMI_PORT (-pmi-port), and the same failure
# cases mpirun handles. Skips (77) when Hydra is not installed.
. "${top_srcdir:-$(dirname "$0")/../..}/test/tools/common.sh"

HYDRA=
for c in mpiexec.hydra mpiexec.mpich; do
    if command -v "$c" >/dev/null 2>&1; then HYDRA=$(command -v "$c"); break; fi
done
if [ -z "$HYDRA" ]; then
    echo "SKIP: MPICH's Hydra (mpiexec.hydra) is not installed (Debian: apt-get install mpich)"
    exit 77
fi
[ -x "$PMI_PROG" ] || { echo "no $PMI_PROG: make check builds it"; exit 99; }

hydra() {
    timeout -k 5 60 "$HYDRA" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
}

hydra -n 4 "$PMI_PROG"
check "Hydra PMI_FD: 4 ranks" [ $rc -eq 0 ]
check "Hydra PMI_FD: all ok, one node from its mapping" [ "$(grep -c ' of 4 ok nodes=1 singleton=0' "$TMP/out")" -eq 4 ]

hydra -pmi-port -n 3 "$PMI_PROG"
check "Hydra PMI_PORT: 3 ranks" [ $rc -eq 0 ]
check "Hydra PMI_PORT: all ok" [ "$(grep -c ' of 3 ok nodes=1 singleton=0' "$TMP/out")" -eq 3 ]

hydra -n 3 "$PMI_PROG" --abort 1 6
check "Hydra: abort ends the job with a failure status" [ $rc -ne 0 ]

hydra -n 3 "$PMI_PROG" --crash 0
check "Hydra: a crash ends the job" [ $rc -ne 0 ]

# MPMD: the second program's ranks get appnum 1 through PMI, as MPI_APPNUM.
COMMS=${top_builddir:-.}/test/mpi/comms
if [ -x "$COMMS" ]; then
    hydra -n 1 "$COMMS" : -n 1 -env CLUMPI_TEST_APPNUM 1 "$COMMS"
    check "Hydra MPMD: MPI_APPNUM 0 and 1" [ $rc -eq 0 ]
fi

# Dynamic processes under Hydra's PMI: MPI_Comm_spawn (Hydra serves PMI
# spawn; the children find the port in their key-value space), ports and
# the name service within one job, and spawns whose children end before
# connecting: Hydra does not report that, so the root gives up after
# CLUMPI_SPAWN_TIMEOUT seconds with MPI_ERR_SPAWN (spawn's missing program,
# spawn_dead "timeout").
MPI_BIN=${top_builddir:-.}/test/mpi
for t in spawn port names; do
    [ -x "$MPI_BIN/$t" ] || continue
    hydra -n 3 -env CLUMPI_SPAWN_TIMEOUT 2 "$MPI_BIN/$t"
    check "Hydra: test/mpi/$t with 3 ranks" [ $rc -eq 0 ]
done
if [ -x "$MPI_BIN/spawn_dead" ]; then
    t0=$(date +%s)
    hydra -n 2 -env CLUMPI_SPAWN_TIMEOUT 2 "$MPI_BIN/spawn_dead" timeout
    took=$(( $(date +%s) - t0 ))
    check "Hydra: a spawn whose children end before connecting fails (MPI_ERR_SPAWN)" [ $rc -eq 0 ]
    check "Hydra: ... after CLUMPI_SPAWN_TIMEOUT, not a hang ($took s)" [ $took -lt 15 ]
fi
# Accept/connect between two Hydra jobs finding each other through
# hydra_nameserver (a lookup of a name not yet published is MPI_ERR_NAME).
NS=$(command -v hydra_nameserver)
if [ -n "$NS" ] && [ -x "$MPI_BIN/connect" ]; then
    nsport=$((20000 + $$ % 20000))
    "$NS" -port $nsport >/dev/null 2>&1 &
    nspid=$!
    sleep 0.3
    timeout -k 5 60 "$HYDRA" -nameserver localhost:$nsport -n 2 "$MPI_BIN/connect" server \
        "svc hydra" >"$TMP/server" 2>&1 </dev/null &
    spid=$!
    hydra -nameserver localhost:$nsport -n 3 "$MPI_BIN/connect" client "svc hydra"
    wait $spid
    src=$?
    kill $nspid 2>/dev/null
    wait $nspid 2>/dev/null
    check "Hydra: connect between two jobs through hydra_nameserver" [ "$rc $src" = "0 0" ]
fi

printf 'in\n' | timeout 30 "$HYDRA" -n 2 "$PMI_PROG" --stdin --quiet >"$TMP/out" 2>"$TMP/err"
check "Hydra: stdin to rank 0" grep -q '^stdin: in$' "$TMP/out"

finish
