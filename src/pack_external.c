/*
 * pack_external.c — MPI_Pack_external, MPI_Unpack_external and
 * MPI_Pack_external_size (MPI-3.1 4.3): packing in a portable
 * representation named by datarep. "external32" is the only one MPI
 * defines for these calls; the conversion is the engine's
 * (src/util/dtype_external.c). No communicator: errors go to
 * MPI_COMM_WORLD's error handler.
 */
#include <string.h>
#include "src/datatype.h"

/* datarep must be "external32": MPI_ERR_ARG when NULL, otherwise
 * MPI_ERR_UNSUPPORTED_DATAREP. */
static int check_datarep(const char *fn, const char *datarep)
{
    if (!datarep)
        return mpir_err(MPI_ERR_ARG, fn, "datarep is NULL");
    if (strcmp(datarep, "external32") != 0)
        return mpir_err(MPI_ERR_UNSUPPORTED_DATAREP, fn,
                        "datarep \"%.64s\" is not supported (only \"external32\")", datarep);
    return MPI_SUCCESS;
}

/* What a failed conversion means to the caller. */
static int conv_error(const char *fn, int rc, const char *what)
{
    if (rc == -1)
        return MPIR_DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory converting %s", what);
    return MPIR_DT_ERR(MPI_ERR_CONVERSION, fn, "a value of %s does not fit its external32 "
                       "or native size", what);
}

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                       MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                       MPI_Aint *position)
{
    static const char fn[] = "MPI_Pack_external";
    MPIR_ENTER(fn);
    cu_dtype *dt = NULL;
    size_t bytes = 0;
    int rc = check_datarep(fn, datarep);
    if (!rc)
        rc = mpir_pack_checks(fn, incount, "incount", datatype, 1, outbuf, "outbuf", outsize,
                              "outsize", position, position ? *position : 0, &dt, &bytes);
    if (!rc)
        rc = mpir_check_buf(fn, "inbuf", inbuf, incount, dt);
    if (rc)
        return mpir_err_world(rc);
    if (!bytes)
        return MPI_SUCCESS;
    rc = cu_dtype_pack_external32(inbuf, (size_t)incount, dt, (char *)outbuf + *position);
    if (rc)
        return conv_error(fn, rc, "inbuf");
    *position += (MPI_Aint)bytes;
    return MPI_SUCCESS;
}
MPIR_WEAK(Pack_external)

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount,
                         MPI_Datatype datatype)
{
    static const char fn[] = "MPI_Unpack_external";
    MPIR_ENTER(fn);
    cu_dtype *dt = NULL;
    size_t bytes = 0;
    int rc = check_datarep(fn, datarep);
    if (!rc)
        rc = mpir_pack_checks(fn, outcount, "outcount", datatype, 1, inbuf, "inbuf", insize,
                              "insize", position, position ? *position : 0, &dt, &bytes);
    if (!rc)
        rc = mpir_check_buf(fn, "outbuf", outbuf, outcount, dt);
    if (rc)
        return mpir_err_world(rc);
    if (!bytes)
        return MPI_SUCCESS;
    rc = cu_dtype_unpack_external32((const char *)inbuf + *position, outbuf, (size_t)outcount,
                                    dt);
    if (rc)
        return conv_error(fn, rc, "inbuf");
    *position += (MPI_Aint)bytes;
    return MPI_SUCCESS;
}
MPIR_WEAK(Unpack_external)

int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    static const char fn[] = "MPI_Pack_external_size";
    MPIR_ENTER(fn);
    cu_dtype *dt;
    int rc = check_datarep(fn, datarep);
    if (rc)
        return mpir_err_world(rc);
    MPIR_DT_CHECK_COUNT(fn, incount, "incount");
    MPIR_DT_GET(fn, "datatype", datatype, 0, dt);
    MPIR_DT_CHECK_PTR(fn, size, "size");
    *size = (MPI_Aint)(cu_dtype_external32_size(dt) * (size_t)incount);
    return MPI_SUCCESS;
}
MPIR_WEAK(Pack_external_size)
