#!/bin/sh
# Argument errors of the collectives; an unknown algorithm name.
exec "$(dirname "$0")/run-coll" test/coll/errors BCAST "default bogus"
