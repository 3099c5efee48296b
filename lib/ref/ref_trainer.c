/* The trainer's CPU-reference backend: epoch_gradient (through
 * dlca__ref_gradient_sums), then clip + AdamW, on host arrays. It is the twin
 * of lib/cl/trainer/. */
#include <stdlib.h>
#include <string.h>
#include "ref/ref_impl.h"
#include "ref/ref_trainer.h"
#include "train/host_memory.h"

typedef struct ref_state {
  float *slots, *grad;  /* the optimizer's state (t->n_slots slots of P floats), last gradient */
  float *gumbel;        /* issue 6: the Gumbel table, or NULL */
  float *x;             /* start grids of the last step or evaluation */
  float *soft, *hard;   /* final states */
  double loss;
} ref_state;

/* Host bytes a reference trainer holds at its peak, a step: the optimizer's
 * state slots (2 P floats for AdamW), the gradient, noisy and noise-added logits; its own start grids
 * and final states, the trainer's target and input (5 grids); the step's
 * T + 1 states, state gradient and patch gradients (T + 11 grids, backward.c,
 * or a ping-pong copy in a hard evaluation); the coefficients and their
 * gradient sums (2 x 4 floats and (1 + 64 chunks) x 4 doubles a gate); the
 * fire masks; the Gumbel table. */
size_t dlca__ref_trainer_footprint(const dlca_model *m, const dlca_train_config *cfg) {
  const size_t P = m->n_params, NG = dlca__model_n_gates(m), cells = (size_t)cfg->batch * cfg->height * cfg->width;
  const size_t grid = cells * (size_t)m->shape.channels, T = (size_t)cfg->steps;
  size_t f = (3 + dlca__train_slots(cfg)) * P * sizeof(float) + (5 + T + 11) * grid * sizeof(float);
  f += 2 * 4 * NG * sizeof(float) + (1 + 64) * 4 * NG * sizeof(double);
  if (cfg->async) f += T * cells;
  if (cfg->relax.gumbel_scale > 0) f += DLCA_GUMBEL_LEVELS * sizeof(float);
  return f;
}

/* The reference back end's memory is the host's: refused up front where the
 * process cannot get it (train/host_memory.h), rather than failing or
 * being killed mid-step. */
static int check_memory(const dlca_trainer *t) {
  dlca__host_memory h;
  dlca__host_memory_read(&h);
  const uint64_t limit = dlca__host_memory_limit(&h), need = dlca__ref_trainer_footprint(t->model, &t->cfg);
  if (need <= limit) return DLCA_OK;
  dlca_train_config c = t->cfg;
  int fit = 0;
  for (c.batch = 1; c.batch <= (1 << 30) && dlca__ref_trainer_footprint(t->model, &c) <= limit; c.batch *= 2)
    fit = c.batch;
  return dlca__host_memory_check(&h, need, "training on the CPU reference", fit);
}

static int ref_init(dlca_trainer *t) {
  size_t P = t->model->n_params;
  int rc = check_memory(t);
  if (rc) return rc;
  ref_state *s = calloc(1, sizeof *s);
  if (!s) return dlca__fail(DLCA_ENOMEM, "reference trainer: out of memory");
  s->slots = calloc(t->n_slots * P + 1, sizeof(float)), s->grad = calloc(P, sizeof(float));
  s->x = malloc(sizeof(float) * t->grid), s->soft = malloc(sizeof(float) * t->grid);
  s->hard = malloc(sizeof(float) * t->grid);
  t->impl = s;
  if (!s->slots || !s->grad || !s->x || !s->soft || !s->hard)
    return dlca__fail(DLCA_ENOMEM, "reference trainer: out of memory for %zu logits", P);
  for (size_t k = 0; k < t->n_slots; k++) {
    const float v0 = dlca__train_slot_init(&t->cfg, k);
    for (size_t i = 0; v0 != 0.0f && i < P; i++) s->slots[k * P + i] = v0;
  }
  if (t->cfg.relax.gumbel_scale > 0)
    return dlca__gumbel_table(t->model->shape.parametrisation, t->cfg.relax.gumbel_scale, &s->gumbel);
  return DLCA_OK;
}

static void ref_destroy(dlca_trainer *t) {
  ref_state *s = t->impl;
  if (!s) return;
  free(s->slots), free(s->grad), free(s->x), free(s->soft), free(s->hard), free(s->gumbel);
  free(s);
}

static int ref_nothing(dlca_trainer *t) { return DLCA_OK; }

/* One epoch's gradient, the twin of dlca_coef, dlca_backward and dlca_adamw:
 * z = the logits (plus Gumbel noise, issue 6; IWP: logistic), soft
 * coefficients of softmax(z / tau) (IWP: sigmoid(z / tau)), a hard forward
 * pass on the hard op of z when straight-through, and dL/dz as dL/dlogit. With no relaxation this is
 * dlca_ref_gradient, bit for bit (z = logits, tau = 1). */
