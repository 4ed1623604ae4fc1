#!/bin/sh
# layers.sh — the include rule of the tree, checked on every #include of
# every .c and .h file that names a file of the tree ("..." and <...>, e.g.
# <mpi.h>), and on the sources each program compiles (the *_SOURCES lists
# of the Makefile.mk files: a program may compile only what its first
# source may include); exits 1 naming the file and line of each breach.
#
# The rule: src -> coll -> mpid -> {shmmod, netmod} -> src/util. A layer
# includes its own headers and those of the layers it uses, never one to
# its left or beside it. Zones and what each may include (besides itself,
# system headers and the generated config.h):
#
#   src/util          nothing else: the leaf. Not mpi.h: it has its own
#                     types (cu_*), translated where the layers above call it.
#   mpid/channel.h,   the channel interface: src/util only, so that a
#   mpid/counters.h   channel including it gets nothing more.
#   shmmod            the channel interface, src/util.
#   netmod/common     src/util: what the netmods share, knowing none of them.
#   netmod/<name>     the channel interface, netmod/common, src/util; not
#                     another netmod/<name> (ofi, agent are siblings).
#   mpid              channels (shmmod, netmod), src/util, and mpi.h: the
#                     device's interface is in MPI's types (status, datatypes).
#   coll              mpid, src/util, mpi.h; channels only through the device.
#   src (the MPI      coll, mpid, src/util, mpi.h; channels only through the
#   layer, src/mpit)  device.
#   src/include       nothing: mpi.h is the public API and stands alone.
#   src/tools         src/util, mpi.h (mpirun, mpicc: users of the API that
#                     share util's parameter table and PMI wire format).
#   bench, examples   mpi.h and their own folder: programs of the public API.
#   test              anything: unit tests reach into the layer they test.
#
# Violations another change is still removing are listed in test/layers.allow
# as "file:included-file" (for a program's sources "Makefile.mk:source";
# paths from the top of the tree, # comments); a line that no longer
# matches a violation fails the check too, so the list only shrinks.
# Libraries (lib*_la) are packaging, not dependencies: not checked.
#
# usage: layers.sh [TOP [ALLOWLIST]]   (default: the tree this script is in)
top=${1:-${top_srcdir:-$(dirname "$0")/..}}
allow=${2:-test/layers.allow}
case $allow in /*) ;; *) [ -n "$2" ] && allow=$PWD/$allow ;; esac
cd "$top" || exit 99
[ -f "$allow" ] || { echo "layers.sh: no allowlist $allow"; exit 99; }

list=$(mktemp "${TMPDIR:-/tmp}/clumpi-layers.XXXXXX") || exit 99
mks=$(mktemp "${TMPDIR:-/tmp}/clumpi-layers.XXXXXX") || exit 99
trap 'rm -f "$list" "$mks"' EXIT
find src coll mpid shmmod netmod test bench examples \
     \( -name '*.c' -o -name '*.h' \) -type f 2>/dev/null | sed 's|^\./||' | sort >"$list"
[ -s "$list" ] || { echo "layers.sh: no sources under $top"; exit 99; }
find src coll mpid shmmod netmod test bench examples -name Makefile.mk -type f 2>/dev/null |
    sort >"$mks"

# Each include line as FILE:LINE:TEXT, after the list of files that exist
# (and the allowlist), for awk to resolve and judge in one pass; the
# Makefile.mk files are read at the end.
xargs grep -Hn -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' <"$list" |
awk -v listfile="$list" -v mkfile="$mks" -v allowfile="$allow" '
function zone(p) {
    if (p == "config.h") return "config"
    if (p ~ /^src\/include\//) return "api"
    if (p ~ /^src\/util\//) return "util"
    if (p ~ /^src\/tools\//) return "tools"
    if (p ~ /^src\//) return "mpi"
    if (p ~ /^coll\//) return "coll"
    if (p == "mpid/channel.h" || p == "mpid/counters.h") return "chanif"
    if (p ~ /^mpid\//) return "mpid"
    if (p ~ /^shmmod\//) return "shmmod"
    if (p ~ /^netmod\/common\//) return "netcommon"
    if (p ~ /^netmod\/[^\/]+\//) { split(p, a, "/"); return "netmod/" a[2] }
    if (p ~ /^test\//) return "test"
    if (p ~ /^bench\//) return "bench"
    if (p ~ /^examples\//) return "examples"
    return "other"
}
# May a file of zone s include one of zone t?
function may(s, t) {
    if (s == t || t == "config" || s == "test") return 1
    if (s == "util" || s == "api") return 0
    if (s == "chanif") return t == "util"
    if (s == "shmmod") return t == "chanif" || t == "util"
    if (s == "netcommon") return t == "util"
    if (s ~ /^netmod\//) return t == "chanif" || t == "netcommon" || t == "util"
    if (s == "mpid") return t == "chanif" || t == "shmmod" || t ~ /^net/ || t == "util" || t == "api"
    if (s == "coll") return t == "mpid" || t == "chanif" || t == "util" || t == "api"
    if (s == "mpi") return t == "coll" || t == "mpid" || t == "chanif" || t == "util" || t == "api"
    if (s == "tools") return t == "util" || t == "api"
    if (s == "bench" || s == "examples") return t == "api"
    return 0
}
# "a/b/../c/./d.h" -> "a/c/d.h"
function norm(p,    n, a, out, k, i, m) {
    n = split(p, a, "/"); m = 0
    for (i = 1; i <= n; i++) {
        if (a[i] == "." || a[i] == "") continue
        if (a[i] == ".." && m > 0) { m--; continue }
        out[++m] = a[i]
    }
    p = ""
    for (k = 1; k <= m; k++) p = p (k > 1 ? "/" : "") out[k]
    return p
}
BEGIN {
    while ((getline f < listfile) > 0) exists[f] = 1
    while ((getline l < allowfile) > 0) {
        sub(/#.*/, "", l); gsub(/[[:space:]]/, "", l)
        if (l != "") { allowed[l] = 0; nallow++ }
    }
    bad = 0
}
{
    # FILE:LINE:TEXT (file names have no colon)
    file = $0; sub(/:.*/, "", file)
    rest = substr($0, length(file) + 2)
    line = rest; sub(/:.*/, "", line)
    text = substr(rest, length(line) + 2)
    angle = text ~ /^[[:space:]]*#[[:space:]]*include[[:space:]]*</
    inc = text; sub(/^[^"<]*["<]/, "", inc); sub(/[">].*/, "", inc)
    dir = file; sub(/\/[^\/]*$/, "", dir)
    # the compiler looks beside the file ("..." only), then in -I top,
    # -I src/include; an <...> naming no file of ours is a system header
    if (!angle && (norm(dir "/" inc)) in exists) target = norm(dir "/" inc)
    else if (norm(inc) in exists) target = norm(inc)
    else if (("src/include/" inc) in exists) target = "src/include/" inc
    else if (inc == "config.h") target = "config.h"
    else if (angle) next
    else {
        printf "%s:%s: #include \"%s\" names no file of the tree\n", file, line, inc
        bad = 1; next
    }
    judge(file, line, angle ? "#include <" inc ">" : "#include \"" inc "\"", file, target)
}
# Reports `target` used by `file` (whose zone is that of `as`) unless the
# rule or the allowlist lets it.
function judge(file, line, what, as, target,    s, t, key) {
    s = zone(as); t = zone(target)
    if (may(s, t)) return
    key = file ":" target
    if (key in allowed) { allowed[key]++; return }
    printf "%s:%s: %s: %s may not include %s (%s)\n", file, line, what, s, t, target
    bad = 1
}
# The *_SOURCES lists of the programs of one Makefile.mk.
function sources(mk,    l, whole, first, n, w, i, name, src, at) {
    whole = ""; n = 0
    while ((getline l < mk) > 0) {
        n++
        if (whole == "") at = n
        if (l ~ /\\$/) { whole = whole substr(l, 1, length(l) - 1) " "; continue }
        whole = whole l
        if (whole ~ /^[A-Za-z0-9_]+_SOURCES[[:space:]]*\+?=/ && whole !~ /^lib/) {
            name = whole; sub(/_SOURCES.*/, "", name)
            src = whole; sub(/^[^=]*=/, "", src)
            w = split(src, tok, /[[:space:]]+/); first = ""
            for (i = 1; i <= w; i++) {
                if (tok[i] !~ /\.[ch]$/) continue
                if (first == "") { first = tok[i]; continue }
                judge(mk, at, name "_SOURCES compiles " tok[i], first, tok[i])
            }
        }
        whole = ""
    }
    close(mk)
}
END {
    while ((getline mk < mkfile) > 0) sources(mk)
    for (k in allowed)
        if (!allowed[k]) {
            printf "%s: allowlist line \"%s\" matches no violating include: remove it\n", allowfile, k
            bad = 1
        }
    if (!bad) printf "layers: every include and program source follows src -> coll -> mpid -> {shmmod, netmod} -> src/util (%d allowlisted)\n", nallow
    exit bad
}'
