#!/bin/sh
# Every MPI_Bcast algorithm, forced by name (binary with segments of 1 KiB
# +- 1 byte, their megabytes at one root only: COLL_BIG=0 in ctest.h;
# k-nomial with k = 2, 3, 4). With COLL_LONG=1 each job also
# forces one of barrier.sh's MPI_Barrier algorithms (zip-variants; bcast.c
# checks barriers too), so every barrier algorithm runs on every rank count
# and node split here and check-long needs no barrier.sh jobs of its own.
d=$(dirname "$0")
v="default binomial binary binary,CLUMPI_COLL_SEGSIZE=1023,COLL_BIG=0"
v="$v binary,CLUMPI_COLL_SEGSIZE=1025,COLL_BIG=0"
v="$v knomial knomial,CLUMPI_COLL_KNOMIAL_K=3 knomial,CLUMPI_COLL_KNOMIAL_K=2 flat"
v="$v scatter_allgather hier shm shm,CLUMPI_SHM_CMA=0"
if [ "${COLL_LONG:-0}" != 0 ]; then
    v=$("$d/zip-variants" BCAST "$v" BARRIER "$("$d/barrier.sh" --variants)") || exit
fi
exec "$d/run-coll" test/coll/bcast BCAST "$v"
