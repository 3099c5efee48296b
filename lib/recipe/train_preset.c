/* dlca_train_preset (dlca_cl/recipe.h): a preset trained with its
 * recommended recipe in one call, as `dlca-train --preset NAME --seed S
 * [--restarts N]` trains it, with the same losses bit for bit. */
#include <stdlib.h>
#include "core/internal.h"

/* One run of seed: *model gets its circuit (the kept or repaired one). */
static int one_run(dlca_context *ctx, const dlca_preset *p, const dlca_train_config *cfg,
                   const dlca_loop_options *o, dlca_loop_epoch_fn cb, void *user, dlca_model **model,
                   dlca_loop_result *res, int *fresh_ok) {
  dlca_model *m = NULL;
  dlca_loop *r = NULL;
  dlca_model_shape s = p->shape;
  int rc = dlca_model_new(&s, cfg->seed, &m);
  if (!rc) rc = dlca_loop_new(ctx, p, m, cfg, NULL, o, &r);
  dlca_model_free(m);
  int stop = 0;
  while (!rc && !stop) {
    if ((rc = dlca_loop_epoch(r))) break;
    dlca_loop_get_result(r, res);
    if (res->diverged) rc = dlca__fail(DLCA_ECONFIG, "%s, seed %llu: the soft loss diverged at epoch %llu",
                                       p->name, (unsigned long long)cfg->seed, (unsigned long long)res->epoch);
    else stop = res->done || (cb && cb(user, res));
  }
  if (!rc) rc = dlca_loop_finish(r);
  if (!rc) rc = dlca_loop_polish(r);
  if (!rc) rc = dlca_loop_eval_fresh(r);
  if (!rc) rc = dlca_trainer_export_model(dlca_loop_trainer(r), model);
  if (!rc) dlca_loop_get_result(r, res), *fresh_ok = dlca_loop_fresh_ok(r);
  dlca_loop_free(r);
  return rc;
}

int dlca_train_preset(dlca_context *ctx, const char *preset, int param, uint64_t seed, long restarts,
                      dlca_loop_epoch_fn epoch_cb, void *user, dlca_model **model, dlca_loop_result *out) {
  if (!preset || !model || restarts < 0) return dlca__fail(DLCA_EINVAL, "dlca_train_preset: bad argument");
  *model = NULL;
  dlca_preset p;
  int rc = dlca_preset_get(preset, &p);
  if (rc) return rc;
  p.shape.parametrisation = param == DLCA_PARAM_IWP ? DLCA_PARAM_IWP : DLCA_PARAM_SOFTMAX16;
  const dlca_recipe *q = NULL;
  if (dlca_recipe_for(p.name, (int)p.shape.parametrisation, &q)) q = NULL, dlca__clear_error();
  dlca_loop_result res;
  for (long k = 0; k <= restarts; k++) {
    dlca_train_config cfg;
    dlca_loop_options o;
    dlca_train_config_from_preset(&p, &cfg);
    cfg.seed = seed + 1000 * (uint64_t)k;
    cfg.relax.temperature = 0, cfg.relax.gumbel_scale = 0, cfg.relax.straight_through = 0;
    cfg.relax.grad_noise = 0;
    dlca_loop_options_default(&o);
    o.seed = cfg.seed;
    o.eval_fresh = restarts > 0 ? 100 : 0; /* what decides a restart */
    if ((rc = dlca_recipe_apply(q, &p, restarts > 0, &cfg, &o))) return rc;
    int ok = 0;
    dlca_model_free(*model), *model = NULL;
    if ((rc = one_run(ctx, &p, &cfg, &o, epoch_cb, user, model, &res, &ok))) return rc;
    if (out) *out = res;
    if (ok) break;
  }
  return DLCA_OK;
}