static int epoch_gradient(dlca_trainer *t, const dlca_run *run) {
  ref_state *s = t->impl;
  const dlca_relax *r = &t->cfg.relax;
  const dlca_parametrisation par = t->model->shape.parametrisation;
  const size_t P = t->model->n_params, NG = dlca__model_n_gates(t->model);
  const float inv_tau = dlca__relax_inv_tau(r);
  float *z = malloc(sizeof(float) * P), *cs = malloc(sizeof(float) * 4 * NG);
  float *ch = r->straight_through ? malloc(sizeof(float) * 4 * NG) : NULL;
  double *dc = malloc(sizeof(double) * 4 * NG);
  int rc = DLCA_OK;
  if (!z || !cs || (r->straight_through && !ch) || !dc) {
    rc = dlca__fail(DLCA_ENOMEM, "reference trainer: out of memory for %zu logits", P);
    goto out;
  }
  if (s->gumbel) dlca__noisy_logits(t->model->params, P, s->gumbel, dlca__epoch_key(t->cfg.seed, t->epoch), z);
  else memcpy(z, t->model->params, sizeof(float) * P);
  dlca__coefficients(par, NG, z, inv_tau, 0, cs);
  if (ch) dlca__coefficients(par, NG, z, 1.0f, 1, ch);
  rc = dlca__ref_gradient_sums(t->model, run, s->x, t->target, ch ? ch : cs, cs, &s->loss, dc, s->soft);
  if (!rc) dlca__logit_grad_t(par, NG, z, inv_tau, dc, s->grad);
out:
  free(z), free(cs), free(ch), free(dc);
  return rc;
}

static int ref_step(dlca_trainer *t) {
  ref_state *s = t->impl;
  const dlca_relax *r = &t->cfg.relax;
  const size_t P = t->model->n_params;
  dlca_run run = dlca__epoch_run(&t->cfg, t->masks, t->epoch);
  dlca__start_grids(&t->cfg, t->model->shape.channels, t->input, t->epoch, s->x);
  int rc = epoch_gradient(t, &run);
  if (rc) return rc;
  const float *g = s->grad;
  float *noisy = NULL;
  if (r->grad_noise > 0) {
    /* added before clipping; the stored gradient stays clean */
    if (!(noisy = malloc(sizeof(float) * P))) return dlca__fail(DLCA_ENOMEM, "reference trainer: out of memory");
    const uint64_t key = dlca__epoch_key(t->cfg.seed, t->epoch);
    const float sigma = dlca__grad_noise_sigma(r->grad_noise, t->epoch + 1);
    for (size_t j = 0; j < P; j++) noisy[j] = s->grad[j] + sigma * dlca__grad_noise(key, (uint32_t)j);
    g = noisy;
  }
  if (t->cfg.use_suite) {
    const dlca_optim_config c = dlca__train_suite(&t->cfg);
    dlca__ref_optim_step(&c, t->cfg.optim.clip, P, t->model->params, g, s->slots, t->epoch + 1);
  } else {
    dlca_ref_adamw(P, t->model->params, g, s->slots, s->slots + P, (int)(t->epoch + 1), &t->cfg.optim);
  }
  free(noisy);
  return DLCA_OK;
}

static int ref_loss(dlca_trainer *t, double *loss) {
  *loss = ((ref_state *)t->impl)->loss;
  return DLCA_OK;
}

static int ref_eval_hard(dlca_trainer *t, dlca_eval *out) {
  ref_state *s = t->impl;
  dlca_run run = dlca__epoch_run(&t->cfg, t->masks, t->epoch);
  dlca__start_grids(&t->cfg, t->model->shape.channels, t->input, t->epoch, s->x);
  int rc = dlca_ref_forward(t->model, &run, s->x, 1, NULL, s->hard, NULL);
  if (!rc) dlca__hard_eval(&t->cfg, t->model->shape.channels, t->target, s->hard, out);
  return rc;
}

static int ref_get_params(dlca_trainer *t, float *p) {
  memcpy(p, t->model->params, sizeof(float) * t->model->n_params);
  return DLCA_OK;
}

static int ref_set_params(dlca_trainer *t, const float *p) {
  memcpy(t->model->params, p, sizeof(float) * t->model->n_params);
  return DLCA_OK;
}

static int ref_get_grad(dlca_trainer *t, float *g) {
  memcpy(g, ((ref_state *)t->impl)->grad, sizeof(float) * t->model->n_params);
  return DLCA_OK;
}

static int ref_get_state(dlca_trainer *t, int hard, float *out) {
  ref_state *s = t->impl;
  memcpy(out, hard ? s->hard : s->soft, sizeof(float) * t->grid);
  return DLCA_OK;
}

static int ref_get_slots(dlca_trainer *t, float *out) {
  ref_state *s = t->impl;
  if (t->n_slots) memcpy(out, s->slots, sizeof(float) * t->n_slots * t->model->n_params);
  return DLCA_OK;
}

static int ref_set_slots(dlca_trainer *t, const float *in) {
  ref_state *s = t->impl;
  if (t->n_slots) memcpy(s->slots, in, sizeof(float) * t->n_slots * t->model->n_params);
  return DLCA_OK;
}

const dlca_trainer_ops dlca__ref_trainer_ops = {
    "ref",          ref_init,       ref_destroy,    ref_nothing,   ref_nothing,     ref_nothing,
    ref_step,       ref_loss,       ref_eval_hard,  ref_get_params, ref_set_params, ref_get_grad,
    ref_get_state,  ref_get_slots,  ref_set_slots,
};
