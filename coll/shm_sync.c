/*
 * shm_sync.c — flag synchronisation through a node area (see shm_sync.h).
 * Waiting goes through the progress engine (other traffic still moves, an
 * oversubscribed rank yields, an idle one blocks); a store wakes nobody by
 * itself, so each one is followed by mpid_node_wake of whoever waits for it.
 */
#include "coll/select.h"
#include "coll/shm_sync.h"

int coll_shm_get(const mpid_comm *view, coll_shm *s)
{
    void *base;
    size_t lines = (size_t)(view->size + 1) * COLL_SHM_LINE;
    int rc = mpid_node_area(view, lines + 2 * (size_t)view->size * COLL_SHM_SLOT, &base,
                            &s->copy);
    if (rc != MPI_SUCCESS)
        return rc;
    s->view = view;
    s->release = base;
    s->arrive = (_Atomic uint32_t *)((char *)base + COLL_SHM_LINE);
    s->slots = (char *)base + lines;
    return MPI_SUCCESS;
}

int coll_shm_open(const mpid_comm *view, size_t bytes, coll_shm *s)
{
    if (view->size <= 1 || bytes == 0)
        return MPI_ERR_UNSUPPORTED_OPERATION;
    int rc = coll_shm_get(view, s);
    return rc == MPI_SUCCESS && bytes > COLL_SHM_SLOT && !s->copy
               ? MPI_ERR_UNSUPPORTED_OPERATION
               : rc;
}

int coll_shm_read_typed(coll_shm *s, int i, const char *src, size_t n, void *buf,
                        size_t count, const cu_dtype *dt)
{
    coll_bytes b;
    int rc = coll_bytes_get(&b, buf, count, dt, 0);
    if (rc == MPI_SUCCESS)
        rc = mpid_node_read(s->view, i, b.p, src, n);
    coll_bytes_put(&b, buf, count, dt, rc == MPI_SUCCESS);
    return rc;
}

/* The areas live as long as the communicator (views share its context). */
void coll_comm_free(const mpid_comm *comm)
{
    coll_select_comm_freed();
    mpid_node_area_release(comm->context_id);
}

static inline _Atomic uint32_t *line(const coll_shm *s, int i)
{
    return s->arrive + (size_t)i * COLL_SHM_STRIDE;
}

_Atomic uint32_t *coll_shm_line(const coll_shm *s, int i) { return line(s, i); }

uint32_t coll_shm_next(const coll_shm *s)
{
    return atomic_load_explicit(line(s, s->view->rank), memory_order_relaxed) + 1;
}

uint32_t coll_shm_arrive(coll_shm *s)
{
    _Atomic uint32_t *mine = line(s, s->view->rank);
    uint32_t e = atomic_load_explicit(mine, memory_order_relaxed) + 1;
    /* release: what I wrote before arriving is visible to whoever sees e */
    atomic_store_explicit(mine, e, memory_order_release);
    if (s->view->rank != 0)
        mpid_node_wake(s->view, 0);
    return e;
}

uint32_t coll_shm_arrive_all(coll_shm *s)
{
    uint32_t e = coll_shm_arrive(s);
    for (int i = 1; i < s->view->size; i++)
        if (i != s->view->rank)
            mpid_node_wake(s->view, i);
    return e;
}

typedef struct {
    coll_shm *s;
    uint32_t  e;
    int       next;   /* members before it have arrived */
} all_wait;

static int all_arrived(void *arg)
{
    all_wait *w = arg;
    for (; w->next < w->s->view->size; w->next++)
        if (!coll_shm_reached(atomic_load_explicit(line(w->s, w->next), memory_order_acquire),
                              w->e))
            return 0;
    return 1;
}

static void wait_all_from(coll_shm *s, uint32_t e, int first)
{
    all_wait w = { s, e, first };
    if (!all_arrived(&w))
        mpid_progress_until_store(all_arrived, &w);
}

void coll_shm_wait_all(coll_shm *s, uint32_t e)
{
    wait_all_from(s, e, 0);
}

void coll_shm_fence(coll_shm *s)
{
    wait_all_from(s, coll_shm_arrive_all(s), 0);
}

char *coll_shm_slot_to_write(coll_shm *s, uint32_t e)
{
    /* in round e - 1 every member is done with round e - 2 (rounds run in
     * order on each); whoever is not gets no wake-up, but this rarely
     * waits: only when a broadcast root runs two rounds ahead */
    wait_all_from(s, e - 1, 0);
    return coll_shm_slot(s, e, s->view->rank);
}

typedef struct {
    _Atomic uint32_t *word;
    uint32_t          e;
} word_wait;

static int word_reached(void *arg)
{
    word_wait *w = arg;
    return coll_shm_reached(atomic_load_explicit(w->word, memory_order_acquire), w->e);
}

static void wait_word(_Atomic uint32_t *word, uint32_t e)
{
    word_wait w = { word, e };
    if (!word_reached(&w))
        mpid_progress_until_store(word_reached, &w);
}

void coll_shm_wait_line(coll_shm *s, int i, uint32_t e)
{
    wait_word(line(s, i), e);
}

void coll_shm_release(coll_shm *s, uint32_t e)
{
    atomic_store_explicit(s->release, e, memory_order_release);
    for (int i = 1; i < s->view->size; i++)
        mpid_node_wake(s->view, i);
}

void coll_shm_wait_release(coll_shm *s, uint32_t e)
{
    wait_word(s->release, e);
}
