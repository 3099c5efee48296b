/* The device optimizer's step (kernels-cl/optim/step.cl): the step's
 * scalars from the host, then one launch per chunk of tensors, or one for
 * a whole group. Enqueues only. */
#include <math.h>
#include <string.h>

#include "optim/cl_internal.h"

int dlca__optim_cl_arg(cl_kernel k, const char *name, cl_uint i, size_t size, const void *v) {
  cl_int err = clSetKernelArg(k, i, size, v);
  if (err != CL_SUCCESS) return dlca__fail_cl(err, "%s: argument %u: %s", name, i, dlca__cl_error_name(err));
  return DLCA_OK;
}

const char *dlca__optim_cl_step_name(int kind) {
  static const char *const names[] = {"dlca_optim_sgd", "dlca_optim_adam", "dlca_optim_adam", "dlca_optim_rmsprop",
                                      "dlca_optim_adagrad"};
  return kind >= 0 && kind <= DLCA_OPTIM_ADAGRAD ? names[kind] : "dlca_optim_adagrad";
}

const char *dlca__optim_cl_flat_name(int kind) {
  static const char *const names[] = {"dlca_optim_sgd_flat", "dlca_optim_adam_flat", "dlca_optim_adam_flat",
                                      "dlca_optim_rmsprop_flat", "dlca_optim_adagrad_flat"};
  return kind >= 0 && kind <= DLCA_OPTIM_ADAGRAD ? names[kind] : "dlca_optim_adagrad_flat";
}

/* Launch j's buffers into args 0..7 (and 8..15 with params). */
static int set_pairs(dlca_optim_cl *o, cl_kernel k, const char *name, const dlca__optim_bufs *b, size_t j) {
  cl_uint gbase = b->p ? DLCA__OPTIM_CHUNK : 0;
  int rc = DLCA_OK;
  for (size_t c = 0; c < DLCA__OPTIM_CHUNK && !rc; c++) {
    size_t t = o->plain.tensor0[j] + c;
    if (t >= o->n) t = o->plain.tensor0[j]; /* an unused pair: any valid buffer */
    cl_mem pm = b->grouped ? b->p_parent : b->p ? b->p[t]->buf : NULL;
    cl_mem gm = b->grouped ? b->g_parent : b->g[t]->buf;
    if (b->p) rc = dlca__optim_cl_arg(k, name, (cl_uint)c, sizeof pm, &pm);
    if (!rc) rc = dlca__optim_cl_arg(k, name, gbase + (cl_uint)c, sizeof gm, &gm);
  }
  return rc;
}

/* The parents k's pairs hold since its last grouped launch (NULL: set them), to skip 16 settings a step. */
static cl_mem *pairs_set(dlca_optim_cl *o, cl_kernel k) {
  cl_kernel ks[4] = {o->k_step, o->k_sumsq, o->k_scale, o->k_clamp};
  for (int i = 0; i < 4; i++)
    if (ks[i] == k) return o->pairs_set[i];
  return NULL;
}

int dlca__optim_cl_walk(dlca_optim_cl *o, cl_kernel k, const char *name, const dlca__optim_bufs *b,
                        cl_uint first_arg) {
  const dlca__optim_plan *pl = b->grouped ? &o->group : &o->plain;
  cl_mem *set = pairs_set(o, k);
  int same = set && b->grouped && set[0] == b->p_parent && set[1] == b->g_parent;
  if (set) set[0] = b->grouped ? b->p_parent : NULL, set[1] = b->grouped ? b->g_parent : NULL;
  for (size_t j = 0; j < pl->n_launches; j++) {
    cl_uint first = (cl_uint)pl->first[j];
    int rc = (!b->grouped || (j == 0 && !same)) ? set_pairs(o, k, name, b, j) : DLCA_OK;
    if (!rc) rc = dlca__optim_cl_arg(k, name, first_arg, sizeof first, &first);
    size_t gws = (pl->first[j + 1] - pl->first[j]) * o->wg;
    if (!rc && gws) rc = dlca__launch(o->ctx, k, name, 1, &gws, &o->wg);
    if (rc) return rc;
  }
  return DLCA_OK;
}

/* The kind's flags, args at..at + 2 of kernel k. */
static int set_flags(dlca_optim_cl *o, cl_kernel k, const char *name, cl_uint at) {
  const dlca_optim_config *c = &o->host->cfg;
  cl_int f[3] = {0, 0, 0};
  int nf = 3;
  switch (c->kind) {
  case DLCA_OPTIM_SGD: f[0] = c->momentum != 0, f[1] = c->nesterov != 0, f[2] = c->weight_decay != 0; break;
  case DLCA_OPTIM_ADAM:
  case DLCA_OPTIM_ADAMW:
    f[0] = c->kind == DLCA_OPTIM_ADAMW, f[1] = !f[0] && c->weight_decay != 0, f[2] = c->amsgrad != 0;
    break;
  case DLCA_OPTIM_RMSPROP: f[0] = c->weight_decay != 0, f[1] = c->centered != 0, f[2] = c->momentum > 0; break;
  default: f[0] = c->weight_decay != 0, nf = 1; break;
  }
  int rc = DLCA_OK;
  for (int i = 0; i < nf && !rc; i++) rc = dlca__optim_cl_arg(k, name, at + (cl_uint)i, sizeof f[i], &f[i]);
  return rc;
}

