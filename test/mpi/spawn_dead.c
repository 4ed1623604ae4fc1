/* np: 1 2 3
 *
 * MPI_Comm_spawn of children that end before they connect to their
 * parents: each spawn must return MPI_ERR_SPAWN (MPI_ERRORS_RETURN), every
 * errcode MPI_ERR_SPAWN and the intercommunicator MPI_COMM_NULL, within a
 * few seconds, at every parent; the parents go on communicating after
 * each. The children (this program, told by its first argument what to
 * do before MPI_Init):
 *   exit0    every child exits 0 without MPI_Init
 *   abort    every child calls abort()
 *   partial  child 0 exits 0, the others call MPI_Init (and would wait
 *            for it there)
 * and a command that does not exist. "spawn_dead timeout" (parents
 * under Hydra, whose end of a spawned job aborts it all, with
 * CLUMPI_SPAWN_TIMEOUT short) spawns exit0 and the missing command only.
 */
#include <limits.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>
#include "mtest.h"

#define LIMIT_S 8.0   /* a spawn that fails takes well under a second here */

/* The children's part, before MPI_Init. */
static void child_mode(int argc, char **argv)
{
    if (argc != 2)
        return;
    const char *rank = getenv("PMI_RANK");
    if (!strcmp(argv[1], "exit0") || (!strcmp(argv[1], "partial") && rank && !strcmp(rank, "0")))
        exit(0);
    if (!strcmp(argv[1], "abort")) {
        struct rlimit none = { 0, 0 };
        setrlimit(RLIMIT_CORE, &none);   /* no core file left behind */
        signal(SIGABRT, SIG_DFL);        /* a linked library's backtrace handler */
        abort();
    }
}

/* Spawns n processes of cmd with argument arg; the spawn must fail. */
static void spawn_fails(const char *cmd, const char *arg, int n, int round)
{
    char *args[] = { (char *)arg, NULL };
    int codes[4] = { -1, -1, -1, -1 };
    MPI_Comm ic = MPI_COMM_WORLD;
    double t0 = MPI_Wtime();
    MPI_FAILS(MPI_ERR_SPAWN, MPI_Comm_spawn(cmd, args, n, MPI_INFO_NULL, mt_size - 1,
                                            MPI_COMM_WORLD, &ic, codes));
    double took = MPI_Wtime() - t0;
    CHECK(took < LIMIT_S, "spawn of %s %s took %.1f s", cmd, arg, took);
    CHECK(ic == MPI_COMM_NULL, "spawn of %s %s: intercomm not MPI_COMM_NULL", cmd, arg);
    for (int i = 0; i < n; i++)
        CHECK(codes[i] == MPI_ERR_SPAWN, "spawn of %s %s: code %d is %d", cmd, arg, i,
              codes[i]);
    CHECK(codes[n] == -1, "spawn of %s %s: code %d written", cmd, arg, n);
    /* the parents still talk: a sum over the world */
    int v = mt_rank + round, sum = 0;
    MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == mt_size * (mt_size - 1) / 2 + mt_size * round, "allreduce after the spawn "
          "of %s %s: %d", cmd, arg, sum);
}

int main(int argc, char **argv)
{
    child_mode(argc, argv);
    mt_init(&argc, &argv, "spawn_dead");
    MPI_Comm parent;
    MPI_OK(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "a child that should have ended got to MPI_Init");
    char self[PATH_MAX];
    ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(l > 0, "readlink /proc/self/exe");
    self[l] = 0;
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int all = !(argc == 2 && !strcmp(argv[1], "timeout"));
    spawn_fails(self, "exit0", 2, 1);
    if (all) {
        spawn_fails(self, "abort", 1, 2);
        spawn_fails(self, "partial", 3, 3);
    }
    spawn_fails("./clumpi-no-such-program", "x", 2, 4);
    return mt_finish();
}
