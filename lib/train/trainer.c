/* The backend-independent trainer: configuration checks, targets, and
 * dispatch to the CPU reference or OpenCL backend (the top of the layering
 * in train/epoch.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dlca_cl/bits.h"
#include "cl/trainer_backend.h"
#include "ref/ref_trainer.h"

void dlca_train_config_from_preset(const dlca_preset *p, dlca_train_config *c) {
  memset(c, 0, sizeof *c);
  c->batch = p->batch, c->height = p->height, c->width = p->width, c->steps = p->steps;
  c->async = p->async, c->fire_rate = p->fire_rate;
  c->n_loss_channels = p->n_loss_channels;
  memcpy(c->loss_channels, p->loss_channels, sizeof c->loss_channels);
  c->start = p->start;
  c->seed = 0;
  c->optim = dlca_optim_default();
  c->optim.lr = p->lr;
}

static int validate_config(const dlca_model *m, const dlca_train_config *c) {
  if (!c) return dlca__fail(DLCA_EINVAL, "training configuration is NULL");
  dlca_run r = dlca_run_default(c->batch, c->height, c->width, c->steps);
  r.async = c->async, r.fire_rate = c->fire_rate, r.n_loss_channels = c->n_loss_channels;
  memcpy(r.loss_channels, c->loss_channels, sizeof r.loss_channels);
  int rc = dlca_run_validate(m, &r);
  if (rc) return rc;
  if ((unsigned)c->start > DLCA_START_UPLOAD) return dlca__fail(DLCA_ECONFIG, "start: unknown kind %d", (int)c->start);
  if ((rc = dlca__relax_validate(&c->relax))) return rc;
  return dlca__train_optim_check(c);
}

int dlca_trainer_new(dlca_context *ctx, const dlca_model *m, const dlca_train_config *cfg, dlca_trainer **out) {
  return dlca__trainer_new_in(ctx, m, cfg, NULL, 0, out);
}

int dlca__trainer_new_in(dlca_context *ctx, const dlca_model *m, const dlca_train_config *cfg,
                         struct dlca__clt_group *group, int slot, dlca_trainer **out) {
  if (!m || !out || (group && !ctx)) return dlca__fail(DLCA_EINVAL, "dlca_trainer_new: NULL argument");
  *out = NULL;
  int rc = validate_config(m, cfg);
  if (rc) return rc;
  dlca_trainer *t = calloc(1, sizeof *t);
  if (!t) return dlca__fail(DLCA_ENOMEM, "trainer: out of memory");
  t->ctx = ctx;
  t->group = group, t->slot = slot;
  t->cfg = *cfg;
  t->n_slots = dlca__train_slots(cfg);
  t->ops = ctx ? &dlca__cl_trainer_ops : &dlca__ref_trainer_ops;
  if ((rc = dlca_model_clone(m, &t->model))) {
    free(t);
    return rc;
  }
  t->grid = (size_t)cfg->batch * cfg->height * cfg->width * m->shape.channels;
  if ((rc = t->ops->init(t))) {
    /* init leaves what it made before the failure in t->impl (host memory,
     * and on a device its kernels and buffers): destroy releases it */
    t->ops->destroy(t);
    dlca_model_free(t->model);
    free(t);
    return rc;
  }
  *out = t;
  return DLCA_OK;
}

void dlca_trainer_free(dlca_trainer *t) {
  if (!t) return;
  t->ops->destroy(t);
  dlca_model_free(t->model);
  free(t->target);
  free(t->input);
  free(t->masks);
  free(t);
}

const char *dlca_trainer_backend(const dlca_trainer *t) { return t ? t->ops->name : "none"; }
size_t dlca_trainer_state_slots(const dlca_trainer *t) { return t ? t->n_slots : 0; }

int dlca_trainer_get_state_slot(dlca_trainer *t, size_t slot, float *out) {
  if (!t || !out) return dlca__fail(DLCA_EINVAL, "dlca_trainer_get_state_slot: NULL argument");
  if (slot >= t->n_slots)
    return dlca__fail(DLCA_EINVAL, "dlca_trainer_get_state_slot: slot %zu, but %s keeps %zu", slot,
                      dlca__train_optim_name(&t->cfg), t->n_slots);
  const size_t P = t->model->n_params;
  float *all = malloc(sizeof(float) * (t->n_slots * P + 1));
  if (!all) return dlca__fail(DLCA_ENOMEM, "dlca_trainer_get_state_slot: out of memory for %zu logits", P);
  int rc = t->ops->get_slots(t, all);
  if (!rc) memcpy(out, all + slot * P, sizeof(float) * P);
  free(all);
  return rc;
}
size_t dlca_trainer_n_params(const dlca_trainer *t) { return t->model->n_params; }
uint64_t dlca_trainer_epoch(const dlca_trainer *t) { return t->epoch; }

