/*
 * sigfault.c — drop fault handlers that libraries we link install behind the
 * program's back.
 *
 * Debian's libfabric links libpsm_infinipath and libpsm2; libinfinipath's
 * constructor installs a SIGSEGV/SIGBUS/... handler that prints a backtrace
 * and calls exit(1) (unless IPATH_NO_BACKTRACE is set). Every MPI program
 * would then hide its crashes from mpirun. We find such handlers by the
 * shared object their code lives in.
 */
#include "config.h"
#include <dlfcn.h>
#include <signal.h>
#include <string.h>
#include "src/util/sigfault.h"

static int is_foreign(void *fn)
{
    Dl_info di;
    if (!fn || !dladdr(fn, &di) || !di.dli_fname)
        return 0;
    return strstr(di.dli_fname, "libinfinipath") || strstr(di.dli_fname, "libpsm");
}

void cu_sigfault_reset_foreign(void)
{
    static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE };
    for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        if (sigaction(sigs[i], NULL, &sa) != 0)
            continue;
        void *fn = (sa.sa_flags & SA_SIGINFO) ? (void *)sa.sa_sigaction
                                              : (void *)sa.sa_handler;
        if (fn == (void *)SIG_DFL || fn == (void *)SIG_IGN || !is_foreign(fn))
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = SIG_DFL;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}
