/*
 * dyn.c — peers beyond MPI_COMM_WORLD (dynamic processes, ports): the
 * device gives each one a slot after the world ranks; its address goes
 * into the AV when it is added, and packets to it carry the source id the
 * peer knows us by (fab_st.dyn_src), since its table numbers us its own way.
 */
#include <errno.h>
#include "netmod/ofi/fab.h"
#include "src/util/log.h"

/* This endpoint's address (fi_getname) into buf, *len its capacity in,
 * the address's bytes out. */
int fab_dyn_addr(void *buf, size_t *len)
{
    if (!fab_st.up)
        return -ENODEV;
    int rc = fi_getname(&fab_st.ep->fid, buf, len);
    return rc ? (rc < 0 ? rc : -rc) : 0;
}

/* Slot peer (>= world size) reaches the endpoint at addr; packets to it
 * name us as my_id. A slot added already (the device reuses it for the
 * same process) only takes the new id. */
int fab_dyn_peer_add(int peer, const void *addr, size_t len, int my_id)
{
    if (!fab_st.up || peer < fab_st.size || peer >= fab_st.cap || len == 0)
        return -EINVAL;
    if (fab_st.addr[peer] != FI_ADDR_NOTAVAIL) {
        fab_st.dyn_src[peer - fab_st.size] = (uint32_t)my_id;
        return 0;
    }
    fi_addr_t fa = FI_ADDR_NOTAVAIL;
    int rc = fi_av_insert(fab_st.av, addr, 1, &fa, 0, NULL);
    if (rc != 1 || fa == FI_ADDR_NOTAVAIL) {
        cu_warn("ofi: cannot add the address of a peer of another job: %s",
                rc < 0 ? fi_strerror(-rc) : "rejected");
        return -EHOSTUNREACH;
    }
    fab_st.addr[peer] = fa;
    fab_st.dyn_src[peer - fab_st.size] = (uint32_t)my_id;
    fab_alive_reset(peer);
    return 0;
}

/* Forgets slot peer (its AV entry goes): the device routes nothing there
 * any more, and may give the slot to another process. */
void fab_dyn_peer_del(int peer)
{
    if (!fab_st.up || peer < fab_st.size || peer >= fab_st.cap ||
        fab_st.addr[peer] == FI_ADDR_NOTAVAIL)
        return;
    fi_av_remove(fab_st.av, &fab_st.addr[peer], 1, 0);
    fab_st.addr[peer] = FI_ADDR_NOTAVAIL;
    fab_alive_reset(peer);
}
