/*
 * name_service.c — MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name
 * (MPI-3.1 10.4.4). The process manager serves them (clumpi's mpirun from
 * the store of src/util/names.c: a directory shared by every job of this
 * user on this host, or the one CLUMPI_NAMESERVER names, so separately
 * started jobs see each other's names; a singleton uses the store itself).
 * No info keys are defined; info must be MPI_INFO_NULL or valid. Errors go
 * to MPI_COMM_WORLD's handler.
 */
#include <errno.h>
#include <string.h>
#include "src/core.h"
#include "src/util/pmi.h"

/* The arguments every call checks. */
static int check_args(const char *fn, const char *service_name, MPI_Info info,
                      const char *port_name)
{
    if (!service_name || !*service_name)
        return mpir_err(MPI_ERR_ARG, fn, "service_name is NULL or empty");
    if (info != MPI_INFO_NULL && !mpir_handle_get(&mpir_infos, info))
        return mpir_err(MPI_ERR_INFO, fn, "invalid info (0x%x)", (unsigned)info);
    if (!port_name)
        return mpir_err(MPI_ERR_ARG, fn, "port_name is NULL");
    return MPI_SUCCESS;
}

int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char fn[] = "MPI_Publish_name";
    MPIR_ENTER(fn);
    int rc = check_args(fn, service_name, info, port_name);
    if (rc)
        return mpir_err_world(rc);
    if (!*port_name || strlen(port_name) >= MPI_MAX_PORT_NAME || strpbrk(port_name, " \n="))
        return mpir_err_world(mpir_err(MPI_ERR_PORT, fn, "port_name \"%.64s\" is not a port "
                                       "name", port_name));
    rc = cu_pmi_publish(service_name, port_name);
    if (rc == -EEXIST)
        return mpir_err_world(mpir_err(MPI_ERR_SERVICE, fn, "service_name \"%.64s\" is "
                                       "published already", service_name));
    if (rc)
        return mpir_err_world(mpir_err(MPI_ERR_SERVICE, fn, "the name service could not publish "
                                       "\"%.64s\"", service_name));
    return MPI_SUCCESS;
}
MPIR_WEAK(Publish_name)

int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    static const char fn[] = "MPI_Lookup_name";
    MPIR_ENTER(fn);
    int rc = check_args(fn, service_name, info, port_name);
    if (rc)
        return mpir_err_world(rc);
    rc = cu_pmi_lookup(service_name, port_name, MPI_MAX_PORT_NAME);
    if (rc == -ENOENT)
        return mpir_err_world(mpir_err(MPI_ERR_NAME, fn, "service_name \"%.64s\" is not "
                                       "published", service_name));
    if (rc)
        return mpir_err_world(mpir_err(MPI_ERR_NAME, fn, "the name service could not look up "
                                       "\"%.64s\"", service_name));
    return MPI_SUCCESS;
}
MPIR_WEAK(Lookup_name)

int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char fn[] = "MPI_Unpublish_name";
    MPIR_ENTER(fn);
    int rc = check_args(fn, service_name, info, port_name);
    if (rc)
        return mpir_err_world(rc);
    rc = cu_pmi_unpublish(service_name, port_name);
    if (rc == -ENOENT)
        return mpir_err_world(mpir_err(MPI_ERR_SERVICE, fn, "service_name \"%.64s\" is not "
                                       "published with port_name \"%.64s\"", service_name,
                                       port_name));
    if (rc)
        return mpir_err_world(mpir_err(MPI_ERR_SERVICE, fn, "the name service could not "
                                       "unpublish \"%.64s\"", service_name));
    return MPI_SUCCESS;
}
MPIR_WEAK(Unpublish_name)
