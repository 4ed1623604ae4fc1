! mixed_f77.f90 - the mpif.h part of mixed_f08: handles from the mpi_f08
! part are plain integers here, and those made here are used there.
subroutine f77_part(world, comm, dtype, rank, newcomm, req, errs)
  implicit none
  include 'mpif.h'
  integer :: world, comm, dtype, rank, newcomm, req, errs
  integer :: ierr, r, n, st(MPI_STATUS_SIZE)
  integer, save :: out(2)
  integer :: got(2)
  if (world /= MPI_COMM_WORLD) errs = errs + 1
  call MPI_COMM_RANK(comm, r, ierr)
  if (ierr /= MPI_SUCCESS .or. r /= rank) errs = errs + 2
  ! the datatype made by the mpi_f08 part, in a message to oneself
  out(1) = rank
  out(2) = -rank
  call MPI_SENDRECV(out, 1, dtype, rank, 5, got, 2, MPI_INTEGER, rank, 5, comm, st, ierr)
  call MPI_GET_COUNT(st, dtype, n, ierr)
  if (n /= 1 .or. st(MPI_SOURCE) /= rank .or. st(MPI_TAG) /= 5) errs = errs + 4
  if (got(1) /= rank .or. got(2) /= -rank) errs = errs + 8
  call MPI_SENDRECV(out, 2, MPI_INTEGER, rank, 6, got, 2, MPI_INTEGER, rank, 6, comm, &
                    MPI_STATUS_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 16
  call MPI_COMM_SPLIT(comm, 0, -rank, newcomm, ierr)
  call MPI_COMM_RANK(newcomm, r, ierr)
  ! a message the mpi_f08 part receives, and its request it completes
  call MPI_ISEND(out, 1, dtype, r, 77, newcomm, req, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 32
end subroutine f77_part
