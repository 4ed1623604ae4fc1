#!/bin/sh
# Fails when libmpi.so exports a symbol that is not part of the MPI
# interface. Allowed: MPI_/PMPI_/MPIX_/PMPIX_ names (the predefined
# callbacks are functions named MPI_COMM_DUP_FN and so on) and the
# linker's own (_init, _fini, _edata, _end, __bss_start). Under
# AddressSanitizer an exported variable V comes with __odr_asan.V, its
# one-definition indicator: checked as V. And the library calls none of
# its own entry points through the PLT: it calls their hidden aliases
# (mpir_x, src/mpir.h), so a tool's MPI_x or PMPI_x never sees its calls.
# Skips (77) when the shared library was not built.
top_builddir=${top_builddir:-.}
lib=$top_builddir/.libs/libmpi.so
if [ ! -f "$lib" ]; then
    echo "exports.sh: $lib not built; skipped"
    exit 77
fi
if ! command -v nm >/dev/null 2>&1; then
    echo "exports.sh: nm not found; skipped"
    exit 77
fi
syms=$(nm -D --defined-only "$lib" | awk '{ print $3 }') || exit 99

bad=$(printf '%s\n' "$syms" | sed 's/^__odr_asan\.//' | grep -v -E '^P?MPIX?_' |
      grep -v -x -E '_init|_fini|_edata|_end|__bss_start')
if [ -n "$bad" ]; then
    echo "libmpi.so exports $(printf '%s\n' "$bad" | wc -l) symbols outside the MPI interface:"
    printf '%s\n' "$bad" | head -n 40
    exit 1
fi
# The interface itself is there, under both names.
for s in MPI_Send PMPI_Send MPI_Init PMPI_Init MPIX_Counter_create \
         PMPIX_Counter_create MPI_F_STATUS_IGNORE MPI_COMM_DUP_FN MPIX_UNWEIGHTED_OBJ; do
    if ! printf '%s\n' "$syms" | grep -q -x -F "$s"; then
        echo "libmpi.so does not export $s"
        exit 1
    fi
done
# A call through the PLT leaves a jump-slot relocation naming its target.
if command -v readelf >/dev/null 2>&1; then
    plt=$(readelf -rW "$lib" | awk '$3 ~ /JUMP_SLOT/ && $5 ~ /^P?MPIX?_/ { print $5 }') || exit 99
    if [ -n "$plt" ]; then
        echo "libmpi.so calls $(printf '%s\n' "$plt" | wc -l) of its own entry points through the PLT" \
             "(call mpir_x, declared with MPIR_INTERNAL in src/mpir.h):"
        printf '%s\n' "$plt" | head -n 40
        exit 1
    fi
fi
echo "libmpi.so exports $(printf '%s\n' "$syms" | wc -l) symbols, all of the MPI interface"
exit 0
