/* np: 1 2 3
 *
 * The name service within one job (a private CLUMPI_NAMESERVER is not
 * needed: names carry the job's pid): rank 0 opens a port and publishes it
 * under a name with spaces; every rank looks it up and gets the port;
 * publishing it again is MPI_ERR_SERVICE; looking up a name never
 * published is MPI_ERR_NAME; unpublishing with another port is
 * MPI_ERR_SERVICE; after the unpublish a lookup is MPI_ERR_NAME and a
 * second unpublish MPI_ERR_SERVICE; NULL names and bad info are
 * MPI_ERR_ARG and MPI_ERR_INFO; then the name can be published again
 * and a rank other than 0 connects to rank 0 through it.
 */
#include <unistd.h>
#include "mtest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "names");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    char name[128], port[MPI_MAX_PORT_NAME] = "", got[MPI_MAX_PORT_NAME];
    int pid = (int)getpid();
    MPI_OK(MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD));
    snprintf(name, sizeof name, "clumpi names test %d", pid);
    if (mt_rank == 0) {
        MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
        MPI_OK(MPI_Publish_name(name, MPI_INFO_NULL, port));
        MPI_FAILS(MPI_ERR_SERVICE, MPI_Publish_name(name, MPI_INFO_NULL, port));
    }
    MPI_OK(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Lookup_name(name, MPI_INFO_NULL, got));
    CHECK(!strcmp(got, port), "lookup gave \"%s\", published \"%s\"", got, port);
    char other[160];
    snprintf(other, sizeof other, "%s never", name);
    MPI_FAILS(MPI_ERR_NAME, MPI_Lookup_name(other, MPI_INFO_NULL, got));
    MPI_FAILS(MPI_ERR_ARG, MPI_Lookup_name(NULL, MPI_INFO_NULL, got));
    MPI_FAILS(MPI_ERR_ARG, MPI_Publish_name(other, MPI_INFO_NULL, NULL));
    MPI_FAILS(MPI_ERR_INFO, MPI_Lookup_name(name, (MPI_Info)0x12345, got));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) {
        MPI_FAILS(MPI_ERR_SERVICE, MPI_Unpublish_name(name, MPI_INFO_NULL, "clumpi-port:1.2.3.4:5:6"));
        MPI_OK(MPI_Unpublish_name(name, MPI_INFO_NULL, port));
        MPI_FAILS(MPI_ERR_SERVICE, MPI_Unpublish_name(name, MPI_INFO_NULL, port));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_FAILS(MPI_ERR_NAME, MPI_Lookup_name(name, MPI_INFO_NULL, got));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_size > 1) {
        /* rank 0 accepts on its own, the last rank connects on its own */
        int last = mt_size - 1;
        if (mt_rank == 0)
            MPI_OK(MPI_Publish_name(name, MPI_INFO_NULL, port));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_Comm ic = MPI_COMM_NULL;
        int rc = MPI_SUCCESS;
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
        if (mt_rank == 0)
            rc = MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
        else if (mt_rank == last) {
            MPI_OK(MPI_Lookup_name(name, MPI_INFO_NULL, got));
            rc = MPI_Comm_connect(got, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
        }
        MPI_OK(rc);
        if (ic != MPI_COMM_NULL) {
            int v = mt_rank, w = -1;
            MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 1, &w, 1, MPI_INT, 0, 1, ic, MPI_STATUS_IGNORE));
            CHECK(w == (mt_rank == 0 ? last : 0), "through the name: got %d", w);
            MPI_OK(MPI_Comm_disconnect(&ic));
        }
        if (mt_rank == 0)
            MPI_OK(MPI_Unpublish_name(name, MPI_INFO_NULL, port));
    }
    if (mt_rank == 0)
        MPI_OK(MPI_Close_port(port));
    return mt_finish();
}
