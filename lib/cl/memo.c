/* The per-context memo in front of the loader (doc/kernel-cache.md): the
 * program of (file, options) and the value of (file, tunable) as first
 * found, and pools of kernels by (program, name), so that a launcher does not
 * read and resolve its kernel file from disk on every call. The program and
 * value entries hold while the tuner's overrides stay as they were filled
 * under (a generation counter, bumped by dlca__tuning_override and
 * dlca__tuning_clear_overrides); a kernel file edited on disk is seen by the
 * next context. Guarded by ctx->lock, never held across a build. */
#include <stdlib.h>
#include <string.h>

#include "cl/runtime.h"

/* Kernels a pool keeps per (program, name): as many launches of one kernel
 * as may be setting arguments at once on different threads. */
#define POOL_KERNELS 4

typedef struct memo_program {
  char *file, *options; /* options: the caller's, then DLCA_CL_BUILD_OPTIONS after a '\n' */
  cl_program prog;
} memo_program;

typedef struct memo_value {
  char *file, *name;
  int value;
} memo_value;

typedef struct memo_pool {
  cl_program prog;
  char *name;
  cl_kernel k[POOL_KERNELS]; /* the pool holds one reference to each */
  int busy[POOL_KERNELS];
  int n;
} memo_pool;

struct dlca__memo {
  unsigned gen; /* ctx->overrides_gen that the programs and values were found under */
  memo_program *progs;
  size_t n_progs;
  memo_value *values;
  size_t n_values;
  memo_pool *pools;
  size_t n_pools;
};

static void drop_tuned(struct dlca__memo *m) {
  for (size_t i = 0; i < m->n_progs; i++) free(m->progs[i].file), free(m->progs[i].options);
  for (size_t i = 0; i < m->n_values; i++) free(m->values[i].file), free(m->values[i].name);
  free(m->progs), free(m->values);
  m->progs = NULL, m->values = NULL, m->n_progs = m->n_values = 0;
}

/* ctx->memo, made where absent and emptied of entries from other overrides; ctx->lock held. */
static struct dlca__memo *memo_of(dlca_context *ctx) {
  if (!ctx->memo && !(ctx->memo = calloc(1, sizeof *ctx->memo))) return NULL;
  if (ctx->memo->gen != ctx->overrides_gen) {
    drop_tuned(ctx->memo);
    ctx->memo->gen = ctx->overrides_gen;
  }
  return ctx->memo;
}

/* The memo's key of options: the caller's and the environment's extra ones. */
static char *options_key(const char *options) {
  const char *extra = dlca__build_options_env();
  size_t a = strlen(options ? options : ""), b = strlen(extra ? extra : "");
  char *s = malloc(a + b + 2);
  if (s) memcpy(s, options ? options : "", a), s[a] = '\n', memcpy(s + a + 1, extra ? extra : "", b), s[a + b + 1] = 0;
  return s;
}

int dlca__memo_program(dlca_context *ctx, const char *file, const char *options, cl_program *out) {
  if (!ctx || !file || !out) return dlca__fail(DLCA_EINVAL, "dlca__memo_program: NULL argument");
  char *key = options_key(options);
  if (!key) return dlca__fail(DLCA_ENOMEM, "%s: out of memory", file);
  pthread_mutex_lock(&ctx->lock);
  struct dlca__memo *m = memo_of(ctx);
  unsigned gen = ctx->overrides_gen;
  for (size_t i = 0; m && i < m->n_progs; i++)
    if (!strcmp(m->progs[i].file, file) && !strcmp(m->progs[i].options, key)) {
      *out = m->progs[i].prog;
      pthread_mutex_unlock(&ctx->lock);
      free(key);
      return DLCA_OK;
    }
  pthread_mutex_unlock(&ctx->lock);
  int rc = dlca__program_get(ctx, file, options, out, NULL); /* takes build_lock, then lock */
  if (rc) {
    free(key);
    return rc;
  }
  pthread_mutex_lock(&ctx->lock);
  m = memo_of(ctx);
  memo_program *p = m && m->gen == gen ? realloc(m->progs, (m->n_progs + 1) * sizeof *p) : NULL;
  char *f = p ? strdup(file) : NULL;
  if (p) m->progs = p;
  if (f) p[m->n_progs++] = (memo_program){f, key, *out}, key = NULL; /* else found again next time */
  pthread_mutex_unlock(&ctx->lock);
  free(key);
  return DLCA_OK;
}

