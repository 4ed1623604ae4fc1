#!/usr/bin/env python3
"""gen.py — the Fortran bindings from one description of the API.

usage: gen.py MPI_API_TXT MPI_H OUTDIR

Writes into OUTDIR:
  mpi_fortran.c  libmpifort's C wrappers: pmpi_x_ per function (mpi_x_ a
                 weak alias of it, as tools expect), each calling the C MPI_X
  fgen.c         a C program that prints mpif.h ("fgen mpif"), the mpi
                 module's source ("fgen module") and the mpi_f08 module's
                 ("fgen f08", from gen_f08.py): the C compiler evaluates
                 the values of mpi.h's constants, so they cannot drift
The constants are every integer #define MPI_* of mpi.h in capitals (not
MPI_T_*), plus the Fortran-only ones listed below.
"""
import re
import sys

import gen_f08

api_txt, mpi_h, outdir = sys.argv[1:4]

# ---- the description ---------------------------------------------------------
funcs = []
glue = set()   # C wrappers written by hand in src/fortran/, not here
for line in open(api_txt):
    line = line.split('#', 1)[0].strip()
    if not line:
        continue
    words = line.split()
    name, ret, args = words[0], None, []
    for w in words[1:]:
        if w.startswith('->'):
            ret = w[2:]
        elif w == '@glue':
            glue.add(name)
        else:
            a, k = w.split(':', 1)
            args.append((a, k))
    funcs.append((name, ret, args))

# ---- constants from mpi.h ----------------------------------------------------
consts = []
for line in open(mpi_h):
    m = re.match(r'#define\s+(MPI_[A-Z0-9_]+)\s+(.+?)\s*(/\*.*)?$', line)
    if not m:
        continue
    name, val = m.group(1), m.group(2)
    # not pointers, strings, objects or functions (MPI_COMM_DUP_FN, ...)
    if (name.startswith('MPI_T_') or '*' in val or '"' in val or 'MPIX_' in val
            or re.search(r'_FN\b', val) or name in consts):
        continue
    consts.append(name)
# Fortran's own (MPI-3.1 17.2.4): the status array's size and indices, the kinds.
# The kinds are configure's (FC_*_KIND, given to fgen as MPIR_F_*_KIND).
fconsts = [('MPI_STATUS_SIZE', 'MPI_F_STATUS_SIZE'), ('MPI_SOURCE', '1'), ('MPI_TAG', '2'),
           ('MPI_ERROR', '3'), ('MPI_ADDRESS_KIND', 'MPIR_F_ADDRESS_KIND'),
           ('MPI_OFFSET_KIND', 'MPIR_F_OFFSET_KIND'), ('MPI_COUNT_KIND', 'MPIR_F_COUNT_KIND'),
           ('MPI_INTEGER_KIND', 'MPIR_F_INTEGER_KIND')]
fnames = {n for n, _ in fconsts}
consts = [c for c in consts if c not in fnames and c != 'MPI_F_STATUS_SIZE']

