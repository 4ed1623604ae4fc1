"""gen_f08.py — the mpi_f08 module, from the description gen.py reads.

gen.py calls f08_source(), which returns the C text of fgen.c's
f08_module(): it prints mpi_f08.f90, whose constants the C compiler
evaluates like those of the mpi module.

The module wraps libmpifort's C glue (pmpi_x_, and mpi_x_ for MPI_x, so a
tool that intercepts the glue sees the calls of all three bindings). Each
MPI_x is a generic over MPI-3.1 17.1.5's specific procedure MPI_x_f08 (and
PMPI_x over PMPI_x_f08): external procedures, not module procedures, so that
a tool may define its own MPI_x_f08 and call PMPI_x. The module mpi_f08_types
holds the types, constants and abstract interfaces the procedures use, and
mpi_f08 adds the generics with the procedures' interface bodies. A
procedure passes its arguments to the glue through a BIND(C) interface: a handle is a BIND(C)
type holding the Fortran integer handle (MPI_VAL), so it reaches C as the
MPI_Fint * the glue takes; TYPE(MPI_Status) has the layout of the integer
status array; LOGICALs go through C ints; a string passes its length as
gfortran's hidden argument does; ierror is OPTIONAL. Choice buffers are
TYPE(*), DIMENSION(*) with gfortran's NO_ARG_CHECK, as in the mpi module,
and not assumed-rank: the glue takes one address, so an array section is
made contiguous by the compiler (MPI_SUBARRAYS_SUPPORTED is .FALSE.) rather
than handed over as a descriptor that every C wrapper would have to walk.

The Fortran type of an argument comes from its C type in mpi.h's
prototype (MPI_Comm -> TYPE(MPI_Comm), ...); its kind in mpi_api.txt says
how it is passed. A kind missing from F08_KIND stops the build, so a new
kind of mpi_api.txt gets its mpi_f08 form with it.
"""
import re


def _handle_types(mpi_h_text):
    """The handle typedefs of mpi.h (all but the integer types)."""
    names = re.findall(r'^typedef\s+int\s+(MPI_[A-Za-z]+)\s*;', mpi_h_text, re.M)
    return [n for n in names if n != 'MPI_Fint']


def _prototypes(mpi_h_text):
    """name -> [(C type, C argument name)] from the CLUMPI_API lines."""
    protos = {}
    for m in re.finditer(r'^CLUMPI_API\(\s*[^,]+,\s*(\w+),\s*\((.*)\)\);', mpi_h_text, re.M):
        args = []
        for a in m.group(2).split(','):
            a = a.strip()
            if a in ('void', '...', ''):
                continue
            am = re.match(r'(.*?)(\w+)\s*((?:\[\w*\])*)$', a)
            if am:
                args.append((am.group(1).strip() + am.group(3), am.group(2)))
            else:   # a function pointer's declarator: no handle
                args.append((a, ''))
        protos[m.group(1)] = args
    return protos


def _handle_consts(mpi_h_text, handles):
    """Constant name -> its handle type, for the constants that are handles."""
    defs = dict(re.findall(r'^#define\s+(MPI_\w+)\s+(.+?)\s*(?:/\*.*)?$', mpi_h_text, re.M))
    kinds = {h.upper()[4:]: h for h in handles}

    def kind_of(name, depth=0):
        v = defs.get(name, '')
        m = re.match(r'CLUMPI_HANDLE\(CLUMPI_KIND_(\w+)', v)
        if m:
            return kinds.get(m.group(1))
        if v.startswith('CLUMPI_DT('):
            return 'MPI_Datatype'
        if re.fullmatch(r'MPI_\w+', v) and depth < 8:
            return kind_of(v, depth + 1)
        return None
    return {n: kind_of(n) for n in defs if kind_of(n)}


