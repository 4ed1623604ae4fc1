! np: 1 2 3 4
!
! f08_procs.f90 - `use mpi_f08` with the calls that take procedures and
! addresses, each procedure declared with MPI-3.1's mpi_f08 abstract
! interface (PROCEDURE(MPI_User_function), ...) and written to it, which
! gfortran checks against the definitions below: a user op whose
! buffers come as TYPE(C_PTR), VALUE, used by MPI_Allreduce against a
! reference; a communicator keyval whose copy and delete procedures take
! TYPE(MPI_Comm) (run on dup and free), and MPI_COMM_DUP_FN; an error handler called with the
! communicator and the error's code; a generalized request's query filling
! a TYPE(MPI_Status); MPI_Alloc_mem and MPI_Win_allocate returning
! TYPE(C_PTR), MPI_Win_allocate_shared and MPI_Win_shared_query's TYPE(C_PTR)
! for a neighbour's segment, MPI_Buffer_detach's TYPE(C_PTR); MPI_Info_get, MPI_Status_set_elements_x,
! MPI_Group_range_incl, MPI_Aint_add and MPI_Pcontrol.
program f08_procs
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer, c_associated, c_null_ptr
  implicit none
  integer :: rank, nproc
  ! what the procedures (external, after the program) saw
  integer :: ncopy, ndel, nerr, lastcode
  type(MPI_Comm) :: lastcomm
  common /f08_cb/ ncopy, ndel, nerr, lastcode, lastcomm
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  ncopy = 0
  ndel = 0
  nerr = 0
  call ops()
  call keyvals()
  call typekeyvals()
  call errhandlers()
  call greqs()
  call memory()
  call misc()
  call MPI_Finalize()
