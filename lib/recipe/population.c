/* The population (dlca_cl/population.h): M runs of the training loop side
 * by side on one device. A step enqueues every model's epoch (the loop's
 * first half, dlca__loop_launch) before it reads any loss (the second
 * half), so the device's in-order queue never waits on the host between
 * models. What a model is after its last epoch is judged in
 * population_step.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "recipe/loop_impl.h"
#include "recipe/population_impl.h"
#include "cl/trainer_group.h"

/* One model's device bytes (gol's 512 boards are scored on the host). */
static int model_bytes(const dlca_model_shape *shape, const dlca_train_config *cfg, size_t *bytes) {
  dlca_model *m = NULL;
  size_t one = 0;
  int rc = dlca_model_new(shape, cfg->seed, &m);
  if (!rc) rc = dlca_trainer_estimate_memory(m, cfg, &one);
  dlca_model_free(m);
  /* a population's buffers are slots of its group's, each aligned */
  *bytes = one + DLCA_CLT_GROUP_PAD;
  return rc;
}

int dlca_population_estimate_memory(const dlca_preset *p, const dlca_model_shape *shape, const dlca_train_config *cfg,
                                    int n_models, size_t *bytes) {
  if (!p || !cfg || !bytes || n_models < 1)
    return dlca__fail(DLCA_EINVAL, "dlca_population_estimate_memory: NULL argument or n_models < 1");
  size_t one;
  int rc = model_bytes(shape ? shape : &p->shape, cfg, &one);
  if (rc) return rc;
  *bytes = one * (size_t)n_models;
  return DLCA_OK;
}

int dlca_population_max_models(dlca_context *ctx, const dlca_preset *p, const dlca_model_shape *shape,
                               const dlca_train_config *cfg, int *max_models) {
  if (!ctx || !p || !cfg || !max_models) return dlca__fail(DLCA_EINVAL, "dlca_population_max_models: NULL argument");
  size_t one;
  int rc = model_bytes(shape ? shape : &p->shape, cfg, &one);
  if (rc) return rc;
  dlca_device_info info;
  dlca_context_device(ctx, &info);
  uint64_t fit = one ? info.global_mem / one : 0;
  *max_models = fit > 1000000 ? 1000000 : (int)fit;
  return DLCA_OK;
}

/* Slot j: a fresh model of seed s and its run. */
int dlca__pop_start(dlca_population *P, int j, uint64_t s) {
  pop_model *pm = &P->models[j];
  dlca_loop_free(pm->loop);
  memset(pm, 0, sizeof *pm);
  pm->seed = s;
  pm->lineage.origin_seed = s;
  dlca_population_model_config(&P->po, &P->cfg, s, &pm->cfg);
  dlca_loop_options o = P->lo;
  o.seed = s;
  dlca_model *m = NULL;
  int rc = dlca_model_new(&P->shape, s, &m);
  if (!rc && P->po.iwp_init > 0) rc = dlca_model_init_pass_through(m, P->po.iwp_init);
  if (!rc) rc = dlca__loop_new_in(P->ctx, &P->preset, m, &pm->cfg, P->target, &o, P->group, j, &pm->loop);
  dlca_model_free(m);
  if (rc) return dlca__loop_fail(rc, "population: model %d, seed %llu", j, (unsigned long long)s);
  pm->state = DLCA_POP_TRAINING;
  P->started++;
  return DLCA_OK;
}

static int check_fit(dlca_population *P) {
  if (!P->ctx) return DLCA_OK;
  int fit;
  int rc = dlca_population_max_models(P->ctx, &P->preset, &P->shape, &P->cfg, &fit);
  if (rc || fit >= P->M) return rc;
  size_t bytes = 0;
  rc = dlca_population_estimate_memory(&P->preset, &P->shape, &P->cfg, P->M, &bytes);
  if (rc) return rc;
  dlca_device_info info;
  dlca_context_device(P->ctx, &info);
  return dlca__fail(DLCA_EDEVMEM,
                    "a population of %d %s models needs %.1f MiB, more than the %.1f MiB of %s: at most %d fit",
                    P->M, P->preset.name, bytes / 1048576.0, info.global_mem / 1048576.0, info.name, fit);
}

static int copy_in(dlca_population *P, const dlca_model_shape *shape, const float *target) {
  const size_t M = (size_t)P->M;
  P->shape = shape ? *shape : P->preset.shape;
  P->models = calloc(M, sizeof *P->models);
  P->ts = calloc(M, sizeof *P->ts), P->es = calloc(M, sizeof *P->es), P->soft = calloc(M, sizeof *P->soft);
  P->due = calloc(M, sizeof *P->due), P->evs = calloc(M, sizeof *P->evs);
  P->order = calloc(M, sizeof *P->order);
  if (!P->models || !P->ts || !P->es || !P->soft || !P->due || !P->evs || !P->order)
    return dlca__fail(DLCA_ENOMEM, "population: out of memory");
  if (!target || dlca_preset_is_gol(&P->preset)) return DLCA_OK;
  const size_t n = (size_t)P->cfg.height * P->cfg.width * (size_t)P->shape.channels;
  if (!(P->target = malloc(sizeof(float) * n))) return dlca__fail(DLCA_ENOMEM, "population: out of memory");
  memcpy(P->target, target, sizeof(float) * n);
  return DLCA_OK;
}

