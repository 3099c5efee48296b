/* The relaxations of issue 6 that every backend shares: the Gumbel (IWP:
 * logistic) table,
 * the noisy logits of an epoch and the gradient noise (doc/training.md,
 * doc/rng.md). The OpenCL twins are in kernels-cl/trainer.cl (dlca_coef,
 * dlca_adamw); both draw from dlca_rng_u32, so the values match. */
#include <math.h>
#include <stdlib.h>
#include "train/epoch.h"

float dlca__relax_inv_tau(const dlca_relax *r) { return r->temperature > 0 ? 1.0f / r->temperature : 1.0f; }

int dlca__relax_validate(const dlca_relax *r) {
  if (!(r->temperature >= 0) || !isfinite(r->temperature) || (r->temperature > 0 && r->temperature < 1e-3f))
    return dlca__fail(DLCA_ECONFIG, "relax.temperature: %g is not 0 (= 1) or in [0.001, inf)", r->temperature);
  if (!(r->gumbel_scale >= 0) || !isfinite(r->gumbel_scale))
    return dlca__fail(DLCA_ECONFIG, "relax.gumbel_scale: %g is not finite and >= 0", r->gumbel_scale);
  if (!(r->grad_noise >= 0) || !isfinite(r->grad_noise))
    return dlca__fail(DLCA_ECONFIG, "relax.grad_noise: %g is not finite and >= 0", r->grad_noise);
  if (r->straight_through != 0 && r->straight_through != 1)
    return dlca__fail(DLCA_ECONFIG, "relax.straight_through: %d is not 0 or 1", r->straight_through);
  return DLCA_OK;
}

/* Entry i is scale * G((i + 1/2) / 2^16), computed in double and rounded
 * once: every backend reads the same floats, so the noisy argmax (or sign)
 * is the same everywhere. softmax-16: G(u) = -log(-log u), the Gumbel
 * quantile. IWP: G(u) = log(u / (1 - u)), the logistic quantile, because
 * s = sigmoid(w) is the two-way softmax of (w, 0), and Gumbel noise on both
 * of its logits is logistic noise on w (the difference of two Gumbels). */
int dlca__gumbel_table(dlca_parametrisation par, float scale, float **out) {
  float *t = malloc(sizeof(float) * DLCA_GUMBEL_LEVELS);
  if (!t) return dlca__fail(DLCA_ENOMEM, "trainer: out of memory for the Gumbel table");
  for (int i = 0; i < DLCA_GUMBEL_LEVELS; i++) {
    double u = (i + 0.5) / DLCA_GUMBEL_LEVELS;
    t[i] = (float)(scale * (par == DLCA_PARAM_IWP ? log(u / (1.0 - u)) : -log(-log(u))));
  }
  *out = t;
  return DLCA_OK;
}

void dlca__noisy_logits(const float *params, size_t n, const float *table, uint64_t key, float *z) {
  for (size_t j = 0; j < n; j++)
    z[j] = params[j] + table[dlca_rng_u32(key, DLCA_STREAM_GUMBEL, (uint32_t)j) >> 16];
}

float dlca__grad_noise_sigma(float eta, uint64_t step) {
  return eta > 0 ? (float)sqrt(eta / pow((double)step, 0.55)) : 0.0f;
}

/* Box-Muller from two draws, in float as the device computes it. */
float dlca__grad_noise(uint64_t key, uint32_t j) {
  float u1 = ((float)(dlca_rng_u32(key, DLCA_STREAM_GRAD_NOISE, 2 * j) >> 8) + 0.5f) * (1.0f / 16777216.0f);
  float u2 = (float)(dlca_rng_u32(key, DLCA_STREAM_GRAD_NOISE, 2 * j + 1) >> 8) * (1.0f / 16777216.0f);
  return sqrtf(-2.0f * logf(u1)) * cosf(6.2831853f * u2);
}