# The sentinels: common blocks whose addresses the wrappers recognise.
sentinels = [  # (Fortran declaration, common block, C symbol, C type)
    ('INTEGER MPI_BOTTOM', 'MPI_FORTRAN_BOTTOM', 'mpi_fortran_bottom_', 'MPI_Fint', ''),
    ('INTEGER MPI_IN_PLACE', 'MPI_FORTRAN_IN_PLACE', 'mpi_fortran_in_place_', 'MPI_Fint', ''),
    ('INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)', 'MPI_FORTRAN_STATUS_IGNORE',
     'mpi_fortran_status_ignore_', 'MPI_Fint', '[MPI_F_STATUS_SIZE]'),
    ('INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)', 'MPI_FORTRAN_STATUSES_IGNORE',
     'mpi_fortran_statuses_ignore_', 'MPI_Fint', '[MPI_F_STATUS_SIZE]'),
    ('INTEGER MPI_ERRCODES_IGNORE(1)', 'MPI_FORTRAN_ERRCODES_IGNORE',
     'mpi_fortran_errcodes_ignore_', 'MPI_Fint', '[1]'),
    ('INTEGER MPI_UNWEIGHTED(1)', 'MPI_FORTRAN_UNWEIGHTED', 'mpi_fortran_unweighted_',
     'MPI_Fint', '[1]'),
    ('INTEGER MPI_WEIGHTS_EMPTY(1)', 'MPI_FORTRAN_WEIGHTS_EMPTY', 'mpi_fortran_weights_empty_',
     'MPI_Fint', '[1]'),
    ('CHARACTER*1 MPI_ARGV_NULL(1)', 'MPI_FORTRAN_ARGV_NULL', 'mpi_fortran_argv_null_',
     'char', '[1]'),
    ('CHARACTER*1 MPI_ARGVS_NULL(1,1)', 'MPI_FORTRAN_ARGVS_NULL', 'mpi_fortran_argvs_null_',
     'char', '[1]'),
]
# The predefined attribute callbacks (MPI-3.1 6.7.2, 6.7.4): Fortran externals
# that libmpifort defines with Fortran's arguments (keyval.c).
externals = ['MPI_COMM_NULL_COPY_FN', 'MPI_COMM_NULL_DELETE_FN', 'MPI_COMM_DUP_FN',
             'MPI_TYPE_NULL_COPY_FN', 'MPI_TYPE_NULL_DELETE_FN', 'MPI_TYPE_DUP_FN',
             'MPI_WIN_NULL_COPY_FN', 'MPI_WIN_NULL_DELETE_FN', 'MPI_WIN_DUP_FN',
             'MPI_NULL_COPY_FN', 'MPI_NULL_DELETE_FN', 'MPI_DUP_FN']

# ---- C wrappers ----------------------------------------------------------------
CTYPE = {'int': 'MPI_Fint *', 'h': 'MPI_Fint *', 'aint': 'MPI_Aint *', 'lin': 'MPI_Fint *',
         'p': 'MPI_Fint *', 'pa': 'MPI_Fint *', 'la': 'MPI_Fint *', 'wts': 'MPI_Fint *',
         'apa': 'MPI_Aint *', 'ap': 'MPI_Aint *', 'baseptr': 'MPI_Aint *', 'lout': 'MPI_Fint *', 'buf': 'void *',
         'status': 'MPI_Fint *', 'statin': 'MPI_Fint *', 'strin': 'const char *', 'strout': 'char *',
         'count': 'MPI_Count *', 'cp': 'MPI_Count *', 'statio': 'MPI_Fint *', 'ranges': 'MPI_Fint *',
         'bufout': 'void *', 'strn': 'char *', 'attr': 'MPI_Aint *', 'attrout': 'MPI_Aint *',
         'iattr': 'MPI_Fint *', 'iattrout': 'MPI_Fint *', 'argv': 'char *', 'argvs': 'char *',
         'strs': 'char *', 'errcodes': 'MPI_Fint *'}

# What C gets for the kinds that need no code before or after the call.
CALL = {'int': '*%s', 'h': '*%s', 'aint': '*%s', 'count': '*%s', 'lin': '*%s != 0',
        'wts': 'mpir_f_weights(%s)', 'ranges': '(int (*)[3])%s', 'errcodes': 'mpir_f_errcodes(%s)',
        'attr': '(void *)*%s', 'iattr': '(void *)(MPI_Aint)*%s'}
CALL.update((k, '%s') for k in ('p', 'pa', 'la', 'ap', 'apa', 'cp', 'fn', 'baseptr', 'fstat'))
CALL['f08stat'] = '(MPI_F08_status *)%s'


