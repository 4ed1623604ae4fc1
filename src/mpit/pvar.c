/*
 * pvar.c — MPI_T performance variables: which device counters are
 * exposed (mpid/counters.h), under which names and classes. Sessions and
 * handles are in pvar_session.c.
 *
 * COUNTERs are not continuous (a handle counts while started) and may be
 * written or reset (in its session only); LEVELs are continuous and
 * read-only; HIGHWATERMARKs are started, reset and written per handle but
 * not read-and-reset atomically (a reset rebases the device's one mark).
 */
#include <string.h>
#include "mpid/counters.h"
#include "src/mpit/mpit.h"

#define CNT(name, cat, lvl, field, desc)                                            \
    { name, cat, desc, MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_##lvl, 0, 0, 1,   \
      &mpid_cnt.field, NULL }
#define CHANNEL(ch, cat, K)                                                          \
    CNT(ch "_msgs_sent", cat, USER_BASIC, sent_msgs[K],                             \
        "point-to-point messages sent to ranks reached by the " ch " channel"),    \
    CNT(ch "_bytes_sent", cat, USER_BASIC, sent_bytes[K],                           \
        "bytes of point-to-point messages sent by the " ch " channel"),            \
    CNT(ch "_msgs_recvd", cat, USER_BASIC, recv_msgs[K],                            \
        "point-to-point messages arrived from ranks reached by the " ch " channel"), \
    CNT(ch "_bytes_recvd", cat, USER_BASIC, recv_bytes[K],                          \
        "bytes of point-to-point messages arrived by the " ch " channel")

const mpir_t_pvar_def mpir_t_pvars[] = {
    CHANNEL("self", "pt2pt", MPID_CNT_SELF),
    CHANNEL("shm", "shm", MPID_CNT_SHM),
    CHANNEL("net", "network", MPID_CNT_NET),
    CNT("eager_msgs_sent", "pt2pt", TUNER_BASIC, eager_sent,
        "messages sent eagerly (the data with the envelope), counted when they leave"),
    CNT("rndv_msgs_sent", "pt2pt", TUNER_BASIC, rndv_sent,
        "messages sent by rendezvous (above the eager limit, or while the receiver holds "
        "the channel's buffers), counted when their request to send leaves"),
    { "unexpected_recvq_length", "pt2pt", "messages arrived before their receive was posted "
      "and not yet received", MPI_T_PVAR_CLASS_LEVEL, MPI_T_VERBOSITY_TUNER_BASIC, 1, 1, 0,
      &mpid_cnt.unexp_len, NULL },
    { "unexpected_recvq_max", "pt2pt", "longest the unexpected-message queue has been",
      MPI_T_PVAR_CLASS_HIGHWATERMARK, MPI_T_VERBOSITY_TUNER_BASIC, 0, 0, 0,
      &mpid_cnt.unexp_len, &mpid_cnt.unexp_hwm },
    { "posted_recvq_length", "pt2pt", "receives posted and not yet matched",
      MPI_T_PVAR_CLASS_LEVEL, MPI_T_VERBOSITY_TUNER_BASIC, 1, 1, 0, &mpid_cnt.posted_len,
      NULL },
    { "posted_recvq_max", "pt2pt", "longest the posted-receive queue has been",
      MPI_T_PVAR_CLASS_HIGHWATERMARK, MPI_T_VERBOSITY_TUNER_BASIC, 0, 0, 0,
      &mpid_cnt.posted_len, &mpid_cnt.posted_hwm },
    CNT("progress_passes", "progress", TUNER_DETAIL, progress_passes,
        "passes of the progress engine over the channels"),
    CNT("progress_yields", "progress", TUNER_DETAIL, yields,
        "times a waiting rank yielded its core (ranks outnumber cores)"),
    CNT("progress_blocks", "progress", TUNER_DETAIL, blocks,
        "times a waiting rank blocked until woken (or its sleep ended)"),
    CNT("agent_pio_sends", "agent", TUNER_BASIC, agent_pio,
        "offload mode: packets to other nodes this rank copied into its agent's slots (PIO)"),
    CNT("agent_pio_slots", "agent", TUNER_DETAIL, agent_pio_slots,
        "offload mode: agent slots those packets filled (one per MTU of data)"),
    CNT("agent_dma_sends", "agent", TUNER_BASIC, agent_dma,
        "offload mode: packets the agent pulled from this rank's memory (above "
        "CLUMPI_AGENT_PIO_MAX)"),
    CNT("agent_slot_waits", "agent", TUNER_DETAIL, agent_slot_waits,
        "offload mode: sends that found no free slot and waited for the agent"),
    CNT("agent_doorbells", "agent", TUNER_DETAIL, agent_doorbells,
        "offload mode: wake-ups this rank sent to its sleeping agent"),
    { "dyn_slots", "network", "processes of other jobs this process has routes to (one "
      "per process, however many connections reach it)", MPI_T_PVAR_CLASS_LEVEL,
      MPI_T_VERBOSITY_USER_BASIC, 1, 1, 0, &mpid_cnt.dyn_slots, NULL },
    { "dyn_slots_max", "network", "most processes of other jobs routed at once",
      MPI_T_PVAR_CLASS_HIGHWATERMARK, MPI_T_VERBOSITY_USER_BASIC, 0, 0, 0,
      &mpid_cnt.dyn_slots, &mpid_cnt.dyn_slots_hwm },
};
enum { NPVARS = (int)(sizeof mpir_t_pvars / sizeof mpir_t_pvars[0]) };