# kind -> (the f08 declaration of the dummy, the glue's declaration, how a
# local converts before, the actual argument, how it converts back after).
# {t} is the argument's Fortran type: INTEGER, or its handle type.
F08_KIND = {
    'int':    ('{t}, intent(in) :: {a}', '{t} :: {a}', None, '{a}', None),
    'h':      ('{t}, intent(in) :: {a}', '{t} :: {a}', None, '{a}', None),
    'p':      ('{t} :: {a}', '{t} :: {a}', None, '{a}', None),
    'pa':     ('{t} :: {a}(*)', '{t} :: {a}(*)', None, '{a}', None),
    'wts':    ('integer :: {a}(*)', 'integer(c_int) :: {a}(*)', None, '{a}', None),
    'aint':   ('integer(kind=MPI_ADDRESS_KIND), intent(in) :: {a}',
               'integer(c_intptr_t) :: {a}', None, '{a}', None),
    'ap':     ('integer(kind=MPI_ADDRESS_KIND) :: {a}',
               'integer(c_intptr_t) :: {a}', None, '{a}', None),
    'apa':    ('integer(kind=MPI_ADDRESS_KIND) :: {a}(*)',
               'integer(c_intptr_t) :: {a}(*)', None, '{a}', None),
    'lin':    ('logical, intent(in) :: {a}', 'integer(c_int) :: {a}',
               'c_{a} = merge(1, 0, {a})', 'c_{a}', None),
    'lout':   ('logical :: {a}', 'integer(c_int) :: {a}', 'c_{a} = 0', 'c_{a}',
               '{a} = c_{a} /= 0'),
    # gfortran's LOGICAL is an int of 1 or 0, which the glue reads and writes
    'la':     ('logical :: {a}(*)', 'type(*), dimension(*) :: {a}', None, '{a}', None),
    'buf':    ('!GCC$ ATTRIBUTES NO_ARG_CHECK :: {a}\ntype(*), dimension(*) :: {a}',
               'type(*), dimension(*) :: {a}', None, '{a}', None),
    'status': ('type(MPI_Status) :: {a}', 'type(MPI_Status) :: {a}', None, '{a}', None),
    'statin': ('type(MPI_Status), intent(in) :: {a}', 'type(MPI_Status) :: {a}', None, '{a}',
               None),
    'statuses': ('type(MPI_Status) :: {a}(*)', 'type(MPI_Status) :: {a}(*)', None, '{a}', None),
    'strin':  ('character(len=*), intent(in) :: {a}', 'character(kind=c_char) :: {a}(*)',
               None, '{a}', None),
    'strout': ('character(len=*) :: {a}', 'character(kind=c_char) :: {a}(*)', None, '{a}',
               None),
    'count':  ('integer(kind=MPI_COUNT_KIND), intent(in) :: {a}',
               'integer(kind=MPI_COUNT_KIND) :: {a}', None, '{a}', None),
    'cp':     ('integer(kind=MPI_COUNT_KIND) :: {a}', 'integer(kind=MPI_COUNT_KIND) :: {a}',
               None, '{a}', None),
    'statio': ('type(MPI_Status) :: {a}', 'type(MPI_Status) :: {a}', None, '{a}', None),
    'ranges': ('integer :: {a}(3, *)', 'integer(c_int) :: {a}(3, *)', None, '{a}', None),
    # MPI_Buffer_detach's address, which mpi_f08 returns (MPI-3.1 3.6.1)
    'bufout': ('type(c_ptr), intent(out) :: {a}', 'type(c_ptr) :: {a}', None, '{a}', None),
    'baseptr': ('type(c_ptr) :: {a}', 'type(c_ptr) :: {a}', None, '{a}', None),
    'attr':   ('integer(kind=MPI_ADDRESS_KIND), intent(in) :: {a}',
               'integer(c_intptr_t) :: {a}', None, '{a}', None),
    'attrout': ('integer(kind=MPI_ADDRESS_KIND) :: {a}', 'integer(c_intptr_t) :: {a}', None,
                '{a}', None),
    'iattr':  ('integer, intent(in) :: {a}', 'integer(c_int) :: {a}', None, '{a}', None),
    'iattrout': ('integer :: {a}', 'integer(c_int) :: {a}', None, '{a}', None),
    'errcodes': ('integer :: {a}(*)', 'integer(c_int) :: {a}(*)', None, '{a}', None),
    'strn':   ('character(len=*) :: {a}', 'character(kind=c_char) :: {a}(*)', None, '{a}',
               None),
    'argv':   ('character(len=*), intent(in) :: {a}(*)', 'character(kind=c_char) :: {a}(*)',
               None, '{a}', None),
    'strs':   ('character(len=*), intent(in) :: {a}(*)', 'character(kind=c_char) :: {a}(*)',
               None, '{a}', None),
    'argvs':  ('character(len=*), intent(in) :: {a}({n}, *)',
               'character(kind=c_char) :: {a}(*)', None, '{a}', None),
    'fstat':  ('integer :: {a}(MPI_STATUS_SIZE)', 'integer(c_int) :: {a}(*)', None, '{a}', None),
    'f08stat': ('type(MPI_Status) :: {a}', 'type(MPI_Status) :: {a}', None, '{a}', None),
    # the procedure's address, which the glue passes on or wraps (keyval.c,
    # grequest.c); the dummy has its abstract interface (ABSTRACT below) or,
    # for MPI-1's MPI_Keyval_create that mpi_f08 does not define, none
    'fn':     ('{p} :: {a}', 'type(c_funptr), value :: {a}', None, 'c_funloc({a})', None),
}