def wrapper(name, ret, args, suffix=''):
    lname = name.lower() + suffix
    params, hidden, pre, call, post = [], [], [], [], []
    # what a failed allocation frees: those before it (nomem_k frees k)
    frees, fails = [], set()

    def nomem():
        fails.add(len(frees))
        return 'goto nomem_%d;' % len(frees)
    flag = [a for a, k in args if k == 'lout' and a == 'flag']
    flag = ' && c_flag' if flag else ''
    for a, k in args:
        kind, _, n = k.partition('=')
        if kind == 'fn':
            params.append('%s *%s' % (n, a))
        else:
            params.append('%s%s' % (CTYPE.get(kind, 'MPI_Fint *'), a))
        if kind == 'null':
            params.pop()
            call.append('NULL')
        elif kind in CALL:
            call.append(CALL[kind] % a)
        elif kind in ('attrout', 'iattrout'):
            # a predefined attribute's value, not C's pointer to it (17.2.7)
            pre.append('void *c_%s = NULL;' % a)
            call.append('&c_%s' % a)
            post.append('if (ierr_ok%s) *%s = (%s)mpir_f_attr_value(*%s, c_%s);'
                        % (flag, a, 'MPI_Aint' if kind == 'attrout' else 'MPI_Fint', n, a))
        elif kind == 'bufout':
            # the C address has no use in Fortran (MPI-3.1 17.2.3)
            pre.append('void *c_%s = NULL;' % a)
            call.append('&c_%s' % a)
        elif kind == 'statio':
            pre.append('MPI_Status c_%s = { 0 };' % a)
            pre.append('MPI_Status_f2c(%s, &c_%s);' % (a, a))
            call.append('&c_%s' % a)
            post.append('if (ierr_ok) MPI_Status_c2f(&c_%s, %s);' % (a, a))
        elif kind == 'strn':
            # at most n characters; C never writes more than MPIR_F_STRMAX
            hidden.append('size_t %s_len' % a)
            pre.append('char c_%s[MPIR_F_STRMAX + 1] = "";' % a)
            pre.append('int c_%s = *%s > MPIR_F_STRMAX ? MPIR_F_STRMAX : *%s;' % (n, n, n))
            call[[x for x, _ in args].index(n)] = 'c_%s' % n
            call.append('c_%s' % a)
            post.append('if (ierr_ok%s) mpir_f_strout(c_%s, %s, %s_len);' % (flag, a, a, a))
        elif kind in ('argv', 'argvs', 'strs'):
            hidden.append('size_t %s_len' % a)
            ctype = 'char ***' if kind == 'argvs' else 'char **'
            cnt = '*%s, ' % n if n else ''
            pre.append('%sc_%s = NULL;' % (ctype, a))
            pre.append('if (mpir_f_%s(%s, %s%s_len, &c_%s)) %s' % (kind, a, cnt, a, a, nomem()))
            call.append('c_%s' % a)
            frees.append('mpir_f_%s_free(c_%s%s);' % (kind, a, ', *%s' % n if kind == 'argvs' else ''))
            post.append(frees[-1])
        elif kind == 'lout':
            pre.append('int c_%s = 0;' % a)
            call.append('&c_%s' % a)
            post.append('*%s = c_%s ? 1 : 0;' % (a, a))
        elif kind == 'buf':
            call.append('mpir_f_buf(%s)' % a)
        elif kind == 'statin':
            pre.append('MPI_Status c_%s = { 0 };' % a)
            pre.append('MPI_Status_f2c(%s, &c_%s);' % (a, a))
            call.append('&c_%s' % a)
        elif kind == 'status':
            pre.append('MPI_Status c_%s = { 0 };' % a)
            call.append('mpir_f_ignored(%s) ? MPI_STATUS_IGNORE : &c_%s' % (a, a))
            post.append('if (!mpir_f_ignored(%s) && ierr_ok) MPI_Status_c2f(&c_%s, %s);'
                        % (a, a, a))
        elif kind == 'statuses':
            n = k.split('=')[1]
            pre.append('MPI_Status *c_%s = mpir_f_statuses_ignored(%s) ? MPI_STATUSES_IGNORE : '
                       'mpir_f_status_array(*%s);' % (a, a, n))
            pre.append('if (!mpir_f_statuses_ignored(%s) && !c_%s && *%s > 0) %s'
                       % (a, a, n, nomem()))
            frees.append('free(c_%s);' % a)
            call.append('c_%s' % a)
            post.append('if (c_%s) { if (ierr_ok || *ierr == MPI_ERR_IN_STATUS) '
                        'for (int i = 0; i < *%s; i++) MPI_Status_c2f(&c_%s[i], '
                        '%s + (size_t)i * MPI_F_STATUS_SIZE); free(c_%s); }'
                        % (a, n, a, a, a))
        elif kind == 'strin':
            hidden.append('size_t %s_len' % a)
            pre.append('char *c_%s = mpir_f_strin(%s, %s_len);' % (a, a, a))
            pre.append('if (!c_%s) %s' % (a, nomem()))
            call.append('c_%s' % a)
            frees.append('free(c_%s);' % a)
            post.append(frees[-1])
        elif kind == 'strout':
            hidden.append('size_t %s_len' % a)
            pre.append('char c_%s[MPIR_F_STRMAX + 1] = "";' % a)
            call.append('c_%s' % a)
            post.append('if (ierr_ok) mpir_f_strout(c_%s, %s, %s_len);' % (a, a, a))
        else:
            raise SystemExit('gen.py: %s: unknown kind %s' % (name, k))
    out = []
    if ret in ('double', 'aint', 'none'):   # a function, or a subroutine without ierror
        rtype = {'double': 'double', 'aint': 'MPI_Aint', 'none': 'void'}[ret]
        sig = '%s pmpi_%s_(%s)' % (rtype, lname, ', '.join(params) or 'void')
        out.append('%s;\n%s\n{\n    %sMPI_%s(%s);\n}\n'
                   % (sig, sig, 'return ' if ret != 'none' else '', name, ', '.join(call)))
        out.append('extern __typeof(pmpi_%s_) mpi_%s_ __attribute__((weak, alias("pmpi_%s_")));\n'
                   % (lname, lname, lname))
        return ''.join(out)
    allp = params + ['MPI_Fint *ierr'] + hidden
    sig = 'void pmpi_%s_(%s)' % (lname, ', '.join(allp))
    out.append('%s;\n%s\n{\n' % (sig, sig))
    for p in pre:
        out.append('    %s\n' % p)
    out.append('    const char *f_prev = mpir_f_enter("MPI_%s");\n' % name.upper())
    out.append('    *ierr = MPI_%s(%s);\n' % (name, ', '.join(call)))
    out.append('    mpir_f_leave(f_prev);\n')
    if post:
        out.append('    int ierr_ok = *ierr == MPI_SUCCESS;\n')
        out.append('    (void)ierr_ok;\n')
        for p in post:
            out.append('    %s\n' % p)
    if fails:
        out.append('    return;\n')
        for k in range(max(fails), -1, -1):
            if k in fails:
                out.append('nomem_%d:\n' % k)
            if k:
                out.append('    %s\n' % frees[k - 1])
        out.append('    *ierr = mpir_f_nomem();\n')
    out.append('}\n')
    out.append('extern __typeof(pmpi_%s_) mpi_%s_ __attribute__((weak, alias("pmpi_%s_")));\n'
               % (lname, lname, lname))
    return ''.join(out)