int mpir_t_pvar_count(void) { return NPVARS; }
const char *mpir_t_pvar_category(int i) { return mpir_t_pvars[i].category; }

int PMPI_T_pvar_get_num(int *num_pvar)
{
    static const char fn[] = "MPI_T_pvar_get_num";
    MPIR_T_ENTER(fn);
    if (!num_pvar)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "num_pvar is NULL");
    *num_pvar = NPVARS;
    return MPI_SUCCESS;
}
MPIR_WEAK(T_pvar_get_num)

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                         int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype,
                         char *desc, int *desc_len, int *bind, int *readonly, int *continuous,
                         int *atomic)
{
    static const char fn[] = "MPI_T_pvar_get_info";
    MPIR_T_ENTER(fn);
    if (pvar_index < 0 || pvar_index >= NPVARS)
        return mpir_t_err(MPI_T_ERR_INVALID_INDEX, fn, "pvar_index %d is not in 0..%d",
                          pvar_index, NPVARS - 1);
    const mpir_t_pvar_def *p = &mpir_t_pvars[pvar_index];
    mpir_t_string(name, name_len, p->name);
    mpir_t_string(desc, desc_len, p->desc);
    if (verbosity)
        *verbosity = p->verbosity;
    if (var_class)
        *var_class = p->var_class;
    if (datatype)
        *datatype = MPI_UNSIGNED_LONG_LONG;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly)
        *readonly = p->readonly;
    if (continuous)
        *continuous = p->continuous;
    if (atomic)
        *atomic = p->atomic;
    return MPI_SUCCESS;
}
MPIR_WEAK(T_pvar_get_info)

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    static const char fn[] = "MPI_T_pvar_get_index";
    MPIR_T_ENTER(fn);
    if (!name || !pvar_index)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "%s is NULL", name ? "pvar_index" : "name");
    if (var_class < MPI_T_PVAR_CLASS_STATE || var_class > MPI_T_PVAR_CLASS_GENERIC)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "var_class %d is not a class", var_class);
    for (int i = 0; i < NPVARS; i++)
        if (mpir_t_pvars[i].var_class == var_class && !strcmp(mpir_t_pvars[i].name, name)) {
            *pvar_index = i;
            return MPI_SUCCESS;
        }
    return mpir_t_err(MPI_T_ERR_INVALID_NAME, fn, "no performance variable \"%s\" of class %d",
                      name, var_class);
}
MPIR_WEAK(T_pvar_get_index)
