/* The optimizer object: its state layout, and one multi-tensor step that
 * computes the step's scalars once (as a device launch would) and applies
 * the rule of its kind to every tensor in order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optim/internal.h"

static int alloc_tensors(dlca_optimizer *o, size_t n, const size_t *sizes) {
  o->sizes = malloc(n * sizeof *o->sizes);
  o->offsets = malloc(n * sizeof *o->offsets);
  if (!o->sizes || !o->offsets) return dlca__fail(DLCA_ENOMEM, "optimizer: %zu tensors", n);
  for (size_t i = 0; i < n; i++) {
    if (sizes[i] > (SIZE_MAX / sizeof(float) / 4 - o->total))
      return dlca__fail(DLCA_EINVAL, "optimizer: tensor %zu of %zu floats is too large", i, sizes[i]);
    o->sizes[i] = sizes[i], o->offsets[i] = o->total;
    o->total += sizes[i];
  }
  o->n_tensors = n;
  return DLCA_OK;
}

int dlca_optim_new(const dlca_optim_config *cfg, size_t n, const size_t *sizes, dlca_optimizer **out) {
  *out = NULL;
  int st = dlca_optim_config_check(cfg);
  if (st) return st;
  if (n == 0 || !sizes) return dlca__fail(DLCA_EINVAL, "optimizer: no parameter tensors");
  dlca_optimizer *o = calloc(1, sizeof *o);
  if (!o) return dlca__fail(DLCA_ENOMEM, "optimizer: no memory");
  o->cfg = *cfg;
  o->n_slots = dlca__optim_slots(cfg);
  st = alloc_tensors(o, n, sizes);
  if (!st && o->n_slots) {
    o->state = calloc(o->n_slots * o->total + 1, sizeof(float));
    if (!o->state) st = dlca__fail(DLCA_ENOMEM, "optimizer: state of %zu floats", o->n_slots * o->total);
  }
  if (st) return dlca_optim_free(o), st;
  if (cfg->kind == DLCA_OPTIM_ADAGRAD)
    for (size_t i = 0; i < o->total; i++) o->state[i] = (float)cfg->initial_accumulator_value;
  *out = o;
  return DLCA_OK;
}

void dlca_optim_free(dlca_optimizer *o) {
  if (!o) return;
  free(o->sizes), free(o->offsets), free(o->state), free(o);
}

/* The scalars of step number t (1 for the first step), computed in double
 * as torch computes its Python floats, then rounded to float once. */
static dlca__optim_scalars scalars(const dlca_optim_config *c, uint64_t t) {
  dlca__optim_scalars k;
  memset(&k, 0, sizeof k);
  if (t == 0) t = 1;
  k.lr = (float)c->lr, k.wd = (float)c->weight_decay, k.eps = (float)c->eps;
  k.decay = (float)(1.0 - c->lr * c->weight_decay);
  k.momentum = (float)c->momentum, k.damp1 = (float)(1.0 - c->dampening);
  k.first = t == 1;
  if (c->kind == DLCA_OPTIM_ADAM || c->kind == DLCA_OPTIM_ADAMW) {
    k.b1 = (float)c->beta1, k.omb1 = (float)(1.0 - c->beta1);
    k.b2 = (float)c->beta2, k.omb2 = (float)(1.0 - c->beta2);
    k.step_size = (float)(c->lr / (1.0 - pow(c->beta1, (double)t)));
    k.bc2_sqrt = (float)sqrt(1.0 - pow(c->beta2, (double)t));
  } else if (c->kind == DLCA_OPTIM_RMSPROP) {
    k.b2 = (float)c->alpha, k.omb2 = (float)(1.0 - c->alpha);
  } else if (c->kind == DLCA_OPTIM_ADAGRAD) {
    k.step_size = (float)(c->lr / (1.0 + (double)(t - 1) * c->lr_decay));
  }
  return k;
}

int dlca__optim_scalars_at(const dlca_optim_config *c, uint64_t step, dlca__optim_scalars *k) {
  if (!c || !k) return dlca__fail(DLCA_EINVAL, "optimizer scalars: NULL argument");
  *k = scalars(c, step);
  return DLCA_OK;
}

int dlca_optim_step(dlca_optimizer *o, float *const *params, const float *const *grads) {
  if (!o || !params || !grads) return dlca__fail(DLCA_EINVAL, "optimizer step: NULL argument");
  for (size_t i = 0; i < o->n_tensors; i++)
    if (o->sizes[i] && (!params[i] || !grads[i]))
      return dlca__fail(DLCA_EINVAL, "optimizer step: tensor %zu has a NULL parameter or gradient", i);
  o->steps++;
  dlca__optim_scalars k = scalars(&o->cfg, o->steps);
  for (size_t i = 0; i < o->n_tensors; i++) {
    float *s[3] = {NULL, NULL, NULL};
    for (size_t j = 0; j < o->n_slots; j++) s[j] = o->state + j * o->total + o->offsets[i];
    size_t n = o->sizes[i];
    switch (o->cfg.kind) {
    case DLCA_OPTIM_SGD: dlca__sgd(n, params[i], grads[i], s, &o->cfg, &k); break;
    case DLCA_OPTIM_ADAM:
    case DLCA_OPTIM_ADAMW: dlca__adam(n, params[i], grads[i], s, &o->cfg, &k); break;
    case DLCA_OPTIM_RMSPROP: dlca__rmsprop(n, params[i], grads[i], s, &o->cfg, &k); break;
    default: dlca__adagrad(n, params[i], grads[i], s, &o->cfg, &k); break;
    }
  }
  return DLCA_OK;
}

int dlca_optim_set_lr(dlca_optimizer *o, double lr) {
  if (!(lr >= 0) || isinf(lr))
    return dlca__fail(DLCA_EINVAL, "%s: lr = %g is outside [0, inf)", dlca_optim_kind_name(o->cfg.kind), lr);
  o->cfg.lr = lr;
  return DLCA_OK;
}

double dlca_optim_lr(const dlca_optimizer *o) { return o->cfg.lr; }
uint64_t dlca_optim_steps(const dlca_optimizer *o) { return o->steps; }
const dlca_optim_config *dlca_optim_get_config(const dlca_optimizer *o) { return &o->cfg; }
size_t dlca_optim_state_slots(const dlca_optimizer *o) { return o->n_slots; }

float *dlca_optim_state_slot(dlca_optimizer *o, size_t slot) {
  return slot < o->n_slots ? o->state + slot * o->total : NULL;
}
