! np: 1 2 3 5 8
!
! f77.f90 - a fixed-form program with include 'mpif.h' (built with the
! fixed-form flag): a ring of sends and receives with every status field
! checked (source, tag, count through MPI_GET_COUNT), MPI_ANY_SOURCE,
! MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE, nonblocking exchange with
! MPI_WAITALL into a status array, MPI_BCAST of CHARACTER data, the
! processor name and an error string (hidden lengths, blank padding),
! MPI_WTIME, and a bad rank under MPI_ERRORS_RETURN (MPI_ERR_RANK, and a
! message naming MPI_SEND).
! The calls taking Fortran procedures: keyvals whose copy and delete
! callbacks must run on dup, free and delete (and the predefined ones,
! and MPI-1's MPI_KEYVAL_CREATE), user ops in MPI_ALLREDUCE against a
! reference (commutative and not), an error handler called with the
! error's code, generalized requests completed and cancelled; and
! MPI_INFO_GET, MPI_STATUS_SET_*, MPI_GROUP_RANGE_INCL/EXCL.
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
      n = ierr
      call MPI_ERROR_CLASS(n, cls, ierr)
      call chk(cls .eq. MPI_ERR_RANK, 'class of a bad rank')
!     the message names the Fortran routine
      call MPI_ERROR_STRING(n, estr, rlen, ierr)
      call chk(index(estr, 'MPI_SEND (Fortran)') .gt. 0,
     &         'error string without MPI_SEND: ' // estr(1:rlen))
      call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD,
     &                             MPI_ERRORS_ARE_FATAL, ierr)

      call keyvals(rank)
      call userops(rank, nproc)
      call errhs(rank, nproc)
      call greqs()
      call misc(rank, nproc)

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

!     Attribute caching with Fortran callbacks.
      subroutine keyvals(rank)
      implicit none
      include 'mpif.h'
      integer rank, ierr, kv, kv2, kv1, dup, ival
      integer(kind=MPI_ADDRESS_KIND) val, extra
      logical flag
      integer ncopy, ndel
      integer(kind=MPI_ADDRESS_KIND) lastdel
      common /kvcount/ ncopy, ndel, lastdel
      external copyfn, delfn

      ncopy = 0
      ndel = 0
      extra = 77
      call MPI_COMM_CREATE_KEYVAL(copyfn, delfn, kv, extra, ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'MPI_COMM_CREATE_KEYVAL')
      val = 1000 + rank
      call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, kv, val, ierr)
      call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
      call chk(ncopy .eq. 1, 'copy callback not run once on dup')
      call MPI_COMM_GET_ATTR(dup, kv, val, flag, ierr)
      call chk(flag .and. val .eq. 2000 + rank, 'copied attribute')
      call MPI_COMM_FREE(dup, ierr)
      call chk(ndel .eq. 1 .and. lastdel .eq. 2000 + rank,
     &         'delete callback on MPI_COMM_FREE')
      call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, kv, val, flag, ierr)
      call chk(flag .and. val .eq. 1000 + rank, 'attribute of world')
      call MPI_COMM_DELETE_ATTR(MPI_COMM_WORLD, kv, ierr)
      call chk(ndel .eq. 2 .and. lastdel .eq. 1000 + rank,
     &         'delete callback on MPI_COMM_DELETE_ATTR')
      call MPI_COMM_FREE_KEYVAL(kv, ierr)
      call chk(kv .eq. MPI_KEYVAL_INVALID, 'keyval not invalid')

!     the predefined callbacks: copied as they are, and not copied
      call MPI_COMM_CREATE_KEYVAL(MPI_COMM_DUP_FN,
     &     MPI_COMM_NULL_DELETE_FN, kv, extra, ierr)
      call MPI_COMM_CREATE_KEYVAL(MPI_COMM_NULL_COPY_FN,
     &     MPI_COMM_NULL_DELETE_FN, kv2, extra, ierr)
      val = 5
      call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, kv, val, ierr)
      call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, kv2, val, ierr)
      call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
      val = 0
      call MPI_COMM_GET_ATTR(dup, kv, val, flag, ierr)
      call chk(flag .and. val .eq. 5, 'MPI_COMM_DUP_FN')
      call MPI_COMM_GET_ATTR(dup, kv2, val, flag, ierr)
      call chk(.not. flag, 'MPI_COMM_NULL_COPY_FN copied')
      call MPI_COMM_FREE(dup, ierr)
      call MPI_COMM_DELETE_ATTR(MPI_COMM_WORLD, kv, ierr)
      call MPI_COMM_DELETE_ATTR(MPI_COMM_WORLD, kv2, ierr)
      call MPI_COMM_FREE_KEYVAL(kv, ierr)
      call MPI_COMM_FREE_KEYVAL(kv2, ierr)
      call chk(ncopy .eq. 1 .and. ndel .eq. 2, 'user callbacks ran')