# MPI-3.1's mpi_f08 abstract interfaces (A.3), by the C typedef of the
# callback: its arguments, each 'declaration :: names'. The glue calls them
# as C does, which matches: scalars and handles by reference (a handle is
# its integer), LOGICAL as a C int of 1 or 0, a status as the integer
# array, and a user function's buffers by value as TYPE(C_PTR).
# MPI_File_errhandler_function needs TYPE(MPI_File), which comes with MPI-IO.
_COPY = ('({o}, {k}, extra_state, attribute_val_in, attribute_val_out, flag, ierror)',
         ['type({t}) :: {o}', 'integer :: {k}, ierror',
          'integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out',
          'logical :: flag'])
_DELETE = ('({o}, {k}, attribute_val, extra_state, ierror)',
           ['type({t}) :: {o}', 'integer :: {k}, ierror',
            'integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state'])
_ERRH = ('({o}, error_code)', ['type({t}) :: {o}', 'integer :: error_code'])


def _attr_iface(form, t, o, k):
    args, decls = form
    f = dict(t=t, o=o, k=k)
    return args.format(**f), [d.format(**f) for d in decls]


ABSTRACT = {
    'MPI_User_function': ('(invec, inoutvec, len, datatype)',
                          ['type(c_ptr), value :: invec, inoutvec', 'integer :: len',
                           'type(MPI_Datatype) :: datatype']),
    'MPI_Comm_copy_attr_function': _attr_iface(_COPY, 'MPI_Comm', 'oldcomm', 'comm_keyval'),
    'MPI_Comm_delete_attr_function': _attr_iface(_DELETE, 'MPI_Comm', 'comm', 'comm_keyval'),
    'MPI_Type_copy_attr_function': _attr_iface(_COPY, 'MPI_Datatype', 'oldtype', 'type_keyval'),
    'MPI_Type_delete_attr_function': _attr_iface(_DELETE, 'MPI_Datatype', 'datatype',
                                                 'type_keyval'),
    'MPI_Win_copy_attr_function': _attr_iface(_COPY, 'MPI_Win', 'oldwin', 'win_keyval'),
    'MPI_Win_delete_attr_function': _attr_iface(_DELETE, 'MPI_Win', 'win', 'win_keyval'),
    'MPI_Comm_errhandler_function': _attr_iface(_ERRH, 'MPI_Comm', 'comm', ''),
    'MPI_Win_errhandler_function': _attr_iface(_ERRH, 'MPI_Win', 'win', ''),
    'MPI_Grequest_query_function': ('(extra_state, status, ierror)',
                                    ['type(MPI_Status) :: status', 'integer :: ierror',
                                     'integer(kind=MPI_ADDRESS_KIND) :: extra_state']),
    'MPI_Grequest_free_function': ('(extra_state, ierror)',
                                   ['integer :: ierror',
                                    'integer(kind=MPI_ADDRESS_KIND) :: extra_state']),
    'MPI_Grequest_cancel_function': ('(extra_state, complete, ierror)',
                                     ['logical :: complete', 'integer :: ierror',
                                      'integer(kind=MPI_ADDRESS_KIND) :: extra_state']),
}


def _abstract_interfaces():
    out = ['  abstract interface']
    for name, (args, decls) in ABSTRACT.items():
        out += ['    subroutine %s%s' % (name, args), '      import']
        out += ['      ' + d for d in decls]
        out.append('    end subroutine %s' % name)
    out.append('  end interface')
    return out


def _predefined_decl(name):
    """A predefined callback of libmpifort (MPI_COMM_DUP_FN, ...) with its
    abstract interface; MPI-1's (MPI_DUP_FN, ...) stay EXTERNAL."""
    m = re.match(r'MPI_(COMM|TYPE|WIN)_(?:NULL_)?(COPY|DUP|DELETE)_FN$', name)
    if not m:
        return '  external :: %s' % name
    what = 'delete' if m.group(2) == 'DELETE' else 'copy'
    return '  procedure(MPI_%s_%s_attr_function) :: %s' % (m.group(1).capitalize(), what, name)
