/* The context: one device, its OpenCL context and in-order profiling queue,
 * plus the per-context program cache, tuning tables and warnings. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cl/clblast.h"
#include "cl/runtime.h"

/* The one place DLCA_CL_BUILD_OPTIONS is read: extra compiler options for
 * every build (program.c appends them, so they are part of the cache key),
 * or NULL where it is unset or empty. */
const char *dlca__build_options_env(void) {
  const char *extra = getenv("DLCA_CL_BUILD_OPTIONS");
  return extra && *extra ? extra : NULL;
}

/* Appends one line, of any length (a build log can run to many KiB), to
 * the context's warnings. */
void dlca__warn(dlca_context *ctx, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  pthread_mutex_lock(&ctx->lock);
  size_t have = ctx->warnings ? strlen(ctx->warnings) : 0, add = (size_t)n;
  char *w = realloc(ctx->warnings, have + add + 2);
  if (w) { /* a lost warning is better than a failed call */
    va_start(ap, fmt);
    vsnprintf(w + have, add + 1, fmt, ap);
    va_end(ap);
    w[have + add] = '\n';
    w[have + add + 1] = 0;
    ctx->warnings = w;
  }
  pthread_mutex_unlock(&ctx->lock);
}

const char *dlca_context_warnings(const dlca_context *ctx) {
  return ctx && ctx->warnings ? ctx->warnings : "";
}

int dlca_context_new(const char *spec, dlca_context **out) {
  if (!out) return dlca__fail(DLCA_EINVAL, "dlca_context_new: out is NULL");
  *out = NULL;
  dlca__device *devs;
  size_t nd, idx;
  int rc = dlca__device_enum(&devs, &nd);
  if (rc) return rc;
  if ((rc = dlca__device_select(devs, nd, spec, &idx))) {
    free(devs);
    return rc;
  }
  dlca_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    free(devs);
    return dlca__fail(DLCA_ENOMEM, "out of memory creating a context");
  }
  ctx->platform = devs[idx].platform;
  ctx->device = devs[idx].device;
  ctx->info = devs[idx].info;
  free(devs);
  pthread_mutex_init(&ctx->build_lock, NULL);
  pthread_mutex_init(&ctx->lock, NULL);
  dlca__normalise_name(ctx->info.name, ctx->name_norm, sizeof ctx->name_norm);
  dlca__normalise_name(ctx->info.vendor, ctx->vendor_norm, sizeof ctx->vendor_norm);

  cl_int err;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)ctx->platform, 0};
  ctx->cl = clCreateContext(props, 1, &ctx->device, NULL, NULL, &err);
  if (!ctx->cl) {
    rc = dlca__fail_cl(err, "%s (%s): clCreateContext failed: %s", ctx->info.name,
                       ctx->info.platform, dlca__cl_error_name(err));
    dlca_context_free(ctx);
    return rc;
  }
  /* Profiling stays on in the queue: its cost is a timestamp per command,
   * and it lets dlca_context_set_profiling switch at any time. */
  ctx->queue = clCreateCommandQueue(ctx->cl, ctx->device, CL_QUEUE_PROFILING_ENABLE, &err);
  if (!ctx->queue) {
    rc = dlca__fail_cl(err, "%s (%s): clCreateCommandQueue failed: %s", ctx->info.name,
                       ctx->info.platform, dlca__cl_error_name(err));
    dlca_context_free(ctx);
    return rc;
  }
  /* A cache directory that another user owns or can write is not used. */
  if (dlca__cache_dir(ctx->cache_dir, sizeof ctx->cache_dir, &ctx->cache_on) != DLCA_OK ||
      (ctx->cache_on && dlca__cache_prepare(ctx->cache_dir) != DLCA_OK)) {
    dlca__warn(ctx, "binary cache off: %s", dlca_last_error());
    ctx->cache_on = 0;
  }
  if ((rc = dlca__tuning_init(ctx)) || (rc = dlca__clblast_apply(ctx))) {
    dlca_context_free(ctx);
    return rc;
  }
  dlca__clear_error();
  *out = ctx;
  return DLCA_OK;
}

void dlca_context_free(dlca_context *ctx) {
  if (!ctx) return;
  if (ctx->queue) clFinish(ctx->queue);
  dlca__blas_cache_free(ctx);
  dlca__rsvd_scratch_free(ctx);
  dlca__memo_free(ctx);
  for (size_t i = 0; i < ctx->n_programs; i++) {
    clReleaseProgram(ctx->programs[i].prog);
    free(ctx->programs[i].options);
    free(ctx->programs[i].source);
  }
  free(ctx->programs);
  for (size_t i = 0; i < ctx->n_pending; i++) clReleaseEvent(ctx->pending[i].ev);
  free(ctx->pending);
  free(ctx->profile);
  if (ctx->queue) clReleaseCommandQueue(ctx->queue);
  if (ctx->cl) clReleaseContext(ctx->cl);
  if (ctx->have_shipped) dlca__tuning_free(&ctx->shipped);
  if (ctx->have_user) dlca__tuning_free(&ctx->user);
  free(ctx->overrides);
  free(ctx->warnings);
  pthread_mutex_destroy(&ctx->build_lock);
  pthread_mutex_destroy(&ctx->lock);
  free(ctx);
}

void dlca_context_device(const dlca_context *ctx, dlca_device_info *out) {
  if (!ctx || !out) return;
  *out = ctx->info;
}