contains

  subroutine chk(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    external :: test_fail
    if (.not. ok) call test_fail('f08_procs', what, rank)
  end subroutine chk

  subroutine ops()
    type(MPI_Op) :: op
    integer :: v(3), r(3), i
    logical :: commute
    procedure(MPI_User_function) :: absmax
    call MPI_Op_create(absmax, .true., op)
    call MPI_Op_commutative(op, commute)
    call chk(commute, 'MPI_Op_commutative')
    v = (/ (-(rank * 10 + i), i = 1, 3) /)
    call MPI_Allreduce(v, r, 3, MPI_INTEGER, op, MPI_COMM_WORLD)
    ! (one rank's result is its own: the op never runs)
    do i = 1, 3
      call chk(r(i) == merge(-i, 10 * (nproc - 1) + i, nproc == 1), 'user op')
    end do
    call MPI_Op_free(op)
  end subroutine ops

  subroutine keyvals()
    integer :: kv
    integer(kind=MPI_ADDRESS_KIND) :: extra, val
    type(MPI_Comm) :: dup
    logical :: flag
    procedure(MPI_Comm_copy_attr_function) :: copyfn
    procedure(MPI_Comm_delete_attr_function) :: delfn
    extra = 5
    call MPI_Comm_create_keyval(copyfn, delfn, kv, extra)
    val = 40
    call MPI_Comm_set_attr(MPI_COMM_WORLD, kv, val)
    call MPI_Comm_dup(MPI_COMM_WORLD, dup)
    call MPI_Comm_get_attr(dup, kv, val, flag)
    call chk(ncopy == 1 .and. flag .and. val == 41, 'attribute copied on dup')
    call MPI_Comm_free(dup)
    call chk(ndel == 1, 'delete procedure on free')
    call MPI_Comm_delete_attr(MPI_COMM_WORLD, kv)
    call chk(ndel == 2, 'delete procedure on delete_attr')
    call MPI_Comm_free_keyval(kv)
    ! the predefined procedures
    call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kv, extra)
    val = 40
    call MPI_Comm_set_attr(MPI_COMM_WORLD, kv, val)
    call MPI_Comm_dup(MPI_COMM_WORLD, dup)
    val = 0
    call MPI_Comm_get_attr(dup, kv, val, flag)
    call chk(flag .and. val == 40, 'MPI_COMM_DUP_FN')
    call MPI_Comm_free(dup)
    call MPI_Comm_delete_attr(MPI_COMM_WORLD, kv)
    call MPI_Comm_free_keyval(kv)
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag)
    call chk(flag .and. val >= 32767, 'MPI_TAG_UB')
  end subroutine keyvals

  ! a datatype keyval with a user copy procedure and the predefined delete
  ! one, and a window's with the predefined ones
  subroutine typekeyvals()
    integer :: kv
    integer(kind=MPI_ADDRESS_KIND) :: extra, val
    type(MPI_Datatype) :: t
    type(MPI_Win) :: win
    integer :: buf(1)
    logical :: flag
    procedure(MPI_Type_copy_attr_function) :: tcopyfn
    extra = 3
    call MPI_Type_create_keyval(tcopyfn, MPI_TYPE_NULL_DELETE_FN, kv, extra)
    val = 100
    call MPI_Type_set_attr(MPI_INTEGER, kv, val)
    call MPI_Type_dup(MPI_INTEGER, t)
    val = 0
    call MPI_Type_get_attr(t, kv, val, flag)
    call chk(flag .and. val == 103, 'type copy procedure on MPI_Type_dup')
    call MPI_Type_free(t)
    call MPI_Type_delete_attr(MPI_INTEGER, kv)
    call MPI_Type_free_keyval(kv)
    call MPI_Win_create(buf, 4_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_SELF, win)
    call MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, kv, extra)
    val = 9
    call MPI_Win_set_attr(win, kv, val)
    val = 0
    call MPI_Win_get_attr(win, kv, val, flag)
    call chk(flag .and. val == 9, 'window keyval with MPI_WIN_DUP_FN')
    call MPI_Win_free(win)
    call MPI_Win_free_keyval(kv)
  end subroutine typekeyvals

  subroutine errhandlers()
    type(MPI_Errhandler) :: eh
    type(MPI_Comm) :: dup
    integer :: ierr, cls
    procedure(MPI_Comm_errhandler_function) :: myeh
    call MPI_Comm_create_errhandler(myeh, eh)
    call MPI_Comm_dup(MPI_COMM_WORLD, dup)
    call MPI_Comm_set_errhandler(dup, eh)
    call MPI_Send(rank, 1, MPI_INTEGER, nproc, 0, dup, ierr)
    call chk(nerr == 1 .and. lastcomm == dup .and. lastcode == ierr, 'error handler')
    call MPI_Error_class(lastcode, cls)
    call chk(cls == MPI_ERR_RANK, 'error handler: the class')
    call MPI_Comm_free(dup)
    call MPI_Errhandler_free(eh)
  end subroutine errhandlers

  subroutine greqs()
    type(MPI_Request) :: req
    type(MPI_Status) :: st
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: n
    procedure(MPI_Grequest_query_function) :: gquery
    procedure(MPI_Grequest_free_function) :: gfree
    procedure(MPI_Grequest_cancel_function) :: gcancel
    extra = 7
    call MPI_Grequest_start(gquery, gfree, gcancel, extra, req)
    call MPI_Grequest_complete(req)
    call MPI_Wait(req, st)
    call chk(req == MPI_REQUEST_NULL .and. st%MPI_SOURCE == 7, 'generalized request')
    call MPI_Get_count(st, MPI_INTEGER, n)
    call chk(n == 2, 'generalized request count')
  end subroutine greqs

  subroutine memory()
    type(c_ptr) :: p
    integer, pointer :: a(:)
    integer(kind=MPI_ADDRESS_KIND) :: sz, qsize
    type(MPI_Win) :: win
    type(MPI_Comm) :: node
    integer :: next, prev, nrank, nsize, du, i, j
    type(c_ptr) :: pa
    character, pointer :: bbuf(:), b(:)
    next = mod(rank + 1, nproc)
    prev = mod(rank + nproc - 1, nproc)
    sz = 16
    call MPI_Alloc_mem(sz, MPI_INFO_NULL, p)
    call chk(c_associated(p), 'MPI_Alloc_mem')
    call c_f_pointer(p, a, (/ 4 /))
    a = rank
    call chk(all(a == rank), 'MPI_Alloc_mem memory')
    call MPI_Free_mem(a)
    call MPI_Win_allocate(sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, p, win)
    call c_f_pointer(p, a, (/ 4 /))
    a = -1
    call MPI_Win_fence(0, win)
    call MPI_Put(rank, 1, MPI_INTEGER, next, 1_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win)
    call MPI_Win_fence(0, win)
    call chk(a(2) == prev .and. a(1) == -1, 'MPI_Win_allocate memory')
    call MPI_Win_free(win)
    ! each rank's shared segment written by itself, read by the next on its node
    call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, node)
    call MPI_Comm_rank(node, nrank)
    call MPI_Comm_size(node, nsize)
    call MPI_Win_allocate_shared(sz, 4, MPI_INFO_NULL, node, p, win)
    call c_f_pointer(p, a, (/ 4 /))
    call MPI_Win_lock_all(0, win)
    a = (/ (10 * nrank + i, i = 1, 4) /)
    call MPI_Win_sync(win)
    call MPI_Barrier(node)
    call MPI_Win_sync(win)
    j = mod(nrank + 1, nsize)
    call MPI_Win_shared_query(win, j, qsize, du, p)
    call chk(qsize == sz .and. du == 4, 'MPI_Win_shared_query size, disp_unit')
    call c_f_pointer(p, a, (/ 4 /))
    call chk(all(a == (/ (10 * j + i, i = 1, 4) /)), &
             'a neighbour''s segment through MPI_Win_shared_query')
    call MPI_Win_unlock_all(win)
    call MPI_Win_free(win)
    call MPI_Comm_free(node)
    ! MPI_Buffer_detach returns the buffer's address (MPI-3.1 3.6.1), here
    ! memory from MPI_Alloc_mem
    sz = 64 + MPI_BSEND_OVERHEAD
    call MPI_Alloc_mem(sz, MPI_INFO_NULL, pa)
    call c_f_pointer(pa, bbuf, (/ sz /))
    call MPI_Buffer_attach(bbuf, int(sz))
    call MPI_Bsend(rank, 1, MPI_INTEGER, rank, 3, MPI_COMM_WORLD)
    call MPI_Recv(j, 1, MPI_INTEGER, rank, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call chk(j == rank, 'MPI_Bsend to self')
    p = c_null_ptr
    call MPI_Buffer_detach(p, j)
    call chk(j == sz .and. c_associated(p, pa), 'MPI_Buffer_detach size and address')
    call c_f_pointer(p, b, (/ j /))
    b(1:3) = (/ 'a', 'b', 'c' /)
    call chk(all(bbuf(1:3) == (/ 'a', 'b', 'c' /)), 'the detached buffer through C_F_POINTER')
    call MPI_Free_mem(bbuf)
  end subroutine memory

  subroutine misc()
    type(MPI_Info) :: info
    type(MPI_Status) :: st
    type(MPI_Group) :: g, g2
    character(len=MPI_MAX_INFO_VAL) :: val
    logical :: flag
    integer(kind=MPI_COUNT_KIND) :: c
    integer(kind=MPI_ADDRESS_KIND) :: a
    integer :: ranges(3, 1), n
    call MPI_Info_create(info)
    call MPI_Info_set(info, 'key', 'a value')
    call MPI_Info_get(info, 'key', MPI_MAX_INFO_VAL, val, flag)
    call chk(flag .and. val == 'a value', 'MPI_Info_get')
    call MPI_Info_free(info)
    c = 5000000000_MPI_COUNT_KIND
    call MPI_Status_set_elements_x(st, MPI_BYTE, c)
    c = 0
    call MPI_Get_elements_x(st, MPI_BYTE, c)
    call chk(c == 5000000000_MPI_COUNT_KIND, 'MPI_Status_set_elements_x')
    call MPI_Comm_group(MPI_COMM_WORLD, g)
    ranges(:, 1) = (/ nproc - 1, 0, -1 /)
    call MPI_Group_range_incl(g, 1, ranges, g2)
    call MPI_Group_rank(g2, n)
    call chk(n == nproc - 1 - rank, 'MPI_Group_range_incl')
    call MPI_Group_free(g2)
    call MPI_Group_free(g)
    a = 1000
    call chk(MPI_Aint_add(a, 24_MPI_ADDRESS_KIND) == 1024, 'MPI_Aint_add')
    call chk(MPI_Aint_diff(a, 24_MPI_ADDRESS_KIND) == 976, 'MPI_Aint_diff')
    call MPI_Pcontrol(0)
  end subroutine misc
end program f08_procs

include 'f08_uop.inc'

subroutine copyfn(oldcomm, comm_keyval, extra_state, attribute_val_in, attribute_val_out, &
                  flag, ierror)
  use mpi_f08
  implicit none
  type(MPI_Comm) :: oldcomm
  integer :: comm_keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
  logical :: flag
  integer :: ncopy, ndel, nerr, lastcode
  type(MPI_Comm) :: lastcomm
  common /f08_cb/ ncopy, ndel, nerr, lastcode, lastcomm
  ncopy = ncopy + 1
  attribute_val_out = attribute_val_in + 1
  flag = oldcomm == MPI_COMM_WORLD .and. extra_state == 5
  ierror = MPI_SUCCESS
end subroutine copyfn

subroutine delfn(comm, comm_keyval, attribute_val, extra_state, ierror)
  use mpi_f08
  implicit none
  type(MPI_Comm) :: comm
  integer :: comm_keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
  integer :: ncopy, ndel, nerr, lastcode
  type(MPI_Comm) :: lastcomm
  common /f08_cb/ ncopy, ndel, nerr, lastcode, lastcomm
  if (extra_state == 5) ndel = ndel + 1
  ierror = MPI_SUCCESS
end subroutine delfn

subroutine tcopyfn(oldtype, type_keyval, extra_state, attribute_val_in, attribute_val_out, &
                   flag, ierror)
  use mpi_f08
  implicit none
  type(MPI_Datatype) :: oldtype
  integer :: type_keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
  logical :: flag
  attribute_val_out = attribute_val_in + extra_state
  flag = oldtype == MPI_INTEGER
  ierror = MPI_SUCCESS
end subroutine tcopyfn

subroutine myeh(comm, error_code)
  use mpi_f08
  implicit none
  type(MPI_Comm) :: comm
  integer :: error_code
  integer :: ncopy, ndel, nerr, lastcode
  type(MPI_Comm) :: lastcomm
  common /f08_cb/ ncopy, ndel, nerr, lastcode, lastcomm
  nerr = nerr + 1
  lastcomm = comm
  lastcode = error_code
end subroutine myeh

subroutine gquery(extra_state, status, ierror)
  use mpi_f08
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  type(MPI_Status) :: status
  integer :: ierror
  status%MPI_SOURCE = int(extra_state)
  call MPI_Status_set_elements(status, MPI_INTEGER, 2, ierror)
end subroutine gquery

subroutine gfree(extra_state, ierror)
  use mpi_f08
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  integer :: ierror
  ierror = MPI_SUCCESS
  if (extra_state /= 7) ierror = MPI_ERR_OTHER
end subroutine gfree

subroutine gcancel(extra_state, complete, ierror)
  use mpi_f08
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  logical :: complete
  integer :: ierror
  ierror = MPI_SUCCESS
  if (extra_state /= 7 .or. complete) ierror = MPI_ERR_OTHER
end subroutine gcancel
