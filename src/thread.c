/*
 * thread.c — thread levels (MPI-3.1 12.4): MPI_Init_thread grants what was
 * asked, up to MPI_THREAD_MULTIPLE. Under MULTIPLE every entry point holds
 * the library's one lock (MPIR_ENTER, src/util/biglock.h), which the
 * device's wait loops give away between passes and around blocks, so a
 * thread blocked in MPI_Recv lets the others call MPI meanwhile. Below
 * MULTIPLE nothing is locked (calls come one at a time), unless
 * MPI_T_init_thread granted MULTIPLE, which turns the lock on for all calls.
 */
#include <poll.h>
#include <pthread.h>
#include "src/mpir.h"

int mpir_thread_provided = MPI_THREAD_SINGLE;
static pthread_t main_thread;

int mpir_thread_init(int required)
{
    if (required < MPI_THREAD_SINGLE)
        required = MPI_THREAD_SINGLE;
    if (required > MPI_THREAD_MULTIPLE)
        required = MPI_THREAD_MULTIPLE;
    mpir_thread_provided = required;
    main_thread = pthread_self();
    /* the lock may be on already: MPI_T_init_thread granted MULTIPLE; the
     * device's waits must then let its threads in too */
    if (required == MPI_THREAD_MULTIPLE || cu_mt) {
        mpid_thread_multiple();
        cu_lock_enable();
    }
    return required;
}

int mpir_poll(struct pollfd *p, unsigned long n, int timeout_ms)
{
    int d = cu_lock_suspend();
    int rc = poll(p, (nfds_t)n, timeout_ms);
    cu_lock_resume(d);
    return rc;
}

int PMPI_Query_thread(int *provided)
{
    static const char fn[] = "MPI_Query_thread";
    MPIR_ENTER(fn);
    if (!provided)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "provided is NULL"));
    *provided = mpir_thread_provided;
    return MPI_SUCCESS;
}
MPIR_WEAK(Query_thread)

int PMPI_Is_thread_main(int *flag)
{
    static const char fn[] = "MPI_Is_thread_main";
    MPIR_ENTER(fn);
    if (!flag)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "flag is NULL"));
    *flag = pthread_equal(pthread_self(), main_thread) != 0;
    return MPI_SUCCESS;
}
MPIR_WEAK(Is_thread_main)
