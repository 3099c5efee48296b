/* An outside program: it trains a preset with its recommended recipe
 * through the installed public API alone (pkg-config dlca_cl), and prints
 * the lines of dlca-train's summary that say what it got, so that
 * tests/outside-program.sh can compare the two for the same seed.
 *
 *   checkerboard [PRESET [SEED [EPOCHS [MODEL.json [cl]]]]]
 *
 * EPOCHS 0 trains as long as the recipe does; otherwise the run stops after
 * that epoch, as dlca-train --epochs EPOCHS does. "cl" trains on the
 * default OpenCL device instead of the CPU reference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlca_cl.h>

/* Stops the run after the given epoch (0: never). */
static int on_epoch(void *user, const dlca_loop_result *now) {
  const unsigned long long *stop_at = user;
  return *stop_at && now->epoch >= *stop_at;
}

/* One line on stderr with the library's message; exit 1. */
static int fail(const char *what, int status) {
  const char *why = dlca_last_error();
  fprintf(stderr, "checkerboard: %s: %s\n", what, why[0] ? why : dlca_strerror(status));
  return 1;
}

int main(int argc, char **argv) {
  const char *preset = argc > 1 ? argv[1] : "checkerboard";
  const unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 0;
  unsigned long long stop_at = argc > 3 ? strtoull(argv[3], NULL, 10) : 0;
  const char *save = argc > 4 && argv[4][0] ? argv[4] : NULL;
  dlca_context *ctx = NULL; /* NULL: the CPU reference */
  int rc;
  if (argc > 5 && !strcmp(argv[5], "cl") && (rc = dlca_context_new(NULL, &ctx))) return fail("OpenCL", rc);
  dlca_model *m = NULL;
  dlca_loop_result res;
  rc = dlca_train_preset(ctx, preset, DLCA_PARAM_SOFTMAX16, seed, 0, on_epoch, &stop_at, &m, &res);
  if (rc) {
    dlca_context_free(ctx);
    return fail(preset, rc);
  }
  printf("epochs:         %llu\n", (unsigned long long)res.epoch);
  printf("soft loss:      %.9g\n", res.soft);
  printf("hard loss:      %.9g", res.hard.hard_loss);
  if (res.hard_epoch != res.epoch) printf(" (at epoch %llu)", (unsigned long long)res.hard_epoch);
  printf("\nhard accuracy:  %.4f%% (%zu of %zu values wrong)\n", 100 * res.hard.accuracy, res.hard.errors,
         res.hard.total);
  if (res.have_best) printf("best hard loss: %.9g at epoch %llu\n", res.best_hard, (unsigned long long)res.best_epoch);
  if (save && (rc = dlca_model_save(m, save))) {
    dlca_model_free(m);
    dlca_context_free(ctx);
    return fail(save, rc);
  }
  dlca_model_free(m);
  dlca_context_free(ctx);
  return 0;
}
