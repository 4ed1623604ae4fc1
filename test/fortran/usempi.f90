! np: 1 2 3 4 7
!
! usempi.f90 - `use mpi` (explicit interfaces): MPI_ALLREDUCE of every
! Fortran type with every predefined op MPI-3.1 5.9.2 defines on it
! (INTEGER, INTEGER1/2/4/8, MPI_BYTE, REAL, REAL4/8, DOUBLE PRECISION,
! COMPLEX, COMPLEX8/16, DOUBLE COMPLEX, LOGICAL), against a reference
! computed here, in place and not; MPI_MINLOC and
! MPI_MAXLOC on MPI_2INTEGER, MPI_2REAL, MPI_2DOUBLE_PRECISION; MPI_REDUCE
! and MPI_GATHER with MPI_IN_PLACE at the root; a vector type over a
! column of a 2-D array; communicators (split, dup, compare, names) and a
! Cartesian topology; one-sided MPI_PUT and MPI_ACCUMULATE with fences;
! MPI_GATHERV, MPI_ISSEND with MPI_TESTALL, info objects, a type's name, and
! a distributed graph made with MPI_UNWEIGHTED. Memory from MPI_ALLOC_MEM
! (through C_F_POINTER) as a window, MPI_WIN_ALLOCATE and its attributes,
! MPI_WIN_ALLOCATE_SHARED read through MPI_WIN_SHARED_QUERY's pointer, each
! also in its TYPE(C_PTR) form (MPI_ALLOC_MEM_CPTR, ...);
! datatype and window keyvals and a window error handler in Fortran, a
! user op on DOUBLE PRECISION; the _X calls, MPI_AINT_ADD/DIFF, buffered
! sends and MPI_BUFFER_DETACH, MPI_PCONTROL; a status to the module's
! TYPE(MPI_Status) and back (MPI_STATUS_F2F08, MPI_STATUS_F082F).
program usempi
  use mpi
  use, intrinsic :: iso_c_binding, only: c_f_pointer, c_null_ptr, c_ptr, c_associated
  implicit none
  ! what the callbacks (external procedures, after the program) saw
  integer :: ncopy, ndel, nerr, lasth, lastcode
  common /usempi_cb/ ncopy, ndel, nerr, lasth, lastcode
  integer :: ierr, rank, nproc, i, j, r
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nproc, ierr)
  ncopy = 0
  ndel = 0
  nerr = 0
  call reductions()
  call matrix()
  call pairs()
  call rooted()
  call derived()
  call comms()
  call onesided()
  call more()
  call memory()
  call callbacks()
  call counts()
  call MPI_FINALIZE(ierr)
