/* Launches, buffers and copies for the device trainer: thin wrappers whose
 * only job is an error that names the kernel or buffer and the OpenCL code. */
#include <stdio.h>
#include <string.h>
#include "cl/runtime.h"

#define MIB(x) ((double)(x) / (1024.0 * 1024.0))

static void sizes(char *buf, size_t n, cl_uint dims, const size_t *s) {
  if (!s) {
    snprintf(buf, n, "driver's choice");
    return;
  }
  int o = 0;
  for (cl_uint i = 0; i < dims && o >= 0 && (size_t)o < n; i++)
    o += snprintf(buf + o, n - (size_t)o, "%s%zu", i ? "x" : "", s[i]);
}

int dlca__launch(dlca_context *ctx, cl_kernel k, const char *name, cl_uint dims, const size_t *gws,
                 const size_t *lws) {
  char fname[64] = "";
  if (!name) {
    if (k) clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof fname, fname, NULL);
    fname[sizeof fname - 1] = 0;
    name = fname[0] ? fname : "(unnamed kernel)";
  }
  if (!ctx || !k || !gws || dims < 1 || dims > 3)
    return dlca__fail(DLCA_EINVAL, "kernel %s: launch needs a context, a kernel, 1 to 3 dimensions "
                                   "and a global size", name);
  int prof = dlca__profiling(ctx);
  cl_event ev = NULL;
  cl_int err = clEnqueueNDRangeKernel(ctx->queue, k, dims, NULL, gws, lws, 0, NULL, prof ? &ev : NULL);
  if (err != CL_SUCCESS) {
    char g[96], l[96];
    sizes(g, sizeof g, dims, gws);
    sizes(l, sizeof l, dims, lws);
    const char *hint = "";
    if (err == CL_INVALID_WORK_GROUP_SIZE)
      hint = " (the local size must divide the global size, fit the device and match the kernel's "
             "reqd_work_group_size)";
    else if (err == CL_INVALID_KERNEL_ARGS)
      hint = " (an argument was not set)";
    return dlca__fail_cl(err, "kernel %s: clEnqueueNDRangeKernel failed on %s: %s, global %s, local %s%s",
                         name, ctx->info.name, dlca__cl_error_name(err), g, l, hint);
  }
  if (prof) dlca__profile_add(ctx, name, ev);
  return DLCA_OK;
}

int dlca__buffer_ex(dlca_context *ctx, cl_mem_flags flags, size_t bytes, void *host, const char *what,
                    cl_mem *out) {
  if (!what) what = "buffer";
  if (!ctx || !out) return dlca__fail(DLCA_EINVAL, "%s: buffer needs a context", what);
  *out = NULL;
  if (bytes == 0) return dlca__fail(DLCA_EINVAL, "%s: a buffer of 0 bytes", what);
  if ((uint64_t)bytes > ctx->info.max_alloc)
    return dlca__fail(DLCA_EDEVMEM,
                      "%s: %.1f MiB is more than one allocation may hold on %s "
                      "(CL_DEVICE_MAX_MEM_ALLOC_SIZE = %.1f MiB, global memory %.1f MiB)",
                      what, MIB(bytes), ctx->info.name, MIB(ctx->info.max_alloc),
                      MIB(ctx->info.global_mem));
  cl_int err;
  *out = clCreateBuffer(ctx->cl, flags, bytes, host, &err);
  /* checked here, where the allocation happens: CL_MEM_OBJECT_ALLOCATION_FAILURE,
   * CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY (and CL_INVALID_BUFFER_SIZE)
   * are DLCA_EDEVMEM (dlca__fail_cl), any other code DLCA_ECL */
  if (!*out || err != CL_SUCCESS) {
    if (*out) clReleaseMemObject(*out);
    *out = NULL;
    return dlca__fail_cl(err, "%s: cannot allocate %zu bytes (%.1f MiB) on %s: %s", what, bytes, MIB(bytes),
                         ctx->info.name, dlca__cl_error_name(err));
  }
  return DLCA_OK;
}

int dlca__buffer(dlca_context *ctx, size_t bytes, const char *what, cl_mem *out) {
  return dlca__buffer_ex(ctx, CL_MEM_READ_WRITE, bytes, NULL, what, out);
}

int dlca__upload(dlca_context *ctx, cl_mem buf, size_t offset, size_t bytes, const void *src,
                 const char *what) {
  if (bytes == 0) return DLCA_OK;
  cl_int err = clEnqueueWriteBuffer(ctx->queue, buf, CL_TRUE, offset, bytes, src, 0, NULL, NULL);
  if (err != CL_SUCCESS)
    return dlca__fail_cl(err, "%s: writing %zu bytes at offset %zu to %s failed: %s", what ? what : "buffer",
                         bytes, offset, ctx->info.name, dlca__cl_error_name(err));
  return DLCA_OK;
}

int dlca__download(dlca_context *ctx, cl_mem buf, size_t offset, size_t bytes, void *dst,
                   const char *what) {
  if (bytes == 0) return DLCA_OK;
  cl_int err = clEnqueueReadBuffer(ctx->queue, buf, CL_TRUE, offset, bytes, dst, 0, NULL, NULL);
  if (err != CL_SUCCESS)
    return dlca__fail_cl(err, "%s: reading %zu bytes at offset %zu from %s failed: %s "
                              "(an earlier kernel may have failed)",
                         what ? what : "buffer", bytes, offset, ctx->info.name, dlca__cl_error_name(err));
  return DLCA_OK;
}

int dlca__finish(dlca_context *ctx, const char *what) {
  cl_int err = clFinish(ctx->queue);
  if (err != CL_SUCCESS)
    return dlca__fail_cl(err, "%s: clFinish failed on %s: %s", what ? what : "queue", ctx->info.name,
                         dlca__cl_error_name(err));
  return DLCA_OK;
}
