! np: 1 2 3 5 8
!
! f77.f90 - a fixed-form program with include 'mpif.h' (built with the
! fixed-form flag): a ring of sends and receives with every status field
! checked (source, tag, count through MPI_GET_COUNT), MPI_ANY_SOURCE,
! MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE, nonblocking exchange with
! MPI_WAITALL into a status array, MPI_BCAST of CHARACTER data, the
! processor name and an error string (hidden lengths, blank padding),
! MPI_WTIME, and a bad rank under MPI_ERRORS_RETURN (MPI_ERR_RANK).
      program f77
      implicit none
      include 'mpif.h'
      integer ierr, rank, nproc, next, prev, i, n, cls, rlen
      integer sbuf(100), rbuf(101), st(MPI_STATUS_SIZE)
      integer reqs(2), sts(MPI_STATUS_SIZE, 2)
      character*(MPI_MAX_PROCESSOR_NAME) pname
      character*(MPI_MAX_ERROR_STRING) estr
      character*20 word
      double precision t0
      logical flag

      call MPI_INIT(ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'MPI_INIT')
      call MPI_INITIALIZED(flag, ierr)
      call chk(flag, 'MPI_INITIALIZED not .TRUE.')
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, nproc, ierr)
      t0 = MPI_WTIME()
      next = mod(rank + 1, nproc)
      prev = mod(rank + nproc - 1, nproc)

      do n = 0, 100, 25
         do i = 1, 100
            sbuf(i) = rank * 1000 + i
         end do
         do i = 1, 101
            rbuf(i) = -1
         end do
         call MPI_IRECV(rbuf, n, MPI_INTEGER, MPI_ANY_SOURCE, 5,
     &                  MPI_COMM_WORLD, reqs(1), ierr)
         call MPI_SEND(sbuf, n, MPI_INTEGER, next, 5,
     &                 MPI_COMM_WORLD, ierr)
         call MPI_WAIT(reqs(1), st, ierr)
         call chk(st(MPI_SOURCE) .eq. prev, 'status source')
         call chk(st(MPI_TAG) .eq. 5, 'status tag')
         call MPI_GET_COUNT(st, MPI_INTEGER, i, ierr)
         call chk(i .eq. n, 'MPI_GET_COUNT')
         do i = 1, n
            call chk(rbuf(i) .eq. prev * 1000 + i, 'ring data')
         end do
         call chk(rbuf(n + 1) .eq. -1, 'wrote past the count')
      end do

!     nonblocking both ways, statuses into an array and ignored
      call MPI_IRECV(rbuf, 1, MPI_INTEGER, prev, 6, MPI_COMM_WORLD,
     &               reqs(1), ierr)
      call MPI_ISEND(rank, 1, MPI_INTEGER, next, 6, MPI_COMM_WORLD,
     &               reqs(2), ierr)
      call MPI_WAITALL(2, reqs, sts, ierr)
      call chk(rbuf(1) .eq. prev .and. sts(MPI_SOURCE, 1) .eq. prev
     &         .and. sts(MPI_TAG, 1) .eq. 6, 'waitall status')
      call chk(reqs(1) .eq. MPI_REQUEST_NULL, 'request not freed')
      call MPI_IRECV(rbuf, 1, MPI_INTEGER, prev, 7, MPI_COMM_WORLD,
     &               reqs(1), ierr)
      call MPI_ISEND(rank, 1, MPI_INTEGER, next, 7, MPI_COMM_WORLD,
     &               reqs(2), ierr)
      call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
      call chk(rbuf(1) .eq. prev, 'waitall statuses ignored')
      call MPI_SENDRECV(rank, 1, MPI_INTEGER, next, 8, rbuf, 1,
     &     MPI_INTEGER, prev, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE,
     &     ierr)
      call chk(rbuf(1) .eq. prev, 'sendrecv')

!     CHARACTER data and strings
      word = ' '
      if (rank .eq. nproc - 1) word = 'from the last rank'
      call MPI_BCAST(word, 20, MPI_CHARACTER, nproc - 1,
     &               MPI_COMM_WORLD, ierr)
      call chk(word .eq. 'from the last rank', 'bcast of CHARACTER')
      pname = '?'
      call MPI_GET_PROCESSOR_NAME(pname, rlen, ierr)
      call chk(rlen .gt. 0 .and. len_trim(pname) .eq. rlen,
     &         'processor name length')
      call MPI_ERROR_STRING(MPI_ERR_RANK, estr, rlen, ierr)
      call chk(rlen .gt. 0 .and. index(estr, 'rank') .gt. 0 .and.
     &         len_trim(estr) .eq. rlen, 'error string')

!     a bad rank: the error class of C
      call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &                             ierr)
      call MPI_SEND(rank, 1, MPI_INTEGER, nproc, 0, MPI_COMM_WORLD,
     &              ierr)
      call chk(ierr .ne. MPI_SUCCESS, 'send to rank nproc succeeded')
      call MPI_ERROR_CLASS(ierr, cls, ierr)
      call chk(cls .eq. MPI_ERR_RANK, 'class of a bad rank')
      call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD,
     &                             MPI_ERRORS_ARE_FATAL, ierr)

      call chk(MPI_WTIME() .ge. t0, 'MPI_WTIME went back')
      call MPI_FINALIZE(ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'MPI_FINALIZE')
      end

      subroutine chk(ok, what)
      logical ok
      character*(*) what
      include 'mpif.h'
      integer ierr
      if (.not. ok) then
         write (0, '(a, a)') 'FAIL f77: ', what
         call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
      end if
      end
