/* np: 2
 * env: CLUMPI_EAGER_LIMIT=0
 * env: CLUMPI_NO_RMA=1
 * env: CLUMPI_SHM_QUEUE_CELLS=4 CLUMPI_SHM_CTRL_CELLS=4 CLUMPI_SHM_FRAGS=2
 * (env: extra runs with clumpi's protocol variants; other MPIs ignore them)
 *
 * Derived datatypes across ranks: vector, hvector, indexed, indexed_block,
 * hindexed, struct (with a resized extent), subarray and contiguous-of-vector
 * sent to contiguous receives and the reverse; a type on both sides with a
 * different shape; large non-contiguous messages (16 MiB strided); holes in a
 * non-contiguous receive buffer stay untouched; Get_count / Get_elements.
 */
#include "mtest.h"

#define HOLE -12345.0

typedef struct {
    int i;
    double d;
    char c[3];
} rec_t;

/* Send `scount` of stype from a source laid out by fill(), receive `rcount`
 * of rtype; check against the element sequence. Every datatype here is built
 * from doubles whose values are their index in the source array. */
static void exchange(const char *what, MPI_Datatype stype, int scount, size_t slen,
                     MPI_Datatype rtype, int rcount, size_t rlen, const double *expect,
                     int nexpect)
{
    if (mt_rank == 0) {
        double *s = mt_malloc(sizeof(double) * slen);
        for (size_t i = 0; i < slen; i++)
            s[i] = (double)i;
        MPI_OK(MPI_Send(s, scount, stype, 1, 0, MPI_COMM_WORLD));
        free(s);
    } else if (mt_rank == 1) {
        double *r = mt_malloc(sizeof(double) * rlen);
        for (size_t i = 0; i < rlen; i++)
            r[i] = HOLE;
        MPI_Status st;
        MPI_OK(MPI_Recv(r, rcount, rtype, 0, 0, MPI_COMM_WORLD, &st));
        for (size_t i = 0; i < rlen; i++)
            CHECK(r[i] == expect[i], "%s: receive element %zu is %g, expected %g", what, i, r[i],
                  expect[i]);
        int elems;
        MPI_OK(MPI_Get_elements(&st, MPI_DOUBLE, &elems));
        CHECK(elems == nexpect, "%s: Get_elements(MPI_DOUBLE) %d, expected %d", what, elems, nexpect);
        free(r);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "dtype");
    if (mt_rank > 1)
        return mt_finish();

    /* 1. column of a 64x64 matrix (vector) -> contiguous, and back */
    {
        const int N = 64;
        MPI_Datatype col;
        MPI_OK(MPI_Type_vector(N, 1, N, MPI_DOUBLE, &col));
        MPI_OK(MPI_Type_commit(&col));
        double *e = mt_malloc(sizeof(double) * N * N);
        for (int i = 0; i < N; i++)
            e[i] = (double)(i * N + 3); /* column 3 */
        /* send column 3: the send buffer starts at element 3 */
        if (mt_rank == 0) {
            double *s = mt_malloc(sizeof(double) * N * N);
            for (int i = 0; i < N * N; i++)
                s[i] = i;
            MPI_OK(MPI_Send(s + 3, 1, col, 1, 0, MPI_COMM_WORLD));
            MPI_OK(MPI_Send(s, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD));
            free(s);
        } else {
            double r[64];
            int count;
            MPI_Status st;
            MPI_OK(MPI_Recv(r, N, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &st));
            for (int i = 0; i < N; i++)
                CHECK(r[i] == e[i], "column: element %d is %g", i, r[i]);
            MPI_OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
            CHECK(count == N, "column: count %d", count);
            /* contiguous row -> column of a matrix; other columns untouched */
            double *m = mt_malloc(sizeof(double) * N * N);
            for (int i = 0; i < N * N; i++)
                m[i] = HOLE;
            MPI_OK(MPI_Recv(m + 5, 1, col, 0, 1, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, col, &count));
            CHECK(count == 1, "into column: Get_count(col) %d", count);
            for (int i = 0; i < N * N; i++) {
                double want = (i % N == 5) ? (double)(i / N) : HOLE;
                CHECK(m[i] == want, "into column: element %d is %g, expected %g", i, m[i], want);
            }
            free(m);
        }
        free(e);
        MPI_OK(MPI_Type_free(&col));
    }

    /* 2. indexed (lower triangle of 16x16) -> contiguous; contiguous -> indexed */
    {
        const int N = 16;
        int bl[16], dis[16];
        for (int i = 0; i < N; i++) {
            bl[i] = i + 1;
            dis[i] = i * N;
        }
        MPI_Datatype tri;
        MPI_OK(MPI_Type_indexed(N, bl, dis, MPI_DOUBLE, &tri));
        MPI_OK(MPI_Type_commit(&tri));
        int ne = N * (N + 1) / 2;
        double e[136], e2[256];
        for (int i = 0, k = 0; i < N; i++)
            for (int j = 0; j <= i; j++)
                e[k++] = i * N + j;
        exchange("triangle->contig", tri, 1, N * N, MPI_DOUBLE, ne, ne, e, ne);
        for (int i = 0; i < N * N; i++)
            e2[i] = HOLE;
        for (int i = 0, k = 0; i < N; i++)
            for (int j = 0; j <= i; j++)
                e2[i * N + j] = k++;
        exchange("contig->triangle", MPI_DOUBLE, ne, ne, tri, 1, N * N, e2, ne);
        MPI_OK(MPI_Type_free(&tri));
    }

    /* 3. indexed_block and hindexed on both sides with different shapes */
    {
        int dis[4] = {10, 0, 30, 20};
        MPI_Datatype ib, hi;
        MPI_OK(MPI_Type_create_indexed_block(4, 3, dis, MPI_DOUBLE, &ib)); /* 12 doubles */
        MPI_Aint hd[3] = {0, 8 * 8, 20 * 8};
        int hbl[3] = {5, 3, 4};
        MPI_OK(MPI_Type_create_hindexed(3, hbl, hd, MPI_DOUBLE, &hi)); /* 12 doubles */
        MPI_OK(MPI_Type_commit(&ib));
        MPI_OK(MPI_Type_commit(&hi));
        double seq[12], e[40];
        int k = 0;
        for (int b = 0; b < 4; b++)
            for (int j = 0; j < 3; j++)
                seq[k++] = dis[b] + j;
        for (int i = 0; i < 40; i++)
            e[i] = HOLE;
        k = 0;
        for (int b = 0; b < 3; b++)
            for (int j = 0; j < hbl[b]; j++)
                e[hd[b] / 8 + j] = seq[k++];
        exchange("indexed_block->hindexed", ib, 1, 40, hi, 1, 40, e, 12);
        MPI_OK(MPI_Type_free(&ib));
        MPI_OK(MPI_Type_free(&hi));
    }

    /* 4. struct array with resized extent -> packed ints/doubles/chars */
    {
        rec_t recs[100];
        MPI_Datatype st0, rec;
        int bl[3] = {1, 1, 3};
        MPI_Aint d[3], base;
        MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
        MPI_OK(MPI_Get_address(&recs[0], &base));
        MPI_OK(MPI_Get_address(&recs[0].i, &d[0]));
        MPI_OK(MPI_Get_address(&recs[0].d, &d[1]));
        MPI_OK(MPI_Get_address(&recs[0].c, &d[2]));
        for (int i = 0; i < 3; i++)
            d[i] -= base;
        MPI_OK(MPI_Type_create_struct(3, bl, d, ty, &st0));
        MPI_OK(MPI_Type_create_resized(st0, 0, sizeof(rec_t), &rec));
        MPI_OK(MPI_Type_commit(&rec));
        MPI_Aint lb, ext;
        MPI_OK(MPI_Type_get_extent(rec, &lb, &ext));
        CHECK(lb == 0 && ext == (MPI_Aint)sizeof(rec_t), "struct extent %ld/%ld", (long)lb, (long)ext);
        int tsize;
        MPI_OK(MPI_Type_size(rec, &tsize));
        CHECK(tsize == (int)(sizeof(int) + sizeof(double) + 3), "struct size %d", tsize);
        if (mt_rank == 0) {
            for (int i = 0; i < 100; i++) {
                recs[i].i = i;
                recs[i].d = i * 0.5;
                recs[i].c[0] = (char)('a' + i % 26);
                recs[i].c[1] = (char)i;
                recs[i].c[2] = (char)(i * 3);
            }
            MPI_OK(MPI_Send(recs, 100, rec, 1, 4, MPI_COMM_WORLD));
            MPI_OK(MPI_Send(recs, 100, rec, 1, 5, MPI_COMM_WORLD));
        } else {
            /* as a byte stream: Pack of the same data must equal it */
            char packed[100 * 15];
            MPI_Status s;
            int count;
            MPI_OK(MPI_Recv(packed, (int)sizeof packed, MPI_PACKED, 0, 4, MPI_COMM_WORLD, &s));
            MPI_OK(MPI_Get_count(&s, MPI_PACKED, &count));
            CHECK(count == 100 * tsize, "struct as packed: %d bytes", count);
            rec_t back[100];
            memset(back, 0, sizeof back);
            int pos = 0;
            MPI_OK(MPI_Unpack(packed, count, &pos, back, 100, rec, MPI_COMM_WORLD));
            for (int i = 0; i < 100; i++)
                CHECK(back[i].i == i && back[i].d == i * 0.5 && back[i].c[0] == 'a' + i % 26 &&
                      back[i].c[1] == (char)i && back[i].c[2] == (char)(i * 3),
                      "struct record %d wrong after Unpack", i);
            /* straight into structs */
            memset(back, 0, sizeof back);
            MPI_OK(MPI_Recv(back, 100, rec, 0, 5, MPI_COMM_WORLD, &s));
            MPI_OK(MPI_Get_count(&s, rec, &count));
            CHECK(count == 100, "struct Get_count %d", count);
            MPI_OK(MPI_Get_elements(&s, rec, &count));
            CHECK(count == 500, "struct Get_elements %d (basic elements, expected 500)", count);
            for (int i = 0; i < 100; i++)
                CHECK(back[i].i == i && back[i].d == i * 0.5 && back[i].c[2] == (char)(i * 3),
                      "struct record %d wrong", i);
        }
        /* Status_set_elements: 7 basic elements of {int, double, char[3]} are
         * one record (15 bytes) plus an int and a double: 27 bytes, not a
         * whole record; 3 elements end inside the char array. */
        {
            MPI_Status s;
            int n;
            MPI_OK(MPI_Status_set_elements(&s, rec, 7));
            MPI_OK(MPI_Get_elements(&s, rec, &n));
            CHECK(n == 7, "Status_set_elements(rec, 7): Get_elements %d", n);
            MPI_OK(MPI_Get_count(&s, rec, &n));
            CHECK(n == MPI_UNDEFINED, "Status_set_elements(rec, 7): Get_count %d", n);
            MPI_OK(MPI_Get_elements(&s, MPI_BYTE, &n));
            CHECK(n == 27, "Status_set_elements(rec, 7): %d bytes, expected 27", n);
            MPI_OK(MPI_Status_set_elements(&s, rec, 3));
            MPI_OK(MPI_Get_elements(&s, MPI_BYTE, &n));
            CHECK(n == 13, "Status_set_elements(rec, 3): %d bytes, expected 13", n);
            MPI_OK(MPI_Status_set_elements(&s, rec, 200));
            MPI_OK(MPI_Get_count(&s, rec, &n));
            CHECK(n == 40, "Status_set_elements(rec, 200): Get_count %d", n);
        }
        MPI_OK(MPI_Type_free(&st0));
        MPI_OK(MPI_Type_free(&rec));
    }

    /* 5. subarray: a 6x5x4 block at (2,1,3) of a 10x8x9 array <-> contiguous */
    {
        int sizes[3] = {10, 8, 9}, sub[3] = {6, 5, 4}, start[3] = {2, 1, 3};
        MPI_Datatype sa;
        MPI_OK(MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &sa));
        MPI_OK(MPI_Type_commit(&sa));
        int n = 6 * 5 * 4, tot = 10 * 8 * 9;
        double *e = mt_malloc(sizeof(double) * (size_t)tot);
        int k = 0;
        for (int a = 0; a < 6; a++)
            for (int b = 0; b < 5; b++)
                for (int c = 0; c < 4; c++)
                    e[k++] = ((a + 2) * 8 + (b + 1)) * 9 + (c + 3);
        exchange("subarray->contig", sa, 1, (size_t)tot, MPI_DOUBLE, n, (size_t)n, e, n);
        for (int i = 0; i < tot; i++)
            e[i] = HOLE;
        k = 0;
        for (int a = 0; a < 6; a++)
            for (int b = 0; b < 5; b++)
                for (int c = 0; c < 4; c++)
                    e[((a + 2) * 8 + (b + 1)) * 9 + (c + 3)] = k++;
        exchange("contig->subarray", MPI_DOUBLE, n, (size_t)n, sa, 1, (size_t)tot, e, n);
        free(e);
        MPI_OK(MPI_Type_free(&sa));
    }

    /* 6. large: 2M doubles at stride 2 (32 MiB span, 16 MiB of data) as a
     * contiguous-of-hvector, into contiguous and into a stride-3 vector */
    {
        const int cnt = 1 << 21;
        MPI_Datatype hv, big, v3;
        MPI_OK(MPI_Type_create_hvector(1024, 1, 2 * sizeof(double), MPI_DOUBLE, &hv));
        MPI_OK(MPI_Type_contiguous(cnt / 1024, hv, &big));
        MPI_OK(MPI_Type_commit(&big));
        MPI_OK(MPI_Type_vector(cnt, 1, 3, MPI_DOUBLE, &v3));
        MPI_OK(MPI_Type_commit(&v3));
        MPI_Aint lb, ext;
        MPI_OK(MPI_Type_get_extent(hv, &lb, &ext));
        CHECK(ext == (MPI_Aint)(2 * 1023 + 1) * 8, "hvector extent %ld", (long)ext);
        /* The contiguous type repeats at hv's extent (2047 doubles), so
         * element j of block b sits at b*2047 + 2j. */
        if (mt_rank == 0) {
            size_t span = (size_t)(cnt / 1024) * 2047;
            double *s = mt_malloc(sizeof(double) * span);
            for (size_t i = 0; i < span; i++)
                s[i] = (double)i;
            MPI_OK(MPI_Send(s, 1, big, 1, 6, MPI_COMM_WORLD));
            MPI_OK(MPI_Send(s, 1, big, 1, 7, MPI_COMM_WORLD));
            free(s);
        } else {
            double *r = mt_malloc(sizeof(double) * (size_t)cnt * 3);
            MPI_OK(MPI_Recv(r, cnt, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int i = 0; i < cnt; i++) {
                double want = (double)((i / 1024) * 2047 + 2 * (i % 1024));
                CHECK(r[i] == want, "large strided -> contig: element %d is %g, expected %g", i,
                      r[i], want);
            }
            for (size_t i = 0; i < (size_t)cnt * 3; i++)
                r[i] = HOLE;
            MPI_OK(MPI_Recv(r, 1, v3, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (size_t i = 0; i < (size_t)cnt * 3; i++) {
                size_t j = i / 3;
                double want = i % 3 ? HOLE : (double)((j / 1024) * 2047 + 2 * (j % 1024));
                CHECK(r[i] == want, "large strided -> stride 3: element %zu is %g, expected %g", i,
                      r[i], want);
            }
            free(r);
        }
        MPI_OK(MPI_Type_free(&hv));
        MPI_OK(MPI_Type_free(&big));
        MPI_OK(MPI_Type_free(&v3));
    }

    /* 7. a freed type whose message is still in flight: Isend, free, Wait */
    {
        MPI_Datatype v;
        MPI_OK(MPI_Type_vector(1000, 1, 4, MPI_INT, &v));
        MPI_OK(MPI_Type_commit(&v));
        if (mt_rank == 0) {
            int *s = mt_malloc(sizeof(int) * 4000);
            for (int i = 0; i < 4000; i++)
                s[i] = i;
            MPI_Request rq;
            MPI_OK(MPI_Isend(s, 1, v, 1, 8, MPI_COMM_WORLD, &rq));
            MPI_OK(MPI_Type_free(&v));
            CHECK(v == MPI_DATATYPE_NULL, "Type_free did not set MPI_DATATYPE_NULL");
            MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            free(s);
        } else {
            int r[1000];
            MPI_OK(MPI_Recv(r, 1000, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int i = 0; i < 1000; i++)
                CHECK(r[i] == 4 * i, "freed type in flight: element %d is %d", i, r[i]);
            MPI_OK(MPI_Type_free(&v));
        }
    }
    return mt_finish();
}
