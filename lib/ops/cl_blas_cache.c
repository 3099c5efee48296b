/* dense.cl's kernels and tuned values through the context's memo
 * (lib/cl/memo.c), and the scratch buffer of CLBlast's GEMM, grown as needed
 * and kept, with a memo of the sizes CLBlast asked for. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cl/clblast.h"
#include "ops/cl_blas.h"

#define OPS_FILE "ops.cl"

/* The scratch size CLBlast's GEMM asked for, for one descriptor. */
typedef struct temp_entry {
  size_t key[11], bytes;
  int valid;
} temp_entry;

#define TEMP_MEMO 16

struct dlca__blas_cache {
  cl_mem scratch; /* CLBlast's GEMM scratch: kept, so that a GEMM allocates none */
  size_t scratch_bytes;
  temp_entry memo[TEMP_MEMO];
  size_t memo_next;
};

/* ctx->blas_cache, made where absent; ctx->lock held. NULL without memory. */
static struct dlca__blas_cache *cache_of(dlca_context *ctx) {
  if (!ctx->blas_cache) ctx->blas_cache = calloc(1, sizeof *ctx->blas_cache);
  return ctx->blas_cache;
}

int dlca__dense_kernel(dlca_context *ctx, const char *name, cl_kernel *k, size_t *wg, int *fused_max) {
  int w, f, rc;
  if ((rc = dlca__memo_tunable(ctx, OPS_FILE, "DENSE_WG", &w)) ||
      (rc = dlca__memo_tunable(ctx, OPS_FILE, "DENSE_FUSED_MAX", &f)))
    return rc;
  if ((size_t)w > ctx->info.max_work_group)
    return dlca__fail(DLCA_ECONFIG, "%s: DENSE_WG %d is over the device's largest work-group, %zu", OPS_FILE, w,
                      ctx->info.max_work_group);
  if (wg) *wg = (size_t)w;
  if (fused_max) *fused_max = f;
  if (!name) return DLCA_OK;
  cl_program prog;
  return (rc = dlca__memo_program(ctx, OPS_FILE, NULL, &prog)) ? rc : dlca__memo_kernel(ctx, prog, name, k);
}

int dlca__blas_temp_lookup(dlca_context *ctx, const size_t *key, size_t *bytes) {
  int found = 0;
  pthread_mutex_lock(&ctx->lock);
  for (size_t i = 0; ctx->blas_cache && !found && i < TEMP_MEMO; i++) {
    const temp_entry *e = &ctx->blas_cache->memo[i];
    if (e->valid && !memcmp(e->key, key, sizeof e->key)) *bytes = e->bytes, found = 1;
  }
  pthread_mutex_unlock(&ctx->lock);
  return found;
}

void dlca__blas_temp_store(dlca_context *ctx, const size_t *key, size_t bytes) {
  pthread_mutex_lock(&ctx->lock);
  struct dlca__blas_cache *c = cache_of(ctx);
  if (c) {
    temp_entry *e = &c->memo[c->memo_next++ % TEMP_MEMO];
    memcpy(e->key, key, sizeof e->key), e->bytes = bytes, e->valid = 1;
  }
  pthread_mutex_unlock(&ctx->lock);
}

int dlca__blas_scratch(dlca_context *ctx, size_t bytes, cl_mem *out) {
  pthread_mutex_lock(&ctx->lock);
  struct dlca__blas_cache *c = cache_of(ctx);
  int rc = c ? DLCA_OK : dlca__fail(DLCA_ENOMEM, "out of host memory");
  if (!rc && c->scratch_bytes < bytes) {
    /* released buffers live on until the commands that use them are done (OpenCL's rule) */
    if (c->scratch) clReleaseMemObject(c->scratch);
    c->scratch = NULL, c->scratch_bytes = 0;
    if (!(rc = dlca__buffer(ctx, bytes, "CLBlast's GEMM scratch", &c->scratch))) c->scratch_bytes = bytes;
  }
  if (!rc) *out = c->scratch;
  pthread_mutex_unlock(&ctx->lock);
  return rc;
}

void dlca__blas_cache_free(dlca_context *ctx) {
  if (ctx->blas_cache && ctx->blas_cache->scratch) clReleaseMemObject(ctx->blas_cache->scratch);
  free(ctx->blas_cache);
  ctx->blas_cache = NULL;
}
