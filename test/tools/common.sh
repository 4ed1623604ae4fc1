# common.sh — shared by the launcher tests: where things are, and checks.
# Sourced; automake's AM_TESTS_ENVIRONMENT exports top_builddir/top_srcdir.
# Absolute, so a test may change directory (test_netns.sh runs in $TMP).
top_builddir=$(cd "${top_builddir:-.}" && pwd)
top_srcdir=$(cd "${top_srcdir:-$(dirname "$0")/../..}" && pwd)
MPIRUN=$top_builddir/src/tools/mpirun
PMI_PROG=$top_builddir/test/tools/pmi_prog
TMP=$(mktemp -d "${TMPDIR:-/tmp}/clumpi-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fails=0
tests=0

pass() { tests=$((tests + 1)); echo "ok   - $1"; }
fail() { tests=$((tests + 1)); fails=$((fails + 1)); echo "FAIL - $1"; shift; for l in "$@"; do echo "       $l"; done; }

# check NAME CONDITION...: the condition is a command; prints detail on failure.
check() {
    name=$1; shift
    if "$@"; then pass "$name"; else fail "$name" "condition: $*" "stdout: $(head -c 600 "$TMP/out" 2>/dev/null)" "stderr: $(head -c 600 "$TMP/err" 2>/dev/null)"; fi
}

# run ARGS...: runs mpirun with a safety timeout; sets $rc and $secs, output
# in $TMP/out and $TMP/err.
run() {
    t0=$(date +%s%N)
    timeout -k 5 60 "$MPIRUN" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    secs=$(( ($(date +%s%N) - t0) / 1000000 ))   # milliseconds, despite the name
}

lines_of() { wc -l <"$1" | tr -d ' '; }

# pmi_addr_of FILE TRIES: sets $addr to the host:port mpirun -v reports for
# its PMI service in FILE (mpirun's stderr), polling every 0.1 s up to TRIES
# times; empty when it never came.
pmi_addr_of() {
    addr=
    for _ in $(seq "$2"); do
        addr=$(sed -n 's/^mpirun: PMI service for remote ranks at //p' "$1" 2>/dev/null)
        [ -n "$addr" ] && break
        sleep 0.1
    done
}

finish() {
    echo "$tests checks, $fails failed"
    [ "$fails" -eq 0 ]
}
