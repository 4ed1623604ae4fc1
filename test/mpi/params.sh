#!/bin/sh
# params.sh — checking of the CLUMPI_* variables (src/util/param.c):
#  - a malformed value ends the job, read or not, with one line naming the
#    variable, the value and what is accepted: in mpirun, for -genv values,
#    and at MPI_Init of a program started without mpirun
#  - on/off rows take 0/1, off/on, no/yes, false/true (any case)
#  - an unknown CLUMPI_* name warns once, naming the closest parameter; the
#    variables mpirun sets for its ranks do not warn
#  - a missing libfabric provider is named, with the variable that chose it
here=$(dirname "$0")
. "$here/mpirun-env.sh"
clumpi_test_bin params.sh procname
fail=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# expect WHAT RC PATTERN COUNT CMD...: CMD exits with RC (0 or non-zero) and
# its output has exactly COUNT lines (+: at least one) matching the extended
# regex PATTERN.
expect() {
    what=$1 want=$2 pat=$3 count=$4
    shift 4
    "$@" > "$TMP/out" 2>&1
    rc=$?
    n=$(grep -cE -- "$pat" "$TMP/out")
    if { [ "$want" = 0 ] && [ $rc -ne 0 ]; } || { [ "$want" != 0 ] && [ $rc -eq 0 ]; } ||
       [ $rc -eq 124 ] || { [ "$count" = + ] && [ "$n" -eq 0 ]; } ||
       { [ "$count" != + ] && [ "$n" -ne "$count" ]; }; then
        echo "FAIL params.sh: $what: exit $rc, $n lines matching /$pat/ (want $count):"
        sed 's/^/    /' "$TMP/out"
        fail=1
    else
        echo "ok: $what"
    fi
}
run() { env "$@" timeout 60 "$MPIRUN" $MPIRUN_FLAGS -n 2 "$bin"; }
run2() { env "$@" timeout 60 "$MPIRUN" $MPIRUN_FLAGS -n 2 --nodes 2 "$bin"; }
single() { env -u PMI_FD -u PMI_PORT "$@" timeout 60 "$bin"; }
ACC01='accepted: 0/1, off/on, no/yes, false/true$'

expect "malformed on/off row, never read in this run" 1 \
    "^clumpi: fatal: CLUMPI_SHM_CMA=bogus is not a valid value; $ACC01" 1 \
    run CLUMPI_SHM_CMA=bogus
expect "on/off row out of its enumeration" 1 "CLUMPI_RMA_AM=2 is not a valid value; $ACC01" 1 \
    run CLUMPI_RMA_AM=2
expect "malformed integer" 1 \
    "CLUMPI_SHM_FRAGS=12x is not a valid value; accepted: an integer in .*suffixes allowed" 1 \
    run CLUMPI_SHM_FRAGS=12x
expect "malformed string row" 1 "CLUMPI_NET=ofi is not a valid value; accepted: direct, agent$" 1 \
    run CLUMPI_NET=ofi
expect "launcher row read only for remote ranks" 1 \
    "CLUMPI_CONNECT_TIMEOUT=-1 is not a valid value; accepted: a positive number of seconds$" 1 \
    run CLUMPI_CONNECT_TIMEOUT=-1
expect "malformed -genv value" 1 "CLUMPI_NO_RMA=maybe is not a valid value; $ACC01" 1 \
    timeout 60 "$MPIRUN" $MPIRUN_FLAGS -n 2 -genv CLUMPI_NO_RMA maybe "$bin"
expect "malformed value without mpirun" 1 "CLUMPI_OFI_ATOMICS=sometimes is not a valid value; \
accepted: -1/0/1, auto/off/on, no/yes, false/true$" 1 single CLUMPI_OFI_ATOMICS=sometimes
for v in 0 1 off on OFF On no yes false TRUE; do
    expect "on/off spelling $v" 0 "^PASS procname" 1 \
        run CLUMPI_SHM_CMA=$v CLUMPI_RMA_AM=$v CLUMPI_OVERSUBSCRIBED=$v
done
expect "auto spelling" 0 "^PASS procname" 1 run CLUMPI_OVERSUBSCRIBED=auto CLUMPI_OFI_ATOMICS=-1
expect "unknown name: one warning naming the closest" 0 \
    "CLUMPI_SHM_FRAG is not a clumpi parameter \(ignored\); did you mean CLUMPI_SHM_FRAGS\?$" 1 \
    run CLUMPI_SHM_FRAG=4
expect "unknown -genv name" 0 "CLUMPI_VERBOS is not a clumpi parameter.*CLUMPI_VERBOSE\?$" 1 \
    timeout 60 "$MPIRUN" $MPIRUN_FLAGS -n 2 -genv CLUMPI_VERBOS 1 "$bin"
expect "unknown name without mpirun" 0 "CLUMPI_EAGERLIMIT is not.*CLUMPI_EAGER_LIMIT\?$" 1 \
    single CLUMPI_EAGERLIMIT=1
expect "the launcher's own variables do not warn" 0 "not a clumpi parameter" 0 \
    run CLUMPI_JOB_ID=x CLUMPI_LOCAL_RANK=0 CLUMPI_LOCAL_SIZE=1 CLUMPI_PARENT_PORT= \
    CLUMPI_CFLAGS=-O2 CLUMPI_LDFLAGS=-lm CLUMPI_CC=cc
expect "missing provider: named with its variable" 1 \
    'provider "nosuch" \(CLUMPI_OFI_PROVIDER\) offers no reliable messaging' + \
    run2 CLUMPI_OFI_PROVIDER=nosuch
[ $fail -eq 0 ] && echo "PASS params.sh"
exit $fail
