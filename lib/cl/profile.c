/* Per-kernel device time: launches keep their events while profiling is on;
 * collecting waits for the queue and sums END - START by kernel name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cl/runtime.h"

/* Events kept before completed ones are folded in at launch time, so that a
 * long profiled run does not hold an event per launch. */
#define FOLD_AT 1024

/* ctx->lock held. */
static void add_time(dlca_context *ctx, const char *name, double ms) {
  for (size_t i = 0; i < ctx->n_profile; i++)
    if (!strcmp(ctx->profile[i].name, name)) {
      ctx->profile[i].total_ms += ms;
      ctx->profile[i].count++;
      return;
    }
  dlca_kernel_profile *p = realloc(ctx->profile, (ctx->n_profile + 1) * sizeof *p);
  if (!p) return; /* the time is lost, not the run */
  ctx->profile = p;
  dlca_kernel_profile *e = &p[ctx->n_profile++];
  memset(e, 0, sizeof *e);
  snprintf(e->name, sizeof e->name, "%s", name);
  e->total_ms = ms;
  e->count = 1;
}

/* Folds every finished event into the totals; ctx->lock held. */
static void fold_completed(dlca_context *ctx) {
  size_t keep = 0;
  for (size_t i = 0; i < ctx->n_pending; i++) {
    dlca__pending *p = &ctx->pending[i];
    cl_int st = CL_QUEUED;
    clGetEventInfo(p->ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    if (st > CL_COMPLETE) { /* still queued, submitted or running */
      ctx->pending[keep++] = *p;
      continue;
    }
    cl_ulong t0 = 0, t1 = 0;
    double ms = 0;
    if (st == CL_COMPLETE &&
        clGetEventProfilingInfo(p->ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) == CL_SUCCESS &&
        clGetEventProfilingInfo(p->ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) == CL_SUCCESS &&
        t1 >= t0)
      ms = (double)(t1 - t0) * 1e-6;
    add_time(ctx, p->name, ms);
    clReleaseEvent(p->ev);
  }
  ctx->n_pending = keep;
}

void dlca__profile_add(dlca_context *ctx, const char *name, cl_event ev) {
  pthread_mutex_lock(&ctx->lock);
  if (ctx->n_pending >= FOLD_AT) fold_completed(ctx);
  if (ctx->n_pending == ctx->cap_pending) {
    size_t cap = ctx->cap_pending ? 2 * ctx->cap_pending : 64;
    dlca__pending *p = realloc(ctx->pending, cap * sizeof *p);
    if (!p) {
      pthread_mutex_unlock(&ctx->lock);
      clReleaseEvent(ev);
      return;
    }
    ctx->pending = p;
    ctx->cap_pending = cap;
  }
  dlca__pending *p = &ctx->pending[ctx->n_pending++];
  snprintf(p->name, sizeof p->name, "%s", name);
  p->ev = ev;
  pthread_mutex_unlock(&ctx->lock);
}

int dlca__profiling(dlca_context *ctx) {
  pthread_mutex_lock(&ctx->lock);
  int on = ctx->profiling;
  pthread_mutex_unlock(&ctx->lock);
  return on;
}

void dlca__profile_enable(dlca_context *ctx, int on) {
  if (!ctx) return;
  pthread_mutex_lock(&ctx->lock);
  ctx->profiling = on != 0;
  pthread_mutex_unlock(&ctx->lock);
}

void dlca__profile_reset(dlca_context *ctx) {
  if (!ctx) return;
  pthread_mutex_lock(&ctx->lock);
  for (size_t i = 0; i < ctx->n_pending; i++) clReleaseEvent(ctx->pending[i].ev);
  ctx->n_pending = 0;
  free(ctx->profile);
  ctx->profile = NULL;
  ctx->n_profile = 0;
  pthread_mutex_unlock(&ctx->lock);
}

int dlca__profile_collect(dlca_context *ctx, dlca_kernel_profile **out, size_t *n) {
  if (!ctx || !out || !n) return dlca__fail(DLCA_EINVAL, "dlca_context_profile: NULL argument");
  *out = NULL;
  *n = 0;
  int rc = dlca__finish(ctx, "profiled kernels");
  if (rc) return rc;
  pthread_mutex_lock(&ctx->lock);
  fold_completed(ctx);
  dlca_kernel_profile *p = malloc((ctx->n_profile ? ctx->n_profile : 1) * sizeof *p);
  if (p) {
    if (ctx->n_profile) memcpy(p, ctx->profile, ctx->n_profile * sizeof *p);
    *n = ctx->n_profile;
  }
  pthread_mutex_unlock(&ctx->lock);
  if (!p) return dlca__fail(DLCA_ENOMEM, "out of memory");
  *out = p;
  return DLCA_OK;
}

void dlca_context_set_profiling(dlca_context *ctx, int on) { dlca__profile_enable(ctx, on); }
void dlca_context_profile_reset(dlca_context *ctx) { dlca__profile_reset(ctx); }
int dlca_context_profile(dlca_context *ctx, dlca_kernel_profile **out, size_t *n) {
  return dlca__profile_collect(ctx, out, n);
}
