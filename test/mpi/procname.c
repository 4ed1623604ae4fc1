/* np: 1 3 4
 *
 * procname.c — MPI_Get_processor_name names nodes apart: two ranks get the
 * same name exactly when they share a node (MPI_Comm_split_type with
 * MPI_COMM_TYPE_SHARED), so that programs which find nodes by name see the
 * node layout; and on one node the name is the host's name. nodes.sh runs
 * it on 2 and 3 emulated nodes (mpirun --nodes), where clumpi names each
 * "host:nN". Also the bad arguments (MPI_ERR_ARG).
 */
#include <unistd.h>
#include "mtest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "procname");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    char name[MPI_MAX_PROCESSOR_NAME], *all;
    int len = -1;
    memset(name, 0, sizeof name);
    MPI_OK(MPI_Get_processor_name(name, &len));
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME && (int)strlen(name) == len,
          "resultlen %d for \"%s\"", len, name);
    all = mt_malloc((size_t)mt_size * MPI_MAX_PROCESSOR_NAME);
    MPI_OK(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME,
                         MPI_CHAR, MPI_COMM_WORLD));
    /* who shares my node, by the library's own reckoning */
    MPI_Comm node;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nsize, *mine = mt_malloc((size_t)mt_size * sizeof *mine);
    MPI_OK(MPI_Comm_size(node, &nsize));
    /* world ranks on my node: translate the node group into world */
    MPI_Group gw, gn;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &gw));
    MPI_OK(MPI_Comm_group(node, &gn));
    int *idx = mt_malloc((size_t)nsize * sizeof *idx), *w = mt_malloc((size_t)nsize * sizeof *w);
    for (int i = 0; i < nsize; i++)
        idx[i] = i;
    MPI_OK(MPI_Group_translate_ranks(gn, nsize, idx, gw, w));
    for (int r = 0; r < mt_size; r++)
        mine[r] = 0;
    for (int i = 0; i < nsize; i++)
        mine[w[i]] = 1;
    for (int r = 0; r < mt_size; r++) {
        int same = strcmp(all + (size_t)r * MPI_MAX_PROCESSOR_NAME, name) == 0;
        CHECK(same == mine[r], "rank %d is %s my node but named \"%s\" (mine \"%s\")", r,
              mine[r] ? "on" : "off", all + (size_t)r * MPI_MAX_PROCESSOR_NAME, name);
    }
    if (nsize == mt_size) {
        /* one node: the host's own name */
        char host[MPI_MAX_PROCESSOR_NAME] = "";
        CHECK(gethostname(host, sizeof host) == 0, "gethostname failed");
        CHECK(strcmp(host, name) == 0, "one node, named \"%s\", host \"%s\"", name, host);
    }
    MPI_FAILS(MPI_ERR_ARG, MPI_Get_processor_name(NULL, &len));
    MPI_FAILS(MPI_ERR_ARG, MPI_Get_processor_name(name, NULL));
    MPI_OK(MPI_Group_free(&gw));
    MPI_OK(MPI_Group_free(&gn));
    MPI_OK(MPI_Comm_free(&node));
    free(all);
    free(mine);
    free(idx);
    free(w);
    return mt_finish();
}
