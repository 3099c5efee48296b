/* A per-context cache of the ops.cl program and the tuned values its
 * launchers ask for (dlca__ops_cl_kernel): dlca__program_get and
 * dlca__tunable read and resolve ops.cl from disk on every call, 0.1 ms of
 * host time each on the 2-core VM, against a few microseconds of device
 * time for a small op; a training step launches a dozen. As the dense
 * cache (lib/ops/cl_blas_cache.c), an entry holds while the tuner's
 * overrides are those it was filled under; a kernel file edited on disk is
 * seen by the next context. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ops/cl_elementwise.h"

#define OPS_CACHE_MAX 32

struct dlca__ops_cache {
  uint64_t sig;
  cl_program prog;
  size_t n;
  const char *name[OPS_CACHE_MAX]; /* the launchers' string literals */
  int value[OPS_CACHE_MAX];
};

/* FNV-1a over the overrides (stem, name, value); under ctx->lock. */
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

/* The cached entry of tunable, if any; under ctx->lock. */
static int lookup(const dlca_context *ctx, uint64_t sig, const char *tunable, cl_program *prog, int *value) {
  const struct dlca__ops_cache *c = ctx->ops_cache;
  if (!c || c->sig != sig) return 0;
  for (size_t i = 0; i < c->n; i++)
    if (strcmp(c->name[i], tunable) == 0) {
      *prog = c->prog, *value = c->value[i];
      return 1;
    }
  return 0;
}

/* Remembers (prog, tunable = value) under sig; without memory, nothing. Under ctx->lock. */
static void store(dlca_context *ctx, uint64_t sig, const char *tunable, cl_program prog, int value) {
  if (!ctx->ops_cache && !(ctx->ops_cache = calloc(1, sizeof *ctx->ops_cache))) return;
  struct dlca__ops_cache *c = ctx->ops_cache;
  if (c->sig != sig || c->prog != prog) c->n = 0, c->sig = sig, c->prog = prog;
  if (c->n < OPS_CACHE_MAX) c->name[c->n] = tunable, c->value[c->n++] = value;
}

int dlca__ops_cl_program(dlca_context *ctx, const char *file, const char *tunable, cl_program *prog, int *value) {
  pthread_mutex_lock(&ctx->lock);
  uint64_t sig = overrides_sig(ctx);
  int hit = lookup(ctx, sig, tunable, prog, value);
  pthread_mutex_unlock(&ctx->lock);
  if (hit) return DLCA_OK;
  int rc = dlca__program_get(ctx, file, NULL, prog, NULL);
  if (rc || (rc = dlca__tunable(ctx, file, tunable, value))) return rc;
  pthread_mutex_lock(&ctx->lock);
  store(ctx, sig, tunable, *prog, *value);
  pthread_mutex_unlock(&ctx->lock);
  return DLCA_OK;
}

void dlca__ops_cache_free(dlca_context *ctx) {
  free(ctx->ops_cache);
  ctx->ops_cache = NULL;
}