!     MPI-1: INTEGER values, the keyval's own callbacks
      call MPI_KEYVAL_CREATE(MPI_DUP_FN, MPI_NULL_DELETE_FN, kv1, 0,
     &                       ierr)
      call MPI_ATTR_PUT(MPI_COMM_WORLD, kv1, 42 + rank, ierr)
      call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
      call MPI_ATTR_GET(dup, kv1, ival, flag, ierr)
      call chk(flag .and. ival .eq. 42 + rank, 'MPI_ATTR_GET')
      call MPI_ATTR_DELETE(dup, kv1, ierr)
      call MPI_ATTR_GET(dup, kv1, ival, flag, ierr)
      call chk(.not. flag, 'MPI_ATTR_DELETE')
      call MPI_COMM_FREE(dup, ierr)
      call MPI_ATTR_DELETE(MPI_COMM_WORLD, kv1, ierr)
      call MPI_KEYVAL_FREE(kv1, ierr)

!     predefined attributes: their values, not C's pointers
      call MPI_ATTR_GET(MPI_COMM_WORLD, MPI_TAG_UB, ival, flag, ierr)
      call chk(flag .and. ival .ge. 32767, 'MPI_TAG_UB (MPI-1)')
      call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, val, flag,
     &                       ierr)
      call chk(flag .and. val .eq. ival, 'MPI_TAG_UB')
      call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_APPNUM, val, flag,
     &                       ierr)
      call chk(flag .and. val .eq. 0, 'MPI_APPNUM')
      end

      subroutine copyfn(old, kv, extra, vin, vout, flag, ierr)
      implicit none
      include 'mpif.h'
      integer old, kv, ierr
      integer(kind=MPI_ADDRESS_KIND) extra, vin, vout
      logical flag
      integer ncopy, ndel
      integer(kind=MPI_ADDRESS_KIND) lastdel
      common /kvcount/ ncopy, ndel, lastdel
      call chk(extra .eq. 77 .and. old .eq. MPI_COMM_WORLD,
     &         'copy callback arguments')
      ncopy = ncopy + 1
      vout = vin + 1000
      flag = .true.
      ierr = MPI_SUCCESS
      end

      subroutine delfn(comm, kv, val, extra, ierr)
      implicit none
      include 'mpif.h'
      integer comm, kv, ierr
      integer(kind=MPI_ADDRESS_KIND) val, extra
      integer ncopy, ndel
      integer(kind=MPI_ADDRESS_KIND) lastdel
      common /kvcount/ ncopy, ndel, lastdel
      call chk(extra .eq. 77, 'delete callback extra state')
      ndel = ndel + 1
      lastdel = val
      ierr = MPI_SUCCESS
      end

!     User ops: a + b + 1 (commutative), and "the left one" (not).
      subroutine userops(rank, nproc)
      implicit none
      include 'mpif.h'
      integer rank, nproc, ierr, op, opl, i, v(5), r(5)
      logical comm
      external plus1, left
      call MPI_OP_CREATE(plus1, .true., op, ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'MPI_OP_CREATE')
      call MPI_OP_CREATE(left, .false., opl, ierr)
      call MPI_OP_COMMUTATIVE(opl, comm, ierr)
      call chk(.not. comm, 'MPI_OP_COMMUTATIVE of a non-commutative op')
      do i = 1, 5
         v(i) = rank * 10 + i
      end do
      call MPI_ALLREDUCE(v, r, 5, MPI_INTEGER, op, MPI_COMM_WORLD,
     &                   ierr)
      do i = 1, 5
         call chk(r(i) .eq. 10 * nproc * (nproc - 1) / 2 + nproc * i
     &            + nproc - 1, 'user op sum')
      end do
      call MPI_ALLREDUCE(v, r, 5, MPI_INTEGER, opl, MPI_COMM_WORLD,
     &                   ierr)
      do i = 1, 5
         call chk(r(i) .eq. i, 'non-commutative op: not rank 0 first')
      end do
      call MPI_OP_FREE(op, ierr)
      call MPI_OP_FREE(opl, ierr)
      call chk(op .eq. MPI_OP_NULL, 'MPI_OP_FREE')
      end

      subroutine plus1(invec, inoutvec, n, dtype)
      implicit none
      include 'mpif.h'
      integer n, dtype, invec(n), inoutvec(n), i
      call chk(dtype .eq. MPI_INTEGER, 'user op datatype')
      do i = 1, n
         inoutvec(i) = invec(i) + inoutvec(i) + 1
      end do
      end

      subroutine left(invec, inoutvec, n, dtype)
      implicit none
      integer n, dtype, invec(n), inoutvec(n), i
      do i = 1, n
         inoutvec(i) = invec(i)
      end do
      end

