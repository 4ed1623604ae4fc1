! np: 1 2
!
! spawn.f90 - MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE from `use mpi`:
! children of this program, which find their parent with
! MPI_COMM_GET_PARENT and report the arguments they got (CHARACTER arrays
! ending in a blank string, MPI_ARGV_NULL, MPI_ARGVS_NULL) and their
! MPI_APPNUM to the parents' root; error codes into an array and ignored.
program spawn
  use mpi
  implicit none
  integer :: ierr, rank, parent
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_GET_PARENT(parent, ierr)
  if (parent /= MPI_COMM_NULL) then
    call child(parent)
  else
    call parents()
  end if
  call MPI_FINALIZE(ierr)
contains

  subroutine chk(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) call test_fail('spawn', what, rank)
  end subroutine chk

  ! what a child got: 0 no arguments, 1 "one" "a b", 2 "m1", 3 "m2" "x";
  ! times 10, plus MPI_APPNUM
  subroutine child(parent)
    integer, intent(inout) :: parent
    character(len=64) :: a1, a2
    integer :: code, n, flag
    integer(kind=MPI_ADDRESS_KIND) :: appnum
    logical :: found
    n = command_argument_count()
    a1 = ''
    a2 = ''
    if (n >= 1) call get_command_argument(1, a1)
    if (n >= 2) call get_command_argument(2, a2)
    code = -1
    if (n == 0) code = 0
    if (n == 2 .and. a1 == 'one' .and. a2 == 'a b') code = 1
    if (n == 1 .and. a1 == 'm1') code = 2
    if (n == 2 .and. a1 == 'm2' .and. a2 == 'x') code = 3
    call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_APPNUM, appnum, found, ierr)
    flag = -1
    if (found) flag = int(appnum)
    code = code * 10 + flag
    call MPI_SEND(code, 1, MPI_INTEGER, 0, 1, parent, ierr)
    call MPI_COMM_DISCONNECT(parent, ierr)
  end subroutine child

  ! each child's code, received at the parents' root
  subroutine expect(ic, want, what)
    integer, intent(inout) :: ic
    integer, intent(in) :: want(:)
    character(len=*), intent(in) :: what
    integer :: i, code, n
    call MPI_COMM_REMOTE_SIZE(ic, n, ierr)
    call chk(n == size(want), what // ': number of children')
    if (rank == 0) then
      do i = 1, n
        call MPI_RECV(code, 1, MPI_INTEGER, i - 1, 1, ic, MPI_STATUS_IGNORE, ierr)
        call chk(code == want(i), what // ': a child''s arguments or MPI_APPNUM')
      end do
    end if
    call MPI_COMM_DISCONNECT(ic, ierr)
  end subroutine expect

  subroutine parents()
    character(len=1024) :: self, cwd
    character(len=8) :: args(3), argvs(2, 3)
    character(len=1024) :: cmds(2)
    integer :: ic, errs(2), maxp(2), infos(2)
    call get_command_argument(0, self)
    if (self(1:1) /= '/') then
      call getcwd(cwd)
      self = trim(cwd) // '/' // self
    end if
    args = (/ 'one     ', 'a b     ', '        ' /)
    errs = -1
    call MPI_COMM_SPAWN(self, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, ic, errs, ierr)
    call chk(ierr == MPI_SUCCESS .and. all(errs == MPI_SUCCESS), 'COMM_SPAWN')
    call expect(ic, (/ 10, 10 /), 'COMM_SPAWN')

    call MPI_COMM_SPAWN(self, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, ic, &
                        MPI_ERRCODES_IGNORE, ierr)
    call chk(ierr == MPI_SUCCESS, 'COMM_SPAWN with MPI_ARGV_NULL')
    call expect(ic, (/ 0 /), 'MPI_ARGV_NULL')

    cmds = self
    argvs = ' '
    argvs(1, 1) = 'm1'
    argvs(2, 1) = 'm2'
    argvs(2, 2) = 'x'
    maxp = 1
    infos = MPI_INFO_NULL
    errs = -1
    call MPI_COMM_SPAWN_MULTIPLE(2, cmds, argvs, maxp, infos, 0, MPI_COMM_WORLD, ic, errs, ierr)
    call chk(ierr == MPI_SUCCESS .and. all(errs == MPI_SUCCESS), 'COMM_SPAWN_MULTIPLE')
    call expect(ic, (/ 20, 31 /), 'COMM_SPAWN_MULTIPLE')

    call MPI_COMM_SPAWN_MULTIPLE(2, cmds, MPI_ARGVS_NULL, maxp, infos, 0, MPI_COMM_WORLD, ic, &
                                 MPI_ERRCODES_IGNORE, ierr)
    call chk(ierr == MPI_SUCCESS, 'COMM_SPAWN_MULTIPLE with MPI_ARGVS_NULL')
    call expect(ic, (/ 0, 1 /), 'MPI_ARGVS_NULL')
  end subroutine parents
end program spawn
