! np: 1 2 3 4 8
!
! f08.f90 - `use mpi_f08`: handles as derived types with == and /=, the
! TYPE(MPI_Status) of point-to-point (source, tag, MPI_GET_COUNT,
! MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, statuses of MPI_WAITALL) and its
! conversions to and from the integer array; messages of 0 and 1 elements,
! odd, around the eager limit and of 1 MiB; a struct type of absolute
! addresses sent from MPI_BOTTOM; collectives over INTEGER,
! INTEGER(8), REAL, DOUBLE PRECISION, COMPLEX and LOGICAL with several ops,
! in place and not, against a reference computed here; derived types over
! a 2-D array (a vector over a row, a subarray); communicators (split, dup,
! compare, names); a periodic 2-D Cartesian topology (dims, coords, shift,
! a sub-grid) and a distributed graph of each rank's successor; one-sided put, get and accumulate with fences; strings;
! a user op and attributes with the predefined copy callbacks; ierror
! present and absent, a bad rank's, count's, datatype's and communicator's
! error class, the Fortran call named in the message; a PMPI_ name.
program f08
  use mpi_f08
  implicit none
  integer :: ierr, rank, nproc
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  call chk(ierr == MPI_SUCCESS, 'MPI_Comm_size ierror')
  call handles()
  call pt2pt()
  call sizes()
  call bottom()
  call collectives()
  call derived()
  call comms()
  call topologies()
  call onesided()
  call strings()
  call callbacks()
  call errors()
  call MPI_Finalize(ierr)
  call chk(ierr == MPI_SUCCESS, 'MPI_Finalize ierror')
