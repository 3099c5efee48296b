/* Population-based training (dlca_population_options pbt_every,
 * pbt_fraction): every pbt_every steps the worst pbt_fraction of the
 * models still training (by the hard loss of their last evaluation, ties
 * by slot) each take a copy of one of the best: its wires and logits, its
 * optimizer's state and its hyperparameters with the lr times 0.8 or 1.25
 * (drawn from the taker's seed and the round). The taker keeps its seed,
 * so its noise (Gumbel draws, fire masks, gol's board order, fresh grids)
 * and its epoch; its schedule, keep-best and abandoning start again from
 * the copy. Its circuit is then no single run of its seed: the lineage
 * (dlca_population_lineage) says where it came from. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "recipe/loop_impl.h"
#include "recipe/population_impl.h"
#include "train/trainer_impl.h"

#define POP_STREAM_PBT 0x50425400u /* "PBT" */

int dlca__pop_check_pbt(const dlca_population_options *po) {
  if (po->pbt_every < 0 || !(po->pbt_fraction >= 0 && po->pbt_fraction <= 0.5))
    return dlca__fail(DLCA_EINVAL, "dlca_population_new: pbt_every %ld (>= 0) or pbt_fraction %g (in [0, 0.5])",
                      po->pbt_every, po->pbt_fraction);
  return DLCA_OK;
}

/* dst's optimizer state and epoch from src (the same optimizer; dst has not stepped). */
static int copy_optimizer(dlca_trainer *dst, dlca_trainer *src, uint64_t epoch) {
  const size_t n = src->n_slots * src->model->n_params;
  float *s = n ? malloc(sizeof(float) * n) : NULL;
  if (n && !s) return dlca__fail(DLCA_ENOMEM, "population: out of memory");
  int rc = src->ops->get_slots(src, s);
  if (!rc) rc = dst->ops->set_slots(dst, s);
  free(s);
  if (rc) return rc;
  dst->epoch = epoch;
  dst->stepped = dst->evaluated = 0;
  return DLCA_OK;
}

/* Slot j takes a copy of slot d's model (a new run of j's seed from d's
 * state at j's epoch). */
static int take_copy(dlca_population *P, int j, int d, uint64_t round) {
  pop_model *pm = &P->models[j], *pd = &P->models[d];
  const uint64_t e = pm->loop->res.epoch;
  dlca_train_config cfg = pd->cfg;
  const int up = dlca_rng_u32(pm->seed, POP_STREAM_PBT, (uint32_t)round) >> 31;
  cfg.seed = pm->seed;
  cfg.optim.lr = (float)(pd->cfg.optim.lr * (up ? 1.25 : 0.8));
  dlca_loop_options o = P->lo;
  o.seed = pm->seed;
  dlca_model *m = NULL;
  dlca_loop *loop = NULL;
  int rc = dlca_trainer_export_model(pd->loop->t, &m);
  if (rc) return dlca__loop_fail(rc, "population: model %d taking a copy of model %d", j, d);
  /* the old run gives its slot (of the trainer group, where there is one) to the copy */
  P->epochs_done += e - pm->loop->res.first;
  dlca_loop_free(pm->loop);
  pm->loop = NULL;
  rc = dlca__loop_new_in(P->ctx, &P->preset, m, &cfg, P->target, &o, P->group, j, &loop);
  if (!rc) rc = copy_optimizer(loop->t, pd->loop->t, e);
  dlca_model_free(m);
  if (rc) {
    dlca_loop_free(loop);
    pm->state = DLCA_POP_WRONG; /* its slot is empty: replaced (or left) as a model that ended wrong */
    return dlca__loop_fail(rc, "population: model %d taking a copy of model %d", j, d);
  }
  pm->loop = loop, pm->cfg = cfg;
  pm->lineage.copies++;
  pm->lineage.from_seed = pd->seed, pm->lineage.from_epoch = e;
  pm->lineage.origin_seed = pd->lineage.origin_seed;
  P->pbt_copies++;
  return DLCA_OK;
}

typedef struct ranked {
  double hard;
  int j;
} ranked;

static int by_hard(const void *a, const void *b) {
  const ranked *x = a, *y = b;
  return x->hard < y->hard ? -1 : x->hard > y->hard ? 1 : (x->j > y->j) - (x->j < y->j);
}

int dlca__pop_pbt(dlca_population *P) {
  if (P->po.pbt_every <= 0 || !(P->po.pbt_fraction > 0) || P->steps % (uint64_t)P->po.pbt_every) return DLCA_OK;
  ranked *rank = malloc(sizeof *rank * (size_t)P->M);
  int n = 0;
  if (!rank) return dlca__fail(DLCA_ENOMEM, "population: out of memory");
  for (int j = 0; j < P->M; j++) {
    if (P->models[j].state != DLCA_POP_TRAINING) continue;
    const dlca_loop_result *w = &P->models[j].loop->res;
    if (w->have_hard && !w->done)
      rank[n++] = (ranked){w->hard.hard_loss, j};
  }
  qsort(rank, (size_t)n, sizeof *rank, by_hard);
  int k = (int)(P->po.pbt_fraction * n), rc = DLCA_OK;
  if (k < 1 && n >= 2) k = 1;
  const uint64_t round = P->steps / (uint64_t)P->po.pbt_every;
  for (int i = 0; i < k && !rc; i++) {
    const ranked *d = &rank[i], *j = &rank[n - 1 - i];
    if (d->hard < j->hard) rc = take_copy(P, j->j, d->j, round);
  }
  free(rank);
  return rc;
}

void dlca_population_get_lineage(const dlca_population *P, int j, dlca_population_lineage *out) {
  memset(out, 0, sizeof *out);
  if (P && j >= 0 && j < P->M) *out = P->models[j].lineage;
}
