#!/bin/sh
# Every MPI_Barrier algorithm, forced by name (--variants: print them; hier
# first, so that zip-variants in bcast.sh pairs it with bcast's default).
v="hier default dissemination binomial shm"
[ "${1:-}" = --variants ] && { echo "$v"; exit 0; }
exec "$(dirname "$0")/run-coll" test/coll/bcast BARRIER "$v" barrier
