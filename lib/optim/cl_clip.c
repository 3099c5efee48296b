/* Gradient clipping on the device (kernels-cl/optim/clip.cl): the norm in
 * two passes (block partials, then one work-group in block order), the
 * scale applied in place by a third launch; clip by value. Enqueues only,
 * except dlca_optim_cl_last_norm. */
#include <math.h>

#include "optim/cl_internal.h"

/* The grads' buffers: the group's parent or each tensor's. */
static int grads_bufs(dlca_optim_cl *o, dlca_tensor *const *grads, dlca__optim_bufs *b) {
  int rc = dlca__optim_cl_check(o, (const dlca_tensor *const *)grads, "gradient");
  if (rc) return rc;
  b->p = NULL, b->g = (const dlca_tensor *const *)grads, b->p_parent = NULL;
  b->grouped = dlca__optim_cl_grouped(o, b->g, o->cache_g, &b->g_parent);
  return DLCA_OK;
}

/* The finishing pass over the partials of plan b selects. */
static int finish_norm(dlca_optim_cl *o, const dlca__optim_bufs *b, double max_norm) {
  const dlca__optim_plan *pl = b->grouped ? &o->group : &o->plain;
  cl_uint lo = (cl_uint)(pl->n_launches ? pl->first[0] : 0), hi = (cl_uint)(pl->n_launches ? pl->first[pl->n_launches] : 0);
  float mf = (float)max_norm;
  const char *name = "dlca_optim_norm";
  int rc;
  if ((rc = dlca__optim_cl_arg(o->k_norm, name, 1, sizeof lo, &lo)) ||
      (rc = dlca__optim_cl_arg(o->k_norm, name, 2, sizeof hi, &hi)) ||
      (rc = o->fp64 ? dlca__optim_cl_arg(o->k_norm, name, 3, sizeof max_norm, &max_norm)
                    : dlca__optim_cl_arg(o->k_norm, name, 3, sizeof mf, &mf)))
    return rc;
  return dlca__launch(o->ctx, o->k_norm, name, 1, &o->wg, &o->wg);
}

int dlca_optim_cl_clip_grad_norm(dlca_optim_cl *o, dlca_tensor *const *grads, double max_norm) {
  if (!o) return dlca__fail(DLCA_EINVAL, "dlca_optim_cl_clip_grad_norm: no optimizer (NULL)");
  if (!(max_norm >= 0) || isinf(max_norm))
    return dlca__fail(DLCA_EINVAL, "clip_grad_norm: max_norm = %g is outside [0, inf)", max_norm);
  dlca__optim_bufs b;
  int rc = grads_bufs(o, grads, &b);
  if (rc) return rc;
  const char *sq = "dlca_optim_sumsq", *sc = "dlca_optim_scale";
  if ((rc = dlca__optim_cl_walk(o, o->k_sumsq, sq, &b, 9)) || (rc = finish_norm(o, &b, max_norm)) ||
      (rc = dlca__optim_cl_walk(o, o->k_scale, sc, &b, 9)))
    return rc;
  o->last_max_norm = max_norm;
  return DLCA_OK;
}

int dlca_optim_cl_last_norm(dlca_optim_cl *o, double *norm) {
  if (!o || !norm) return dlca__fail(DLCA_EINVAL, "dlca_optim_cl_last_norm: NULL argument");
  if (o->last_max_norm < 0) return dlca__fail(DLCA_EINVAL, "dlca_optim_cl_last_norm: no clip_grad_norm yet");
  if (o->fp64) return dlca__download(o->ctx, o->norm, 0, sizeof *norm, norm, "the gradient norm");
  float f;
  int rc = dlca__download(o->ctx, o->norm, 0, sizeof f, &f, "the gradient norm");
  *norm = f;
  return rc;
}

int dlca_optim_cl_clip_grad_value(dlca_optim_cl *o, dlca_tensor *const *grads, double clip) {
  if (!o) return dlca__fail(DLCA_EINVAL, "dlca_optim_cl_clip_grad_value: no optimizer (NULL)");
  if (!(clip >= 0)) return dlca__fail(DLCA_EINVAL, "clip_grad_value: clip = %g is outside [0, inf]", clip);
  dlca__optim_bufs b;
  int rc = grads_bufs(o, grads, &b);
  if (rc) return rc;
  float hi = (float)clip;
  const char *name = "dlca_optim_clamp";
  if ((rc = dlca__optim_cl_arg(o->k_clamp, name, 10, sizeof hi, &hi))) return rc;
  return dlca__optim_cl_walk(o, o->k_clamp, name, &b, 9);
}