int dlca__memo_tunable(dlca_context *ctx, const char *file, const char *param, int *value) {
  if (!ctx || !file || !param || !value) return dlca__fail(DLCA_EINVAL, "dlca__memo_tunable: NULL argument");
  pthread_mutex_lock(&ctx->lock);
  struct dlca__memo *m = memo_of(ctx);
  unsigned gen = ctx->overrides_gen;
  for (size_t i = 0; m && i < m->n_values; i++)
    if (!strcmp(m->values[i].name, param) && !strcmp(m->values[i].file, file)) {
      *value = m->values[i].value;
      pthread_mutex_unlock(&ctx->lock);
      return DLCA_OK;
    }
  pthread_mutex_unlock(&ctx->lock);
  int rc = dlca__tunable(ctx, file, param, value); /* takes lock */
  if (rc) return rc;
  pthread_mutex_lock(&ctx->lock);
  m = memo_of(ctx);
  memo_value *v = m && m->gen == gen ? realloc(m->values, (m->n_values + 1) * sizeof *v) : NULL;
  char *f = v ? strdup(file) : NULL, *n = f ? strdup(param) : NULL;
  if (v) m->values = v;
  if (n) v[m->n_values++] = (memo_value){f, n, *value};
  else free(f);
  pthread_mutex_unlock(&ctx->lock);
  return DLCA_OK;
}

/* The pool of (prog, name), made where absent; NULL without memory. ctx->lock held. */
static memo_pool *pool_of(struct dlca__memo *m, cl_program prog, const char *name) {
  for (size_t i = 0; i < m->n_pools; i++)
    if (m->pools[i].prog == prog && !strcmp(m->pools[i].name, name)) return &m->pools[i];
  memo_pool *p = realloc(m->pools, (m->n_pools + 1) * sizeof *p);
  if (!p) return NULL;
  m->pools = p;
  char *n = strdup(name);
  if (!n) return NULL;
  p = &m->pools[m->n_pools++];
  memset(p, 0, sizeof *p);
  p->prog = prog, p->name = n;
  return p;
}

int dlca__memo_kernel(dlca_context *ctx, cl_program prog, const char *name, cl_kernel *out) {
  if (!ctx || !prog || !name || !out) return dlca__fail(DLCA_EINVAL, "dlca__memo_kernel: NULL argument");
  pthread_mutex_lock(&ctx->lock);
  struct dlca__memo *m = memo_of(ctx);
  memo_pool *p = m ? pool_of(m, prog, name) : NULL;
  for (int i = 0; p && i < p->n; i++)
    if (!p->busy[i] && p->k[i]) {
      p->busy[i] = 1;
      clRetainKernel(*out = p->k[i]);
      pthread_mutex_unlock(&ctx->lock);
      return DLCA_OK;
    }
  int slot = -1; /* a slot reserved, filled below: an empty one (a create failed there), else a new one */
  for (int i = 0; p && slot < 0 && i < p->n; i++)
    if (!p->busy[i] && !p->k[i]) slot = i;
  if (p && slot < 0 && p->n < POOL_KERNELS) slot = p->n++;
  if (slot >= 0) p->k[slot] = NULL, p->busy[slot] = 1;
  pthread_mutex_unlock(&ctx->lock);
  int rc = dlca__kernel_create(ctx, prog, name, out);
  if (slot < 0) return rc;
  pthread_mutex_lock(&ctx->lock);
  p = pool_of(ctx->memo, prog, name); /* the pools may have moved */
  if (rc) p->busy[slot] = 0; /* an empty slot: created again by the next taker */
  else clRetainKernel(p->k[slot] = *out);
  pthread_mutex_unlock(&ctx->lock);
  return rc;
}

void dlca__memo_kernel_put(dlca_context *ctx, cl_kernel k) {
  if (!k) return;
  if (ctx) pthread_mutex_lock(&ctx->lock);
  struct dlca__memo *m = ctx ? ctx->memo : NULL;
  for (size_t i = 0; m && i < m->n_pools; i++)
    for (int j = 0; j < m->pools[i].n; j++)
      if (m->pools[i].k[j] == k) m->pools[i].busy[j] = 0;
  if (ctx) pthread_mutex_unlock(&ctx->lock);
  clReleaseKernel(k);
}

void dlca__memo_free(dlca_context *ctx) {
  struct dlca__memo *m = ctx->memo;
  if (!m) return;
  drop_tuned(m);
  for (size_t i = 0; i < m->n_pools; i++) {
    for (int j = 0; j < m->pools[i].n; j++)
      if (m->pools[i].k[j]) clReleaseKernel(m->pools[i].k[j]);
    free(m->pools[i].name);
  }
  free(m->pools);
  free(m);
  ctx->memo = NULL;
}
