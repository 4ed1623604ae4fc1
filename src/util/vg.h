/*
 * vg.h — what valgrind's memcheck cannot see. Bytes another process wrote
 * into ours with process_vm_writev are defined, but memcheck, which shadows
 * only what this process does, takes them for uninitialised and reports
 * every later use. The side that receives such a write marks the range
 * defined (shadow state is per process, so before the write or after it
 * alike). Without valgrind's header at configure time, or outside
 * valgrind, the mark does nothing (a few instructions).
 */
#ifndef CU_VG_H
#define CU_VG_H
#include "config.h"
#if HAVE_VALGRIND_MEMCHECK_H
#include <valgrind/memcheck.h>
#define cu_vg_written(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))
#else
#define cu_vg_written(p, n) ((void)(p), (void)(n))
#endif
#endif
