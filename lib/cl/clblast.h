/* The library's glue to CLBlast: its status codes as our errors, and the
 * CLBlast section of the tuning table (doc/tuning-table.md) applied with
 * CLBlastOverrideParameters. Internal. */
#ifndef DLCA_CL_CLBLAST_H
#define DLCA_CL_CLBLAST_H
#include "cl/runtime.h"

/* The name of a CLBlast status code ("CLBlastInvalidLeadDimA"), or NULL. */
const char *dlca__clblast_status_name(int status);
/* Records a CLBlast failure: the message is "<what>: <name> (<code>): <meaning>", where
 * what names the routine and its sizes. Returns DLCA_EDEVMEM for an allocation failure,
 * DLCA_EINVAL for arguments CLBlast refuses (dimensions, leading dimensions, small
 * buffers), DLCA_EBUILD for a kernel build failure, DLCA_ECL (keeping the code for
 * dlca_last_cl_error) for the other OpenCL codes. */
int dlca__clblast_fail(int status, const char *what);

#endif
