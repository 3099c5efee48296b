/* Helpers shared by the test suites. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/internal.h"
#include "util.h"

const char *tu_vector_path(const char *name) {
  static char buf[8][1024];
  static int k;
  const char *dir = getenv("DLCA_TESTDATA");
  if (!dir) dir = "../shared/testdata/reference";
  char *p = buf[k++ % 8];
  snprintf(p, 1024, "%s/%s", dir, name);
  if (access(p, R_OK) != 0) {
    fprintf(stderr, "SKIP: reference vector %s not found (shared/ absent?)\n", p);
    return NULL;
  }
  return p;
}

const char *tu_tmpdir(const char *tag) {
  static char buf[8][1024];
  static int k;
  const char *top = getenv("DLCA_TOP_BUILDDIR");
  char *p = buf[k++ % 8];
  snprintf(p, 1024, "%s/tests/tmp-%s-%d", top ? top : ".", tag, (int)getpid());
  char cmd[1100];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", p);
  if (system(cmd) != 0) return p;
  mkdir(top ? top : ".", 0755);
  char t[1024];
  snprintf(t, sizeof t, "%s/tests", top ? top : ".");
  mkdir(t, 0755);
  mkdir(p, 0755);
  return p;
}

char *tu_read(const char *path, size_t *len) {
  char *t = NULL;
  ck_assert_msg(dlca__read_file(path, &t, len) == DLCA_OK, "%s", dlca_last_error());
  return t;
}

const char *tu_write(const char *dir, const char *name, const char *text) {
  static char buf[8][1024];
  static int k;
  char *p = buf[k++ % 8];
  snprintf(p, 1024, "%s/%s", dir, name);
  FILE *f = fopen(p, "wb");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
  return p;
}

void tu_random(float *v, size_t n, float lo, float hi, uint64_t seed) {
  for (size_t i = 0; i < n; i++)
    v[i] = lo + (hi - lo) * (float)(dlca_rng_u32(seed, 7, (uint32_t)i) >> 8) * (1.0f / 16777216.0f);
}

dlca_model_shape tu_small_shape(int C, int K, int with_one, int periodic, int extra, dlca_wiring wiring) {
  dlca_model_shape s;
  memset(&s, 0, sizeof s);
  s.channels = C, s.n_kernels = K, s.periodic = periodic;
  static const int p[] = {9, 8, 4, 2, 1};
  s.n_perceive_layers = with_one ? 5 : 4;
  memcpy(s.perceive_layers, p, sizeof p);
  int w = C * (1 + (with_one ? 1 : 2) * K), n = 0;
  s.update_layers[n++] = w;
  s.update_layers[n++] = w;
  for (int e = 0; e < extra; e++) s.update_layers[n++] = w;
  while (w > C) {
    w = (w + 1) / 2 < C ? C : (w + 1) / 2;
    s.update_layers[n++] = w;
  }
  s.n_update_layers = n;
  s.perceive_first_wiring = DLCA_WIRING_FIRST_KERNEL;
  s.wiring = wiring;
  return s;
}

void tu_tiny_checkerboard(dlca_preset *p, dlca_train_config *cfg, dlca_loop_options *o, long epochs) {
  ck_assert_int_eq(dlca_preset_get("checkerboard", p), DLCA_OK);
  dlca_train_config_from_preset(p, cfg);
  cfg->batch = 2, cfg->steps = 4, cfg->seed = 7;
  cfg->relax.temperature = 2, cfg->relax.gumbel_scale = 0.5f;
  dlca_loop_options_default(o);
  o->epochs = epochs, o->eval_every = 2;
}

dlca_train_config tu_small_train_config(void) {
  dlca_train_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.batch = 2, cfg.height = 6, cfg.width = 6, cfg.steps = 4, cfg.fire_rate = 0.6f;
  cfg.n_loss_channels = 1;
  cfg.start = DLCA_START_RANDOM;
  cfg.seed = 77;
  cfg.optim = dlca_optim_default();
  return cfg;
}
