/* CLBlast's status codes as the library's errors (lib/cl/clblast.h). */
#include "cl/clblast.h"

#include <clblast_c.h>
#include <stdio.h>

static const struct {
  int code;
  const char *name, *meaning;
} statuses[] = {
    {CLBlastOpenCLCompilerNotAvailable, "CLBlastOpenCLCompilerNotAvailable", "no OpenCL compiler"},
    {CLBlastTempBufferAllocFailure, "CLBlastTempBufferAllocFailure", "a buffer could not be allocated"},
    {CLBlastOpenCLOutOfResources, "CLBlastOpenCLOutOfResources", "the device is out of resources"},
    {CLBlastOpenCLOutOfHostMemory, "CLBlastOpenCLOutOfHostMemory", "out of host memory"},
    {CLBlastOpenCLBuildProgramFailure, "CLBlastOpenCLBuildProgramFailure", "CLBlast's kernel did not build"},
    {CLBlastInvalidValue, "CLBlastInvalidValue", "an invalid value"},
    {CLBlastInvalidCommandQueue, "CLBlastInvalidCommandQueue", "an invalid command queue"},
    {CLBlastInvalidMemObject, "CLBlastInvalidMemObject", "an invalid buffer"},
    {CLBlastInvalidBinary, "CLBlastInvalidBinary", "an invalid program binary"},
    {CLBlastInvalidBuildOptions, "CLBlastInvalidBuildOptions", "invalid build options"},
    {CLBlastInvalidProgram, "CLBlastInvalidProgram", "an invalid program"},
    {CLBlastInvalidProgramExecutable, "CLBlastInvalidProgramExecutable", "an invalid program executable"},
    {CLBlastInvalidKernelName, "CLBlastInvalidKernelName", "an invalid kernel name"},
    {CLBlastInvalidKernelDefinition, "CLBlastInvalidKernelDefinition", "an invalid kernel definition"},
    {CLBlastInvalidKernel, "CLBlastInvalidKernel", "an invalid kernel"},
    {CLBlastInvalidArgIndex, "CLBlastInvalidArgIndex", "an invalid argument index"},
    {CLBlastInvalidArgValue, "CLBlastInvalidArgValue", "an invalid argument value"},
    {CLBlastInvalidArgSize, "CLBlastInvalidArgSize", "an invalid argument size"},
    {CLBlastInvalidKernelArgs, "CLBlastInvalidKernelArgs", "kernel arguments not set"},
    {CLBlastInvalidLocalNumDimensions, "CLBlastInvalidLocalNumDimensions", "too many work dimensions"},
    {CLBlastInvalidLocalThreadsTotal, "CLBlastInvalidLocalThreadsTotal", "a work-group too large for the device"},
    {CLBlastInvalidLocalThreadsDim, "CLBlastInvalidLocalThreadsDim", "a work-group dimension too large"},
    {CLBlastInvalidGlobalOffset, "CLBlastInvalidGlobalOffset", "an invalid global offset"},
    {CLBlastInvalidEventWaitList, "CLBlastInvalidEventWaitList", "an invalid event wait list"},
    {CLBlastInvalidEvent, "CLBlastInvalidEvent", "an invalid event"},
    {CLBlastInvalidOperation, "CLBlastInvalidOperation", "an invalid operation"},
    {CLBlastInvalidBufferSize, "CLBlastInvalidBufferSize", "an invalid buffer size"},
    {CLBlastInvalidGlobalWorkSize, "CLBlastInvalidGlobalWorkSize", "an invalid global work size"},
    {CLBlastNotImplemented, "CLBlastNotImplemented", "not implemented by CLBlast"},
    {CLBlastInvalidMatrixA, "CLBlastInvalidMatrixA", "A is not a valid buffer"},
    {CLBlastInvalidMatrixB, "CLBlastInvalidMatrixB", "B is not a valid buffer"},
    {CLBlastInvalidMatrixC, "CLBlastInvalidMatrixC", "C is not a valid buffer"},
    {CLBlastInvalidVectorX, "CLBlastInvalidVectorX", "x is not a valid buffer"},
    {CLBlastInvalidVectorY, "CLBlastInvalidVectorY", "y is not a valid buffer"},
    {CLBlastInvalidDimension, "CLBlastInvalidDimension", "a dimension is 0"},
    {CLBlastInvalidLeadDimA, "CLBlastInvalidLeadDimA", "lda is under A's row length"},
    {CLBlastInvalidLeadDimB, "CLBlastInvalidLeadDimB", "ldb is under B's row length"},
    {CLBlastInvalidLeadDimC, "CLBlastInvalidLeadDimC", "ldc is under C's row length"},
    {CLBlastInvalidIncrementX, "CLBlastInvalidIncrementX", "x's increment is 0"},
    {CLBlastInvalidIncrementY, "CLBlastInvalidIncrementY", "y's increment is 0"},
    {CLBlastInsufficientMemoryA, "CLBlastInsufficientMemoryA", "A's buffer is too small for its offset, size and strides"},
    {CLBlastInsufficientMemoryB, "CLBlastInsufficientMemoryB", "B's buffer is too small for its offset, size and strides"},
    {CLBlastInsufficientMemoryC, "CLBlastInsufficientMemoryC", "C's buffer is too small for its offset, size and strides"},
    {CLBlastInsufficientMemoryX, "CLBlastInsufficientMemoryX", "x's buffer is too small"},
    {CLBlastInsufficientMemoryY, "CLBlastInsufficientMemoryY", "y's buffer is too small"},
    {CLBlastInsufficientMemoryTemp, "CLBlastInsufficientMemoryTemp", "the scratch buffer is too small"},
    {CLBlastInvalidBatchCount, "CLBlastInvalidBatchCount", "the batch count is 0"},
    {CLBlastInvalidOverrideKernel, "CLBlastInvalidOverrideKernel", "no such CLBlast kernel to tune"},
    {CLBlastMissingOverrideParameter, "CLBlastMissingOverrideParameter", "a tuning parameter is missing"},
    {CLBlastInvalidLocalMemUsage, "CLBlastInvalidLocalMemUsage", "the kernel needs more local memory than the device has"},
    {CLBlastNoHalfPrecision, "CLBlastNoHalfPrecision", "no half precision on the device"},
    {CLBlastNoDoublePrecision, "CLBlastNoDoublePrecision", "no double precision on the device"},
    {CLBlastInvalidVectorScalar, "CLBlastInvalidVectorScalar", "the scalar is not a valid buffer"},
    {CLBlastInsufficientMemoryScalar, "CLBlastInsufficientMemoryScalar", "the scalar's buffer is too small"},
    {CLBlastDatabaseError, "CLBlastDatabaseError", "no entry for the device in CLBlast's database"},
    {CLBlastUnknownError, "CLBlastUnknownError", "an unspecified CLBlast error"},
    {CLBlastUnexpectedError, "CLBlastUnexpectedError", "an unexpected CLBlast error"},
};
#define N_STATUSES (sizeof statuses / sizeof statuses[0])

