! np: 1 2 4
!
! mixed.f90 - one program, a Fortran part and a C part (mixed_c.c): handles
! cross the boundary both ways through MPI_*_f2c and MPI_*_c2f (a
! communicator and a datatype made in Fortran used in C, a communicator
! made in C used in Fortran), a Fortran status read in C through
! MPI_Status_f2c, and Fortran's MPI_STATUS_IGNORE recognised in C as
! MPI_F_STATUS_IGNORE.
program mixed
  use mpi
  implicit none
  interface
    integer function c_part(comm, dtype, status, ignore, newcomm) bind(C, name='c_part')
      integer :: comm, dtype, status(*), ignore(*), newcomm
    end function c_part
  end interface
  integer :: ierr, rank, nproc, dup, pair, newcomm, st(MPI_STATUS_SIZE), n, v
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nproc, ierr)
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  call MPI_TYPE_CONTIGUOUS(2, MPI_INTEGER, pair, ierr)
  call MPI_TYPE_COMMIT(pair, ierr)
  ! a status from a real receive, for the C part to read
  call MPI_SENDRECV(rank, 1, MPI_INTEGER, rank, 42, v, 1, MPI_INTEGER, rank, 42, &
                    MPI_COMM_WORLD, st, ierr)
  n = c_part(dup, pair, st, MPI_STATUS_IGNORE, newcomm)
  if (n /= 0) then
    write (0, '(a, i0)') 'FAIL mixed: C part failed check ', n
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end if
  ! the C part's communicator (reversed ranks) here
  call MPI_COMM_RANK(newcomm, v, ierr)
  if (v /= nproc - 1 - rank) then
    write (0, '(a, i0)') 'FAIL mixed: rank in the C communicator ', v
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_COMM_FREE(newcomm, ierr)
  call MPI_TYPE_FREE(pair, ierr)
  call MPI_COMM_FREE(dup, ierr)
  call MPI_FINALIZE(ierr)
end program mixed
