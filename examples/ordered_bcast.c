/* np: 1 3 4
 *
 * ordered_bcast — a totally ordered broadcast, as Panda/Orca built it on
 * LCI (Verstoep et al. §4.3, §7): to broadcast an update, a rank takes the next
 * global sequence number from a shared counter (MPIX_Counter, a
 * fetch-and-add held by the NI agent of rank 0's node in offload mode,
 * so rank 0 never has to answer it) and sends the update, stamped, to
 * every rank; receivers apply updates strictly in sequence order, holding
 * early ones back. Every rank keeps a replica of one object (a running
 * hash that depends on the order of updates); at the end all replicas must
 * be equal and every sequence number used exactly once.
 *
 *   mpicc examples/ordered_bcast.c -o ordered_bcast
 *   mpirun -n 8 --nodes 4 -x CLUMPI_NET=agent ./ordered_bcast [updates-per-rank]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { TAG = 7 };
typedef struct { long long seq; int from, value; } update;

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int k = argc > 1 ? atoi(argv[1]) : 50;
    long long total = (long long)k * size;

    MPIX_Counter seqno;
    MPIX_Counter_create(MPI_COMM_WORLD, 0, 0, &seqno);

    update *held = calloc((size_t)total, sizeof *held);   /* by sequence number */
    char *have = calloc((size_t)total, 1);
    MPI_Request *sends = malloc(sizeof *sends * (size_t)size * (size_t)k);
    update *mine = malloc(sizeof *mine * (size_t)k);
    unsigned long long replica = 1469598103934665603ull;   /* FNV-1a over the updates */
    long long next = 0;   /* next sequence number to apply */
    int sent = 0, nreq = 0;

    while (next < total) {
        if (sent < k) {   /* take a number, then broadcast the stamped update */
            update *u = &mine[sent];
            MPIX_Counter_fetch_and_add(seqno, 1, &u->seq);
            u->from = rank, u->value = rank * 1000 + sent;
            for (int r = 0; r < size; r++)
                MPI_Isend(u, (int)sizeof *u, MPI_BYTE, r, TAG, MPI_COMM_WORLD, &sends[nreq++]);
            sent++;
        }
        int flag = 1;
        while (flag && next < total) {   /* take what arrived; apply the in-order prefix */
            MPI_Status st;
            MPI_Iprobe(MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &flag, &st);
            if (!flag && sent == k && !have[next])   /* nothing left to do but wait */
                MPI_Probe(MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &st), flag = 1;
            if (!flag)
                break;
            update u;
            MPI_Recv(&u, (int)sizeof u, MPI_BYTE, st.MPI_SOURCE, TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            if (u.seq < 0 || u.seq >= total || have[u.seq]) {
                fprintf(stderr, "ordered_bcast: rank %d: sequence number %lld twice or out of "
                        "range\n", rank, u.seq);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            held[u.seq] = u, have[u.seq] = 1;
            for (; next < total && have[next]; next++)
                for (int b = 0; b < 3; b++) {
                    unsigned long long x = b == 0 ? (unsigned long long)held[next].seq
                                         : b == 1 ? (unsigned)held[next].from
                                                  : (unsigned)held[next].value;
                    replica = (replica ^ x) * 1099511628211ull;
                }
        }
    }
    MPI_Waitall(nreq, sends, MPI_STATUSES_IGNORE);

    long long last;
    MPIX_Counter_fetch_and_add(seqno, 0, &last);   /* every number was taken once */
    unsigned long long lo, hi;
    MPI_Allreduce(&replica, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&replica, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    MPIX_Counter_free(&seqno);
    int ok = lo == hi && last == total;
    if (rank == 0)
        printf("ordered_bcast: %lld updates from %d ranks, replicas %s (%016llx)\n", total, size,
               ok ? "agree" : "DIFFER", replica);
    free(held), free(have), free(sends), free(mine);
    MPI_Finalize();
    return ok ? 0 : 1;
}