with open(outdir + '/mpi_fortran.c', 'w') as f:
    f.write('/* Generated by src/fortran/gen.py from src/fortran/mpi_api.txt: do not edit. */\n')
    f.write('#include "src/fortran/fortran.h"\n\n')
    f.write('/* The sentinels: Fortran common blocks, defined here, aligned as gfortran\n'
            ' * aligns the common blocks it references (mpi_f08.o beside this). */\n')
    for decl, block, sym, ctype, dim in sentinels:
        f.write('MPIR_F_EXPORT %s %s%s __attribute__((aligned(16)));\n' % (ctype, sym, dim))
    f.write('\n')
    for name, ret, args in funcs:
        if name in glue:
            continue
        kinds = [k for _, k in args]
        text = wrapper(name, ret, args)
        if 'bufout' in kinds:
            # mpi_f08's form, which returns the address (a TYPE(C_PTR))
            text += wrapper(name, ret, [(a, 'baseptr' if k == 'bufout' else k)
                                        for a, k in args], '_cptr')
        if 'baseptr' in kinds:
            # the mpi module's MPI_X_CPTR, whose BASEPTR is a TYPE(C_PTR): the
            # same pointer-sized slot (MPI-3.1 8.2)
            text += ('extern __typeof(pmpi_%s_) pmpi_%s_cptr_ __attribute__((alias("pmpi_%s_")));\n'
                     'extern __typeof(pmpi_%s_) mpi_%s_cptr_ __attribute__((weak, alias("pmpi_%s_")));\n'
                     % ((name.lower(),) * 6))
        f.write('MPIR_F_EXPORT ' + text.replace('\nextern', '\nMPIR_F_EXPORT extern')
                .replace('\nvoid pmpi', '\nMPIR_F_EXPORT void pmpi'))
        f.write('\n')


