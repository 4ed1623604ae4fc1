/* np: 1 2 3 5 8
 *
 * cxx.cxx — a C++ program against mpi.h, built by the C++ compiler as
 * mpicxx builds: point-to-point with status checks (source, tag, count,
 * ANY_SOURCE), collectives into std::vector with MPI_IN_PLACE, a derived
 * type over an array of structs, a Cartesian communicator, one-sided
 * put with fence, strings (processor name, error string) and an error
 * class from a bad rank, each against a reference computed here.
 */
#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>
#include "mtest.h"

namespace {

struct particle {
    double x, y;
    int id;
};

template <typename T> MPI_Datatype mpi_type();
template <> MPI_Datatype mpi_type<int>() { return MPI_INT; }
template <> MPI_Datatype mpi_type<double>() { return MPI_DOUBLE; }

// Ring exchange of n values of T: checks the status of every receive.
template <typename T> void ring(int n)
{
    const int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    std::vector<T> out(n), in(n, T(-1));
    for (int i = 0; i < n; i++)
        out[i] = T(mt_rank * 1000 + i);
    MPI_Request rq;
    MPI_OK(MPI_Irecv(in.data(), n, mpi_type<T>(), MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Send(out.data(), n, mpi_type<T>(), next, 7, MPI_COMM_WORLD));
    MPI_Status st;
    MPI_OK(MPI_Wait(&rq, &st));
    int count = -1;
    MPI_OK(MPI_Get_count(&st, mpi_type<T>(), &count));
    CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 7 && count == n,
          "status source %d tag %d count %d, expected %d 7 %d", st.MPI_SOURCE, st.MPI_TAG,
          count, prev, n);
    for (int i = 0; i < n; i++)
        CHECK(in[i] == T(prev * 1000 + i), "element %d from %d wrong", i, prev);
}

void collectives()
{
    // allreduce in place: sum of ranks, for several counts
    for (int n : {0, 1, 7, 1000}) {
        std::vector<int> v(n, mt_rank + 1);
        MPI_OK(MPI_Allreduce(MPI_IN_PLACE, v.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        const int want = mt_size * (mt_size + 1) / 2;
        CHECK(std::all_of(v.begin(), v.end(), [&](int x) { return x == want; }),
              "allreduce of %d ints: not %d", n, want);
    }
    // allgather of doubles
    std::vector<double> all(mt_size);
    double mine = 0.5 * mt_rank;
    MPI_OK(MPI_Allgather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD));
    for (int r = 0; r < mt_size; r++)
        CHECK(all[r] == 0.5 * r, "allgather[%d] = %g", r, all[r]);
    // bcast of a std::string's bytes from the last rank
    std::string s = mt_rank == mt_size - 1 ? "from the last rank" : std::string(18, '?');
    MPI_OK(MPI_Bcast(&s[0], static_cast<int>(s.size()), MPI_CHAR, mt_size - 1, MPI_COMM_WORLD));
    CHECK(s == "from the last rank", "bcast gave \"%s\"", s.c_str());
}

void derived()
{
    // the x members of an array of structs, as one vector type
    const int n = 5;
    std::vector<particle> p(n);
    MPI_Datatype xs;
    MPI_OK(MPI_Type_vector(n, 1, sizeof(particle) / sizeof(double), MPI_DOUBLE, &xs));
    MPI_OK(MPI_Type_commit(&xs));
    if (mt_rank == 0)
        for (int i = 0; i < n; i++)
            p[i] = particle{i + 0.25, -1.0, i};
    MPI_OK(MPI_Bcast(&p[0].x, 1, xs, 0, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        CHECK(p[i].x == i + 0.25 && (mt_rank == 0 || (p[i].y == 0.0 && p[i].id == 0)),
              "particle %d: x %g y %g id %d", i, p[i].x, p[i].y, p[i].id);
    MPI_OK(MPI_Type_free(&xs));
}

void topology()
{
    int dims[2] = {0, 0}, periods[2] = {1, 0}, coords[2];
    MPI_OK(MPI_Dims_create(mt_size, 2, dims));
    CHECK(dims[0] * dims[1] == mt_size, "dims %d x %d", dims[0], dims[1]);
    MPI_Comm cart;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    MPI_OK(MPI_Cart_coords(cart, mt_rank, 2, coords));
    CHECK(coords[0] * dims[1] + coords[1] == mt_rank, "coords (%d,%d)", coords[0], coords[1]);
    int src, dst;
    MPI_OK(MPI_Cart_shift(cart, 0, 1, &src, &dst));
    CHECK(dst == ((coords[0] + 1) % dims[0]) * dims[1] + coords[1], "shift dest %d", dst);
    MPI_OK(MPI_Comm_free(&cart));
}

void onesided()
{
    std::vector<int> buf(mt_size, -1);
    MPI_Win win;
    MPI_OK(MPI_Win_create(buf.data(), mt_size * sizeof(int), sizeof(int), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int r = 0; r < mt_size; r++)
        MPI_OK(MPI_Put(&mt_rank, 1, MPI_INT, r, mt_rank, 1, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    std::vector<int> want(mt_size);
    std::iota(want.begin(), want.end(), 0);
    CHECK(buf == want, "window after puts wrong");
    MPI_OK(MPI_Win_free(&win));
}

void strings()
{
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = -1;
    MPI_OK(MPI_Get_processor_name(name, &len));
    CHECK(len > 0 && static_cast<int>(std::strlen(name)) == len, "processor name length %d", len);
    char msg[MPI_MAX_ERROR_STRING];
    MPI_OK(MPI_Error_string(MPI_ERR_RANK, msg, &len));
    CHECK(len > 0 && std::string(msg).find("rank") != std::string::npos,
          "error string of MPI_ERR_RANK: \"%s\"", msg);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int x = 0;
    MPI_FAILS(MPI_ERR_RANK, MPI_Send(&x, 1, MPI_INT, mt_size, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

} // namespace

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "cxx");
    ring<int>(1);
    ring<int>(4097);
    ring<double>(3);
    collectives();
    derived();
    topology();
    onesided();
    strings();
    return mt_finish();
}
