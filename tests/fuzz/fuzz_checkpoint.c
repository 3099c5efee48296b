/* libFuzzer: the checkpoint loader (dlca_trainer_load_checkpoint,
 * lib/train/checkpoint.c) on a file of the fuzzer's bytes, into a CPU
 * reference trainer of a small model (fuzz_small_shape), whose own
 * checkpoints are the seeds, beside one that dlca-train writes for "gol"
 * (refused as written for another model). Built twice:
 *  - raw (FUZZ_RESEAL 0): the bytes as they are; almost every mutation
 *    stops at the checksum;
 *  - resealed (FUZZ_RESEAL 1): the harness sets the header's payload size
 *    and XXH64 checksum (doc/checkpoint-format.md) to match the mutated
 *    payload, so that the fuzzer reaches the metadata, model and finiteness
 *    checks behind them. */
#include <xxhash.h>
#include "fuzz.h"

#ifndef FUZZ_RESEAL
#define FUZZ_RESEAL 0
#endif
#define CKPT_HEADER 32 /* magic, version, reserved, payload bytes, checksum */

static dlca_trainer *trainer;

/* Seed mode: the trainer's checkpoint as it starts, and after one epoch
 * (Adam moments not zero). */
static int write_seeds(const char *dir) {
  char p[1024];
  snprintf(p, sizeof p, "%s/small-epoch0.ckpt", dir);
  int rc = dlca_trainer_save_checkpoint(trainer, p);
  static const float target[6 * 6] = {1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1};
  if (!rc) rc = dlca_trainer_set_target(trainer, target, 0);
  if (!rc) rc = dlca_trainer_step(trainer);
  snprintf(p, sizeof p, "%s/small-epoch1.ckpt", dir);
  if (!rc) rc = dlca_trainer_save_checkpoint(trainer, p);
  return rc;
}

/* A reference trainer of fuzz_small_shape's model, wiring seed 1. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  dlca_model_shape s = fuzz_small_shape(DLCA_PARAM_SOFTMAX16);
  dlca_model *m;
  dlca_train_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.batch = 2, cfg.height = 6, cfg.width = 6, cfg.steps = 4, cfg.fire_rate = 0.6f;
  cfg.n_loss_channels = 1;
  cfg.start = DLCA_START_RANDOM;
  cfg.seed = 77;
  cfg.optim = dlca_optim_default();
  if (dlca_model_new(&s, 1, &m) || dlca_trainer_new(NULL, m, &cfg, &trainer)) {
    fprintf(stderr, "fuzz: no reference trainer: %s\n", dlca_last_error());
    abort();
  }
  dlca_model_free(m);
  if (fuzz_seed_dir()) fuzz_seed_done(write_seeds(fuzz_seed_dir()), "checkpoint");
  return 0;
}

#if FUZZ_RESEAL
static void reseal(uint8_t *b, size_t size) {
  uint64_t payload = size - CKPT_HEADER, sum = XXH64(b + CKPT_HEADER, payload, 0);
  memcpy(b + 16, &payload, 8);
  memcpy(b + 24, &sum, 8);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path;
#if FUZZ_RESEAL
  uint8_t *b = malloc(size ? size : 1);
  if (!b) return 0;
  memcpy(b, data, size);
  if (size >= CKPT_HEADER) reseal(b, size);
  path = fuzz_write("ckpt", b, size);
  free(b);
#else
  path = fuzz_write("ckpt", data, size);
#endif
  int rc = dlca_trainer_load_checkpoint(trainer, path);
  fuzz_check_refusal(rc, path);
  return 0;
}