int dlca__optim_cl_fixed_args(dlca_optim_cl *o) {
  const char *name = dlca__optim_cl_step_name(o->host->cfg.kind), *sq = "dlca_optim_sumsq",
             *sc = "dlca_optim_scale", *cv = "dlca_optim_clamp", *nm = "dlca_optim_norm",
             *fl = dlca__optim_cl_flat_name(o->host->cfg.kind);
  cl_ulong ss = o->ss;
  int rc;
  if ((rc = dlca__optim_cl_arg(o->k_step, name, 16, sizeof o->state, &o->state)) ||
      (rc = dlca__optim_cl_arg(o->k_step, name, 17, sizeof o->table, &o->table)) ||
      (rc = dlca__optim_cl_arg(o->k_step, name, 19, sizeof ss, &ss)) || (rc = set_flags(o, o->k_step, name, 21)) ||
      (rc = dlca__optim_cl_arg(o->k_flat, fl, 2, sizeof o->state, &o->state)) ||
      (rc = dlca__optim_cl_arg(o->k_flat, fl, 3, sizeof ss, &ss)) || (rc = set_flags(o, o->k_flat, fl, 7)) ||
      (rc = dlca__optim_cl_arg(o->k_sumsq, sq, 8, sizeof o->table, &o->table)) ||
      (rc = dlca__optim_cl_arg(o->k_sumsq, sq, 10, sizeof o->partial, &o->partial)) ||
      (rc = dlca__optim_cl_arg(o->k_scale, sc, 8, sizeof o->table, &o->table)) ||
      (rc = dlca__optim_cl_arg(o->k_scale, sc, 10, sizeof o->norm, &o->norm)) ||
      (rc = dlca__optim_cl_arg(o->k_clamp, cv, 8, sizeof o->table, &o->table)) ||
      (rc = dlca__optim_cl_arg(o->k_norm, nm, 0, sizeof o->partial, &o->partial)))
    return rc;
  return dlca__optim_cl_arg(o->k_norm, nm, 4, sizeof o->norm, &o->norm);
}

/* Whether a step keeps a zero parameter with a zero gradient and zero
 * state at zero (the gaps of a group): finite scalars, and a denominator
 * eps > 0 where the rule divides (adagrad's accumulator may start above 0,
 * but eps > 0 alone is the test here). */
static int keeps_zero(const dlca_optim_cl *o, const dlca__optim_scalars *k) {
  float f[] = {k->lr, k->wd, k->eps, k->decay, k->momentum, k->damp1, k->b1, k->omb1, k->b2, k->omb2, k->step_size};
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
    if (!isfinite(f[i])) return 0;
  return o->host->cfg.kind == DLCA_OPTIM_SGD || k->eps > 0.0f;
}

/* One launch of k_flat over n elements of p and g from element base; the
 * arguments that stay the same from step to step (all but the scalars, and
 * those too for SGD at a fixed lr) are not set again. */
static int flat(dlca_optim_cl *o, cl_mem p, cl_mem g, size_t base, size_t n, const dlca__optim_scalars *k) {
  const char *name = dlca__optim_cl_flat_name(o->host->cfg.kind);
  cl_ulong b = base, c = n;
  int rc = DLCA_OK;
  if (p != o->flat_p && !(rc = dlca__optim_cl_arg(o->k_flat, name, 0, sizeof p, &p))) o->flat_p = p;
  if (!rc && g != o->flat_g && !(rc = dlca__optim_cl_arg(o->k_flat, name, 1, sizeof g, &g))) o->flat_g = g;
  if (!rc && base != o->flat_base && !(rc = dlca__optim_cl_arg(o->k_flat, name, 4, sizeof b, &b))) o->flat_base = base;
  if (!rc && n != o->flat_n && !(rc = dlca__optim_cl_arg(o->k_flat, name, 5, sizeof c, &c))) o->flat_n = n;
  if (!rc && (!o->flat_k_set || memcmp(k, &o->flat_k, sizeof *k))) {
    o->flat_k_set = 0;
    if (!(rc = dlca__optim_cl_arg(o->k_flat, name, 6, sizeof *k, k))) o->flat_k = *k, o->flat_k_set = 1;
  }
  size_t items = (n + 3) / 4, gws = (items + o->wg - 1) / o->wg * o->wg;
  if (!rc && gws) rc = dlca__launch(o->ctx, o->k_flat, name, 1, &gws, &o->wg);
  return rc;
}

int dlca_optim_cl_step(dlca_optim_cl *o, dlca_tensor *const *params, const dlca_tensor *const *grads) {
  if (!o) return dlca__fail(DLCA_EINVAL, "dlca_optim_cl_step: no optimizer (NULL)");
  int rc;
  if ((rc = dlca__optim_cl_check(o, (const dlca_tensor *const *)params, "parameter")) ||
      (rc = dlca__optim_cl_check(o, grads, "gradient")))
    return rc;
  dlca__optim_scalars k;
  if ((rc = dlca__optim_scalars_at(&o->host->cfg, o->host->steps + 1, &k))) return rc;
  dlca__optim_bufs b = {0, NULL, NULL, params, grads};
  if (o->n == 1) {
    rc = flat(o, params[0]->buf, grads[0]->buf, 0, o->host->sizes[0], &k);
  } else {
    b.grouped = dlca__optim_cl_grouped(o, (const dlca_tensor *const *)params, o->cache_p, &b.p_parent) &&
                dlca__optim_cl_grouped(o, grads, o->cache_g, &b.g_parent);
    const char *name = dlca__optim_cl_step_name(o->host->cfg.kind);
    if (b.grouped && o->tiled && keeps_zero(o, &k))
      rc = flat(o, b.p_parent, b.g_parent, o->group_off[0], o->flat_span, &k);
    else if (!(rc = dlca__optim_cl_arg(o->k_step, name, 20, sizeof k, &k)))
      rc = dlca__optim_cl_walk(o, o->k_step, name, &b, 18);
  }
  if (rc) return rc;
  o->host->steps++;
  return DLCA_OK;
}