contains

  subroutine chk(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      write (0, '(a, a, a, i0)') 'FAIL f08: ', what, ' on rank ', rank
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine chk

  subroutine handles()
    type(MPI_Comm) :: c
    type(MPI_Datatype) :: t
    call chk(MPI_COMM_WORLD /= MPI_COMM_SELF, 'COMM_WORLD /= COMM_SELF')
    call chk(.not. (MPI_COMM_WORLD == MPI_COMM_NULL), 'COMM_WORLD == COMM_NULL')
    c = MPI_COMM_WORLD
    call chk(c == MPI_COMM_WORLD, 'a copy of COMM_WORLD')
    t = MPI_INTEGER
    call chk(t == MPI_INTEGER .and. t /= MPI_REAL, 'datatype ==, /=')
    call chk(MPI_SUM /= MPI_MAX .and. MPI_REQUEST_NULL == MPI_REQUEST_NULL, 'op, request')
    call chk(MPI_COMM_WORLD%MPI_VAL /= MPI_COMM_SELF%MPI_VAL, 'MPI_VAL')
  end subroutine handles

  subroutine pt2pt()
    integer, parameter :: n = 5
    integer :: a(n), b(n), cnt, i, next, prev, f_st(MPI_STATUS_SIZE), flag_tries
    double precision :: d(3), dsend(3)
    type(MPI_Status) :: st, st2, sts(2)
    type(MPI_Request) :: reqs(2)
    logical :: flag
    next = mod(rank + 1, nproc)
    prev = mod(rank - 1 + nproc, nproc)
    a = [(rank * 100 + i, i = 1, n)]
    b = -1
    ! a ring: the status says who sent, with which tag, and how much
    call MPI_Sendrecv(a, n, MPI_INTEGER, next, 10 + rank, b, n, MPI_INTEGER, MPI_ANY_SOURCE, &
                      MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
    call chk(ierr == MPI_SUCCESS, 'Sendrecv ierror')
    call chk(all(b == [(prev * 100 + i, i = 1, n)]), 'Sendrecv data')
    call chk(st%MPI_SOURCE == prev, 'status MPI_SOURCE')
    call chk(st%MPI_TAG == 10 + prev, 'status MPI_TAG')
    call MPI_Get_count(st, MPI_INTEGER, cnt)
    call chk(cnt == n, 'MPI_Get_count')
    ! the status in the integer array and back
    call MPI_Status_f082f(st, f_st)
    call chk(f_st(MPI_SOURCE) == prev .and. f_st(MPI_TAG) == 10 + prev, 'Status_f082f')
    call MPI_Status_f2f08(f_st, st2, ierr)
    call MPI_Get_count(st2, MPI_INTEGER, cnt)
    call chk(st2%MPI_SOURCE == prev .and. cnt == n, 'Status_f2f08')
    ! nonblocking, statuses of Waitall; then with MPI_STATUSES_IGNORE
    b = -1
    call MPI_Irecv(b, n, MPI_INTEGER, prev, 7, MPI_COMM_WORLD, reqs(1))
    call MPI_Isend(a, 3, MPI_INTEGER, next, 7, MPI_COMM_WORLD, reqs(2))
    call MPI_Waitall(2, reqs, sts)
    call chk(all(reqs == MPI_REQUEST_NULL), 'Waitall requests')
    call chk(sts(1)%MPI_SOURCE == prev .and. sts(1)%MPI_TAG == 7, 'Waitall status')
    call MPI_Get_count(sts(1), MPI_INTEGER, cnt)
    call chk(cnt == 3 .and. all(b(1:3) == a(1:3) - (rank - prev) * 100) .and. b(4) == -1, &
             'Waitall data')
    call MPI_Irecv(d, 3, MPI_DOUBLE_PRECISION, prev, 8, MPI_COMM_WORLD, reqs(1))
    dsend = [1d0, 2d0, 3d0] * rank
    call MPI_Isend(dsend, 3, MPI_DOUBLE_PRECISION, next, 8, MPI_COMM_WORLD, reqs(2))
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
    call chk(all(d == [1d0, 2d0, 3d0] * prev), 'STATUSES_IGNORE data')
    ! probe, then a blocking receive that ignores its status
    call MPI_Send(a, 2, MPI_INTEGER, next, 9, MPI_COMM_WORLD)
    flag = .false.
    flag_tries = 0
    do while (.not. flag)
      call MPI_Iprobe(prev, 9, MPI_COMM_WORLD, flag, st)
      flag_tries = flag_tries + 1
    end do
    call MPI_Get_count(st, MPI_INTEGER, cnt)
    call chk(cnt == 2 .and. st%MPI_SOURCE == prev, 'Iprobe status')
    call MPI_Recv(b, n, MPI_INTEGER, prev, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call chk(b(1) == prev * 100 + 1 .and. b(2) == prev * 100 + 2, 'Recv STATUS_IGNORE')
    ! to oneself, through MPI_PROC_NULL
    call MPI_Recv(b, n, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, st)
    call chk(st%MPI_SOURCE == MPI_PROC_NULL .and. st%MPI_TAG == MPI_ANY_TAG, 'PROC_NULL status')
  end subroutine pt2pt

  ! around the eager limit (31744 bytes) and 1 MiB, and empty
  subroutine sizes()
    integer, parameter :: counts(8) = [0, 1, 7, 7935, 7936, 7937, 65537, 262144]
    integer, allocatable :: a(:), b(:)
    double precision, allocatable :: d(:)
    integer :: c, i, next, prev, cnt
    type(MPI_Status) :: st
    next = mod(rank + 1, nproc)
    prev = mod(rank - 1 + nproc, nproc)
    do c = 1, size(counts)
      allocate (a(counts(c) + 1), b(counts(c) + 1))
      a = [(rank * 7 + i, i = 1, counts(c) + 1)]
      b = -1
      call MPI_Sendrecv(a, counts(c), MPI_INTEGER, next, c, b, counts(c), MPI_INTEGER, prev, c, &
                        MPI_COMM_WORLD, st)
      call MPI_Get_count(st, MPI_INTEGER, cnt)
      call chk(cnt == counts(c) .and. st%MPI_TAG == c, 'a size: status')
      call chk(all(b(1:counts(c)) == [(prev * 7 + i, i = 1, counts(c))]), 'a size: data')
      call chk(b(counts(c) + 1) == -1, 'a size: the element past the message')
      deallocate (a, b)
    end do
    allocate (d(131072))
    d = 0
    if (rank == nproc - 1) d = [(dble(i) / 3, i = 1, size(d))]
    call MPI_Bcast(d, size(d), MPI_DOUBLE_PRECISION, nproc - 1, MPI_COMM_WORLD)
    call chk(all(d == [(dble(i) / 3, i = 1, size(d))]), 'Bcast of 1 MiB')
    deallocate (d)
  end subroutine sizes

  ! a struct of two variables by their absolute addresses, sent from MPI_BOTTOM
  subroutine bottom()
    integer :: iv, iw, next, prev
    double precision :: dv, dw
    integer(kind=MPI_ADDRESS_KIND) :: addr(2)
    type(MPI_Datatype) :: st, rt
    next = mod(rank + 1, nproc)
    prev = mod(rank - 1 + nproc, nproc)
    iv = rank + 11
    dv = rank + 0.5d0
    call MPI_Get_address(iv, addr(1))
    call MPI_Get_address(dv, addr(2))
    call MPI_Type_create_struct(2, [1, 1], addr, [MPI_INTEGER, MPI_DOUBLE_PRECISION], st)
    call MPI_Type_commit(st)
    call MPI_Get_address(iw, addr(1))
    call MPI_Get_address(dw, addr(2))
    call MPI_Type_create_struct(2, [1, 1], addr, [MPI_INTEGER, MPI_DOUBLE_PRECISION], rt)
    call MPI_Type_commit(rt)
    iw = -1
    dw = -1
    call MPI_Sendrecv(MPI_BOTTOM, 1, st, next, 3, MPI_BOTTOM, 1, rt, prev, 3, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE)
    call MPI_F_sync_reg(iw)
    call MPI_F_sync_reg(dw)
    call chk(iw == prev + 11 .and. dw == prev + 0.5d0, 'MPI_BOTTOM and absolute addresses')
    call MPI_Type_free(st)
    call MPI_Type_free(rt)
  end subroutine bottom

  subroutine collectives()
    integer, parameter :: n = 4
    integer :: iv(n), ib(n), i, want_sum, g(n * 8), s(n)
    integer, allocatable :: all_ranks(:)
    integer(kind=8) :: i8(n)
    real :: rv(n)
    double precision :: dv(n)
    complex :: cv(n)
    logical :: lv(n), lw(n)
    want_sum = nproc * (nproc + 1) / 2
    iv = rank + 1
    call MPI_Allreduce(iv, ib, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call chk(all(ib == want_sum), 'INTEGER SUM')
    call MPI_Allreduce(MPI_IN_PLACE, iv, n, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
    call chk(all(iv == nproc), 'INTEGER MAX in place')
    i8 = int(rank + 1, 8) * 10000000000_8
    call MPI_Allreduce(MPI_IN_PLACE, i8, n, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
    call chk(all(i8 == int(want_sum, 8) * 10000000000_8), 'INTEGER8 SUM')
    rv = real(rank + 1)
    call MPI_Allreduce(MPI_IN_PLACE, rv, n, MPI_REAL, MPI_MIN, MPI_COMM_WORLD)
    call chk(all(rv == 1.0), 'REAL MIN')
    dv = dble(rank) + 0.25d0
    call MPI_Allreduce(MPI_IN_PLACE, dv, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
    call chk(all(dv == dble(want_sum - nproc) + 0.25d0 * nproc), 'DOUBLE PRECISION SUM')
    cv = cmplx(0.0, 1.0)
    call MPI_Allreduce(MPI_IN_PLACE, cv, n, MPI_COMPLEX, MPI_PROD, MPI_COMM_WORLD)
    call chk(all(cv == cmplx(0.0, 1.0)**nproc), 'COMPLEX PROD')
    lv = .true.
    lv(2) = rank == 0
    call MPI_Allreduce(lv, lw, n, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
    call chk(lw(1) .and. (lw(2) .eqv. nproc == 1), 'LOGICAL LAND')
    call MPI_Allreduce(lv, lw, n, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD)
    call chk(lw(1) .and. lw(2), 'LOGICAL LOR')
    ! rooted, with MPI_IN_PLACE at the root
    do i = 0, nproc - 1
      iv = rank + 1
      if (rank == i) then
        call MPI_Reduce(MPI_IN_PLACE, iv, n, MPI_INTEGER, MPI_SUM, i, MPI_COMM_WORLD)
        call chk(all(iv == want_sum), 'Reduce in place at the root')
      else
        call MPI_Reduce(iv, ib, n, MPI_INTEGER, MPI_SUM, i, MPI_COMM_WORLD)
      end if
      ib = 0
      if (rank == i) ib = 7 * i + rank
      call MPI_Bcast(ib, n, MPI_INTEGER, i, MPI_COMM_WORLD)
      call chk(all(ib == 7 * i + i), 'Bcast')
    end do
    allocate (all_ranks(nproc))
    call MPI_Allgather(rank, 1, MPI_INTEGER, all_ranks, 1, MPI_INTEGER, MPI_COMM_WORLD)
    call chk(all(all_ranks == [(i, i = 0, nproc - 1)]), 'Allgather of a scalar')
    g = -1
    g(rank * n + 1:rank * n + n) = rank
    if (rank == 0) then
      call MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, n, MPI_INTEGER, 0, MPI_COMM_WORLD)
    else
      call MPI_Gather(g(rank * n + 1), n, MPI_INTEGER, g, n, MPI_INTEGER, 0, MPI_COMM_WORLD)
    end if
    if (rank == 0) then
      do i = 0, nproc - 1
        call chk(all(g(i * n + 1:i * n + n) == i), 'Gather in place')
      end do
    end if
    do i = 1, nproc * n
      g(i) = 1000 * rank + i
    end do
    call MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, 1, MPI_INTEGER, MPI_COMM_WORLD)
    do i = 1, nproc
      call chk(g(i) == 1000 * (i - 1) + rank + 1, 'Alltoall in place')
    end do
    call MPI_Scatter(all_ranks, 1, MPI_INTEGER, s(1), 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
    call chk(s(1) == rank, 'Scatter')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call chk(ierr == MPI_SUCCESS, 'Barrier ierror')
  end subroutine collectives

  ! a row of a column-major 2-D array (a vector with stride = rows) and a
  ! subarray, sent to oneself and to the next rank
  subroutine derived()
    integer, parameter :: m = 4, k = 5
    real :: x(m, k), y(m, k), row(k)
    integer :: i, j, next, prev
    type(MPI_Datatype) :: rowtype, sub
    integer(kind=MPI_ADDRESS_KIND) :: lb, extent
    integer :: sz
    next = mod(rank + 1, nproc)
    prev = mod(rank - 1 + nproc, nproc)
    do j = 1, k
      do i = 1, m
        x(i, j) = real(rank * 1000 + i * 10 + j)
      end do
    end do
    call MPI_Type_vector(k, 1, m, MPI_REAL, rowtype)
    call MPI_Type_commit(rowtype)
    call MPI_Type_size(rowtype, sz)
    call chk(sz == k * 4, 'Type_size of a row')
    call MPI_Type_get_extent(rowtype, lb, extent)
    call chk(lb == 0 .and. extent == int(((k - 1) * m + 1) * 4, MPI_ADDRESS_KIND), 'row extent')
    ! row 3 of x to the next rank, as k contiguous reals
    call MPI_Sendrecv(x(3, 1), 1, rowtype, next, 1, row, k, MPI_REAL, prev, 1, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call chk(all(row == [(real(prev * 1000 + 30 + j), j = 1, k)]), 'a row received')
    ! the interior 2x3 block of x into the same place of y
    call MPI_Type_create_subarray(2, [m, k], [2, 3], [1, 1], MPI_ORDER_FORTRAN, MPI_REAL, sub)
    call MPI_Type_commit(sub)
    y = 0
    call MPI_Sendrecv(x, 1, sub, next, 2, y, 1, sub, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    do j = 1, k
      do i = 1, m
        if (i >= 2 .and. i <= 3 .and. j >= 2 .and. j <= 4) then
          call chk(y(i, j) == real(prev * 1000 + i * 10 + j), 'subarray inside')
        else
          call chk(y(i, j) == 0, 'subarray outside')
        end if
      end do
    end do
    call MPI_Type_free(rowtype)
    call MPI_Type_free(sub)
    call chk(rowtype == MPI_DATATYPE_NULL .and. sub == MPI_DATATYPE_NULL, 'Type_free')
  end subroutine derived

  subroutine comms()
    type(MPI_Comm) :: half, dup
    type(MPI_Group) :: g
    integer :: hrank, hsize, res, gsize, total
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, half)
    call MPI_Comm_rank(half, hrank)
    call MPI_Comm_size(half, hsize)
    call chk(hsize == (nproc + 1 - mod(rank, 2)) / 2, 'split size')
    call chk(hrank == hsize - 1 - rank / 2, 'split rank by key')
    call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, half)
    call chk(mod(total - hsize * mod(rank, 2), 2) == 0, 'a reduction on the split')
    call MPI_Comm_dup(MPI_COMM_WORLD, dup)
    call MPI_Comm_compare(dup, MPI_COMM_WORLD, res)
    call chk(res == MPI_CONGRUENT, 'dup congruent')
    call chk(dup /= MPI_COMM_WORLD, 'dup is another handle')
    call MPI_Comm_group(dup, g)
    call MPI_Group_size(g, gsize)
    call chk(gsize == nproc, 'group size')
    call MPI_Group_free(g)
    call chk(g == MPI_GROUP_NULL, 'Group_free')
    call MPI_Comm_free(dup)
    call MPI_Comm_free(half)
    call chk(dup == MPI_COMM_NULL .and. half == MPI_COMM_NULL, 'Comm_free')
  end subroutine comms

  subroutine topologies()
    type(MPI_Comm) :: cart, row, ring
    integer :: dims(2), coords(2), src, dst, r, n, k, indeg, outdeg, srcs(1), dsts(1)
    logical :: periods(2), remain(2), weighted
    dims = 0
    call MPI_Dims_create(nproc, 2, dims)
    call chk(dims(1) * dims(2) == nproc .and. dims(1) >= dims(2), 'Dims_create')
    periods = (/ .true., .false. /)
    call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart)
    call MPI_Cart_coords(cart, rank, 2, coords)
    call chk(coords(1) == rank / dims(2) .and. coords(2) == mod(rank, dims(2)), &
             'Cart_coords, row-major')
    call MPI_Cart_rank(cart, coords, r)
    call chk(r == rank, 'Cart_rank')
    ! periodic in the first dimension, not in the second
    call MPI_Cart_shift(cart, 0, 1, src, dst)
    call chk(src == mod(coords(1) - 1 + dims(1), dims(1)) * dims(2) + coords(2) .and. &
             dst == mod(coords(1) + 1, dims(1)) * dims(2) + coords(2), 'Cart_shift periodic')
    call MPI_Cart_shift(cart, 1, 1, src, dst)
    call chk(dst == merge(MPI_PROC_NULL, rank + 1, coords(2) == dims(2) - 1) .and. &
             src == merge(MPI_PROC_NULL, rank - 1, coords(2) == 0), 'Cart_shift at the edge')
    remain = (/ .false., .true. /)
    call MPI_Cart_sub(cart, remain, row)
    call MPI_Comm_size(row, n)
    call MPI_Allreduce(coords(2), k, 1, MPI_INTEGER, MPI_SUM, row)
    call chk(n == dims(2) .and. k == dims(2) * (dims(2) - 1) / 2, 'Cart_sub row')
    call MPI_Comm_free(row)
    call MPI_Comm_free(cart)
    srcs(1) = mod(rank - 1 + nproc, nproc)
    dsts(1) = mod(rank + 1, nproc)
    call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, srcs, MPI_UNWEIGHTED, 1, dsts, &
                                        MPI_UNWEIGHTED, MPI_INFO_NULL, .false., ring)
    call MPI_Dist_graph_neighbors_count(ring, indeg, outdeg, weighted)
    call chk(indeg == 1 .and. outdeg == 1 .and. .not. weighted, 'Dist_graph counts')
    call MPI_Neighbor_allgather(rank, 1, MPI_INTEGER, k, 1, MPI_INTEGER, ring)
    call chk(k == srcs(1), 'Neighbor_allgather on the ring')
    call MPI_Comm_free(ring)
  end subroutine topologies

  subroutine onesided()
    integer, parameter :: n = 4
    ! the window and the result of a get change under MPI calls that do not
    ! take them: MPI_F_sync_reg after each fence (MPI-3.1 17.1.17)
    integer, asynchronous :: buf(n), got(n)
    integer :: next, prev, two(2), one

    type(MPI_Win) :: win
    integer(kind=MPI_ADDRESS_KIND) :: size, disp
    next = mod(rank + 1, nproc)
    prev = mod(rank - 1 + nproc, nproc)
    buf = 0
    size = n * 4
    call MPI_Win_create(buf, size, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
    call MPI_Win_fence(0, win)
    disp = 1
    two = rank   ! origin buffers stay valid until the fence: not expressions
    call MPI_Put(two, 2, MPI_INTEGER, next, disp, 2, MPI_INTEGER, win)
    call MPI_Win_fence(0, win)
    call MPI_F_sync_reg(buf)
    ! (buf(1) may already hold the accumulates of the next epoch)
    call chk(buf(2) == prev .and. buf(3) == prev .and. buf(4) == 0, 'Put')
    disp = 0
    one = rank + 1
    call MPI_Accumulate(one, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, MPI_SUM, win)
    call MPI_Win_fence(0, win)
    call MPI_F_sync_reg(buf)
    if (rank == 0) call chk(buf(1) == nproc * (nproc + 1) / 2, 'Accumulate')
    got = -1
    call MPI_Get(got, n, MPI_INTEGER, prev, 0_MPI_ADDRESS_KIND, n, MPI_INTEGER, win)
    call MPI_Win_fence(0, win)
    call MPI_F_sync_reg(got)
    call chk(got(2) == mod(prev - 1 + nproc, nproc) .and. got(4) == 0, 'Get')
    call MPI_Win_free(win)
    call chk(win == MPI_WIN_NULL, 'Win_free')
  end subroutine onesided

  subroutine strings()
    character(len=MPI_MAX_PROCESSOR_NAME) :: host
    character(len=MPI_MAX_ERROR_STRING) :: msg
    character(len=MPI_MAX_OBJECT_NAME) :: name
    character(len=4) :: short
    integer :: len
    type(MPI_Comm) :: dup
    call MPI_Get_processor_name(host, len)
    call chk(len > 0 .and. len <= MPI_MAX_PROCESSOR_NAME .and. host(1:len) /= '', 'host name')
    call chk(len == MPI_MAX_PROCESSOR_NAME .or. host(len + 1:) == '', 'host name blank-padded')
    call MPI_Error_string(MPI_ERR_TRUNCATE, msg, len, ierr)
    call chk(ierr == MPI_SUCCESS .and. len > 0 .and. len_trim(msg) == len, 'Error_string')
    call MPI_Comm_dup(MPI_COMM_WORLD, dup)
    call MPI_Comm_set_name(dup, 'f08 dup   ')
    call MPI_Comm_get_name(dup, name, len)
    call chk(name == 'f08 dup' .and. len == 7, 'Comm_get_name')
    call MPI_Comm_get_name(dup, short, len)
    call chk(short == 'f08 ', 'a name cut to its variable')
    call MPI_Comm_free(dup)
  end subroutine strings

  ! a user op written for mpi_f08 (buffers as TYPE(C_PTR), VALUE), and
  ! attributes copied by the predefined MPI_COMM_DUP_FN and not by
  ! MPI_COMM_NULL_COPY_FN
  subroutine callbacks()
    integer :: v(3), w(3), kv_dup, kv_null
    type(MPI_Op) :: op
    type(MPI_Comm) :: a, b
    integer(kind=MPI_ADDRESS_KIND) :: val
    logical :: flag
    external :: absmax
    call MPI_Op_create(absmax, .true., op)
    v = [rank, -rank - 1, 0]
    call MPI_Allreduce(v, w, 3, MPI_INTEGER, op, MPI_COMM_WORLD)
    if (nproc == 1) then
      call chk(all(w == v), 'a user op on one rank')
    else
      call chk(all(w == [nproc - 1, nproc, 0]), 'a user op')
    end if
    call MPI_Op_free(op)
    call chk(op == MPI_OP_NULL, 'Op_free')
    call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kv_dup, &
                                0_MPI_ADDRESS_KIND)
    call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, kv_null, &
                                0_MPI_ADDRESS_KIND)
    call MPI_Comm_dup(MPI_COMM_WORLD, a)
    call MPI_Comm_set_attr(a, kv_dup, 4200000000_MPI_ADDRESS_KIND + rank)
    call MPI_Comm_set_attr(a, kv_null, 7_MPI_ADDRESS_KIND)
    call MPI_Comm_dup(a, b)
    call MPI_Comm_get_attr(b, kv_dup, val, flag)
    call chk(flag .and. val == 4200000000_MPI_ADDRESS_KIND + rank, 'attribute by COMM_DUP_FN')
    call MPI_Comm_get_attr(b, kv_null, val, flag)
    call chk(.not. flag, 'attribute by COMM_NULL_COPY_FN')
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag)
    call chk(flag .and. val >= 32767, 'MPI_TAG_UB')
    call MPI_Comm_free(b)
    call MPI_Comm_free(a)
    call MPI_Comm_free_keyval(kv_dup)
    call MPI_Comm_free_keyval(kv_null)
  end subroutine callbacks

  subroutine errors()
    integer :: cls, r, x
    character(len=MPI_MAX_ERROR_STRING) :: estr
    type(MPI_Errhandler) :: eh
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
    call MPI_Comm_get_errhandler(MPI_COMM_WORLD, eh)
    call chk(eh == MPI_ERRORS_RETURN, 'Comm_get_errhandler')
    call MPI_Errhandler_free(eh)
    x = 1
    call MPI_Send(x, 1, MPI_INTEGER, nproc + 3, 0, MPI_COMM_WORLD, ierr)
    call MPI_Error_class(ierr, cls)
    call chk(cls == MPI_ERR_RANK, 'a bad rank: MPI_ERR_RANK')
    call MPI_Error_string(ierr, estr, r)
    call chk(index(estr(1:r), 'MPI_SEND (Fortran)') > 0, 'the error names the Fortran call')
    call MPI_Recv(x, -1, MPI_INTEGER, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Error_class(ierr, cls)
    call chk(cls == MPI_ERR_COUNT, 'a negative count: MPI_ERR_COUNT')
    call MPI_Send(x, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD, ierr)
    call MPI_Error_class(ierr, cls)
    call chk(cls == MPI_ERR_TYPE, 'a null datatype: MPI_ERR_TYPE')
    call MPI_Comm_rank(MPI_COMM_NULL, r, ierr)
    call MPI_Error_class(ierr, cls)
    call chk(cls == MPI_ERR_COMM, 'a null communicator: MPI_ERR_COMM')
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
    ! the profiling name of the same call
    call PMPI_Comm_rank(MPI_COMM_WORLD, r, ierr)
    call chk(ierr == MPI_SUCCESS .and. r == rank, 'PMPI_Comm_rank')
    call chk(MPI_Wtime() > 0d0 .and. MPI_Wtick() > 0d0, 'Wtime, Wtick')
  end subroutine errors
end program f08

include 'f08_uop.inc'
