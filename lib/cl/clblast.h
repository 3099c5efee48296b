/* The library's glue to CLBlast: its status codes as our errors, and the
 * CLBlast section of the tuning table (doc/tuning-table.md) applied with
 * CLBlastOverrideParameters. Internal. */
#ifndef DLCA_CL_CLBLAST_H
#define DLCA_CL_CLBLAST_H
#include <jansson.h>

#include "cl/runtime.h"

/* The name of a CLBlast status code ("CLBlastInvalidLeadDimA"), or NULL. */
const char *dlca__clblast_status_name(int status);
/* Records a CLBlast failure: the message is "<what>: <name> (<code>): <meaning>", where
 * what names the routine and its sizes. Returns DLCA_EDEVMEM for an allocation failure,
 * DLCA_EINVAL for arguments CLBlast refuses (dimensions, leading dimensions, small
 * buffers), DLCA_EBUILD for a kernel build failure, DLCA_ECL (keeping the code for
 * dlca_last_cl_error) for the other OpenCL codes. */
int dlca__clblast_fail(int status, const char *what);

/* One CLBlast kernel's parameters from a table: {"Xgemm": {"MWG": 64, ...}}. */
typedef struct dlca__clblast_kernel {
  char name[32];
  size_t n;
  char param[24][32];
  size_t value[24];
} dlca__clblast_kernel;

/* Reads and validates the value of a table entry's "clblast" key (an object
 * of kernel: {PARAMETER: integer}) at JSON path `where` of the table at path.
 * Every kernel must be one of CLBlast's GEMM (Xgemm, XgemmDirect, Copy, Pad,
 * Transpose, Padtranspose, GemmRoutine), with each of its parameters once and
 * nothing else, each an integer from 0 to 2^30: else DLCA_ETUNING naming the
 * path and the key. *out is malloc'ed (free it); *n may be 0. */
int dlca__clblast_section(json_t *section, const char *path, const char *where, dlca__clblast_kernel **out,
                          size_t *n);
/* The sections that decide for ctx's device (in each table, the most
 * specific entry with a "clblast" key, matched as params are; a kernel of the
 * user table's wins over the shipped table's), applied to the device with
 * CLBlastOverrideParameters (single precision). Every entry's section is
 * checked; a bad one fails as dlca__tuning_init does: DLCA_ETUNING for the
 * table named by DLCA_CL_TUNING and for the shipped table, a context warning
 * (and no user section) for the cache directory's. A kernel whose work-group
 * is over the device's largest is skipped with a context warning (CLBlast
 * would fail, and print, every call of it). Called when a context
 * opens; the overrides are CLBlast's, per device and process-wide: the last
 * context opened on a device decides. */
int dlca__clblast_apply(dlca_context *ctx);
/* Frees ctx's CLBlast scratch and its size memo (lib/ops/cl_blas_cache.c); dlca_context_free
 * calls it. */
void dlca__blas_cache_free(dlca_context *ctx);
#endif
