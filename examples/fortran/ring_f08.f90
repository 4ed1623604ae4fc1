! np: 1 2 3 4 8
!
! fortran/ring_f08.f90 - fortran/ring.f90 with the mpi_f08 module: handles
! are derived types (TYPE(MPI_Comm), ...), ierror is optional, and the
! status of the last receive is a TYPE(MPI_Status) read by component.
!
!   mpifort examples/fortran/ring_f08.f90 -o ring_f08 && mpirun -n 8 ./ring_f08 [laps]
program ring_f08
  use mpi_f08
  implicit none
  integer :: rank, nproc, next, prev, lap, laps
  integer(kind=8) :: token, per_lap
  character(len=32) :: arg
  double precision :: t0, t
  type(MPI_Comm) :: comm
  type(MPI_Status) :: status

  call MPI_Init()
  comm = MPI_COMM_WORLD
  call MPI_Comm_rank(comm, rank)
  call MPI_Comm_size(comm, nproc)
  laps = 1000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) laps
  end if
  next = mod(rank + 1, nproc)
  prev = mod(rank - 1 + nproc, nproc)
  per_lap = int(nproc, 8) * (nproc - 1) / 2
  token = 0

  t0 = MPI_Wtime()
  do lap = 1, laps
    if (rank == 0) then
      call MPI_Send(token, 1, MPI_INTEGER8, next, lap, comm)
      call MPI_Recv(token, 1, MPI_INTEGER8, prev, lap, comm, status)
      if (token /= per_lap * lap .or. status%MPI_SOURCE /= prev) then
        write (0, '(a, i0, a, i0, a, i0)') 'ring_f08: lap ', lap, ': token ', token, &
                                            ', expected ', per_lap * lap
        call MPI_Abort(comm, 1)
      end if
    else
      call MPI_Recv(token, 1, MPI_INTEGER8, prev, lap, comm, MPI_STATUS_IGNORE)
      token = token + rank
      call MPI_Send(token, 1, MPI_INTEGER8, next, lap, comm)
    end if
  end do
  t = MPI_Wtime() - t0
  if (rank == 0) write (*, '(a, i0, a, i0, a, i0, a, f0.3, a)') 'ring (Fortran, mpi_f08): ', &
      nproc, ' ranks, ', laps, ' laps, token ', token, ', ', t * 1d6 / (dble(laps) * nproc), &
      ' us per hop'
  call MPI_Finalize()
end program ring_f08
