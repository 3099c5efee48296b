/* A per-context cache of the program that holds dense.cl (ops.cl), with its
 * DENSE_WG and DENSE_FUSED_MAX: the dense and GEMM launchers take their
 * kernels from it instead of asking dlca__program_get and dlca__tunable on
 * every call, which read and resolve ops.cl from disk each time (0.1 ms of
 * host time apiece on the 2-core VM, more than a small layer's device time).
 * An entry is good while the tuner's overrides are those it was filled
 * under; a kernel file edited on disk meanwhile is not seen until the next
 * context. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cl/clblast.h"
#include "ops/cl_blas.h"

#define OPS_FILE "ops.cl"

struct dlca__blas_cache {
  int valid;
  uint64_t sig; /* the overrides it was filled under */
  cl_program prog;
  size_t wg;
  int fused_max;
};

/* FNV-1a over the overrides (stem, name, value), under ctx->lock. */
static uint64_t overrides_sig(const dlca_context *ctx) {
  uint64_t h = 1469598103934665603ULL ^ ctx->n_overrides;
  for (size_t i = 0; i < ctx->n_overrides; i++) {
    const dlca__tuning_param *p = &ctx->overrides[i];
    for (const char *s = p->stem; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    for (const char *s = p->name; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    h = (h ^ (uint32_t)p->value) * 1099511628211ULL;
  }
  return h;
}

/* Builds (or finds) ops.cl and reads its tuned values into c. */
static int fill(dlca_context *ctx, struct dlca__blas_cache *c) {
  int wg, rc = dlca__program_get(ctx, OPS_FILE, NULL, &c->prog, NULL);
  if (rc || (rc = dlca__tunable(ctx, OPS_FILE, "DENSE_WG", &wg)) ||
      (rc = dlca__tunable(ctx, OPS_FILE, "DENSE_FUSED_MAX", &c->fused_max)))
    return rc;
  if ((size_t)wg > ctx->info.max_work_group)
    return dlca__fail(DLCA_ECONFIG, "%s: DENSE_WG %d is over the device's largest work-group, %zu", OPS_FILE, wg,
                      ctx->info.max_work_group);
  c->wg = (size_t)wg, c->valid = 1;
  return DLCA_OK;
}

int dlca__dense_kernel(dlca_context *ctx, const char *name, cl_kernel *k, size_t *wg, int *fused_max) {
  struct dlca__blas_cache c = {0};
  pthread_mutex_lock(&ctx->lock);
  uint64_t sig = overrides_sig(ctx);
  if (ctx->blas_cache) c = *ctx->blas_cache;
  pthread_mutex_unlock(&ctx->lock);
  if (!c.valid || c.sig != sig) {
    int rc = fill(ctx, &c);
    if (rc) return rc;
    c.sig = sig;
    pthread_mutex_lock(&ctx->lock);
    if (!ctx->blas_cache) ctx->blas_cache = malloc(sizeof *ctx->blas_cache);
    if (ctx->blas_cache) *ctx->blas_cache = c; /* without memory, the next call fills it again */
    pthread_mutex_unlock(&ctx->lock);
  }
  if (wg) *wg = c.wg;
  if (fused_max) *fused_max = c.fused_max;
  return name ? dlca__kernel_create(ctx, c.prog, name, k) : DLCA_OK;
}

void dlca__blas_cache_free(dlca_context *ctx) {
  free(ctx->blas_cache);
  ctx->blas_cache = NULL;
}
