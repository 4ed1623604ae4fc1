/*
 * ni.c — host-versus-NI broadcast benchmark (Verstoep et al. §5.4 and §7.4).
 * Standard MPI only: the same source builds with any mpicc. The algorithm
 * is picked outside the program (with clumpi: CLUMPI_NET=agent|direct and
 * CLUMPI_COLL_BCAST / CLUMPI_COLL_ALLREDUCE, e.g. ni-binary or binomial);
 * bench/ni_run.sh runs the grid and bench/ni_plot.sh draws it.
 *
 * Patterns (-p, comma-separated; default all), root 0 unless said:
 *   lat        broadcast latency to the last receiver: for each receiver r
 *              the root times Bcast + a 0-byte ack from r (median of the
 *              rounds) and subtracts r's one-way ack latency (half the
 *              median of 0-byte ping-pongs taken in between); value = the
 *              largest over r (the last receiver), aux = the smallest (the
 *              first); 0 when noise made the ack look slower than both
 *   tput       throughput at the root: back-to-back broadcasts, then a
 *              0-byte ack from every receiver; value = us per broadcast
 *   asp        the same while receivers compute C us (+-J% jitter) after
 *              each broadcast and poll (MPI_Iprobe) only every X us, X = 0:
 *              never (Verstoep et al.'s ASP rows); value = us per row until every
 *              receiver is done, aux = us per row until the root's last
 *              MPI_Bcast returned (how long the root itself was held)
 *   qr         broadcast with a rotating root, Q us of work, then an 8-byte
 *              allreduce (Verstoep et al.'s QR); value = us per iteration (slowest
 *              rank), aux = the same minus Q
 *   allreduce  allreduce latency (sizes >= 8, doubles); value = slowest
 *              rank's average per call, aux = fastest rank's
 *
 * usage: ni [-p patterns] [-m MIN] [-M MAX] [-f FACTOR] [-s SCALE%]
 *           [-C compute_us] [-x poll_us,...] [-j jitter%] [-k sleep|spin]
 *           [-Q qr_compute_us] [-q] [-l LABEL] [-c CSV]
 *   sizes: MIN (1) to MAX (1 MiB) by FACTOR (2); -s scales iterations;
 *   -q: quick mode (sizes 16 B and 64 KiB, few iterations, a few seconds).
 *   -k sleep (default) computes by sleeping: with emulated nodes sharing
 *   two cores, spinning would also take the core the agent needs, which a
 *   real NI never loses to the host.
 * Output: a table on stdout; CSV rows appended to FILE (-c), header once.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include "bench_util.h"

enum { TAG_ACK = 7001, TAG_PING };

static int me, np;
static MPI_Comm world;

/* settings */
static double compute_us = 200, qr_us = 50, jitter = 0.5;
static int spin, scale = 100, quick;
static double polls[16];
static int npolls;

/* output */
static const char *label, *mpi_name, *net, *bcast_alg, *allred_alg;
static int nodes;
static FILE *csv;

static void die(int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "ni[%d]: %s failed: %s\n", me, what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(call) do { int rc_ = (call); if (rc_ != MPI_SUCCESS) die(rc_, #call); } while (0)

/* ---- receivers' work: compute, polling every poll_us (0: never) --------- */
static void pause_for(double sec)
{
    if (spin) {
        double end = MPI_Wtime() + sec;
        while (MPI_Wtime() < end)
            ;
    } else {
        struct timespec ts = { (time_t)sec, (long)((sec - (time_t)sec) * 1e9) };
        nanosleep(&ts, NULL);
    }
}

static void compute(double us, double poll_us)
{
    double end = MPI_Wtime() + us * 1e-6;
    for (double now = MPI_Wtime(); now < end; now = MPI_Wtime()) {
        double chunk = end - now;
        if (poll_us > 0 && chunk > poll_us * 1e-6)
            chunk = poll_us * 1e-6;
        pause_for(chunk);
        if (poll_us > 0) {
            int flag;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, world, &flag, MPI_STATUS_IGNORE);
        }
    }
}

/* A fixed pseudo-random factor in [1-J, 1+J] per (rank, row): receivers
 * drift apart as real ones do, the same way in every run. */
static double jit(int rank, int row)
{
    uint32_t h = (uint32_t)rank * 2654435761u ^ (uint32_t)row * 40503u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return 1.0 + jitter * (2.0 * (h / 4294967296.0) - 1.0);
}

/* ---- helpers ------------------------------------------------------------ */
static int iters_for(size_t size)
{
    int it = size <= 4096 ? 100 : size <= 65536 ? 30 : 6;
    it = it * scale / 100;
    return it < 2 ? 2 : it;
}

/* The collective under test returned an error at its first call (with
 * clumpi: an algorithm name this build lacks); every rank sees the same. */
static int unavailable(int rc, const char *pattern, const char *what)
{
    if (rc == MPI_SUCCESS)
        return 0;
    if (me == 0) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        printf("# %s skipped: %s failed: %s\n", pattern, what, msg);
    }
    return 1;
}

static void acks_to_root(void)
{
    if (me != 0) {
        CHECK(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ACK, world));
        return;
    }
    for (int r = 1; r < np; r++)
        CHECK(MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, TAG_ACK, world, MPI_STATUS_IGNORE));
}

