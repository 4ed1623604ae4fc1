#!/bin/sh
# test_mpicc.sh — the mpicc wrapper: flags, -show quoting (what it prints
# runs the same command), no link flags when not linking, --help; the
# examples built by the wrappers, the C++ and Fortran ones run on 1 and 2
# emulated nodes, and an mpif.h program built by mpifort.
. "${top_srcdir:-$(dirname "$0")/../..}/test/tools/common.sh"
MPICC=$top_builddir/src/tools/mpicc
[ -x "$MPICC" ] || { echo "no $MPICC: configure makes it"; exit 99; }

# A stand-in compiler that prints its arguments, one per line.
cat >"$TMP/fakecc" <<'EOF'
#!/bin/sh
for a in "$@"; do printf '<%s>\n' "$a"; done
EOF
chmod +x "$TMP/fakecc"
export CLUMPI_CC="$TMP/fakecc"

"$MPICC" -O2 -DNAME='"a b"' "it's.c" '' '$HOME' -o x >"$TMP/direct"
check "arguments reach the compiler intact" grep -q "^<-DNAME=\"a b\">$" "$TMP/direct"
check "quote and empty argument intact" sh -c "grep -q \"^<it's.c>\$\" '$TMP/direct' && grep -q '^<>\$' '$TMP/direct' && grep -q '^<\\\$HOME>\$' '$TMP/direct'"
check "links with -lmpi and an rpath" sh -c "grep -q '^<-lmpi>$' '$TMP/direct' && grep -q '^<-Wl,-rpath,' '$TMP/direct'"
check "include directory first" sh -c "head -1 '$TMP/direct' | grep -q '^<-I'"

shown=$("$MPICC" -show -O2 -DNAME='"a b"' "it's.c" '' '$HOME' -o x)
eval "$shown" >"$TMP/viashow"
check "-show prints a command that runs the same" cmp -s "$TMP/direct" "$TMP/viashow"
check "-show itself is not passed on" sh -c "! grep -q -- '-show' '$TMP/viashow'"

"$MPICC" -c x.c >"$TMP/out"
check "-c: no link flags" sh -c "! grep -q -- '-lmpi' '$TMP/out'"
CLUMPI_CFLAGS="-g -Wall" CLUMPI_LDFLAGS="-lm" "$MPICC" x.c >"$TMP/out"
check "CLUMPI_CFLAGS split into words, before the arguments" sh -c "sed -n '2p;3p' '$TMP/out' | tr -d '\n' | grep -q '^<-g><-Wall>$'"
check "CLUMPI_LDFLAGS last" sh -c "tail -1 '$TMP/out' | grep -q '^<-lm>$'"

check "-showme:link" sh -c "'$MPICC' -showme:link | grep -q -- '-lmpi'"
check "-showme:compile" sh -c "'$MPICC' -showme:compile | grep -q -- '^-I'"
"$MPICC" --help >"$TMP/out"
check "--help is man-style" sh -c "grep -q '^SYNOPSIS' '$TMP/out' && grep -q '^ENVIRONMENT' '$TMP/out'"

# mpicxx and mpic++: the same wrapper running the C++ compiler.
for w in mpicxx mpic++; do
    W=$top_builddir/src/tools/$w
    CLUMPI_CXX="$TMP/fakecc" "$W" -O2 "it's.cxx" -o x >"$TMP/out"
    check "$w: CLUMPI_CXX runs, arguments intact, -lmpi and rpath" sh -c "grep -q \"^<it's.cxx>\$\" '$TMP/out' && grep -q '^<-lmpi>$' '$TMP/out' && grep -q '^<-Wl,-rpath,' '$TMP/out'"
    check "$w: CLUMPI_CC does not change it" sh -c "[ \"\$(env -u CLUMPI_CXX -u MPICH_CXX '$W' -show x.cxx | cut -d' ' -f1)\" != '$TMP/fakecc' ]"
    "$W" --help >"$TMP/out"
    check "$w --help names itself and C++" sh -c "grep -q '^    $w - compile and link C++ MPI programs' '$TMP/out'"
    check "$w -showme:link" sh -c "'$W' -showme:link | grep -q -- '-lmpi'"
done

