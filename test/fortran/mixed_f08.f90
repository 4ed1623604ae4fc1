! np: 1 2 4
!
! mixed_f08.f90 - one program, a `use mpi_f08` part (this file) and an
! `include 'mpif.h'` part (mixed_f77.f90): a communicator and a datatype
! made here are used there through their MPI_VAL; a communicator and a
! request made there are used here; the predefined handles are the same
! integers in both; a receive there with the mpif.h MPI_STATUS_IGNORE.
program mixed_f08
  use mpi_f08
  implicit none
  interface
    subroutine f77_part(world, comm, dtype, rank, newcomm, req, errs)
      integer :: world, comm, dtype, rank, newcomm, req, errs
    end subroutine f77_part
  end interface
  type(MPI_Comm) :: dup, newcomm
  type(MPI_Datatype) :: pair
  type(MPI_Request) :: req
  type(MPI_Status) :: st
  integer :: rank, nproc, errs, n, got(2)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Type_contiguous(2, MPI_INTEGER, pair)
  call MPI_Type_commit(pair)
  errs = 0
  call f77_part(MPI_COMM_WORLD%MPI_VAL, dup%MPI_VAL, pair%MPI_VAL, rank, newcomm%MPI_VAL, &
                req%MPI_VAL, errs)
  if (errs /= 0) call fail('the mpif.h part failed a check', errs)
  ! the communicator made there: rank order reversed by its key
  call MPI_Comm_size(newcomm, n)
  if (n /= nproc) call fail('size of the mpif.h part''s communicator', n)
  call MPI_Comm_rank(newcomm, n)
  if (n /= nproc - 1 - rank) call fail('rank in the mpif.h part''s communicator', n)
  ! its Isend to this rank, received and completed here
  got = -1
  call MPI_Recv(got, 1, pair, n, 77, newcomm, st)
  if (st%MPI_SOURCE /= n .or. st%MPI_TAG /= 77) call fail('status of its message', st%MPI_TAG)
  if (got(1) /= rank .or. got(2) /= -rank) call fail('its message', got(1))
  call MPI_Wait(req, st)
  if (req /= MPI_REQUEST_NULL) call fail('its request not freed', req%MPI_VAL)
  call MPI_Comm_free(newcomm)
  call MPI_Comm_free(dup)
  call MPI_Type_free(pair)
  call MPI_Finalize()
contains
  subroutine fail(what, v)
    character(len=*), intent(in) :: what
    integer, intent(in) :: v
    write (0, '(a, a, a, i0, a, i0)') 'FAIL mixed_f08: ', what, ' (', v, ') on rank ', rank
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine fail
end program mixed_f08
