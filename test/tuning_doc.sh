#!/bin/sh
# tuning_doc.sh — doc/TUNING.md lists exactly the parameters of
# src/util/param_table.c, each with the table's default: fails naming each
# parameter missing from the document, each row of the document that is no
# parameter, and each default that differs. A row is a table line
# "| `CLUMPI_X` | default | ..." of a table with an MPI_T column; a string
# parameter without a default may show any "(...)" text, e.g. "(by size)".
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
list=$top_builddir/test/tools/param_list
doc=$top_srcdir/doc/TUNING.md
[ -x "$list" ] || { echo "tuning_doc.sh: $list not built"; exit 99; }
[ -r "$doc" ] || { echo "tuning_doc.sh: $doc not found"; exit 99; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$list" | sort > "$TMP/table" || exit 99
# The documented rows: NAME<TAB>DEFAULT, from tables whose header has MPI_T.
awk -F'|' '
    /^\|/ && /MPI_T/ { param = 1; next }
    !/^\|/ { param = 0; next }
    param && $2 ~ /`CLUMPI_[A-Z0-9_]+`/ {
        name = $2; gsub(/[ `]/, "", name)
        def = $3; sub(/^ +/, "", def); sub(/ +$/, "", def)
        print name "\t" def
    }' "$doc" | sort > "$TMP/doc"
fail=0
cut -f1 "$TMP/table" > "$TMP/tnames"
cut -f1 "$TMP/doc" > "$TMP/dnames"
for n in $(comm -23 "$TMP/tnames" "$TMP/dnames"); do
    echo "FAIL tuning_doc.sh: $n (src/util/param_table.c) is missing from doc/TUNING.md"
    fail=1
done
for n in $(comm -13 "$TMP/tnames" "$TMP/dnames"); do
    echo "FAIL tuning_doc.sh: doc/TUNING.md lists $n, which is not a parameter of src/util/param_table.c"
    fail=1
done
for n in $(sort "$TMP/dnames" | uniq -d); do
    echo "FAIL tuning_doc.sh: doc/TUNING.md lists $n twice"
    fail=1
done
join -t "$(printf '\t')" "$TMP/table" "$TMP/doc" > "$TMP/both"
while IFS="$(printf '\t')" read -r n want got; do
    [ "$want" = "$got" ] && continue
    case "$want:$got" in "(unset):("*")") continue ;; esac
    echo "FAIL tuning_doc.sh: $n: default $want in src/util/param_table.c, $got in doc/TUNING.md"
    fail=1
done < "$TMP/both"
[ $fail -eq 0 ] && echo "PASS tuning_doc.sh ($(wc -l < "$TMP/table") parameters)"
exit $fail
