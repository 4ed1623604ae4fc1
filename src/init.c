/*
 * init.c — the library's life cycle and environment queries. The thread
 * levels live in thread.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "src/core.h"
#include "src/dynamic.h"
#include "src/util/log.h"
#include "src/util/param.h"
#include "coll/coll.h"

int mpir_state = MPIR_STATE_PRE;

/* A failure while starting is fatal, as MPI_ERRORS_ARE_FATAL (the only
 * handler there can be yet) makes it in MPICH and Open MPI: a program that
 * ignores MPI_Init's result must not go on without MPI. mpirun then names
 * the rank that exited and ends the job. */
static _Noreturn void init_failed(const char *fn, const char *what, int rc)
{
    fprintf(stderr, "clumpi: %s: %s (error %d); the program cannot continue\n", fn, what,
            rc);
    exit(1);
}

static int init_common(const char *fn, int *argc, char ***argv, int required, int *provided)
{
    MPIR_CS_GUARD;   /* held when MPI_T threads may run already */
    if (mpir_state == MPIR_STATE_ACTIVE)
        return mpir_err_world(mpir_err(MPI_ERR_OTHER, fn, "MPI is already initialized"));
    if (mpir_state == MPIR_STATE_POST) {
        fprintf(stderr, "clumpi: %s called after MPI_Finalize (MPI cannot be restarted)\n", fn);
        return MPI_ERR_OTHER;
    }
    cu_param_check_all();   /* a malformed CLUMPI_* ends the job here, whatever reads it */
    coll_select_init();     /* so does a bad CLUMPI_COLL_TUNING table */
    int rc = mpid_init();
    if (rc != MPI_SUCCESS)
        init_failed(fn, "the device failed to start", rc);
    if ((rc = mpir_dtype_init()) != MPI_SUCCESS)
        init_failed(fn, "datatypes failed to initialize", rc);
    if ((rc = mpir_op_init()) != MPI_SUCCESS)
        init_failed(fn, "reduction operations failed to initialize", rc);
    int level = mpir_thread_init(required);
    if (provided)
        *provided = level;

    mpir_errhandler_init();
    mpir_group_init();
    if ((rc = mpir_comm_init()) != MPI_SUCCESS)
        init_failed(fn, "out of memory creating MPI_COMM_WORLD", rc);
    mpid_set_ctx_holds(mpir_dyn_ctx_holds);
    mpir_attr_init(mpir_universe_size(), mpid_appnum());
    mpir_info_init(argc, argv);
    mpir_state = MPIR_STATE_ACTIVE;
    /* clumpi's mpirun (CLUMPI_JOB_ID) has warned of unknown CLUMPI_* names
     * already; under another launcher, world rank 0 does. */
    int wrank;
    if (!getenv("CLUMPI_JOB_ID") && mpir_Comm_rank(MPI_COMM_WORLD, &wrank) == MPI_SUCCESS &&
        wrank == 0) {
        extern char **environ;
        cu_param_warn_unknown(environ);
    }
    if ((rc = mpir_spawn_init()) != MPI_SUCCESS)
        init_failed(fn, "a spawned job could not connect to its parents", rc);
    return MPI_SUCCESS;
}

int PMPI_Init(int *argc, char ***argv)
{
    return init_common("MPI_Init", argc, argv, MPI_THREAD_SINGLE, NULL);
}
MPIR_WEAK(Init)

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (!provided) {
        fprintf(stderr, "clumpi: MPI_Init_thread: provided is NULL\n");
        return MPI_ERR_ARG;
    }
    return init_common("MPI_Init_thread", argc, argv, required, provided);
}
MPIR_WEAK(Init_thread)

int PMPI_Finalize(void)
{
    static const char fn[] = "MPI_Finalize";
    MPIR_ENTER(fn);
    /* MPI-3.1 8.7.1: MPI_COMM_SELF's attributes are deleted first, while the
     * library is fully usable, so delete callbacks may still communicate. */
    mpir_comm *self = mpir_comm_get(MPI_COMM_SELF);
    int rc = mpir_comm_attrs_free(self);
    if (rc != MPI_SUCCESS)
        mpir_err_comm(MPI_COMM_SELF, mpir_err(rc, fn, "an attribute delete callback on "
                                                      "MPI_COMM_SELF failed (%d)", rc));
    int prc = mpir_pt2pt_finalize();
    /* No rank leaves while peers may still be sending to it. */
    int brc = coll_barrier(&mpir_comm_get(MPI_COMM_WORLD)->dev);
    mpir_state = MPIR_STATE_POST;
    coll_finalize();
    coll_select_finalize();
    mpir_port_finalize();
    mpir_comm_finalize();
    mpir_group_finalize();
    mpir_info_finalize();
    mpir_dtype_finalize();
    mpir_op_finalize();
    mpir_attr_finalize();
    mpir_errhandler_finalize();
    mpir_errors_finalize();
    int drc = mpid_finalize();
    if (prc != MPI_SUCCESS)
        return prc;
    if (brc != MPI_SUCCESS)
        return brc;
    return drc;
}
MPIR_WEAK(Finalize)