static void report(const char *pattern, size_t bytes, double poll_us, double comp_us, int iters,
                   double value, double aux)
{
    if (me != 0)
        return;
    /* throughput only where back-to-back broadcasts ran; bytes/us = MB/s */
    int stream = !strcmp(pattern, "tput") || !strcmp(pattern, "asp");
    double mbps = stream && value > 0 ? (double)bytes / value : 0;
    printf("%-18s %-9s %5d %5d %9zu %6.0f %7.0f %6d %12.2f %12.2f %9.2f\n", label, pattern, np,
           nodes, bytes, poll_us, comp_us, iters, value, aux, mbps);
    fflush(stdout);
    if (csv) {
        fprintf(csv, "%s,%s,%s,%s,%s,%s,%d,%d,%d,%zu,%g,%g,%d,%.3f,%.3f,%.3f\n", mpi_name, label,
                net, bcast_alg, allred_alg, pattern, np, nodes, np / nodes, bytes, poll_us,
                comp_us, iters, value, aux, mbps);
        fflush(csv);
    }
}

/* ---- lat: latency to the last receiver ----------------------------------- */
/* Medians of single rounds, not means: on a loaded machine one descheduled
 * round of milliseconds would outweigh a hundred of 20 us. Each broadcast
 * round alternates with a 0-byte ping-pong between the root and r, so the
 * ack's one-way latency is taken under the same load. */
static double *rounds, *pings;  /* one measurement's round trips (s) */

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void ping(int r)
{
    if (me == 0) {
        CHECK(MPI_Send(NULL, 0, MPI_BYTE, r, TAG_PING, world));
        CHECK(MPI_Recv(NULL, 0, MPI_BYTE, r, TAG_PING, world, MPI_STATUS_IGNORE));
    } else if (me == r) {
        CHECK(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_PING, world, MPI_STATUS_IGNORE));
        CHECK(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_PING, world));
    }
}

static void pat_lat(char *buf, size_t size)
{
    int it = iters_for(size), warm = it / 10 + 1, n = (int)size;
    if (unavailable(MPI_Bcast(buf, n, MPI_BYTE, 0, world), "lat", "MPI_Bcast"))
        return;
    double worst = 0, best = 1e30;
    for (int r = 1; r < np; r++) {
        CHECK(MPI_Barrier(world));
        for (int i = 0; i < warm + it; i++) {
            double t0 = MPI_Wtime();
            ping(r);
            double t1 = MPI_Wtime();
            CHECK(MPI_Bcast(buf, n, MPI_BYTE, 0, world));
            if (me == 0)
                CHECK(MPI_Recv(NULL, 0, MPI_BYTE, r, TAG_ACK, world, MPI_STATUS_IGNORE));
            else if (me == r)
                CHECK(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ACK, world));
            if (i >= warm) {
                pings[i - warm] = t1 - t0;
                rounds[i - warm] = MPI_Wtime() - t1;
            }
        }
        if (me == 0) {
            double us = (median(rounds, it) - median(pings, it) / 2) * 1e6;
            us = us < 0 ? 0 : us;  /* noise: the broadcast beat the ack */
            worst = us > worst ? us : worst;
            best = us < best ? us : best;
        }
    }
    report("lat", size, 0, 0, it, worst, best);
}