!     An error handler in Fortran, called with the error's code.
      subroutine errhs(rank, nproc)
      implicit none
      include 'mpif.h'
      integer rank, nproc, ierr, eh, dup, cls
      integer ncalls, lastcomm, lastcode
      common /ehcount/ ncalls, lastcomm, lastcode
      external myeh
      ncalls = 0
      call MPI_COMM_CREATE_ERRHANDLER(myeh, eh, ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'MPI_COMM_CREATE_ERRHANDLER')
      call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
      call MPI_COMM_SET_ERRHANDLER(dup, eh, ierr)
      call MPI_SEND(rank, 1, MPI_INTEGER, nproc, 0, dup, ierr)
      call chk(ncalls .eq. 1 .and. lastcomm .eq. dup,
     &         'error handler not called with the communicator')
      call chk(lastcode .eq. ierr, 'error handler: not the code')
      call MPI_ERROR_CLASS(lastcode, cls, ierr)
      call chk(cls .eq. MPI_ERR_RANK, 'error handler: not the class')
      call MPI_COMM_CALL_ERRHANDLER(dup, MPI_ERR_OTHER, ierr)
      call chk(ncalls .eq. 2 .and. lastcode .eq. MPI_ERR_OTHER,
     &         'MPI_COMM_CALL_ERRHANDLER')
      call MPI_COMM_FREE(dup, ierr)
      call MPI_ERRHANDLER_FREE(eh, ierr)
      end

      subroutine myeh(comm, code)
      implicit none
      integer comm, code
      integer ncalls, lastcomm, lastcode
      common /ehcount/ ncalls, lastcomm, lastcode
      ncalls = ncalls + 1
      lastcomm = comm
      lastcode = code
      end

!     Generalized requests: completed, and cancelled then completed.
      subroutine greqs()
      implicit none
      include 'mpif.h'
      integer ierr, req, st(MPI_STATUS_SIZE), n
      integer(kind=MPI_ADDRESS_KIND) extra
      logical flag
      integer nq, nf, nc
      logical cancelled
      common /gqcount/ nq, nf, nc, cancelled
      external gquery, gfree, gcancel
      nq = 0
      nf = 0
      nc = 0
      cancelled = .false.
      extra = 9
      call MPI_GREQUEST_START(gquery, gfree, gcancel, extra, req, ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'MPI_GREQUEST_START')
      call MPI_TEST(req, flag, st, ierr)
      call chk(.not. flag .and. nq .eq. 0, 'grequest done too early')
      call MPI_GREQUEST_COMPLETE(req, ierr)
      call MPI_WAIT(req, st, ierr)
      call chk(req .eq. MPI_REQUEST_NULL .and. nq .eq. 1 .and.
     &         nf .eq. 1, 'grequest query and free')
      call chk(st(MPI_SOURCE) .eq. 9 .and. st(MPI_TAG) .eq. 3,
     &         'grequest status')
      call MPI_GET_COUNT(st, MPI_INTEGER, n, ierr)
      call chk(n .eq. 3, 'grequest status count')
      call MPI_TEST_CANCELLED(st, flag, ierr)
      call chk(.not. flag, 'grequest cancelled')

      call MPI_GREQUEST_START(gquery, gfree, gcancel, extra, req, ierr)
      call MPI_CANCEL(req, ierr)
      call chk(nc .eq. 1 .and. cancelled, 'cancel callback')
      call MPI_GREQUEST_COMPLETE(req, ierr)
      call MPI_WAIT(req, st, ierr)
      call MPI_TEST_CANCELLED(st, flag, ierr)
      call chk(flag .and. nf .eq. 2, 'grequest not cancelled')
      end

      subroutine gquery(extra, st, ierr)
      implicit none
      include 'mpif.h'
      integer(kind=MPI_ADDRESS_KIND) extra
      integer st(MPI_STATUS_SIZE), ierr
      integer nq, nf, nc
      logical cancelled
      common /gqcount/ nq, nf, nc, cancelled
      nq = nq + 1
      st(MPI_SOURCE) = int(extra)
      st(MPI_TAG) = 3
      call MPI_STATUS_SET_ELEMENTS(st, MPI_INTEGER, 3, ierr)
      call MPI_STATUS_SET_CANCELLED(st, cancelled, ierr)
      end

      subroutine gfree(extra, ierr)
      implicit none
      include 'mpif.h'
      integer(kind=MPI_ADDRESS_KIND) extra
      integer ierr
      integer nq, nf, nc
      logical cancelled
      common /gqcount/ nq, nf, nc, cancelled
      call chk(extra .eq. 9, 'free_fn extra state')
      nf = nf + 1
      ierr = MPI_SUCCESS
      end

      subroutine gcancel(extra, complete, ierr)
      implicit none
      include 'mpif.h'
      integer(kind=MPI_ADDRESS_KIND) extra
      logical complete
      integer ierr
      integer nq, nf, nc
      logical cancelled
      common /gqcount/ nq, nf, nc, cancelled
      call chk(.not. complete, 'cancel_fn: complete')
      nc = nc + 1
      cancelled = .true.
      ierr = MPI_SUCCESS
      end