# ---- mpif.h and the mpi module, printed by fgen.c --------------------------------
def fortran_type(kind):
    return {'aint': 'INTEGER(KIND=MPI_ADDRESS_KIND)', 'ap': 'INTEGER(KIND=MPI_ADDRESS_KIND)',
            'baseptr': 'INTEGER(KIND=MPI_ADDRESS_KIND)',
            'attr': 'INTEGER(KIND=MPI_ADDRESS_KIND)', 'attrout': 'INTEGER(KIND=MPI_ADDRESS_KIND)',
            'count': 'INTEGER(KIND=MPI_COUNT_KIND)', 'cp': 'INTEGER(KIND=MPI_COUNT_KIND)',
            'lin': 'LOGICAL', 'lout': 'LOGICAL', 'strin': 'CHARACTER(LEN=*)',
            'strout': 'CHARACTER(LEN=*)'}.get(kind, 'INTEGER')


def interfaces(prefix):
    """Explicit interfaces of the mpi module (free form)."""
    lines = []
    for name, ret, args in funcs:
        fname = '%s_%s' % (prefix, name.upper())
        args = [(a, k) for a, k in args if k != 'null']
        argn = [a for a, _ in args]
        if ret in ('double', 'aint'):
            rtype = {'double': 'double precision',
                     'aint': 'integer(kind=MPI_ADDRESS_KIND)'}[ret]
            lines.append('  interface')
            lines.append('    function %s(%s)' % (fname, ', '.join(argn)))
            lines.append('      import :: MPI_ADDRESS_KIND')
            lines.append('      implicit none')
            lines.append('      %s :: %s' % (rtype, fname))
        else:
            lines.append('  interface %s' % fname)
            head = '    subroutine %s(' % fname
            last = 'ierror' if ret != 'none' else (argn or [''])[-1]
            for a in argn + (['ierror'] if ret != 'none' else []):
                # one argument a line: free form's 132 columns
                head += a + (', &' if a != last else ')')
                lines.append(head)
                head = '        '
            if not argn and ret == 'none':
                lines.append(head + ')')
            lines.append('      import :: MPI_ADDRESS_KIND, MPI_COUNT_KIND, MPI_STATUS_SIZE, '
                         'MPI_Status')
            lines.append('      implicit none')
        for a, k in args:
            kind = k.split('=')[0]
            if kind in ('buf', 'bufout'):
                lines.append('!GCC$ ATTRIBUTES NO_ARG_CHECK :: %s' % a)
                lines.append('      type(*), dimension(*) :: %s' % a)
            elif kind == 'fn':
                lines.append('      external :: %s' % a)
            elif kind in ('argv', 'strs'):
                lines.append('      character(len=*) :: %s(*)' % a)
            elif kind == 'argvs':
                lines.append('      character(len=*) :: %s(%s, *)' % (a, k.split('=')[1]))
            elif kind == 'ranges':
                lines.append('      integer :: %s(3, *)' % a)
            elif kind == 'strn':
                lines.append('      character(len=*) :: %s' % a)
            elif kind in ('status', 'statin', 'statio', 'fstat'):
                lines.append('      integer :: %s(MPI_STATUS_SIZE)' % a)
            elif kind == 'f08stat':
                lines.append('      type(MPI_Status) :: %s' % a)
            elif kind == 'statuses':
                lines.append('      integer :: %s(MPI_STATUS_SIZE, *)' % a)
            elif kind in ('pa', 'wts', 'errcodes'):
                lines.append('      integer :: %s(*)' % a)
            elif kind == 'apa':
                lines.append('      integer(kind=MPI_ADDRESS_KIND) :: %s(*)' % a)
            elif kind == 'la':
                lines.append('      logical :: %s(*)' % a)
            else:
                lines.append('      %s :: %s' % (fortran_type(kind).lower(), a))
        if ret in ('double', 'aint'):
            lines.append('    end function %s' % fname)
            lines.append('  end interface')
            continue
        if ret != 'none':
            lines.append('      integer :: ierror')
        lines.append('    end subroutine %s' % fname)
        if any(k == 'baseptr' for _, k in args):
            # MPI-3.1 8.2's overload: the same call with BASEPTR a TYPE(C_PTR)
            body = lines[lines.index('  interface %s' % fname) + 1:]
            for l in body:
                if l.startswith('      import'):
                    lines.append('      use, intrinsic :: iso_c_binding, only: c_ptr')
                lines.append(l.replace(fname + '(', fname + '_CPTR(')
                             .replace('end subroutine ' + fname, 'end subroutine %s_CPTR' % fname)
                             .replace('integer(kind=mpi_address_kind) :: baseptr',
                                      'type(c_ptr) :: baseptr'))
        lines.append('  end interface %s' % fname)
    return lines