/* ---- tput: back-to-back broadcasts, with or without computing receivers -- */
static void pat_stream(char *buf, size_t size, const char *pattern, double poll_us, double c_us)
{
    int n = (int)size, rows;
    if (c_us > 0) {
        rows = 40 * scale / 100;
    } else {
        size_t r = ((size_t)4 << 20) / (size ? size : 1);
        rows = (int)(r < 20 ? 20 : r > 400 ? 400 : r) * scale / 100;
    }
    rows = rows < 4 ? 4 : rows;
    if (unavailable(MPI_Bcast(buf, n, MPI_BYTE, 0, world), pattern, "MPI_Bcast"))
        return;
    for (int i = 0; i < 2; i++)
        CHECK(MPI_Bcast(buf, n, MPI_BYTE, 0, world));
    CHECK(MPI_Barrier(world));
    double t0 = MPI_Wtime(), issued = 0;
    for (int k = 0; k < rows; k++) {
        CHECK(MPI_Bcast(buf, n, MPI_BYTE, 0, world));
        if (me != 0 && c_us > 0)
            compute(c_us * jit(me, k), poll_us);
    }
    issued = MPI_Wtime() - t0;
    acks_to_root();
    double total = MPI_Wtime() - t0;
    report(pattern, size, poll_us, c_us, rows, total / rows * 1e6, issued / rows * 1e6);
}

/* ---- qr: rotating-root broadcast + small allreduce ---------------------- */
static void pat_qr(char *buf, size_t size)
{
    int n = (int)size, rounds = 40 * scale / 100 / np;
    rounds = rounds < 1 ? 1 : rounds;
    int it = rounds * np;  /* every rank roots equally often */
    double x = 1, y;
    if (unavailable(MPI_Bcast(buf, n, MPI_BYTE, 0, world), "qr", "MPI_Bcast") ||
        unavailable(MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, world), "qr", "MPI_Allreduce"))
        return;
    for (int root = 1; root < np; root++)  /* trees per root set up outside the timing */
        CHECK(MPI_Bcast(buf, n, MPI_BYTE, root, world));
    CHECK(MPI_Barrier(world));
    double t0 = MPI_Wtime();
    for (int i = 0; i < it; i++) {
        CHECK(MPI_Bcast(buf, n, MPI_BYTE, i % np, world));
        compute(qr_us, 0);
        CHECK(MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, world));
    }
    double us = (MPI_Wtime() - t0) / it * 1e6, mx;
    CHECK(MPI_Reduce(&us, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, world));
    report("qr", size, 0, qr_us, it, mx, mx - qr_us);
}

/* ---- allreduce latency -------------------------------------------------- */
static void pat_allreduce(char *a, char *b, size_t size)
{
    int it = iters_for(size), count = (int)(size / sizeof(double));
    if (count == 0)
        return;
    if (unavailable(MPI_Allreduce(a, b, count, MPI_DOUBLE, MPI_SUM, world), "allreduce",
                    "MPI_Allreduce"))
        return;
    for (int i = 0; i < it / 10 + 1; i++)
        CHECK(MPI_Allreduce(a, b, count, MPI_DOUBLE, MPI_SUM, world));
    CHECK(MPI_Barrier(world));
    double t0 = MPI_Wtime();
    for (int i = 0; i < it; i++)
        CHECK(MPI_Allreduce(a, b, count, MPI_DOUBLE, MPI_SUM, world));
    double us = (MPI_Wtime() - t0) / it * 1e6, mx, mn;
    CHECK(MPI_Reduce(&us, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, world));
    CHECK(MPI_Reduce(&us, &mn, 1, MPI_DOUBLE, MPI_MIN, 0, world));
    report("allreduce", size, 0, 0, it, mx, mn);
}

static int has(const char *list, const char *word)
{
    size_t w = strlen(word);
    for (const char *p = list; (p = strstr(p, word)); p += w)
        if ((p == list || p[-1] == ',') && (p[w] == ',' || p[w] == 0))
            return 1;
    return 0;
}

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v && *v ? v : dflt;
}

static void usage(const char *prog)
{
    if (me == 0)
        fprintf(stderr, "usage: %s [-p lat,tput,asp,qr,allreduce] [-m min] [-M max] [-f factor] "
                "[-s scale%%] [-C compute_us] [-x poll_us,...] [-j jitter%%] [-k sleep|spin] "
                "[-Q qr_compute_us] [-q] [-l label] [-c csv]\n", prog);
}

