/* Each model's own hyperparameters (dlca_population_model_config): the
 * population's configuration with the model's seed, and with the jitters
 * its lr, temperature and Gumbel scale each times exp(U(-j, j)), U drawn
 * from the seed, so that a single run with that configuration is the
 * model. */
#include <math.h>
#include "core/internal.h"
#include "recipe/population_impl.h"

/* The draws' streams: "PJL", "PJT", "PJG" (apart from the trainer's). */
#define POP_STREAM_LR 0x504A4C00u
#define POP_STREAM_TEMPERATURE 0x504A5400u
#define POP_STREAM_GUMBEL 0x504A4700u

/* exp(U(-j, j)), U from one 32-bit draw of seed's stream; 1 for j of 0. */
static double jitter(uint64_t seed, uint32_t stream, double j) {
  if (!(j > 0)) return 1;
  const double u = ((double)dlca_rng_u32(seed, stream, 0) + 0.5) / 4294967296.0;
  return exp((2 * u - 1) * j);
}

void dlca_population_model_config(const dlca_population_options *po, const dlca_train_config *cfg, uint64_t seed,
                                  dlca_train_config *out) {
  *out = *cfg;
  out->seed = seed;
  out->population_plan = 1;
  out->optim.lr = (float)(cfg->optim.lr * jitter(seed, POP_STREAM_LR, po->lr_jitter));
  if (po->temperature_jitter > 0) {
    const double t = cfg->relax.temperature > 0 ? cfg->relax.temperature : 1;
    out->relax.temperature = (float)(t * jitter(seed, POP_STREAM_TEMPERATURE, po->temperature_jitter));
  }
  out->relax.gumbel_scale = (float)(cfg->relax.gumbel_scale * jitter(seed, POP_STREAM_GUMBEL, po->gumbel_jitter));
}

int dlca__pop_check_jitter(const dlca_population_options *po) {
  const double j[3] = {po->lr_jitter, po->temperature_jitter, po->gumbel_jitter};
  static const char *const name[3] = {"lr_jitter", "temperature_jitter", "gumbel_jitter"};
  for (int i = 0; i < 3; i++)
    if (!(j[i] >= 0 && j[i] <= 20))
      return dlca__fail(DLCA_EINVAL, "dlca_population_new: %s %g is outside [0, 20]", name[i], j[i]);
  return DLCA_OK;
}

int dlca_population_config(const dlca_population *P, int j, dlca_train_config *out) {
  if (!P || !out || j < 0 || j >= P->M)
    return dlca__fail(DLCA_EINVAL, "dlca_population_config: NULL argument or model %d outside 0..%d", j,
                      P ? P->M - 1 : -1);
  *out = P->models[j].cfg;
  return DLCA_OK;
}