STRING_KINDS = ('strin', 'strout', 'strn', 'argv', 'strs', 'argvs')


def _ftype(ctype, handles):
    base = re.sub(r'\bconst\b|[*\[\]]', ' ', ctype).split()
    base = base[-1] if base else ''
    return 'type(%s)' % base if base in handles else 'integer'


def _arglines(head, names, tail):
    """A call or a header, one argument a line (free form's 132 columns)."""
    if not names:
        return [head + '(' + tail]
    lines, cur = [], head + '('
    for i, n in enumerate(names):
        last = i == len(names) - 1
        lines.append(cur + n + (tail if last else ', &'))
        cur = '        '
    return lines


def _external(head, decls, body, end):
    """An external procedure: its interface body for the module mpi_f08 and
    its definition, which sees the types and constants through mpi_f08_types
    (use mpi_f08 there would declare the procedure a second time)."""
    iface = head + ['    import'] + ['    ' + d for d in decls] + [end]
    defn = head + ['    use mpi_f08_types', '    use, intrinsic :: iso_c_binding, only: ' + C_NAMES,
                   '    implicit none'] + ['    ' + d for d in decls] + body + [end]
    return iface, defn


C_NAMES = 'c_int, c_char, c_size_t, c_double, c_intptr_t, c_ptr, c_funptr, c_funloc'


def _procedure(prefix, name, ret, args, protos, handles):
    """The external procedure PREFIX_name_f08 (MPI-3.1 17.1.5's specific
    name) that calls the glue: (its interface body, its definition)."""
    proc = '%s_%s_f08' % (prefix, name)
    # a C address returned to mpi_f08 as TYPE(C_PTR) has its own glue
    cptr = 'cptr_' if any(k == 'bufout' for _, k in args) else ''
    glue = '%s_%s_%s' % (prefix.lower(), name.lower(), cptr)
    if ret in ('double', 'aint'):
        names = [a for a, _ in args]
        rtype, gtype = {'double': ('double precision', 'real(c_double)'),
                        'aint': ('integer(kind=MPI_ADDRESS_KIND)', 'integer(c_intptr_t)')}[ret]
        return _external(
            ['  function %s(%s) result(r)' % (proc, ', '.join(names))],
            ['%s :: r' % rtype] +
            ['integer(kind=MPI_ADDRESS_KIND), intent(in) :: %s' % a for a in names],
            ['    interface',
             "      function glue(%s) bind(C, name='%s') result(g)"
             % (', '.join('g_' + a for a in names), glue),
             '        import',
             '        %s :: g' % gtype] +
            ['        integer(c_intptr_t) :: g_%s' % a for a in names] +
            ['      end function glue',
             '    end interface',
             '    r = glue(%s)' % ', '.join(names)],
            '  end function %s' % proc)
    cargs = protos.get(name)
    if cargs is None:
        raise SystemExit('gen_f08.py: MPI_%s: no prototype in mpi.h' % name)
    cbyname = {n: t for t, n in cargs}
    decls, gdecls, locals_, pre, post, actual, lens = [], [], [], [], [], [], []
    for i, (a, k) in enumerate(args):
        kind = k.split('=')[0]
        if kind == 'null':
            continue
        if kind not in F08_KIND:
            raise SystemExit('gen_f08.py: MPI_%s: kind %s has no mpi_f08 form (F08_KIND)'
                             % (name, kind))
        ctype = cbyname.get(a, cargs[i][0] if i < len(cargs) else 'int')
        t = _ftype(ctype, handles)
        dcl, gdcl, before, act, after = F08_KIND[kind]
        iface = re.sub(r'[\s*]', '', ctype)
        decls += dcl.format(t=t, a=a, n=k.partition('=')[2],
                            p='procedure(%s)' % iface if iface in ABSTRACT else 'external'
                            ).split('\n')
        gdecls.append(gdcl.format(t='integer(c_int)' if t == 'integer' else t, a=a))
        if act == 'c_{a}':
            locals_.append('integer(c_int) :: c_%s' % a)
        if before:
            pre.append(before.format(a=a))
        if after:
            post.append(after.format(a=a))
        actual.append(act.format(a=a))
        if kind in STRING_KINDS:
            lens.append(a)
    dummies = [a for a, k in args if k != 'null']
    if ret == 'none':   # no ierror (MPI_Pcontrol)
        return _external(
            _arglines('  subroutine %s' % proc, dummies, ')'), decls,
            ['    interface',
             "      subroutine glue(%s) bind(C, name='%s')"
             % (', '.join('g_' + a for a in dummies), glue),
             '        import'] +
            ['        ' + re.sub(r'::\s*(\w+)', r':: g_\1', g) for g in gdecls] +
            ['      end subroutine glue',
             '    end interface',
             '    call glue(%s)' % ', '.join(actual)],
            '  end subroutine %s' % proc)
    body = ['    ' + d for d in locals_]
    body.append('    integer(c_int) :: c_ierror')
    body.append('    interface')
    gnames = ['g_' + a for a in dummies] + ['ierror'] + ['g_%s_len' % a for a in lens]
    body += ['  ' + l for l in _arglines('    subroutine glue', gnames,
                                          ") bind(C, name='%s')" % glue)]
    body.append('        import')
    body += ['        ' + re.sub(r'::\s*(\w+)', r':: g_\1', g) for g in gdecls]
    body.append('        integer(c_int) :: ierror')
    body += ['        integer(c_size_t), value :: g_%s_len' % a for a in lens]
    body.append('      end subroutine glue')
    body.append('    end interface')
    body += ['    ' + p for p in pre]
    body += ['    ' + l for l in _arglines('call glue', actual + ['c_ierror'] +
                                           ['len(%s, kind=c_size_t)' % a for a in lens], ')')]
    body += ['    ' + p for p in post]
    body.append('    if (present(ierror)) ierror = c_ierror')
    return _external(_arglines('  subroutine %s' % proc, dummies + ['ierror'], ')'),
                     decls + ['integer, optional, intent(out) :: ierror'], body,
                     '  end subroutine %s' % proc)