/* Initialized, Finalized, Get_version and Wtime/Wtick work at any time. */
int PMPI_Initialized(int *flag)
{
    if (!flag)
        return mpir_active() ? mpir_err_world(mpir_err(MPI_ERR_ARG, "MPI_Initialized", "flag is NULL"))
                             : MPI_ERR_ARG;
    *flag = mpir_state != MPIR_STATE_PRE;
    return MPI_SUCCESS;
}
MPIR_WEAK(Initialized)

int PMPI_Finalized(int *flag)
{
    if (!flag)
        return mpir_active() ? mpir_err_world(mpir_err(MPI_ERR_ARG, "MPI_Finalized", "flag is NULL"))
                             : MPI_ERR_ARG;
    *flag = mpir_state == MPIR_STATE_POST;
    return MPI_SUCCESS;
}
MPIR_WEAK(Finalized)

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    char msg[128];
    if (!mpir_active()) {
        fprintf(stderr, "clumpi: MPI_Abort(%d) called %s\n", errorcode,
                mpir_state == MPIR_STATE_PRE ? "before MPI_Init" : "after MPI_Finalize");
        exit(errorcode ? errorcode : 1);
    }
    /* The whole job ends whatever comm is: clumpi cannot abort a subset. */
    snprintf(msg, sizeof msg, "MPI_Abort(errorcode=%d) called by rank %d", errorcode,
             mpid_world_rank());
    mpid_abort(errorcode, msg);
}
MPIR_WEAK(Abort)

int PMPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion)
        return mpir_active() ? mpir_err_world(mpir_err(MPI_ERR_ARG, "MPI_Get_version",
                                                       "%s is NULL", version ? "subversion" : "version"))
                             : MPI_ERR_ARG;
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
MPIR_WEAK(Get_version)

int PMPI_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen)
        return mpir_active() ? mpir_err_world(mpir_err(MPI_ERR_ARG, "MPI_Get_library_version",
                                                       "%s is NULL", version ? "resultlen" : "version"))
                             : MPI_ERR_ARG;
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "clumpi %s (MPI %d.%d), built %s", CLUMPI_VERSION, MPI_VERSION,
                     MPI_SUBVERSION, __DATE__);
    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}
MPIR_WEAK(Get_library_version)

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    static const char fn[] = "MPI_Get_processor_name";
    MPIR_ENTER(fn);
    if (!name || !resultlen)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "%s is NULL", name ? "resultlen" : "name"));
    char host[MPI_MAX_PROCESSOR_NAME - 16];
    if (gethostname(host, sizeof host) != 0)
        strcpy(host, "localhost");
    host[sizeof host - 1] = 0;
    /* Emulated nodes (mpirun --nodes N: the whole job on this host, which
     * mpirun says with CLUMPI_ONE_HOST, in more than one node) are named
     * apart, so that programs which find nodes by name see the layout the
     * device uses. */
    int emulated = mpid_node_count() > 1 && cu_param_int("ONE_HOST") != 0;
    int n = emulated ? snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s:n%d", host,
                                mpid_node_of(mpid_world_rank()))
                     : snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", host);
    *resultlen = n < MPI_MAX_PROCESSOR_NAME ? n : MPI_MAX_PROCESSOR_NAME - 1;
    return MPI_SUCCESS;
}
MPIR_WEAK(Get_processor_name)

double PMPI_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
MPIR_WEAK(Wtime)

double PMPI_Wtick(void)
{
    struct timespec ts;
    if (clock_getres(CLOCK_MONOTONIC, &ts) != 0 || (ts.tv_sec == 0 && ts.tv_nsec == 0))
        return 1e-9;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
MPIR_WEAK(Wtick)

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    static const char fn[] = "MPI_Alloc_mem";
    MPIR_ENTER(fn);
    if (size < 0)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "size is negative (%ld)", (long)size));
    if (info != MPI_INFO_NULL && !mpir_handle_get(&mpir_infos, info))
        return mpir_err_world(mpir_err(MPI_ERR_INFO, fn, "invalid info (0x%x)", (unsigned)info));
    if (!baseptr)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "baseptr is NULL"));
    /* Cache-line aligned: the memory often backs communication buffers. */
    void *p = NULL;
    if (posix_memalign(&p, 64, size ? (size_t)size : 1) != 0 || !p)
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, fn, "cannot allocate %ld bytes", (long)size));
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}
MPIR_WEAK(Alloc_mem)

int PMPI_Free_mem(void *base)
{
    static const char fn[] = "MPI_Free_mem";
    MPIR_ENTER(fn);
    free(base);
    return MPI_SUCCESS;
}
MPIR_WEAK(Free_mem)