int dlca_trainer_set_target(dlca_trainer *t, const float *y, int per_sample) {
  if (!t || !y) return dlca__fail(DLCA_EINVAL, "dlca_trainer_set_target: NULL argument");
  if (!t->target && !(t->target = malloc(sizeof(float) * t->grid)))
    return dlca__fail(DLCA_ENOMEM, "trainer: out of memory for the target");
  size_t one = t->grid / (size_t)t->cfg.batch;
  for (int b = 0; b < t->cfg.batch; b++)
    memcpy(t->target + b * one, per_sample ? y + b * one : y, sizeof(float) * one);
  return t->ops->sync_target(t);
}

int dlca_trainer_set_input(dlca_trainer *t, const float *x) {
  if (!t || !x) return dlca__fail(DLCA_EINVAL, "dlca_trainer_set_input: NULL argument");
  if (t->cfg.start != DLCA_START_UPLOAD)
    return dlca__fail(DLCA_ECONFIG, "dlca_trainer_set_input: the configuration's start is not DLCA_START_UPLOAD");
  if (!t->input && !(t->input = malloc(sizeof(float) * t->grid)))
    return dlca__fail(DLCA_ENOMEM, "trainer: out of memory for the start grids");
  memcpy(t->input, x, sizeof(float) * t->grid);
  t->evaluated = 0;
  return t->ops->sync_input(t);
}

int dlca_trainer_set_fire_masks(dlca_trainer *t, const uint8_t *masks) {
  if (!t) return dlca__fail(DLCA_EINVAL, "dlca_trainer_set_fire_masks: NULL trainer");
  if (!t->cfg.async) return dlca__fail(DLCA_ECONFIG, "fire masks given, but the configuration is synchronous");
  size_t n = (size_t)t->cfg.steps * t->cfg.batch * t->cfg.height * t->cfg.width;
  if (!masks) {
    free(t->masks);
    t->masks = NULL;
  } else {
    if (!t->masks && !(t->masks = malloc(n))) return dlca__fail(DLCA_ENOMEM, "trainer: out of memory for fire masks");
    for (size_t i = 0; i < n; i++) t->masks[i] = masks[i] != 0;
  }
  return t->ops->sync_masks(t);
}

int dlca_trainer_step(dlca_trainer *t) {
  if (!t) return dlca__fail(DLCA_EINVAL, "dlca_trainer_step: NULL trainer");
  if (!t->target) return dlca__fail(DLCA_ECONFIG, "dlca_trainer_step: no target set (dlca_trainer_set_target)");
  if (t->cfg.start == DLCA_START_UPLOAD && !t->input)
    return dlca__fail(DLCA_ECONFIG, "dlca_trainer_step: start is DLCA_START_UPLOAD but no input was set");
  int rc = t->ops->step(t);
  if (rc) return rc;
  t->epoch++;
  t->stepped = 1;
  t->evaluated = 0;
  return DLCA_OK;
}

int dlca_trainer_loss(dlca_trainer *t, double *loss) {
  if (!t || !loss) return dlca__fail(DLCA_EINVAL, "dlca_trainer_loss: NULL argument");
  if (!t->stepped) return dlca__fail(DLCA_ECONFIG, "dlca_trainer_loss: no step has run yet");
  return t->ops->loss(t, loss);
}

int dlca_trainer_eval_hard(dlca_trainer *t, dlca_eval *out) {
  if (!t || !out) return dlca__fail(DLCA_EINVAL, "dlca_trainer_eval_hard: NULL argument");
  if (!t->target) return dlca__fail(DLCA_ECONFIG, "dlca_trainer_eval_hard: no target set");
  if (t->cfg.start == DLCA_START_UPLOAD && !t->input)
    return dlca__fail(DLCA_ECONFIG, "dlca_trainer_eval_hard: start is DLCA_START_UPLOAD but no input was set");
  int rc = t->ops->eval_hard(t, out);
  if (!rc) t->evaluated = 1;
  return rc;
}

int dlca_trainer_set_lr(dlca_trainer *t, float lr) {
  if (!t) return dlca__fail(DLCA_EINVAL, "dlca_trainer_set_lr: NULL trainer");
  if (!(lr > 0) || !isfinite(lr)) return dlca__fail(DLCA_EINVAL, "dlca_trainer_set_lr: lr %g is not finite and > 0", lr);
  /* both backends read cfg.optim.lr when they apply the optimizer in the next step */
  t->cfg.optim.lr = lr;
  return DLCA_OK;
}

