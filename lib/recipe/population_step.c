/* The population's step (dlca_cl/population.h): replacements, every
 * model's epoch enqueued, then read, then the models that are done
 * finished and judged as a single run of their seed would be. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "recipe/loop_impl.h"
#include "recipe/population_impl.h"
#include "cl/trainer_group.h"

static uint64_t epochs_of(const dlca_loop *r) {
  if (!r) return 0; /* a slot emptied by a failed copy (population_pbt.c) */
  dlca_loop_result w;
  dlca_loop_get_result(r, &w);
  return w.epoch - w.first;
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
    if (s == DLCA_POP_TRAINING || s == DLCA_POP_POLISHING || (more && (s == DLCA_POP_WRONG || s == DLCA_POP_ABANDONED)))
      return 1;
  }
  return 0;
}

/* The hard evaluations that the losses made due: those of the group's
 * trainers in one batched evaluation, gol's on each model's twin. */
static int evaluate_due(dlca_population *P) {
  int any = 0, rc = DLCA_OK;
  for (int j = 0; j < P->M; j++) {
    dlca_loop *r = P->models[j].loop;
    P->es[j] = P->ts[j] && P->due[j] && !r->gol ? r->t : NULL;
    any |= P->es[j] != NULL;
  }
  if (any && (rc = dlca__clt_group_eval_hard(P->group, P->es, P->evs)))
    return dlca__loop_fail(rc, "population: hard evaluations");
  for (int j = 0; j < P->M && !rc; j++) {
    if (!P->ts[j] || !P->due[j]) continue;
    dlca_loop *r = P->models[j].loop;
    if (!P->es[j]) rc = dlca__loop_evaluate(r, &P->evs[j]);
    if (!rc) rc = dlca__loop_take_eval(r, &P->evs[j]);
  }
  return rc;
}

/* Every training model's epoch in one launch per phase, the losses in one
 * read, then the evaluations due. */
static int step_group(dlca_population *P) {
  int rc = DLCA_OK, any = 0;
  for (int j = 0; j < P->M && !rc; j++) {
    dlca_loop *r = P->models[j].loop;
    P->ts[j] = NULL;
    if (P->models[j].state != DLCA_POP_TRAINING) continue;
    if ((rc = dlca__loop_before_step(r))) break;
    if (!r->res.done) P->ts[j] = r->t, any = 1;
  }
  if (rc || !any) return rc;
  if ((rc = dlca__clt_group_step(P->group, P->ts)) || (rc = dlca__clt_group_losses(P->group, P->ts, P->soft)))
    return dlca__loop_fail(rc, "population: epoch");
  for (int j = 0; j < P->M && !rc; j++) {
    P->due[j] = 0;
    if (P->ts[j]) rc = dlca__loop_take_loss(P->models[j].loop, P->soft[j], &P->due[j]);
  }
  return rc ? rc : evaluate_due(P);
}

double dlca__pop_promise(const dlca_population *P, int j) {
  const dlca_loop_result *w = &P->models[j].loop->res;
  return w->diverged ? INFINITY : w->min_hard;
}

/* The models that finished this step, judged (population_repair.c) most
 * promising first (then by slot), so that where many end at once (the
 * checkerboard-async's and colour's fixed epochs) the likeliest winner's
 * fresh grids and repair come first, and the rest wait once one is right. */
static int judge_done(dlca_population *P, int n) {
  for (int k = 1; k < n; k++) /* insertion: stable, and n is at most M */
    for (int i = k; i > 0 && dlca__pop_promise(P, P->order[i]) < dlca__pop_promise(P, P->order[i - 1]); i--) {
      const int t = P->order[i];
      P->order[i] = P->order[i - 1], P->order[i - 1] = t;
    }
  int rc = DLCA_OK;
  for (int k = 0; k < n && !rc; k++) {
    if (P->winner >= 0 && !P->po.run_all) break;
    rc = dlca__pop_judge(P, P->order[k]);
  }
  return rc;
}

int dlca_population_step(dlca_population *P) {
  if (!P) return dlca__fail(DLCA_EINVAL, "dlca_population_step: NULL argument");
  if (!dlca_population_running(P)) return DLCA_OK;
  int rc = replace_due(P);
  int training = 0;
  for (int j = 0; j < P->M; j++) training |= P->models[j].state == DLCA_POP_TRAINING;
  if (!rc) rc = dlca__pop_reap(P, !training); /* the repairs that ended; all of them when nothing trains */
  if (!rc && P->winner >= 0 && !P->po.run_all) return DLCA_OK;
  if (!rc && P->group) rc = step_group(P);
  for (int j = 0; j < P->M && !rc && !P->group; j++)
    if (P->models[j].state == DLCA_POP_TRAINING) rc = dlca__loop_launch(P->models[j].loop);
  int n_done = 0;
  for (int j = 0; j < P->M && !rc; j++) {
    pop_model *pm = &P->models[j];
    if (pm->state != DLCA_POP_TRAINING) continue;
    if ((rc = dlca__loop_collect(pm->loop))) break;
    if (pm->loop->res.done) P->order[n_done++] = j;
  }
  if (!rc) rc = judge_done(P, n_done);
  P->steps += !rc && training;
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
