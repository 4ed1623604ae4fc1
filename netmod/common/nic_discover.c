/*
 * nic_discover.c — list RDMA devices with ibv_get_device_list. A machine
 * without any (or a build without libibverbs) is the normal case on
 * Ethernet: it is reported, never an error.
 */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "netmod/common/nic_discover.h"
#ifdef HAVE_IBVERBS
#include <infiniband/verbs.h>
#endif

int netc_nic_discover(char *buf, size_t cap)
{
    if (cap == 0)
        return 0;
    buf[0] = '\0';
#ifdef HAVE_IBVERBS
    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    if (!list || n <= 0) {
        /* no kernel module, no device, or no permission: all mean "none" */
        snprintf(buf, cap, "no RDMA device");
        if (list)
            ibv_free_device_list(list);
        return 0;
    }
    size_t used = 0;
    for (int i = 0; i < n && used < cap; i++) {
        const char *name = ibv_get_device_name(list[i]);
        const char *state = "?";
        struct ibv_context *ctx = ibv_open_device(list[i]);
        if (ctx) {
            struct ibv_port_attr pa;
            if (ibv_query_port(ctx, 1, &pa) == 0)
                state = pa.state == IBV_PORT_ACTIVE ? "port 1 active" : "port 1 down";
            ibv_close_device(ctx);
        }
        int w = snprintf(buf + used, cap - used, "%s%s (%s)", i ? ", " : "",
                         name ? name : "?", state);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    ibv_free_device_list(list);
    return n;
#else
    snprintf(buf, cap, "no RDMA device (libibverbs not built in)");
    return 0;
#endif
}