float dlca_trainer_lr(const dlca_trainer *t) { return t ? t->cfg.optim.lr : 0.0f; }

dlca_relax dlca_trainer_relax(const dlca_trainer *t) {
  dlca_relax none = {0, 0, 0, 0};
  return t ? t->cfg.relax : none;
}

/* Both backends read the temperature and the gradient noise from cfg at
 * every step; straight-through and the Gumbel table are built in at init, so
 * changing them re-initialises the backend around the learnt state. */
int dlca_trainer_set_relax(dlca_trainer *t, const dlca_relax *r) {
  if (!t || !r) return dlca__fail(DLCA_EINVAL, "dlca_trainer_set_relax: NULL argument");
  int rc = dlca__relax_validate(r);
  if (rc) return rc;
  const dlca_relax old = t->cfg.relax;
  if (old.straight_through == r->straight_through && old.gumbel_scale == r->gumbel_scale) {
    t->cfg.relax = *r;
    return DLCA_OK;
  }
  const size_t P = t->model->n_params;
  float *p = malloc(sizeof(float) * P), *sl = malloc(sizeof(float) * (t->n_slots * P + 1));
  if (!p || !sl) {
    free(p), free(sl);
    return dlca__fail(DLCA_ENOMEM, "dlca_trainer_set_relax: out of memory for %zu logits", P);
  }
  if ((rc = t->ops->get_params(t, p)) || (rc = t->ops->get_slots(t, sl))) goto out;
  t->ops->destroy(t);
  t->impl = NULL;
  t->cfg.relax = *r;
  if ((rc = t->ops->init(t))) {
    /* put the old backend back, so that the trainer stays usable */
    t->ops->destroy(t);
    t->impl = NULL;
    t->cfg.relax = old;
    int rc2 = t->ops->init(t);
    if (rc2) goto out; /* the first error is the one to report; the trainer is now unusable */
  }
  int rc3 = t->ops->set_params(t, p);
  if (!rc3) rc3 = t->ops->set_slots(t, sl);
  if (!rc3 && t->target) rc3 = t->ops->sync_target(t);
  if (!rc3 && t->input) rc3 = t->ops->sync_input(t);
  if (!rc3 && t->masks) rc3 = t->ops->sync_masks(t);
  if (!rc) rc = rc3;
  t->stepped = 0, t->evaluated = 0;
out:
  free(p), free(sl);
  return rc;
}

/* Batch i is evaluated as if it were epoch i of the seed seed ^ XOR: both
 * backends draw start grids and masks from dlca__epoch_key(t->cfg.seed,
 * t->epoch), so swapping those two (and hiding explicit masks) is all it
 * takes. Everything swapped is restored before returning. */
int dlca_trainer_eval_hard_fresh(dlca_trainer *t, uint64_t seed, int n_batches, dlca_eval *out) {
  if (!t || !out) return dlca__fail(DLCA_EINVAL, "dlca_trainer_eval_hard_fresh: NULL argument");
  if (n_batches < 1) return dlca__fail(DLCA_EINVAL, "dlca_trainer_eval_hard_fresh: %d batches", n_batches);
  if (!t->target) return dlca__fail(DLCA_ECONFIG, "dlca_trainer_eval_hard_fresh: no target set");
  if (t->cfg.start == DLCA_START_UPLOAD && !t->input)
    return dlca__fail(DLCA_ECONFIG, "dlca_trainer_eval_hard_fresh: start is DLCA_START_UPLOAD but no input was set");
  if (t->cfg.start != DLCA_START_RANDOM && !t->cfg.async) n_batches = 1;
  const uint64_t seed0 = t->cfg.seed, epoch0 = t->epoch;
  uint8_t *masks0 = t->masks;
  t->masks = NULL;
  t->cfg.seed = seed ^ DLCA_FRESH_SEED_XOR;
  memset(out, 0, sizeof *out);
  int rc = DLCA_OK;
  for (int i = 0; i < n_batches && !rc; i++) {
    dlca_eval e;
    t->epoch = (uint64_t)i;
    if (!(rc = t->ops->eval_hard(t, &e))) {
      out->hard_loss += e.hard_loss;
      out->errors += e.errors;
      out->total += e.total;
    }
  }
  t->cfg.seed = seed0, t->epoch = epoch0, t->masks = masks0;
  if (rc) return rc;
  out->accuracy = 1.0 - (double)out->errors / (double)out->total;
  t->evaluated = 1;
  return DLCA_OK;
}

