! fail.f90 - how the tests of the modules fail: the test, the check and the
! rank on stderr, then MPI_ABORT.
subroutine test_fail(prog, what, rank)
  use mpi
  implicit none
  character(len=*), intent(in) :: prog, what
  integer, intent(in) :: rank
  integer :: e
  write (0, '(a, a, a, a, a, i0)') 'FAIL ', prog, ': ', what, ' on rank ', rank
  call MPI_ABORT(MPI_COMM_WORLD, 1, e)
end subroutine test_fail
