/* A per-context cache of the program that holds dense.cl (ops.cl), with its
 * DENSE_WG and DENSE_FUSED_MAX: the dense and GEMM launchers take their
 * kernels from it instead of asking dlca__program_get and dlca__tunable on
 * every call, which read and resolve ops.cl from disk each time (0.1 ms of
 * host time apiece on the 2-core VM, more than a small layer's device time).
 * An entry is good while the tuner's overrides are those it was filled
 * under; a kernel file edited on disk meanwhile is not seen until the next
 * context. Also the scratch buffer of CLBlast's GEMM, grown as needed and
 * kept, with a memo of the sizes CLBlast asked for. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cl/clblast.h"
#include "ops/cl_blas.h"

#define OPS_FILE "ops.cl"

typedef struct program_entry {
  int valid;
  uint64_t sig; /* the overrides it was filled under */
  cl_program prog;
  size_t wg;
  int fused_max;
} program_entry;

/* The scratch size CLBlast's GEMM asked for, for one descriptor. */
typedef struct temp_entry {
  size_t key[11], bytes;
  int valid;
} temp_entry;

#define TEMP_MEMO 16

struct dlca__blas_cache {
  program_entry p;
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
static int fill(dlca_context *ctx, program_entry *c) {
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
  program_entry c = {0};
  pthread_mutex_lock(&ctx->lock);
  uint64_t sig = overrides_sig(ctx);
  if (ctx->blas_cache) c = ctx->blas_cache->p;
  pthread_mutex_unlock(&ctx->lock);
  if (!c.valid || c.sig != sig) {
    int rc = fill(ctx, &c);
    if (rc) return rc;
    c.sig = sig;
    pthread_mutex_lock(&ctx->lock);
    struct dlca__blas_cache *bc = cache_of(ctx);
    if (bc) bc->p = c; /* without memory, the next call fills it again */
    pthread_mutex_unlock(&ctx->lock);
  }
  if (wg) *wg = c.wg;
  if (fused_max) *fused_max = c.fused_max;
  return name ? dlca__kernel_create(ctx, c.prog, name, k) : DLCA_OK;
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