int dlca_trainer_get_params(dlca_trainer *t, float *p) {
  if (!t || !p) return dlca__fail(DLCA_EINVAL, "dlca_trainer_get_params: NULL argument");
  return t->ops->get_params(t, p);
}

int dlca_trainer_set_params(dlca_trainer *t, const float *p) {
  if (!t || !p) return dlca__fail(DLCA_EINVAL, "dlca_trainer_set_params: NULL argument");
  for (size_t i = 0; i < t->model->n_params; i++)
    if (!isfinite(p[i])) return dlca__fail(DLCA_EINVAL, "dlca_trainer_set_params: logit %zu is not finite", i);
  t->evaluated = 0;
  return t->ops->set_params(t, p);
}

int dlca_trainer_get_grad(dlca_trainer *t, float *g) {
  if (!t || !g) return dlca__fail(DLCA_EINVAL, "dlca_trainer_get_grad: NULL argument");
  if (!t->stepped) return dlca__fail(DLCA_ECONFIG, "dlca_trainer_get_grad: no step has run yet");
  return t->ops->get_grad(t, g);
}

int dlca_trainer_get_state(dlca_trainer *t, int hard, float *s) {
  if (!t || !s) return dlca__fail(DLCA_EINVAL, "dlca_trainer_get_state: NULL argument");
  if (hard ? !t->evaluated : !t->stepped)
    return dlca__fail(DLCA_ECONFIG, "dlca_trainer_get_state: no %s has run yet", hard ? "hard evaluation" : "step");
  return t->ops->get_state(t, hard, s);
}

int dlca_trainer_export_model(dlca_trainer *t, dlca_model **out) {
  if (!t || !out) return dlca__fail(DLCA_EINVAL, "dlca_trainer_export_model: NULL argument");
  dlca_model *m;
  int rc = dlca_model_clone(t->model, &m);
  if (rc) return rc;
  if ((rc = t->ops->get_params(t, m->params))) {
    dlca_model_free(m);
    return rc;
  }
  *out = m;
  return DLCA_OK;
}

int dlca_trainer_estimate_memory(const dlca_model *m, const dlca_train_config *cfg, size_t *bytes) {
  if (!m || !cfg || !bytes) return dlca__fail(DLCA_EINVAL, "dlca_trainer_estimate_memory: NULL argument");
  int rc = validate_config(m, cfg);
  if (rc) return rc;
  *bytes = dlca__cl_trainer_footprint(m, cfg);
  return DLCA_OK;
}

/* The hard evaluation (eval_hard) as a packed-bits circuit (lib/ref/bits.c). */
int dlca_trainer_bits(dlca_trainer *t, dlca_bits **out) {
  if (!t || !out) return dlca__fail(DLCA_EINVAL, "dlca_trainer_bits: NULL argument");
  *out = NULL;
  if (!t->target) return dlca__fail(DLCA_ECONFIG, "dlca_trainer_bits: no target set");
  dlca_model *m;
  int rc = dlca_trainer_export_model(t, &m);
  if (rc) return rc;
  float *x = malloc(sizeof(float) * t->grid);
  if (!x) {
    dlca_model_free(m);
    return dlca__fail(DLCA_ENOMEM, "dlca_trainer_bits: out of memory");
  }
  dlca__start_grids(&t->cfg, t->model->shape.channels, t->input, t->epoch, x);
  const dlca_run run = dlca__epoch_run(&t->cfg, t->masks, t->epoch);
  rc = dlca_bits_new(m, &run, x, t->target, out);
  free(x);
  dlca_model_free(m);
  return rc;
}

int dlca_trainer_eval_fresh_bits(dlca_trainer *t, uint64_t seed, int n_batches, dlca_eval *out) {
  if (!t || !out) return dlca__fail(DLCA_EINVAL, "dlca_trainer_eval_fresh_bits: NULL argument");
  if (!t->target) return dlca__fail(DLCA_ECONFIG, "dlca_trainer_eval_fresh_bits: no target set");
  if (t->cfg.start == DLCA_START_UPLOAD && !t->input)
    return dlca__fail(DLCA_ECONFIG, "dlca_trainer_eval_fresh_bits: start is DLCA_START_UPLOAD but no input was set");
  dlca_model *m;
  int rc = dlca_trainer_export_model(t, &m);
  if (rc) return rc;
  rc = dlca_bits_eval_fresh(m, &t->cfg, t->input, t->target, seed, n_batches, out, NULL);
  dlca_model_free(m);
  return rc;
}