def _helpers(handles, status_size):
    """The handle and status types, their operators and conversions."""
    out = []
    for h in handles:
        out += ['  type, bind(C) :: %s' % h, '    integer(c_int) :: MPI_VAL', '  end type %s' % h]
    out += status_type(status_size)
    out += ['  ! choice buffers are one address: sections are copied, and then not',
            '  ! safely for a nonblocking call (MPI-3.1 17.1.12)',
            '  logical, parameter :: MPI_SUBARRAYS_SUPPORTED = .false.',
            '  logical, parameter :: MPI_ASYNC_PROTECTS_NONBLOCKING = .false.']
    return out


def f_status_size(mpi_h_text):
    """MPI_F_STATUS_SIZE of mpi.h: the integer status array's length."""
    return int(re.search(r'#define\s+MPI_F_STATUS_SIZE\s+(\d+)', mpi_h_text).group(1))


def status_type(status_size):
    """TYPE(MPI_Status), in mpi_f08 and in the mpi module (its c_int needed)."""
    return ['  ! The layout of the integer status array: MPI_SOURCE, MPI_TAG, MPI_ERROR',
            '  ! are its first three elements.',
            '  type, bind(C) :: MPI_Status',
            '    integer(c_int) :: MPI_SOURCE, MPI_TAG, MPI_ERROR',
            '    integer(c_int) :: mpir_hidden(%d)' % (status_size - 3),
            '  end type MPI_Status']


def _operators(handles):
    out = []
    for op, sym in (('eq', '=='), ('ne', '/=')):
        out.append('  interface operator(%s)' % sym)
        out += ['    module procedure mpir_f08_%s_%s' % (h[4:].lower(), op) for h in handles]
        out.append('  end interface')
    out += ['  private :: mpir_f08_%s_eq, mpir_f08_%s_ne' % (h[4:].lower(), h[4:].lower())
            for h in handles]
    return out


def _operator_procs(handles):
    out = []
    for h in handles:
        for op, sym in (('eq', '=='), ('ne', '/=')):
            f = 'mpir_f08_%s_%s' % (h[4:].lower(), op)
            out += ['  elemental logical function %s(x, y)' % f,
                    '    type(%s), intent(in) :: x, y' % h,
                    '    %s = x%%MPI_VAL %s y%%MPI_VAL' % (f, sym),
                    '  end function %s' % f]
    return out