def cstr(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '\\n"'


with open(outdir + '/fgen.c', 'w') as f:
    f.write('/* Generated by src/fortran/gen.py from src/fortran/mpi_api.txt: do not edit. */\n')
    f.write('#include <stdio.h>\n#include <string.h>\n#include <mpi.h>\n\n')
    f.write('/* One constant: in the fixed form and free form alike. */\n')
    f.write('static void c(const char *name, long long v)\n{\n'
            '    printf("      INTEGER %s\\n      PARAMETER (%s=%lld)\\n", name, name, v);\n}\n\n')
    f.write('static void consts(void)\n{\n')
    for n in consts:
        f.write('    c("%s", (long long)(%s));\n' % (n, n))
    for n, v in fconsts:
        f.write('    c("%s", (long long)(%s));\n' % (n, v))
    f.write('}\n\n')
    f.write('static void sentinels(void)\n{\n')
    for decl, block, sym, ctype, dim in sentinels:
        var = decl.split()[1].split('(')[0]
        f.write('    fputs(%s, stdout);\n' % cstr('      ' + decl))
        f.write('    fputs(%s, stdout);\n' % cstr('      COMMON /%s/ %s' % (block, var)))
    f.write('}\n\n')
    f.write(gen_f08.f08_source(funcs, consts, fconsts, sentinels, mpi_h, externals) + '\n')
    f.write('int main(int argc, char **argv)\n{\n')
    f.write('    if (argc == 2 && !strcmp(argv[1], "mpif")) {\n')
    f.write('        fputs(%s, stdout);\n' % cstr(
        '! mpif.h - clumpi for Fortran, fixed or free form. Generated.'))
    f.write('        consts();\n        sentinels();\n')
    for name, ret, args in funcs:
        if ret in ('double', 'aint'):
            rtype = {'double': 'DOUBLE PRECISION', 'aint': 'INTEGER(KIND=MPI_ADDRESS_KIND)'}[ret]
            for pre in ('MPI', 'PMPI'):
                f.write('        fputs(%s, stdout);\n' % cstr(
                    '      %s %s_%s' % (rtype, pre, name.upper())))
                f.write('        fputs(%s, stdout);\n' % cstr(
                    '      EXTERNAL %s_%s' % (pre, name.upper())))
    for x in externals:
        f.write('        fputs(%s, stdout);\n' % cstr('      EXTERNAL %s' % x))
    f.write('        return 0;\n    }\n')
    f.write('    if (argc == 2 && !strcmp(argv[1], "module")) {\n')
    for l in ['! mpi.f90 - the mpi module of clumpi. Generated: do not edit.',
              'module mpi', '  use, intrinsic :: iso_c_binding, only: c_int', '  implicit none',
              '  private :: c_int']:
        f.write('        fputs(%s, stdout);\n' % cstr(l))
    f.write('        consts();\n        sentinels();\n')
    # mpi_f08's TYPE(MPI_Status), for MPI_STATUS_F2F08 and MPI_STATUS_F082F
    # (MPI-3.1 17.2.5): the same BIND(C) type, so the two modules' agree
    for l in gen_f08.status_type(gen_f08.f_status_size(open(mpi_h).read())):
        f.write('        fputs(%s, stdout);\n' % cstr(l))
    for l in ['  external :: %s' % x for x in externals] + interfaces('MPI') + interfaces('PMPI') + ['end module mpi']:
        f.write('        fputs(%s, stdout);\n' % cstr(l))
    f.write('        return 0;\n    }\n')
    f.write('    if (argc == 2 && !strcmp(argv[1], "f08")) {\n        f08_module();\n'
            '        return 0;\n    }\n')
    f.write('    fprintf(stderr, "usage: fgen mpif|module|f08\\n");\n    return 2;\n}\n')
