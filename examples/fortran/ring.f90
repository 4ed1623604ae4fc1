! np: 1 2 3 4 8
!
! fortran/ring.f90 - examples/ring.c in Fortran (the mpi module): a token
! goes round the ring of ranks several times; each rank adds its rank
! number. Rank 0 checks the total at the end of every lap and reports the
! average time per hop.
!
!   mpifort examples/fortran/ring.f90 -o ring && mpirun -n 8 ./ring [laps]
program ring
  use mpi
  implicit none
  integer :: ierr, rank, nproc, next, prev, lap, laps
  integer(kind=8) :: token, per_lap
  character(len=32) :: arg
  double precision :: t0, t

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nproc, ierr)
  laps = 1000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) laps
  end if
  next = mod(rank + 1, nproc)
  prev = mod(rank - 1 + nproc, nproc)
  per_lap = int(nproc, 8) * (nproc - 1) / 2
  token = 0

  t0 = MPI_WTIME()
  do lap = 1, laps
    if (rank == 0) then
      call MPI_SEND(token, 1, MPI_INTEGER8, next, 0, MPI_COMM_WORLD, ierr)
      call MPI_RECV(token, 1, MPI_INTEGER8, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      if (token /= per_lap * lap) then
        write (0, '(a, i0, a, i0, a, i0)') 'ring: lap ', lap, ': token ', token, &
                                            ', expected ', per_lap * lap
        call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
      end if
    else
      call MPI_RECV(token, 1, MPI_INTEGER8, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      token = token + rank
      call MPI_SEND(token, 1, MPI_INTEGER8, next, 0, MPI_COMM_WORLD, ierr)
    end if
  end do
  t = MPI_WTIME() - t0
  if (rank == 0) write (*, '(a, i0, a, i0, a, i0, a, f0.3, a)') 'ring (Fortran): ', nproc, &
      ' ranks, ', laps, ' laps, token ', token, ', ', t * 1d6 / (dble(laps) * nproc), ' us per hop'
  call MPI_FINALIZE(ierr)
end program ring