int dlca_population_new(dlca_context *ctx, const dlca_preset *p, const dlca_model_shape *shape,
                        const dlca_train_config *cfg, const float *target, const dlca_loop_options *o,
                        const dlca_population_options *po, dlca_population **out) {
  if (!p || !cfg || !o || !po || !out) return dlca__fail(DLCA_EINVAL, "dlca_population_new: NULL argument");
  *out = NULL;
  if (po->n_models < 1 || po->max_models < 0)
    return dlca__fail(DLCA_EINVAL, "dlca_population_new: n_models %d (>= 1) or max_models %ld (>= 0)",
                      po->n_models, po->max_models);
  int rc = dlca__pop_check_jitter(po);
  if (!rc) rc = dlca__pop_check_pbt(po);
  if (rc) return rc;
  dlca_population *P = calloc(1, sizeof *P);
  if (!P) return dlca__fail(DLCA_ENOMEM, "dlca_population_new: out of memory");
  P->ctx = ctx, P->preset = *p, P->cfg = *cfg, P->lo = *o, P->po = *po, P->M = po->n_models, P->winner = -1;
  pthread_mutex_init(&P->polish_lock, NULL);
  if (!po->compiled_wires) P->cfg.shared_program = 1; /* one program for every seed (dlca_train_config) */
  P->po.seeds = NULL;
  rc = copy_in(P, shape, target);
  if (!rc) rc = check_fit(P);
  /* one program for every seed: the models train together */
  if (!rc && ctx && P->cfg.shared_program) rc = dlca__clt_group_new(ctx, P->M, &P->group);
  uint64_t top = 0;
  for (int j = 0; j < P->M && !rc; j++) {
    uint64_t s = po->seeds ? po->seeds[j] : cfg->seed + (uint64_t)j;
    top = j == 0 || s > top ? s : top;
    rc = dlca__pop_start(P, j, s);
  }
  P->next_seed = po->next_seed ? po->next_seed : top + 1;
  if (rc) {
    dlca_population_free(P);
    return rc;
  }
  *out = P;
  return DLCA_OK;
}

void dlca_population_free(dlca_population *P) {
  if (!P) return;
  dlca__pop_drop(P);
  for (int j = 0; P->models && j < P->M; j++) dlca_loop_free(P->models[j].loop);
  pthread_mutex_destroy(&P->polish_lock);
  dlca__clt_group_free(P->group);
  free(P->models), free(P->target);
  free(P->ts), free(P->es), free(P->soft), free(P->due), free(P->evs), free(P->order);
  free(P);
}

int dlca_population_size(const dlca_population *P) { return P ? P->M : 0; }
uint64_t dlca_population_seed(const dlca_population *P, int j) { return P->models[j].seed; }
dlca_population_state dlca_population_model_state(const dlca_population *P, int j) { return P->models[j].state; }
dlca_loop *dlca_population_loop(dlca_population *P, int j) {
  return P && j >= 0 && j < P->M ? P->models[j].loop : NULL;
}

void dlca_population_losses(const dlca_population *P, double *soft) {
  for (int j = 0; j < P->M; j++) {
    dlca_loop_result w;
    dlca_loop_get_result(P->models[j].loop, &w);
    soft[j] = w.soft;
  }
}

int dlca_population_eval_hard(dlca_population *P, dlca_eval *out) {
  if (!P || !out) return dlca__fail(DLCA_EINVAL, "dlca_population_eval_hard: NULL argument");
  /* the group's models in one batched evaluation; gol's on their twins */
  for (int j = 0; j < P->M; j++) P->es[j] = P->group && !P->models[j].loop->gol ? P->models[j].loop->t : NULL;
  int rc = P->group ? dlca__clt_group_eval_hard(P->group, P->es, out) : DLCA_OK;
  if (rc) return dlca__loop_fail(rc, "population: hard evaluations");
  for (int j = 0; j < P->M; j++) {
    if (P->es[j]) continue;
    rc = dlca__loop_evaluate(P->models[j].loop, &out[j]);
    if (rc) return dlca__loop_fail(rc, "population: model %d", j);
  }
  return DLCA_OK;
}

int dlca_population_take(dlca_population *P, int j, dlca_model **out) {
  if (!P || !out || j < 0 || j >= P->M)
    return dlca__fail(DLCA_EINVAL, "dlca_population_take: NULL argument or model %d outside 0..%d", j,
                      P ? P->M - 1 : -1);
  return dlca_trainer_export_model(dlca_loop_trainer(P->models[j].loop), out);
}