const char *dlca__clblast_status_name(int status) {
  for (size_t i = 0; i < N_STATUSES; i++)
    if (statuses[i].code == status) return statuses[i].name;
  return NULL;
}

/* Our status for a CLBlast one that is not an OpenCL code. */
static int library_status(int s) {
  if (s == CLBlastInsufficientMemoryTemp) return DLCA_EDEVMEM;
  if (s == CLBlastInvalidOverrideKernel || s == CLBlastMissingOverrideParameter) return DLCA_ETUNING;
  if (s == CLBlastNotImplemented || s == CLBlastNoHalfPrecision || s == CLBlastNoDoublePrecision)
    return DLCA_EUNSUPPORTED;
  if (s == CLBlastInvalidLocalMemUsage || s == CLBlastDatabaseError) return DLCA_ECONFIG;
  if (s <= -1007 && s >= -2049) return DLCA_EINVAL; /* dimensions, buffers, batch count */
  return DLCA_ECL;
}

int dlca__clblast_fail(int status, const char *what) {
  const char *name = "an unknown CLBlast status", *meaning = "";
  for (size_t i = 0; i < N_STATUSES; i++)
    if (statuses[i].code == status) name = statuses[i].name, meaning = statuses[i].meaning;
  if (status == CLBlastOpenCLBuildProgramFailure)
    return dlca__fail(DLCA_EBUILD, "%s: %s (%d): %s", what, name, status, meaning);
  if (status > -1000) /* an OpenCL code: kept for dlca_last_cl_error() */
    return dlca__fail_cl(status, "%s: %s (%d): %s", what, name, status, meaning);
  return dlca__fail(library_status(status), "%s: %s (%d): %s", what, name, status, meaning);
}
