/*
 * errors.c — bad arguments detectable locally give an error (with
 * MPI_ERRORS_RETURN) rather than a hang or silent corruption: invalid
 * roots, negative counts, MPI_IN_PLACE where the standard forbids it,
 * send and receive buffers that alias, own blocks whose sizes differ, NULL
 * count arrays, reductions' count, type, op and buffers in that order. Under clumpi the error classes are checked too, and with
 * CLUMPI_COLL_BCAST=bogus an unknown algorithm name is MPI_ERR_ARG with a
 * message listing the valid names.
 */
#include "ctest.h"

static int is_clumpi;

static void expect(int rc, int cls, const char *what)
{
    CT_CHECK(rc != MPI_SUCCESS, "%s: succeeded", what);
    int got;
    MPI_Error_class(rc, &got);
    if (is_clumpi)
        CT_CHECK(got == cls, "%s: error class %d, want %d", what, got, cls);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv, "errors");
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len, me = ct_wrank, p = ct_wsize;
    MPI_Get_library_version(lib, &len);
    is_clumpi = strstr(lib, "clumpi") != NULL;
    MPI_Comm comm = MPI_COMM_WORLD;
    int a[64] = { 0 }, b[64 * 16] = { 0 }, cnt[64], dis[64];
    for (int i = 0; i < 64; i++)
        cnt[i] = 1, dis[i] = i;

    const char *bogus = getenv("CLUMPI_COLL_BCAST");
    if (is_clumpi && bogus && strcmp(bogus, "bogus") == 0) {
        int rc = MPI_Bcast(a, 1, MPI_INT, 0, comm);
        expect(rc, MPI_ERR_ARG, "bcast with CLUMPI_COLL_BCAST=bogus");
        char s[MPI_MAX_ERROR_STRING];
        MPI_Error_string(rc, s, &len);
        CT_CHECK(strstr(s, "bogus") && strstr(s, "binomial") && strstr(s, "scatter_allgather"),
                 "message does not name the valid algorithms: %s", s);
        return ct_finish();
    }

    /* every rank makes the same local error, so nobody waits for a peer */
    expect(MPI_Bcast(a, 1, MPI_INT, p, comm), MPI_ERR_ROOT, "bcast root = size");
    expect(MPI_Bcast(a, 1, MPI_INT, -1, comm), MPI_ERR_ROOT, "bcast root -1");
    expect(MPI_Bcast(a, -1, MPI_INT, 0, comm), MPI_ERR_COUNT, "bcast count -1");
    expect(MPI_Bcast(a, 1, MPI_DATATYPE_NULL, 0, comm), MPI_ERR_TYPE, "bcast null type");
    expect(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, comm), MPI_ERR_BUFFER, "bcast in place");
    expect(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "barrier on MPI_COMM_NULL");
    expect(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, p, comm), MPI_ERR_ROOT, "gather root");
    expect(MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_INT, -2, comm), MPI_ERR_ROOT, "scatter root");
    if (!is_clumpi)   /* the rest is not detected everywhere (Open MPI) */
        goto done;
    expect(MPI_Allgather(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, comm), MPI_ERR_BUFFER,
           "allgather recvbuf in place");
    expect(MPI_Alltoall(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, comm), MPI_ERR_BUFFER,
           "alltoall recvbuf in place");
    expect(MPI_Allgather(b, 1, MPI_INT, b, 1, MPI_INT, comm), MPI_ERR_BUFFER,
           "allgather sendbuf == recvbuf");
    expect(MPI_Alltoall(b, 1, MPI_INT, b, 1, MPI_INT, comm), MPI_ERR_BUFFER,
           "alltoall sendbuf == recvbuf");
    expect(MPI_Allgather(a, 2, MPI_INT, b, 1, MPI_INT, comm), MPI_ERR_TRUNCATE,
           "allgather sends more than it receives");
    expect(MPI_Alltoall(a, 1, MPI_INT, b, -1, MPI_INT, comm), MPI_ERR_COUNT,
           "alltoall recvcount -1");
    expect(MPI_Alltoallv(a, NULL, dis, MPI_INT, b, cnt, dis, MPI_INT, comm), MPI_ERR_ARG,
           "alltoallv sendcounts NULL");
    cnt[0] = -1;
    expect(MPI_Allgatherv(a, 1, MPI_INT, b, cnt, dis, MPI_INT, comm), MPI_ERR_COUNT,
           "allgatherv recvcounts[0] -1");
    cnt[0] = 1;
    /* reductions: count, type, op, buffers, in that order of precedence */
    MPI_Datatype loose;
    MPI_Type_contiguous(2, MPI_INT, &loose);   /* never committed */
    expect(MPI_Allreduce(a, b, -1, MPI_INT, MPI_SUM, comm), MPI_ERR_COUNT, "allreduce count -1");
    expect(MPI_Allreduce(a, b, -1, MPI_DATATYPE_NULL, MPI_OP_NULL, comm), MPI_ERR_COUNT,
           "allreduce count -1 before the type");
    expect(MPI_Allreduce(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, comm), MPI_ERR_TYPE,
           "allreduce null type");
    expect(MPI_Allreduce(a, b, 1, loose, MPI_SUM, comm), MPI_ERR_TYPE,
           "allreduce uncommitted type");
    expect(MPI_Allreduce(a, b, 1, MPI_DATATYPE_NULL, MPI_OP_NULL, comm), MPI_ERR_TYPE,
           "allreduce type before the op");
    expect(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, comm), MPI_ERR_OP, "allreduce null op");
    expect(MPI_Allreduce(a, b, 1, MPI_BYTE, MPI_SUM, comm), MPI_ERR_OP, "allreduce sum of bytes");
    expect(MPI_Allreduce(NULL, NULL, 1, MPI_INT, MPI_OP_NULL, comm), MPI_ERR_OP,
           "allreduce op before the buffers");
    expect(MPI_Allreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER,
           "allreduce recvbuf in place");
    expect(MPI_Allreduce(NULL, b, 1, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER,
           "allreduce sendbuf NULL");
    expect(MPI_Allreduce(a, NULL, 1, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER,
           "allreduce recvbuf NULL");
    expect(MPI_Allreduce(b, b, 1, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER,
           "allreduce sendbuf == recvbuf");
    expect(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, p, comm), MPI_ERR_ROOT, "reduce root = size");
    if (me != 0)   /* rank 0, the root, is not called: it would wait */
        expect(MPI_Reduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, 0, comm), MPI_ERR_BUFFER,
               "reduce sendbuf in place off the root");
    if (me != 0) {
        expect(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, 0, comm), MPI_ERR_BUFFER,
               "gather sendbuf in place off the root");
        expect(MPI_Scatter(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, comm), MPI_ERR_BUFFER,
               "scatter recvbuf in place off the root");
        expect(MPI_Gather(a, 1, loose, b, 1, MPI_INT, 0, comm), MPI_ERR_TYPE,
               "gather uncommitted sendtype off the root");
    }
    MPI_Type_free(&loose);
    /* off the root recvbuf is not significant: the same as sendbuf, or NULL */
    a[0] = me + 1;
    CT_OK(MPI_Reduce(a, me ? (void *)a : (void *)b, 1, MPI_INT, MPI_SUM, 0, comm));
    CT_CHECK(me != 0 || b[0] == p * (p + 1) / 2, "reduce: %d, want %d", b[0], p * (p + 1) / 2);
    CT_OK(MPI_Reduce(a, me ? NULL : (void *)b, 1, MPI_INT, MPI_SUM, 0, comm));
    CT_OK(MPI_Allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, comm));
    /* errors only the root detects: on MPI_COMM_SELF, where every rank is
     * the root (elsewhere the other ranks would wait for it) */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    expect(MPI_Gather(b, 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_BUFFER,
           "gather sendbuf == recvbuf at the root");
    expect(MPI_Scatter(b, 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_BUFFER,
           "scatter sendbuf == recvbuf at the root");
    expect(MPI_Gather(a, 2, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_TRUNCATE,
           "gather: root sends more than it receives");
    expect(MPI_Scatter(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_SELF),
           MPI_ERR_BUFFER, "scatter sendbuf in place at the root");
    expect(MPI_Gatherv(a, 1, MPI_INT, b, NULL, dis, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_ARG,
           "gatherv recvcounts NULL at the root");
    expect(MPI_Reduce(b, b, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_SELF), MPI_ERR_BUFFER,
           "reduce sendbuf == recvbuf at the root");
    expect(MPI_Reduce(a, NULL, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_SELF), MPI_ERR_BUFFER,
           "reduce recvbuf NULL at the root");
    expect(MPI_Reduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_SELF), MPI_ERR_BUFFER,
           "reduce recvbuf in place at the root");
    b[0] = 5;
    CT_OK(MPI_Reduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_SELF));
    CT_CHECK(b[0] == 5, "reduce in place on one rank: %d", b[0]);
done:
    /* the communicator still works after all that */
    a[0] = me == 0 ? 42 : 0;
    CT_OK(MPI_Bcast(a, 1, MPI_INT, 0, comm));
    CT_CHECK(a[0] == 42, "bcast after errors: %d", a[0]);
    return ct_finish();
}
