/* The population's step (dlca_cl/population.h): replacements, every
 * model's epoch enqueued, then read, then the models that are done
 * finished and judged as a single run of their seed would be. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "recipe/loop_impl.h"
#include "recipe/population_impl.h"

static uint64_t epochs_of(const dlca_loop *r) {
  dlca_loop_result w;
  dlca_loop_get_result(r, &w);
  return w.epoch - w.first;
}

/* A model that is done: finished as one run is (dlca-train, dlca_train_preset),
 * then right or wrong: right on every fresh grid where o->eval_fresh asks,
 * else a hard loss of 0 with the logits it ends with. */
static int judge(dlca_population *P, int j) {
  pop_model *pm = &P->models[j];
  dlca_loop *r = pm->loop;
  const int evaluated = r->res.evaluated; /* the last epoch's, which finish clears */
  int rc = dlca_loop_finish(r);
  if (!rc) rc = dlca_loop_polish(r);
  if (!rc) rc = dlca_loop_eval_fresh(r);
  if (rc) return dlca__loop_fail(rc, "population: finishing model %d, seed %llu", j, (unsigned long long)pm->seed);
  dlca_loop_result *w = &r->res;
  w->evaluated = evaluated;
  int right;
  if (w->diverged || w->abandoned) right = 0;
  else if (P->lo.eval_fresh > 0) right = dlca_loop_fresh_ok(r);
  else {
    dlca_eval ev;
    if ((rc = dlca__loop_evaluate(r, &ev))) return rc;
    right = ev.errors == 0;
  }
  pm->state = right ? DLCA_POP_RIGHT : w->abandoned ? DLCA_POP_ABANDONED : DLCA_POP_WRONG;
  P->finished += !w->abandoned;
  P->abandoned += w->abandoned != 0;
  if (right && P->winner < 0) P->winner = j;
  return DLCA_OK;
}

/* Slots whose model ended wrong or abandoned get a fresh seed, within max_models. */
static int replace_due(dlca_population *P) {
  for (int j = 0; j < P->M && P->po.replace; j++) {
    pop_model *pm = &P->models[j];
    if (pm->state != DLCA_POP_WRONG && pm->state != DLCA_POP_ABANDONED) continue;
    if (P->po.max_models > 0 && P->started >= P->po.max_models) break;
    P->epochs_done += epochs_of(pm->loop);
    int rc = dlca__pop_start(P, j, P->next_seed++);
    if (rc) return rc;
  }
  return DLCA_OK;
}

int dlca_population_running(const dlca_population *P) {
  if (!P || (P->winner >= 0 && !P->po.run_all)) return 0;
  const int more = P->po.replace && (P->po.max_models == 0 || P->started < P->po.max_models);
  for (int j = 0; j < P->M; j++) {
    dlca_population_state s = P->models[j].state;
    if (s == DLCA_POP_TRAINING || (more && (s == DLCA_POP_WRONG || s == DLCA_POP_ABANDONED))) return 1;
  }
  return 0;
}

int dlca_population_step(dlca_population *P) {
  if (!P) return dlca__fail(DLCA_EINVAL, "dlca_population_step: NULL argument");
  if (!dlca_population_running(P)) return DLCA_OK;
  int rc = replace_due(P);
  for (int j = 0; j < P->M && !rc; j++)
    if (P->models[j].state == DLCA_POP_TRAINING) rc = dlca__loop_launch(P->models[j].loop);
  for (int j = 0; j < P->M && !rc; j++) {
    pop_model *pm = &P->models[j];
    if (pm->state != DLCA_POP_TRAINING) continue;
    if ((rc = dlca__loop_collect(pm->loop))) break;
    if (pm->loop->res.done) rc = judge(P, j);
  }
  P->steps += !rc;
  if (!rc && dlca_population_running(P)) rc = dlca__pop_pbt(P); /* population_pbt.c */
  if (rc) return dlca__loop_fail(rc, "population step %llu", (unsigned long long)P->steps + 1);
  return DLCA_OK;
}

void dlca_population_get_stats(const dlca_population *P, dlca_population_stats *out) {
  memset(out, 0, sizeof *out);
  out->winner = P->winner;
  out->models = P->started, out->finished = P->finished, out->abandoned = P->abandoned;
  out->epochs = P->epochs_done, out->steps = P->steps, out->pbt_copies = P->pbt_copies;
  for (int j = 0; j < P->M; j++) {
    out->epochs += epochs_of(P->models[j].loop);
    out->training += P->models[j].state == DLCA_POP_TRAINING;
  }
  if (P->winner >= 0) {
    const dlca_loop *r = P->models[P->winner].loop;
    out->winner_seed = P->models[P->winner].seed;
    out->winner_epoch = r->res.epoch;
  }
}