!     MPI_INFO_GET, MPI_STATUS_SET_*, MPI_GROUP_RANGE_INCL/EXCL
      subroutine misc(rank, nproc)
      implicit none
      include 'mpif.h'
      integer rank, nproc, ierr, info, st(MPI_STATUS_SIZE), n
      integer grp, g2, ranges(3, 2), r
      character*(MPI_MAX_INFO_VAL) val
      character*8 short
      logical flag
      call MPI_INFO_CREATE(info, ierr)
      call MPI_INFO_SET(info, 'color', 'dark blue', ierr)
      val = 'x'
      call MPI_INFO_GET(info, 'color', MPI_MAX_INFO_VAL, val, flag,
     &                  ierr)
      call chk(flag .and. val .eq. 'dark blue', 'MPI_INFO_GET')
      call MPI_INFO_GET(info, 'color', 4, val, flag, ierr)
      call chk(flag .and. val .eq. 'dark', 'MPI_INFO_GET valuelen 4')
      short = 'unset'
      call MPI_INFO_GET(info, 'colour', 8, short, flag, ierr)
      call chk(.not. flag .and. short .eq. 'unset',
     &         'MPI_INFO_GET of no key changed the value')
      call MPI_INFO_GET(info, 'color', 20, short, flag, ierr)
      call chk(flag .and. short .eq. 'dark blu',
     &         'MPI_INFO_GET past the string')
      call MPI_INFO_FREE(info, ierr)

      call MPI_STATUS_SET_ELEMENTS(st, MPI_INTEGER, 7, ierr)
      call MPI_GET_COUNT(st, MPI_INTEGER, n, ierr)
      call chk(n .eq. 7, 'MPI_STATUS_SET_ELEMENTS')
      call MPI_STATUS_SET_CANCELLED(st, .true., ierr)
      call MPI_TEST_CANCELLED(st, flag, ierr)
      call chk(flag, 'MPI_STATUS_SET_CANCELLED')
      call MPI_STATUS_SET_CANCELLED(st, .false., ierr)
      call MPI_TEST_CANCELLED(st, flag, ierr)
      call chk(.not. flag, 'MPI_STATUS_SET_CANCELLED false')

!     even ranks, then odd ones by excluding the even
      call MPI_COMM_GROUP(MPI_COMM_WORLD, grp, ierr)
      ranges(1, 1) = 0
      ranges(2, 1) = nproc - 1
      ranges(3, 1) = 2
      call MPI_GROUP_RANGE_INCL(grp, 1, ranges, g2, ierr)
      call MPI_GROUP_SIZE(g2, n, ierr)
      call chk(n .eq. (nproc + 1) / 2, 'MPI_GROUP_RANGE_INCL size')
      call MPI_GROUP_RANK(g2, r, ierr)
      if (mod(rank, 2) .eq. 0) then
         call chk(r .eq. rank / 2, 'MPI_GROUP_RANGE_INCL rank')
      else
         call chk(r .eq. MPI_UNDEFINED, 'MPI_GROUP_RANGE_INCL odd')
      end if
      call MPI_GROUP_FREE(g2, ierr)
      call MPI_GROUP_RANGE_EXCL(grp, 1, ranges, g2, ierr)
      call MPI_GROUP_SIZE(g2, n, ierr)
      call chk(n .eq. nproc / 2, 'MPI_GROUP_RANGE_EXCL size')
      call MPI_GROUP_FREE(g2, ierr)
!     two ranges, the last rank first and the rest backwards: the
!     order of the ranges and of their members counts
      if (nproc .ge. 2) then
         ranges(1, 1) = nproc - 1
         ranges(2, 1) = nproc - 1
         ranges(3, 1) = 1
         ranges(1, 2) = nproc - 2
         ranges(2, 2) = 0
         ranges(3, 2) = -1
         call MPI_GROUP_RANGE_INCL(grp, 2, ranges, g2, ierr)
         call MPI_GROUP_RANK(g2, r, ierr)
         if (rank .eq. nproc - 1) then
            call chk(r .eq. 0, 'two ranges: the last rank')
         else
            call chk(r .eq. nproc - 1 - rank, 'two ranges: backwards')
         end if
         call MPI_GROUP_FREE(g2, ierr)
      end if
      call MPI_GROUP_FREE(grp, ierr)
      end