def _sync_reg(prefix):
    """MPI_F_sync_reg (MPI-3.1 17.1.7): a call the compiler cannot see into, so
    that it keeps no copy of buf in a register across it."""
    return _external(['  subroutine %s_F_sync_reg_f08(buf)' % prefix],
                     ['!GCC$ ATTRIBUTES NO_ARG_CHECK :: buf', 'type(*), dimension(*) :: buf'],
                     ['    interface',
                      "      subroutine glue(g_buf) bind(C, name='%s_f_sync_reg_')" % prefix.lower(),
                      '        type(*), dimension(*) :: g_buf',
                      '      end subroutine glue',
                      '    end interface',
                      '    call glue(buf)'],
                     '  end subroutine %s_F_sync_reg_f08' % prefix)


def _cstr(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '\\n"'


def _sentinel_decl(decl):
    """The mpi module's sentinel declaration in mpi_f08: statuses are TYPE(MPI_Status)."""
    m = re.match(r'INTEGER (\w+)\(MPI_STATUS_SIZE(,1)?\)$', decl)
    if m:
        return 'type(MPI_Status) :: %s%s' % (m.group(1), '(1)' if m.group(2) else '')
    t, v = decl.split(' ', 1)
    return '%s :: %s' % (t.lower().replace('character*1', 'character(len=1)'), v)


def f08_source(funcs, consts, fconsts, sentinels, mpi_h, externals=()):
    """The C text of fgen.c's f08_module(), which prints mpi_f08.f90."""
    text = open(mpi_h).read()
    handles = _handle_types(text)
    protos = _prototypes(text)
    hconsts = _handle_consts(text, handles)
    status_size = f_status_size(text)
    procs = {}   # the generic name -> (its specific's interface body, definition)
    for prefix in ('MPI', 'PMPI'):
        procs[prefix + '_F_sync_reg'] = _sync_reg(prefix)
        for name, ret, args in funcs:
            procs['%s_%s' % (prefix, name)] = _procedure(prefix, name, ret, args, protos,
                                                         handles)

    head = ['! mpi_f08.f90 - the mpi_f08 module of clumpi. Generated: do not edit.',
            '! mpi_f08_types holds all but the procedures, which are external (so a',
            '! tool may define its own MPI_x_f08) and see it; mpi_f08 adds their generics.',
            'module mpi_f08_types',
            '  use, intrinsic :: iso_c_binding, only: ' + C_NAMES,
            '  implicit none',
            '  private :: ' + C_NAMES]
    head += _helpers(handles, status_size)
    head += _operators(handles)
    # after the constants, which they import (MPI_ADDRESS_KIND); the
    # predefined attribute callbacks are libmpifort's, as in the mpi module
    body = _abstract_interfaces() + [_predefined_decl(x) for x in externals] + ['contains']
    body += _operator_procs(handles)
    body += ['end module mpi_f08_types',
             'module mpi_f08',
             '  use mpi_f08_types',
             '  use, intrinsic :: iso_c_binding, only: c_ptr',
             '  implicit none',
             '  private :: c_ptr']
    for generic, (iface, _) in procs.items():
        body += ['  interface %s' % generic] + ['  ' + l for l in iface]
        body.append('  end interface %s' % generic)
    body.append('end module mpi_f08')
    for _, defn in procs.values():
        body += defn

    out = ['static void f08_const(const char *name, const char *type, long long v)\n{\n'
           '    if (type)\n'
           '        printf("  type(%s), parameter :: %s = %s(%lld)\\n", type, name, type, v);\n'
           '    else\n'
           '        printf("  integer, parameter :: %s = %lld\\n", name, v);\n}\n\n',
           'static void f08_module(void)\n{\n']
    for l in head:
        out.append('    fputs(%s, stdout);\n' % _cstr(l))
    for n in consts:
        t = hconsts.get(n)
        out.append('    f08_const("%s", %s, (long long)(%s));\n'
                   % (n, '"%s"' % t if t else 'NULL', n))
    for n, v in fconsts:
        out.append('    f08_const("%s", NULL, (long long)(%s));\n' % (n, v))
    for decl, block, sym, ctype, dim in sentinels:
        var = decl.split()[1].split('(')[0]
        out.append('    fputs(%s, stdout);\n' % _cstr('  ' + _sentinel_decl(decl)))
        out.append('    fputs(%s, stdout);\n' % _cstr('  common /%s/ %s' % (block, var)))
    for l in body:
        for part in l.split('\n'):
            out.append('    fputs(%s, stdout);\n' % _cstr(part))
    out.append('}\n')
    return ''.join(out)
