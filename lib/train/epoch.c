/* The epoch logic both trainer back ends share (train/epoch.h): the epoch
 * key, the start grids, the run of an epoch and the hard evaluation. */
#include <string.h>
#include "train/epoch.h"

uint64_t dlca__epoch_key(uint64_t seed, uint64_t epoch) {
  return ((uint64_t)dlca_rng_u32(seed, 0xFFFFFFFFu, (uint32_t)epoch) << 32) |
         dlca_rng_u32(seed ^ (epoch >> 32), 0xFFFFFFFEu, (uint32_t)epoch);
}

void dlca__start_grids(const dlca_train_config *c, int channels, const float *input, uint64_t epoch, float *x) {
  const int C = channels;
  const size_t grid = (size_t)c->batch * c->height * c->width * (size_t)C;
  uint64_t key = dlca__epoch_key(c->seed, epoch);
  switch (c->start) {
    case DLCA_START_RANDOM: /* doc/rng.md: stream 0, counter = flat index, top bit */
      for (size_t i = 0; i < grid; i++) x[i] = (float)(dlca_rng_u32(key, 0, (uint32_t)i) >> 31);
      break;
    case DLCA_START_SEED:
      memset(x, 0, sizeof(float) * grid);
      for (int b = 0; b < c->batch; b++)
        for (int ch = 0; ch < C; ch++)
          x[(((size_t)b * c->height + c->height / 2) * c->width + c->width / 2) * C + ch] = 1.0f;
      break;
    case DLCA_START_ZEROS: memset(x, 0, sizeof(float) * grid); break;
    case DLCA_START_UPLOAD:
      if (input) memcpy(x, input, sizeof(float) * grid);
      else memset(x, 0, sizeof(float) * grid);
      break;
  }
}

dlca_run dlca__epoch_run(const dlca_train_config *c, const uint8_t *masks, uint64_t epoch) {
  dlca_run r = dlca_run_default(c->batch, c->height, c->width, c->steps);
  r.async = c->async;
  r.fire_rate = c->fire_rate;
  r.fire_masks = masks;
  r.mask_key = dlca__epoch_key(c->seed, epoch);
  r.n_loss_channels = c->n_loss_channels;
  memcpy(r.loss_channels, c->loss_channels, sizeof r.loss_channels);
  return r;
}

void dlca__hard_eval(const dlca_train_config *c, int channels, const float *target, const float *s, dlca_eval *out) {
  const size_t cells = (size_t)c->batch * c->height * c->width;
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < cells; i++)
    for (int j = 0; j < c->n_loss_channels; j++) {
      const size_t k = i * (size_t)channels + (size_t)c->loss_channels[j];
      dlca__eval_add(out, (double)s[k] - target[k]);
    }
  dlca__eval_end(out, cells * (size_t)c->n_loss_channels);
}