contains

  subroutine chk(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) call test_fail('usempi', what, rank)
  end subroutine chk

  ! sum, product, max, min, bitwise of rank+1 (product: of rank%4+1)
  subroutine reductions()
    integer, parameter :: n = 3
    integer :: iv(n), ib(n), want_sum, want_prod, want_band, want_bor, want_bxor
    integer(kind=1) :: i1(n)
    integer(kind=2) :: i2(n)
    integer(kind=4) :: i4(n)
    integer(kind=8) :: i8(n)
    real :: rv(n)
    real(kind=4) :: r4(n)
    real(kind=8) :: r8(n)
    double precision :: dv(n)
    complex :: cv(n)
    complex(kind=4) :: c8(n)
    complex(kind=8) :: c16(n)
    double complex :: zv(n)
    logical :: lv(n), lw(n)
    want_sum = nproc * (nproc + 1) / 2
    want_prod = 1
    want_band = -1
    want_bor = 0
    want_bxor = 0
    do r = 0, nproc - 1
      want_prod = want_prod * (mod(r, 4) + 1)
      want_band = iand(want_band, ishft(1, r))
      want_bor = ior(want_bor, ishft(1, r))
      want_bxor = ieor(want_bxor, ishft(1, r))
    end do
    ! INTEGER: sum (in place), prod, max, min, band, bor, bxor
    iv = rank + 1
    call MPI_ALLREDUCE(MPI_IN_PLACE, iv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call chk(all(iv == want_sum), 'INTEGER SUM in place')
    iv = mod(rank, 4) + 1
    call MPI_ALLREDUCE(iv, ib, n, MPI_INTEGER, MPI_PROD, MPI_COMM_WORLD, ierr)
    call chk(all(ib == want_prod), 'INTEGER PROD')
    iv = rank + 1
    call MPI_ALLREDUCE(iv, ib, n, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    call chk(all(ib == nproc), 'INTEGER MAX')
    call MPI_ALLREDUCE(iv, ib, n, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
    call chk(all(ib == 1), 'INTEGER MIN')
    iv = ishft(1, rank)
    call MPI_ALLREDUCE(iv, ib, n, MPI_INTEGER, MPI_BAND, MPI_COMM_WORLD, ierr)
    call chk(all(ib == want_band), 'INTEGER BAND')
    call MPI_ALLREDUCE(iv, ib, n, MPI_INTEGER, MPI_BOR, MPI_COMM_WORLD, ierr)
    call chk(all(ib == want_bor), 'INTEGER BOR')
    call MPI_ALLREDUCE(iv, ib, n, MPI_INTEGER, MPI_BXOR, MPI_COMM_WORLD, ierr)
    call chk(all(ib == want_bxor), 'INTEGER BXOR')
    ! a logical op on a Fortran INTEGER is not defined: MPI_ERR_OP
    call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
    call MPI_ALLREDUCE(iv, ib, n, MPI_INTEGER, MPI_LAND, MPI_COMM_WORLD, ierr)
    call MPI_ERROR_CLASS(ierr, i, j)
    call chk(i == MPI_ERR_OP, 'LAND on INTEGER: not MPI_ERR_OP')
    call MPI_ALLREDUCE(lv, lw, n, MPI_LOGICAL, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_ERROR_CLASS(ierr, i, j)
    call chk(i == MPI_ERR_OP, 'SUM on LOGICAL: not MPI_ERR_OP')
    call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
    ! the sized integers
    i1 = int(rank + 1, 1)
    call MPI_ALLREDUCE(MPI_IN_PLACE, i1, n, MPI_INTEGER1, MPI_SUM, MPI_COMM_WORLD, ierr)
    call chk(all(i1 == want_sum), 'INTEGER1 SUM')
    i2 = int(rank + 1, 2)
    call MPI_ALLREDUCE(MPI_IN_PLACE, i2, n, MPI_INTEGER2, MPI_MAX, MPI_COMM_WORLD, ierr)
    call chk(all(i2 == nproc), 'INTEGER2 MAX')
    i4 = ishft(1, rank)
    call MPI_ALLREDUCE(MPI_IN_PLACE, i4, n, MPI_INTEGER4, MPI_BOR, MPI_COMM_WORLD, ierr)
    call chk(all(i4 == want_bor), 'INTEGER4 BOR')
    i8 = int(rank + 1, 8) * 10000000000_8
    call MPI_ALLREDUCE(MPI_IN_PLACE, i8, n, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
    call chk(all(i8 == int(want_sum, 8) * 10000000000_8), 'INTEGER8 SUM')
    ! reals: sum, prod, max, min
    rv = real(rank + 1)
    call MPI_ALLREDUCE(MPI_IN_PLACE, rv, n, MPI_REAL, MPI_SUM, MPI_COMM_WORLD, ierr)
    call chk(all(rv == real(want_sum)), 'REAL SUM')
    r4 = real(mod(rank, 4) + 1, 4)
    call MPI_ALLREDUCE(MPI_IN_PLACE, r4, n, MPI_REAL4, MPI_PROD, MPI_COMM_WORLD, ierr)
    call chk(all(r4 == real(want_prod, 4)), 'REAL4 PROD')
    r8 = real(rank + 1, 8)
    call MPI_ALLREDUCE(MPI_IN_PLACE, r8, n, MPI_REAL8, MPI_MIN, MPI_COMM_WORLD, ierr)
    call chk(all(r8 == 1.0_8), 'REAL8 MIN')
    dv = dble(rank + 1) + 0.5d0
    call MPI_ALLREDUCE(MPI_IN_PLACE, dv, n, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    call chk(all(dv == dble(nproc) + 0.5d0), 'DOUBLE PRECISION MAX')
    ! complexes: sum, prod
    cv = cmplx(rank + 1, -(rank + 1))
    call MPI_ALLREDUCE(MPI_IN_PLACE, cv, n, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
    call chk(all(cv == cmplx(want_sum, -want_sum)), 'COMPLEX SUM')
    c8 = cmplx(rank + 1, 0, 4)
    call MPI_ALLREDUCE(MPI_IN_PLACE, c8, n, MPI_COMPLEX8, MPI_SUM, MPI_COMM_WORLD, ierr)
    call chk(all(c8 == cmplx(want_sum, 0, 4)), 'COMPLEX8 SUM')
    c16 = cmplx(mod(rank, 4) + 1, 0, 8)
    call MPI_ALLREDUCE(MPI_IN_PLACE, c16, n, MPI_COMPLEX16, MPI_PROD, MPI_COMM_WORLD, ierr)
    call chk(all(c16 == cmplx(want_prod, 0, 8)), 'COMPLEX16 PROD')
    zv = dcmplx(0.0d0, 1.0d0)
    call MPI_ALLREDUCE(MPI_IN_PLACE, zv, n, MPI_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD, ierr)
    call chk(all(zv == dcmplx(0.0d0, 1.0d0)**nproc), 'DOUBLE COMPLEX PROD')
    ! LOGICAL: land, lor, lxor
    lv = .true.
    lv(2) = rank == 0
    call MPI_ALLREDUCE(lv, lw, n, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
    call chk(lw(1) .and. (lw(2) .eqv. nproc == 1), 'LOGICAL LAND')
    call MPI_ALLREDUCE(lv, lw, n, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
    call chk(lw(1) .and. lw(2), 'LOGICAL LOR')
    call MPI_ALLREDUCE(lv, lw, n, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD, ierr)
    call chk((lw(1) .eqv. mod(nproc, 2) == 1) .and. lw(2), 'LOGICAL LXOR')
  end subroutine reductions

  ! Every predefined op on every Fortran type MPI-3.1 5.9.2 defines it on,
  ! each rank's value small enough for INTEGER1, against the ranks' values
  ! folded here in INTEGER(8) (exact in every type)
  subroutine matrix()
    integer :: ops(7), k, r, t
    integer(kind=8) :: want
    integer(kind=1) :: b1
    integer(kind=2) :: b2
    integer(kind=4) :: b4
    integer(kind=8) :: b8
    real(kind=4) :: f4
    real(kind=8) :: f8
    complex(kind=4) :: z4
    complex(kind=8) :: z8
    character(len=8), parameter :: names(7) = (/ 'SUM ', 'PROD', 'MAX ', 'MIN ', 'BAND', &
                                                  'BOR ', 'BXOR' /)
    ops = (/ MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR, MPI_BXOR /)
    do k = 1, 7
      want = val(0, k)
      do r = 1, nproc - 1
        want = fold(want, val(r, k), k)
      end do
      ! the integers, MPI_BYTE with the bitwise ops
      do t = 1, 6
        b8 = val(rank, k)
        b1 = int(b8, 1)
        b2 = int(b8, 2)
        b4 = int(b8, 4)
        select case (t)
        case (1)
          call MPI_ALLREDUCE(MPI_IN_PLACE, b1, 1, MPI_INTEGER1, ops(k), MPI_COMM_WORLD, ierr)
          b8 = b1
        case (2)
          call MPI_ALLREDUCE(MPI_IN_PLACE, b2, 1, MPI_INTEGER2, ops(k), MPI_COMM_WORLD, ierr)
          b8 = b2
        case (3)
          call MPI_ALLREDUCE(MPI_IN_PLACE, b4, 1, MPI_INTEGER4, ops(k), MPI_COMM_WORLD, ierr)
          b8 = b4
        case (4)
          call MPI_ALLREDUCE(MPI_IN_PLACE, b4, 1, MPI_INTEGER, ops(k), MPI_COMM_WORLD, ierr)
          b8 = b4
        case (5)
          call MPI_ALLREDUCE(MPI_IN_PLACE, b8, 1, MPI_INTEGER8, ops(k), MPI_COMM_WORLD, ierr)
        case (6)
          if (k < 5) cycle
          call MPI_ALLREDUCE(MPI_IN_PLACE, b1, 1, MPI_BYTE, ops(k), MPI_COMM_WORLD, ierr)
          b8 = b1
        end select
        call chk(b8 == want, 'integer type ' // achar(48 + t) // ' ' // names(k))
      end do
      if (k > 4) cycle
      ! the reals with the arithmetic ops
      do t = 1, 4
        f4 = real(val(rank, k), 4)
        f8 = real(val(rank, k), 8)
        select case (t)
        case (1)
          call MPI_ALLREDUCE(MPI_IN_PLACE, f4, 1, MPI_REAL, ops(k), MPI_COMM_WORLD, ierr)
        case (2)
          call MPI_ALLREDUCE(MPI_IN_PLACE, f4, 1, MPI_REAL4, ops(k), MPI_COMM_WORLD, ierr)
        case (3)
          call MPI_ALLREDUCE(MPI_IN_PLACE, f8, 1, MPI_DOUBLE_PRECISION, ops(k), &
                             MPI_COMM_WORLD, ierr)
        case (4)
          call MPI_ALLREDUCE(MPI_IN_PLACE, f8, 1, MPI_REAL8, ops(k), MPI_COMM_WORLD, ierr)
        end select
        if (t <= 2) f8 = f4
        call chk(f8 == real(want, 8), 'real type ' // achar(48 + t) // ' ' // names(k))
      end do
      if (k > 2) cycle
      ! the complexes with sum and product: (v, -v) and v
      do t = 1, 4
        z8 = cmplx(val(rank, k), merge(-val(rank, k), 0_8, k == 1), 8)
        z4 = cmplx(z8, kind=4)
        select case (t)
        case (1)
          call MPI_ALLREDUCE(MPI_IN_PLACE, z4, 1, MPI_COMPLEX, ops(k), MPI_COMM_WORLD, ierr)
        case (2)
          call MPI_ALLREDUCE(MPI_IN_PLACE, z4, 1, MPI_COMPLEX8, ops(k), MPI_COMM_WORLD, ierr)
        case (3)
          call MPI_ALLREDUCE(MPI_IN_PLACE, z8, 1, MPI_DOUBLE_COMPLEX, ops(k), MPI_COMM_WORLD, &
                             ierr)
        case (4)
          call MPI_ALLREDUCE(MPI_IN_PLACE, z8, 1, MPI_COMPLEX16, ops(k), MPI_COMM_WORLD, ierr)
        end select
        if (t <= 2) z8 = z4
        call chk(z8 == cmplx(want, merge(-want, 0_8, k == 1), 8), &
                 'complex type ' // achar(48 + t) // ' ' // names(k))
      end do
    end do
  end subroutine matrix

  ! a rank's value for op k of matrix(): sums of rank+1, products of 1 or 2,
  ! signed maxima and minima, bit patterns
  integer(kind=8) function val(r, k)
    integer, intent(in) :: r, k
    select case (k)
    case (1)
      val = r + 1
    case (2)
      val = 1 + mod(r, 2)
    case (3, 4)
      val = mod(5 * r, 7) - 3
    case default
      val = ior(ishft(1, mod(r, 6)), 64)
    end select
  end function val

  integer(kind=8) function fold(a, b, k)
    integer(kind=8), intent(in) :: a, b
    integer, intent(in) :: k
    select case (k)
    case (1)
      fold = a + b
    case (2)
      fold = a * b
    case (3)
      fold = max(a, b)
    case (4)
      fold = min(a, b)
    case (5)
      fold = iand(a, b)
    case (6)
      fold = ior(a, b)
    case default
      fold = ieor(a, b)
    end select
  end function fold

  ! MINLOC/MAXLOC: value rank%2, index rank
  subroutine pairs()
    integer :: ip(2), iq(2)
    real :: rp(2), rq(2)
    double precision :: dp(2), dq(2)
    integer :: wmax
    wmax = min(1, nproc - 1)
    ip = (/ mod(rank, 2), rank /)
    call MPI_ALLREDUCE(ip, iq, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD, ierr)
    call chk(iq(1) == 0 .and. iq(2) == 0, '2INTEGER MINLOC')
    call MPI_ALLREDUCE(ip, iq, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
    call chk(iq(1) == wmax .and. iq(2) == wmax, '2INTEGER MAXLOC')
    rp = (/ real(mod(rank, 2)), real(rank) /)
    call MPI_ALLREDUCE(rp, rq, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
    call chk(rq(1) == real(wmax) .and. rq(2) == real(wmax), '2REAL MAXLOC')
    call MPI_ALLREDUCE(rp, rq, 1, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD, ierr)
    call chk(rq(1) == 0.0 .and. rq(2) == 0.0, '2REAL MINLOC')
    dp = (/ dble(-rank), dble(rank) /)
    call MPI_ALLREDUCE(dp, dq, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD, ierr)
    call chk(dq(1) == dble(1 - nproc) .and. dq(2) == dble(nproc - 1), '2DOUBLE_PRECISION MINLOC')
    call MPI_ALLREDUCE(dp, dq, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
    call chk(dq(1) == 0d0 .and. dq(2) == 0d0, '2DOUBLE_PRECISION MAXLOC')
  end subroutine pairs

  subroutine rooted()
    integer :: v(2), dummy(2), all_ranks(0:63)
    v = rank
    if (rank == 0) then
      call MPI_REDUCE(MPI_IN_PLACE, v, 2, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
      call chk(all(v == nproc * (nproc - 1) / 2), 'REDUCE in place')
    else
      call MPI_REDUCE(v, dummy, 2, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    end if
    all_ranks = -1
    all_ranks(rank) = rank
    if (rank == 0) then
      call MPI_GATHER(MPI_IN_PLACE, 1, MPI_INTEGER, all_ranks, 1, MPI_INTEGER, 0, &
                      MPI_COMM_WORLD, ierr)
      do i = 0, nproc - 1
        call chk(all_ranks(i) == i, 'GATHER in place')
      end do
    else
      call MPI_GATHER(rank, 1, MPI_INTEGER, all_ranks, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    end if
  end subroutine rooted

  ! row 2 of a 4x5 array (column-major: stride 4) as one vector type
  subroutine derived()
    double precision :: a(4, 5)
    integer :: rowtype, sz
    integer(kind=MPI_ADDRESS_KIND) :: lb, ext
    call MPI_TYPE_VECTOR(5, 1, 4, MPI_DOUBLE_PRECISION, rowtype, ierr)
    call MPI_TYPE_COMMIT(rowtype, ierr)
    call MPI_TYPE_SIZE(rowtype, sz, ierr)
    call MPI_TYPE_GET_EXTENT(rowtype, lb, ext, ierr)
    call chk(sz == 40 .and. lb == 0 .and. ext == 8 * (4 * 4 + 1), 'vector size and extent')
    a = -1.0d0
    if (rank == 0) then
      do j = 1, 5
        a(2, j) = dble(j) * 1.5d0
      end do
    end if
    call MPI_BCAST(a(2, 1), 1, rowtype, 0, MPI_COMM_WORLD, ierr)
    do j = 1, 5
      call chk(a(2, j) == dble(j) * 1.5d0, 'row received')
      call chk(rank == 0 .or. (a(1, j) == -1.0d0 .and. a(3, j) == -1.0d0), 'outside the row')
    end do
    call MPI_TYPE_FREE(rowtype, ierr)
    call chk(rowtype == MPI_DATATYPE_NULL, 'TYPE_FREE left the handle')
    ! elements 1 and 3 of column 4 by a struct with byte displacements
    call MPI_TYPE_CREATE_STRUCT(2, (/ 1, 1 /), (/ 0_MPI_ADDRESS_KIND, 16_MPI_ADDRESS_KIND /), &
                                (/ MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION /), rowtype, ierr)
    call MPI_TYPE_COMMIT(rowtype, ierr)
    if (rank == 0) a(:, 4) = (/ 7.0d0, -2.0d0, 9.0d0, -2.0d0 /)
    if (rank /= 0) a(:, 4) = -2.0d0
    call MPI_BCAST(a(1, 4), 1, rowtype, 0, MPI_COMM_WORLD, ierr)
    call chk(all(a(:, 4) == (/ 7.0d0, -2.0d0, 9.0d0, -2.0d0 /)), 'struct type')
    call MPI_TYPE_FREE(rowtype, ierr)
  end subroutine derived

  subroutine comms()
    integer :: half, dup, res, hsize, hrank, cart, dims(2), coords(2), src, dst, rlen
    logical :: periods(2)
    character(len=MPI_MAX_OBJECT_NAME) :: cname
    call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(rank, 2), -rank, half, ierr)
    call MPI_COMM_SIZE(half, hsize, ierr)
    call MPI_COMM_RANK(half, hrank, ierr)
    call chk(hsize == (nproc + 1 - mod(rank, 2)) / 2, 'split size')
    call chk(hrank == (hsize - 1) - rank / 2, 'split rank (key -rank)')
    call MPI_COMM_DUP(half, dup, ierr)
    call MPI_COMM_COMPARE(half, dup, res, ierr)
    call chk(res == MPI_CONGRUENT, 'dup is congruent')
    call MPI_COMM_SET_NAME(dup, 'a name with trailing blanks   ', ierr)
    call MPI_COMM_GET_NAME(dup, cname, rlen, ierr)
    call chk(cname == 'a name with trailing blanks' .and. rlen == 27, 'comm name')
    call MPI_COMM_FREE(dup, ierr)
    call chk(dup == MPI_COMM_NULL, 'COMM_FREE left the handle')
    call MPI_COMM_FREE(half, ierr)
    dims = 0
    call MPI_DIMS_CREATE(nproc, 2, dims, ierr)
    call chk(dims(1) * dims(2) == nproc, 'DIMS_CREATE')
    periods = (/ .true., .false. /)
    call MPI_CART_CREATE(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
    call MPI_CART_COORDS(cart, rank, 2, coords, ierr)
    call chk(coords(1) * dims(2) + coords(2) == rank, 'CART_COORDS')
    call MPI_CART_SHIFT(cart, 0, 1, src, dst, ierr)
    call chk(dst == mod(coords(1) + 1, dims(1)) * dims(2) + coords(2), 'CART_SHIFT periodic')
    call MPI_CART_SHIFT(cart, 1, 1, src, dst, ierr)
    if (coords(2) == dims(2) - 1) then
      call chk(dst == MPI_PROC_NULL, 'CART_SHIFT off the open edge')
    end if
    call MPI_COMM_FREE(cart, ierr)
  end subroutine comms

  subroutine onesided()
    integer :: buf(0:63), win, one
    integer(kind=MPI_ADDRESS_KIND) :: wsize, disp
    buf = -1
    buf(nproc) = 0
    wsize = 4 * (nproc + 1)
    call MPI_WIN_CREATE(buf, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call MPI_WIN_FENCE(0, win, ierr)
    one = 1
    do r = 0, nproc - 1
      disp = rank
      call MPI_PUT(rank, 1, MPI_INTEGER, r, disp, 1, MPI_INTEGER, win, ierr)
      disp = nproc
      call MPI_ACCUMULATE(one, 1, MPI_INTEGER, r, disp, 1, MPI_INTEGER, MPI_SUM, win, ierr)
    end do
    call MPI_WIN_FENCE(0, win, ierr)
    do r = 0, nproc - 1
      call chk(buf(r) == r, 'window after puts')
    end do
    call chk(buf(nproc) == nproc, 'window after accumulates')
    call MPI_WIN_FREE(win, ierr)
  end subroutine onesided

  subroutine more()
    integer :: counts(0:63), displs(0:63), got(0:200), mine(8), reqs(2), sts(MPI_STATUS_SIZE, 2)
    integer :: info, nkeys, rlen, graph, indeg, outdeg, nb(1), k
    logical :: done, weighted
    character(len=MPI_MAX_OBJECT_NAME) :: tname
    character(len=MPI_MAX_INFO_KEY) :: key
    ! gatherv: rank r sends r+1 copies of r
    mine = rank
    do r = 0, nproc - 1
      counts(r) = r + 1
      displs(r) = r * (r + 1) / 2
    end do
    got = -1
    call MPI_GATHERV(mine, rank + 1, MPI_INTEGER, got, counts, displs, MPI_INTEGER, &
                     nproc - 1, MPI_COMM_WORLD, ierr)
    if (rank == nproc - 1) then
      do r = 0, nproc - 1
        do k = 0, r
          call chk(got(displs(r) + k) == r, 'GATHERV')
        end do
      end do
    end if
    ! a synchronous send to myself, completed by TESTALL
    call MPI_IRECV(got, 1, MPI_INTEGER, rank, 9, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_ISSEND(rank, 1, MPI_INTEGER, rank, 9, MPI_COMM_WORLD, reqs(2), ierr)
    done = .false.
    do while (.not. done)
      call MPI_TESTALL(2, reqs, done, sts, ierr)
    end do
    call chk(got(0) == rank .and. sts(MPI_SOURCE, 1) == rank .and. sts(MPI_TAG, 1) == 9, &
             'TESTALL status')
    ! info: keys and values as Fortran strings
    call MPI_INFO_CREATE(info, ierr)
    call MPI_INFO_SET(info, 'first key  ', 'a value', ierr)
    call MPI_INFO_SET(info, 'second', 'another', ierr)
    call MPI_INFO_GET_NKEYS(info, nkeys, ierr)
    call chk(nkeys == 2, 'INFO_GET_NKEYS')
    call MPI_INFO_GET_NTHKEY(info, 0, key, ierr)
    call chk(key == 'first key', 'INFO_GET_NTHKEY')
    call MPI_INFO_GET_VALUELEN(info, 'second', rlen, done, ierr)
    call chk(done .and. rlen == 7, 'INFO_GET_VALUELEN')
    call MPI_INFO_FREE(info, ierr)
    call chk(info == MPI_INFO_NULL, 'INFO_FREE left the handle')
    call MPI_TYPE_GET_NAME(MPI_DOUBLE_PRECISION, tname, rlen, ierr)
    call chk(tname == 'MPI_DOUBLE_PRECISION' .and. rlen == 20, 'TYPE_GET_NAME')
    ! a ring as a distributed graph, unweighted
    nb(1) = mod(rank + 1, nproc)
    k = mod(rank + nproc - 1, nproc)
    call MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 1, (/ k /), MPI_UNWEIGHTED, 1, nb, &
                                        MPI_UNWEIGHTED, MPI_INFO_NULL, .false., graph, ierr)
    call MPI_DIST_GRAPH_NEIGHBORS_COUNT(graph, indeg, outdeg, weighted, ierr)
    call chk(indeg == 1 .and. outdeg == 1 .and. .not. weighted, 'dist graph unweighted')
    call MPI_NEIGHBOR_ALLGATHER(rank, 1, MPI_INTEGER, got, 1, MPI_INTEGER, graph, ierr)
    call chk(got(0) == k, 'NEIGHBOR_ALLGATHER')
    call MPI_COMM_FREE(graph, ierr)
  end subroutine more

  ! a neighbour's rank put into a window over a, then freed by the caller
  subroutine put_next(a, win)
    integer, pointer :: a(:)
    integer :: win
    integer :: next, prev
    next = mod(rank + 1, nproc)
    prev = mod(rank + nproc - 1, nproc)
    a = -1
    call MPI_WIN_FENCE(0, win, ierr)
    call MPI_PUT(rank, 1, MPI_INTEGER, next, 2_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
    call MPI_WIN_FENCE(0, win, ierr)
    call chk(a(3) == prev .and. a(1) == -1 .and. a(4) == -1, 'PUT into the window')
  end subroutine put_next

  subroutine memory()
    integer, parameter :: n = 10
    integer(kind=MPI_ADDRESS_KIND) :: sz, baseptr, qsize, val
    integer, pointer :: a(:), q(:)
    integer :: win, node, nrank, nsize, du, i, j
    logical :: flag
    type(c_ptr) :: cp
    sz = 4 * n
    call MPI_ALLOC_MEM(sz, MPI_INFO_NULL, baseptr, ierr)
    call chk(ierr == MPI_SUCCESS .and. baseptr /= 0, 'ALLOC_MEM')
    call c_f_pointer(transfer(baseptr, c_null_ptr), a, (/ n /))
    call MPI_WIN_CREATE(a, sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call put_next(a, win)
    call MPI_WIN_FREE(win, ierr)
    call MPI_FREE_MEM(a, ierr)
    call chk(ierr == MPI_SUCCESS, 'FREE_MEM')
    ! MPI-3.1 8.2's overloads with a TYPE(C_PTR), by the generic and the specific name
    call MPI_ALLOC_MEM(sz, MPI_INFO_NULL, cp, ierr)
    call chk(ierr == MPI_SUCCESS .and. c_associated(cp), 'ALLOC_MEM into a TYPE(C_PTR)')
    call c_f_pointer(cp, a, (/ n /))
    a = (/ (i, i = 1, n) /)
    call chk(sum(a) == n * (n + 1) / 2, 'ALLOC_MEM''s memory through a TYPE(C_PTR)')
    call MPI_FREE_MEM(a, ierr)
    call MPI_ALLOC_MEM_CPTR(sz, MPI_INFO_NULL, cp, ierr)
    call chk(ierr == MPI_SUCCESS .and. c_associated(cp), 'ALLOC_MEM_CPTR')
    call c_f_pointer(cp, a, (/ n /))
    call MPI_FREE_MEM(a, ierr)
    call MPI_WIN_ALLOCATE(sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, cp, win, ierr)
    call chk(ierr == MPI_SUCCESS .and. c_associated(cp), 'WIN_ALLOCATE into a TYPE(C_PTR)')
    call c_f_pointer(cp, a, (/ n /))
    call MPI_WIN_GET_ATTR(win, MPI_WIN_BASE, val, flag, ierr)
    call chk(flag .and. val == transfer(cp, val), 'MPI_WIN_BASE of WIN_ALLOCATE_CPTR')
    call put_next(a, win)
    call MPI_WIN_FREE(win, ierr)

    call MPI_WIN_ALLOCATE(sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, baseptr, win, ierr)
    call chk(ierr == MPI_SUCCESS .and. baseptr /= 0, 'WIN_ALLOCATE')
    call c_f_pointer(transfer(baseptr, c_null_ptr), a, (/ n /))
    call MPI_WIN_GET_ATTR(win, MPI_WIN_BASE, val, flag, ierr)
    call chk(flag .and. val == baseptr, 'MPI_WIN_BASE')
    call MPI_WIN_GET_ATTR(win, MPI_WIN_SIZE, val, flag, ierr)
    call chk(flag .and. val == sz, 'MPI_WIN_SIZE')
    call MPI_WIN_GET_ATTR(win, MPI_WIN_DISP_UNIT, val, flag, ierr)
    call chk(flag .and. val == 4, 'MPI_WIN_DISP_UNIT')
    call MPI_WIN_GET_ATTR(win, MPI_WIN_CREATE_FLAVOR, val, flag, ierr)
    call chk(flag .and. val == MPI_WIN_FLAVOR_ALLOCATE, 'MPI_WIN_CREATE_FLAVOR')
    call put_next(a, win)
    call MPI_WIN_FREE(win, ierr)

    ! each rank's segment written by itself, read by the next on its node
    call MPI_COMM_SPLIT_TYPE(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, node, ierr)
    call MPI_COMM_RANK(node, nrank, ierr)
    call MPI_COMM_SIZE(node, nsize, ierr)
    call MPI_WIN_ALLOCATE_SHARED(sz, 4, MPI_INFO_NULL, node, baseptr, win, ierr)
    call chk(ierr == MPI_SUCCESS, 'WIN_ALLOCATE_SHARED')
    call c_f_pointer(transfer(baseptr, c_null_ptr), a, (/ n /))
    call MPI_WIN_LOCK_ALL(0, win, ierr)
    a = (/ (100 * nrank + i, i = 1, n) /)
    call MPI_WIN_SYNC(win, ierr)
    call MPI_BARRIER(node, ierr)
    call MPI_WIN_SYNC(win, ierr)
    j = mod(nrank + 1, nsize)
    call MPI_WIN_SHARED_QUERY(win, j, qsize, du, baseptr, ierr)
    call chk(qsize == sz .and. du == 4, 'WIN_SHARED_QUERY size and disp_unit')
    call c_f_pointer(transfer(baseptr, c_null_ptr), q, (/ n /))
    call chk(all(q == (/ (100 * j + i, i = 1, n) /)), 'a neighbour''s shared segment')
    call MPI_WIN_SHARED_QUERY(win, j, qsize, du, cp, ierr)
    call chk(qsize == sz .and. du == 4, 'WIN_SHARED_QUERY_CPTR size and disp_unit')
    call c_f_pointer(cp, q, (/ n /))
    call chk(all(q == (/ (100 * j + i, i = 1, n) /)), &
             'a neighbour''s shared segment through a TYPE(C_PTR)')
    call MPI_WIN_UNLOCK_ALL(win, ierr)
    call MPI_WIN_FREE(win, ierr)
    call MPI_WIN_ALLOCATE_SHARED(sz, 4, MPI_INFO_NULL, node, cp, win, ierr)
    call chk(ierr == MPI_SUCCESS .and. c_associated(cp), 'WIN_ALLOCATE_SHARED_CPTR')
    call MPI_WIN_SHARED_QUERY(win, nrank, qsize, du, baseptr, ierr)
    call chk(baseptr == transfer(cp, baseptr), 'WIN_ALLOCATE_SHARED_CPTR''s address')
    call MPI_WIN_FREE(win, ierr)
    call MPI_COMM_FREE(node, ierr)
  end subroutine memory

  subroutine callbacks()
    integer(kind=MPI_ADDRESS_KIND) :: extra, val, sz
    integer :: kv, t, t2, win, eh, op, i, k
    integer, target :: wbuf(4)
    double precision :: d(4), dr(4), want(4)
    logical :: flag
    external :: tcopy, wdel, weh, absmax
    ! a datatype attribute copied by a Fortran callback on MPI_TYPE_DUP
    extra = 11
    call MPI_TYPE_CREATE_KEYVAL(tcopy, MPI_TYPE_NULL_DELETE_FN, kv, extra, ierr)
    call chk(ierr == MPI_SUCCESS, 'TYPE_CREATE_KEYVAL')
    call MPI_TYPE_CONTIGUOUS(2, MPI_INTEGER, t, ierr)
    val = 3
    call MPI_TYPE_SET_ATTR(t, kv, val, ierr)
    call MPI_TYPE_DUP(t, t2, ierr)
    call MPI_TYPE_GET_ATTR(t2, kv, val, flag, ierr)
    call chk(ncopy == 1 .and. flag .and. val == 4, 'datatype attribute copied')
    call MPI_TYPE_DELETE_ATTR(t2, kv, ierr)
    call MPI_TYPE_GET_ATTR(t2, kv, val, flag, ierr)
    call chk(.not. flag, 'TYPE_DELETE_ATTR')
    call MPI_TYPE_FREE(t2, ierr)
    call MPI_TYPE_FREE(t, ierr)
    call MPI_TYPE_FREE_KEYVAL(kv, ierr)
    ! a window attribute deleted by a Fortran callback on MPI_WIN_FREE,
    ! and a window error handler
    call MPI_WIN_CREATE_KEYVAL(MPI_WIN_NULL_COPY_FN, wdel, kv, extra, ierr)
    sz = 16
    call MPI_WIN_CREATE(wbuf, sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    val = 100 + rank
    call MPI_WIN_SET_ATTR(win, kv, val, ierr)
    call MPI_WIN_CREATE_ERRHANDLER(weh, eh, ierr)
    call chk(ierr == MPI_SUCCESS, 'WIN_CREATE_ERRHANDLER')
    call MPI_WIN_SET_ERRHANDLER(win, eh, ierr)
    call MPI_WIN_CALL_ERRHANDLER(win, MPI_ERR_OTHER, ierr)
    call chk(nerr == 1 .and. lasth == win .and. lastcode == MPI_ERR_OTHER, &
             'window error handler')
    call MPI_ERRHANDLER_FREE(eh, ierr)
    k = win
    call MPI_WIN_FREE(win, ierr)
    call chk(ndel == 1 .and. lasth == k .and. lastcode == 100 + rank, 'window delete callback')
    call MPI_WIN_FREE_KEYVAL(kv, ierr)
    ! a user op on DOUBLE PRECISION: the largest magnitude, sign kept
    call MPI_OP_CREATE(absmax, .true., op, ierr)
    d = (/ (dble(rank) * (-1) ** (rank + i), i = 1, 4) /)
    call MPI_ALLREDUCE(d, dr, 4, MPI_DOUBLE_PRECISION, op, MPI_COMM_WORLD, ierr)
    want = (/ (dble(nproc - 1) * (-1) ** (nproc - 1 + i), i = 1, 4) /)
    call chk(all(dr == want), 'user op on DOUBLE PRECISION')
    call MPI_OP_FREE(op, ierr)
  end subroutine callbacks

  subroutine counts()
    integer(kind=MPI_COUNT_KIND) :: c, lb, ext
    integer(kind=MPI_ADDRESS_KIND) :: a1, a3
    integer :: arr(3), st(MPI_STATUS_SIZE), vec, bsize, k
    type(MPI_Status) :: st08
    character, allocatable :: buf(:)
    call MPI_TYPE_SIZE_X(MPI_DOUBLE_PRECISION, c, ierr)
    call chk(c == 8, 'TYPE_SIZE_X')
    call MPI_TYPE_VECTOR(3, 1, 2, MPI_INTEGER, vec, ierr)
    call MPI_TYPE_GET_EXTENT_X(vec, lb, ext, ierr)
    call chk(lb == 0 .and. ext == 20, 'TYPE_GET_EXTENT_X')
    call MPI_TYPE_GET_TRUE_EXTENT_X(vec, lb, ext, ierr)
    call chk(lb == 0 .and. ext == 20, 'TYPE_GET_TRUE_EXTENT_X')
    call MPI_TYPE_FREE(vec, ierr)
    ! a count past INTEGER's range
    c = 3000000000_MPI_COUNT_KIND
    call MPI_STATUS_SET_ELEMENTS_X(st, MPI_BYTE, c, ierr)
    call MPI_GET_ELEMENTS_X(st, MPI_BYTE, lb, ierr)
    call chk(ierr == MPI_SUCCESS .and. lb == c, 'STATUS_SET_ELEMENTS_X, GET_ELEMENTS_X')
    call MPI_GET_ADDRESS(arr(1), a1, ierr)
    call MPI_GET_ADDRESS(arr(3), a3, ierr)
    call chk(MPI_AINT_DIFF(a3, a1) == 8, 'AINT_DIFF')
    call chk(MPI_AINT_ADD(a1, 8_MPI_ADDRESS_KIND) == a3, 'AINT_ADD')
    call MPI_PCONTROL(1)
    bsize = 100 + MPI_BSEND_OVERHEAD
    allocate(buf(bsize))
    call MPI_BUFFER_ATTACH(buf, bsize, ierr)
    call MPI_BSEND(rank, 1, MPI_INTEGER, rank, 4, MPI_COMM_WORLD, ierr)
    call MPI_RECV(arr, 1, MPI_INTEGER, rank, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call chk(arr(1) == rank, 'BSEND to self')
    call MPI_BUFFER_DETACH(buf, k, ierr)
    call chk(ierr == MPI_SUCCESS .and. k == bsize, 'BUFFER_DETACH size')
    deallocate(buf)
    ! a status to mpi_f08's TYPE(MPI_Status) and back (MPI-3.1 17.2.5)
    st = -7
    st(MPI_SOURCE) = 3
    st(MPI_TAG) = 9
    st(MPI_ERROR) = MPI_ERR_TRUNCATE
    call MPI_STATUS_F2F08(st, st08, ierr)
    call chk(ierr == MPI_SUCCESS .and. st08%MPI_SOURCE == 3 .and. st08%MPI_TAG == 9 .and. &
             st08%MPI_ERROR == MPI_ERR_TRUNCATE, 'STATUS_F2F08')
    st = 0
    call MPI_STATUS_F082F(st08, st, ierr)
    call chk(ierr == MPI_SUCCESS .and. st(MPI_SOURCE) == 3 .and. st(MPI_TAG) == 9 .and. &
             all(st(4:) == -7), 'STATUS_F082F')
  end subroutine counts
end program usempi

subroutine tcopy(old, kv, extra, vin, vout, flag, ierr)
  use mpi
  implicit none
  integer :: ncopy, ndel, nerr, lasth, lastcode
  common /usempi_cb/ ncopy, ndel, nerr, lasth, lastcode
  integer :: old, kv, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra, vin, vout
  logical :: flag
  ncopy = ncopy + 1
  vout = vin + 1
  flag = extra == 11
  ierr = MPI_SUCCESS
end subroutine tcopy

subroutine wdel(win, kv, val, extra, ierr)
  use mpi
  implicit none
  integer :: ncopy, ndel, nerr, lasth, lastcode
  common /usempi_cb/ ncopy, ndel, nerr, lasth, lastcode
  integer :: win, kv, ierr
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  ndel = ndel + 1
  lasth = win
  lastcode = int(val)
  if (extra /= 11) lastcode = -1
  ierr = MPI_SUCCESS
end subroutine wdel

subroutine weh(win, code)
  use mpi
  implicit none
  integer :: ncopy, ndel, nerr, lasth, lastcode
  common /usempi_cb/ ncopy, ndel, nerr, lasth, lastcode
  integer :: win, code
  nerr = nerr + 1
  lasth = win
  lastcode = code
end subroutine weh

subroutine absmax(in, inout, n, dtype)
  use mpi
  implicit none
  integer :: n, dtype, i
  double precision :: in(n), inout(n)
  if (dtype /= MPI_DOUBLE_PRECISION) then
    inout = -999
    return
  end if
  do i = 1, n
    if (abs(in(i)) > abs(inout(i))) inout(i) = in(i)
  end do
end subroutine absmax
