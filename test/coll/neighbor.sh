#!/bin/sh
# The neighborhood collectives (test/coll/neighbor.c), blocking and not, on
# Cartesian grids and distributed graphs: 1, 2, 3, 5, 8 ranks.
exec "$(dirname "$0")/run-coll" test/coll/neighbor NEIGHBOR "default"