# mpifort, mpif90, mpif77: the Fortran compiler, with libmpifort (when
# configure built the Fortran bindings).
if [ -e "$top_builddir/src/tools/mpifort" ]; then
    for w in mpifort mpif90 mpif77; do
        W=$top_builddir/src/tools/$w
        CLUMPI_FC="$TMP/fakecc" "$W" "x.f90" -o x >"$TMP/out"
        check "$w: CLUMPI_FC runs, -lmpifort before -lmpi, rpath" sh -c "tr -d '\n' <'$TMP/out' | grep -q '<-lmpifort><-lmpi>' && grep -q '^<-Wl,-rpath,' '$TMP/out'"
        "$W" --help >"$TMP/out"
        check "$w --help names itself and Fortran" sh -c "grep -q '^    $w - compile and link Fortran MPI programs' '$TMP/out'"
    done
fi

# A real compile (no link: the library may not be installed) against mpi.h.
unset CLUMPI_CC
if command -v "$("$MPICC" -show x.c | cut -d' ' -f1)" >/dev/null 2>&1; then
    printf '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); return MPI_Finalize(); }\n' >"$TMP/hello.c"
    CLUMPI_CFLAGS="-I$top_srcdir/src/include" "$MPICC" -c "$TMP/hello.c" -o "$TMP/hello.o" 2>"$TMP/err"
    check "compiles a program against mpi.h" [ -s "$TMP/hello.o" ]
    # Each example builds with the mpicc line of its header (libm included)
    # against the library of this build tree.
    if [ -e "$top_builddir/.libs/libmpi.so" ]; then
        for src in "$top_srcdir"/examples/*.c "$top_srcdir"/examples/cxx/*.cxx \
                   "$top_srcdir"/examples/fortran/*.f90; do
            case $src in
                *.f90) [ -e "$top_builddir/src/tools/mpifort" ] || continue ;;
            esac
            line=$(sed -n 's|^[ *!]*   \(mpi[a-z+]* examples/[^ ]* -o [^&]*\).*|\1|p' "$src" | head -n 1)
            set -- $line
            wrapper=$top_builddir/src/tools/$1
            shift 2
            name=${src#"$top_srcdir"/examples/}
            out=$TMP/$(echo "$name" | tr / _)
            rm -f "$out"
            # (a sanitizer build's library wants its runtime in the program)
            CLUMPI_CFLAGS="-I$top_srcdir/src/include -I$top_builddir/src/fortran -L$top_builddir/.libs ${SAN_CFLAGS:-}" \
                "$wrapper" "$src" "$@" -o "$out" >"$TMP/err" 2>&1
            check "examples/$name builds as its header says ($line)" [ -x "$out" ]
            # the C++ and Fortran ones (mpicxx, mpifort: use mpi, use mpi_f08)
            # run on one node and on 2 emulated nodes, against this tree's
            # libraries (their rpath names the install's)
            case $src in *.c) continue ;; esac
            ex="examples/${src#"$top_srcdir"/examples/} built by ${wrapper##*/}"
            for nodes in 1 2; do
                LD_LIBRARY_PATH=$top_builddir/.libs run --nodes $nodes -n 3 "$out"
                check "$ex runs with 3 ranks on $nodes node(s)" [ "$rc" -eq 0 ]
            done
        done
        # and a program with mpif.h, test/fortran/f77 (fixed form: configure's
        # FC_FIXED, which make check passes)
        if [ -e "$top_builddir/src/tools/mpifort" ] && [ -n "${FC_FIXED+set}" ]; then
            out=$TMP/f77
            CLUMPI_CFLAGS="-I$top_builddir/src/fortran -L$top_builddir/.libs ${SAN_CFLAGS:-}" \
                "$top_builddir/src/tools/mpifort" $FC_FIXED "$top_srcdir/test/fortran/f77.f90" \
                -o "$out" >"$TMP/err" 2>&1
            check "mpifort builds an mpif.h program (test/fortran/f77)" [ -x "$out" ]
            for nodes in 1 2; do
                LD_LIBRARY_PATH=$top_builddir/.libs run --nodes $nodes -n 3 "$out"
                check "the mpif.h program built by mpifort runs with 3 ranks on $nodes node(s)" [ "$rc" -eq 0 ]
            done
        fi
    fi
fi

finish