int main(int argc, char **argv)
{
    const char *patterns = "lat,tput,asp,qr,allreduce", *csvname = NULL, *xs = NULL;
    size_t lo = 1, hi = 1 << 20, factor = 2;
    int rc = MPI_Init(&argc, &argv);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "ni: MPI_Init failed (%d)\n", rc);
        return 1;
    }
    world = MPI_COMM_WORLD;
    MPI_Comm_rank(world, &me);
    MPI_Comm_size(world, &np);
    MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
    int c_set = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "-q")) { quick = 1; continue; }
        if (!v || o[0] != '-' || !o[1] || o[2]) { usage(argv[0]); MPI_Finalize(); return 2; }
        i++;
        switch (o[1]) {
        case 'p': patterns = v; break;
        case 'm': lo = strtoul(v, NULL, 0); break;
        case 'M': hi = strtoul(v, NULL, 0); break;
        case 'f': factor = strtoul(v, NULL, 0); break;
        case 's': scale = atoi(v); break;
        case 'C': compute_us = atof(v); c_set = 1; break;
        case 'x': xs = v; break;
        case 'j': jitter = atof(v) / 100; break;
        case 'k': spin = !strcmp(v, "spin"); break;
        case 'Q': qr_us = atof(v); break;
        case 'l': label = v; break;
        case 'c': csvname = v; break;
        default: usage(argv[0]); MPI_Finalize(); return 2;
        }
    }
    if (quick) {
        lo = 16, hi = 65536, factor = 4096, scale = 5;
        if (!c_set)
            compute_us = 50;
    }
    if (np < 2 || lo < 1 || hi < lo || factor < 2 || scale < 1 || compute_us < 0 ||
        jitter < 0 || jitter > 1 || hi > (1u << 30)) {
        if (me == 0)
            fprintf(stderr, "ni: needs 2+ ranks, 1 <= min <= max <= 1 GiB, factor >= 2, "
                    "scale >= 1, compute >= 0, jitter 0..100\n");
        MPI_Finalize();
        return 2;
    }
    char xbuf[256];
    snprintf(xbuf, sizeof xbuf, "%s", xs ? xs : "0,50");
    for (char *t = strtok(xbuf, ","); t && npolls < 16; t = strtok(NULL, ","))
        polls[npolls++] = atof(t);
#ifdef __linux__
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);  /* sleeps as short as asked (default slack 50 us) */
#endif

    mpi_name = bench_mpi_label();
    int clumpi = !strcmp(mpi_name, "clumpi");
    net = clumpi ? env_or("CLUMPI_NET", "direct") : "-";
    bcast_alg = clumpi ? env_or("CLUMPI_COLL_BCAST", "default") : "default";
    allred_alg = clumpi ? env_or("CLUMPI_COLL_ALLREDUCE", "default") : "default";
    if (!label)
        label = mpi_name;
    nodes = bench_nodes(world);
    if (me == 0 && csvname) {
        if (!(csv = fopen(csvname, "a"))) {
            perror(csvname);
            MPI_Abort(world, 1);
        }
        if (ftell(csv) == 0)
            fprintf(csv, "mpi,label,net,bcast,allreduce,pattern,ranks,nodes,ppn,bytes,poll_us,"
                    "compute_us,iters,value_us,aux_us,mbps\n");
    }
    if (me == 0)
        printf("# %s: net %s, bcast %s, allreduce %s, %d ranks on %d node(s); compute %s\n"
               "%-18s %-9s %5s %5s %9s %6s %7s %6s %12s %12s %9s\n", label, net, bcast_alg,
               allred_alg, np, nodes, spin ? "spins" : "sleeps", "label", "pattern", "ranks",
               "nodes", "bytes", "poll", "compute", "iters", "value(us)", "aux(us)", "MB/s");

    char *a = malloc(hi), *b = malloc(hi);
    rounds = calloc((size_t)iters_for(1), sizeof *rounds);  /* iters_for is largest at 1 */
    pings = calloc((size_t)iters_for(1), sizeof *pings);
    if (!a || !b || !rounds || !pings) {
        fprintf(stderr, "ni: out of memory\n");
        MPI_Abort(world, 1);
    }
    memset(a, 1, hi);
    memset(b, 0, hi);
    for (size_t size = lo; size <= hi; size *= factor) {
        if (has(patterns, "lat"))
            pat_lat(a, size);
        if (has(patterns, "tput"))
            pat_stream(a, size, "tput", 0, 0);
        if (has(patterns, "asp"))
            for (int k = 0; k < npolls; k++)
                pat_stream(a, size, "asp", polls[k], compute_us);
        if (has(patterns, "qr"))
            pat_qr(a, size);
        if (has(patterns, "allreduce"))
            pat_allreduce(a, b, size);
    }
    if (csv)
        fclose(csv);
    free(a);
    free(b);
    free(rounds);
    free(pings);
    MPI_Finalize();
    return 0;
}
