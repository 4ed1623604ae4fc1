! np: 1 2 3 5
!
! f08_tool.f90 - a profiling tool written in Fortran against mpi_f08, as
! MPI-3.1 17.1.5 shows one: it defines the specific procedures
! MPI_Send_f08, MPI_Recv_f08 and MPI_Allreduce_f08 of the generics
! MPI_Send, MPI_Recv and MPI_Allreduce (renaming the module's own on USE),
! counts the calls and passes each on through PMPI_Send (the generic) or
! PMPI_Recv_f08 (the specific). The program's calls must reach the tool
! and still do their work, with ierror present or absent and an error
! returned through it; its PMPI_ calls must not reach the tool. The tool
! counts in a common block (a module would leave a .mod in the tree).
subroutine MPI_Send_f08(buf, count, datatype, dest, tag, comm, ierror)
  use mpi_f08, tool_noname => MPI_Send_f08
  implicit none
  integer :: nsend, nrecv, nallreduce
  common /tool_counts/ nsend, nrecv, nallreduce
!GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
  type(*), dimension(*) :: buf
  integer, intent(in) :: count, dest, tag
  type(MPI_Datatype), intent(in) :: datatype
  type(MPI_Comm), intent(in) :: comm
  integer, optional, intent(out) :: ierror
  nsend = nsend + 1
  call PMPI_Send(buf, count, datatype, dest, tag, comm, ierror)
end subroutine MPI_Send_f08

subroutine MPI_Recv_f08(buf, count, datatype, source, tag, comm, status, ierror)
  use mpi_f08, tool_noname => MPI_Recv_f08
  implicit none
  integer :: nsend, nrecv, nallreduce
  common /tool_counts/ nsend, nrecv, nallreduce
!GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
  type(*), dimension(*) :: buf
  integer, intent(in) :: count, source, tag
  type(MPI_Datatype), intent(in) :: datatype
  type(MPI_Comm), intent(in) :: comm
  type(MPI_Status) :: status
  integer, optional, intent(out) :: ierror
  nrecv = nrecv + 1
  call PMPI_Recv_f08(buf, count, datatype, source, tag, comm, status, ierror)
end subroutine MPI_Recv_f08

subroutine MPI_Allreduce_f08(sendbuf, recvbuf, count, datatype, op, comm, ierror)
  use mpi_f08, tool_noname => MPI_Allreduce_f08
  implicit none
  integer :: nsend, nrecv, nallreduce
  common /tool_counts/ nsend, nrecv, nallreduce
!GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
  type(*), dimension(*) :: sendbuf
!GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
  type(*), dimension(*) :: recvbuf
  integer, intent(in) :: count
  type(MPI_Datatype), intent(in) :: datatype
  type(MPI_Op), intent(in) :: op
  type(MPI_Comm), intent(in) :: comm
  integer, optional, intent(out) :: ierror
  nallreduce = nallreduce + 1
  call PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm, ierror)
end subroutine MPI_Allreduce_f08

program f08_tool
  use mpi_f08
  implicit none
  integer :: nsend, nrecv, nallreduce
  common /tool_counts/ nsend, nrecv, nallreduce
  integer :: rank, nproc, next, prev, v(3), r(3), ierr, cls, n
  type(MPI_Status) :: st
  external :: test_fail
  nsend = 0
  nrecv = 0
  nallreduce = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  next = mod(rank + 1, nproc)
  prev = mod(rank + nproc - 1, nproc)
  n = 0
  if (nproc > 1) then
    ! around the ring, evens first; ierror absent, then present
    v = (/ rank, 2 * rank, 3 * rank /)
    if (mod(rank, 2) == 0) call MPI_Send(v, 3, MPI_INTEGER, next, 7, MPI_COMM_WORLD)
    call MPI_Recv(r, 3, MPI_INTEGER, prev, 7, MPI_COMM_WORLD, st, ierr)
    if (mod(rank, 2) == 1) call MPI_Send(v, 3, MPI_INTEGER, next, 7, MPI_COMM_WORLD, ierr)
    if (.not. (ierr == MPI_SUCCESS .and. all(r == (/ prev, 2 * prev, 3 * prev /)))) &
        call test_fail('f08_tool', 'ring data', rank)
    if (.not. (st%MPI_SOURCE == prev .and. st%MPI_TAG == 7)) &
        call test_fail('f08_tool', 'ring status', rank)
    n = 1
  end if
  if (.not. (nsend == n .and. nrecv == n)) &
      call test_fail('f08_tool', 'MPI_Send, MPI_Recv reach the tool', rank)
  call MPI_Allreduce(rank, v(1), 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (.not. (nallreduce == 1 .and. v(1) == nproc * (nproc - 1) / 2)) &
      call test_fail('f08_tool', 'MPI_Allreduce', rank)
  ! the PMPI_ names go past the tool
  if (nproc > 1) then
    if (mod(rank, 2) == 0) call PMPI_Send(v, 3, MPI_INTEGER, next, 8, MPI_COMM_WORLD)
    call PMPI_Recv(r, 3, MPI_INTEGER, prev, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    if (mod(rank, 2) == 1) call PMPI_Send(v, 3, MPI_INTEGER, next, 8, MPI_COMM_WORLD)
  end if
  call PMPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  if (.not. (nsend == n .and. nrecv == n .and. nallreduce == 1)) &
      call test_fail('f08_tool', 'PMPI_ calls pass the tool', rank)
  ! an error comes back through the tool's ierror
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Send(v, 1, MPI_INTEGER, nproc + 3, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls)
  if (.not. (cls == MPI_ERR_RANK .and. nsend == n + 1)) &
      call test_fail('f08_tool', 'an invalid rank through the tool', rank)
  call MPI_Finalize()
end program f08_tool
