/* The paper's experiments as presets, doc/semantics.md section 5. */
#include <string.h>
#include <strings.h>
#include "model/model_impl.h"

static const char *const names[] = {"gol", "checkerboard", "checkerboard-async", "growth", "colour", NULL};

const char *const *dlca_preset_names(void) { return names; }

/* Appends `count` copies of width w to a layer list. */
static void push(int *layers, int *n, int w, int count) {
  while (count-- > 0) layers[(*n)++] = w;
}

static void set_perceive(dlca_model_shape *s, int K, int with_one) {
  s->n_kernels = K;
  s->n_perceive_layers = 0;
  push(s->perceive_layers, &s->n_perceive_layers, 9, 1);
  push(s->perceive_layers, &s->n_perceive_layers, 8, 1);
  push(s->perceive_layers, &s->n_perceive_layers, 4, 1);
  push(s->perceive_layers, &s->n_perceive_layers, 2, 1);
  if (with_one) push(s->perceive_layers, &s->n_perceive_layers, 1, 1);
}

/* update layers: [in, wide x n_wide, then the tail list] */
static void set_update(dlca_model_shape *s, int wide, int n_wide, const int *tail, int n_tail) {
  int S = s->perceive_layers[s->n_perceive_layers - 1];
  s->n_update_layers = 0;
  push(s->update_layers, &s->n_update_layers, s->channels * (1 + S * s->n_kernels), 1);
  push(s->update_layers, &s->n_update_layers, wide, n_wide);
  for (int i = 0; i < n_tail; i++) push(s->update_layers, &s->n_update_layers, tail[i], 1);
}

int dlca_preset_get(const char *name, dlca_preset *p) {
  if (!name || !p) return dlca__fail(DLCA_EINVAL, "dlca_preset_get: NULL argument");
  memset(p, 0, sizeof *p);
  dlca_model_shape *s = &p->shape;
  s->perceive_first_wiring = DLCA_WIRING_FIRST_KERNEL;
  s->wiring = DLCA_WIRING_UNIQUE;
  p->fire_rate = 0.6f;
  p->lr = 0.05f;
  p->n_loss_channels = 1;
  p->loss_channels[0] = 0;
  if (!strcasecmp(name, "gol")) {
    static const int tail[] = {128, 64, 32, 16, 8, 4, 2, 1};
    p->name = names[0];
    s->channels = 1, s->periodic = 1;
    set_perceive(s, 16, 1);
    set_update(s, 128, 16, tail, 8);
    p->height = 3, p->width = 3, p->steps = 1, p->batch = 20, p->epochs = 3000;
    p->start = DLCA_START_UPLOAD;
  } else if (!strcasecmp(name, "checkerboard") || !strcasecmp(name, "checkerboard-async")) {
    static const int tail[] = {128, 64, 32, 16, 8, 8};
    int async = strcasecmp(name, "checkerboard") != 0;
    p->name = names[async ? 2 : 1];
    s->channels = 8, s->periodic = 0;
    set_perceive(s, 16, 0);
    set_update(s, 256, async ? 14 : 10, tail, 6);
    p->height = p->width = async ? 14 : 16;
    p->steps = async ? 50 : 20, p->batch = async ? 1 : 2, p->epochs = async ? 800 : 500;
    p->async = async;
    p->start = DLCA_START_RANDOM;
  } else if (!strcasecmp(name, "growth")) {
    static const int tail[] = {256, 128};
    p->name = names[3];
    s->channels = 128, s->periodic = 1;
    set_perceive(s, 4, 1);
    set_update(s, 512, 8, tail, 2);
    p->height = p->width = 20, p->steps = 12, p->batch = 1, p->epochs = 3500;
    p->lr = 0.06f;
    p->start = DLCA_START_SEED;
  } else if (!strcasecmp(name, "colour") || !strcasecmp(name, "color")) {
    static const int tail[] = {256, 128, 64};
    p->name = names[4];
    s->channels = 64, s->periodic = 0;
    set_perceive(s, 4, 0);
    set_update(s, 512, 8, tail, 3);
    p->height = p->width = 16, p->steps = 15, p->batch = 1, p->epochs = 3000;
    p->lr = 0.06f;
    p->start = DLCA_START_ZEROS;
    p->n_loss_channels = 3;
    p->loss_channels[1] = 1, p->loss_channels[2] = 2;
  } else {
    return dlca__fail(DLCA_EINVAL, "unknown preset '%s' (known: gol, checkerboard, checkerboard-async, growth, colour)", name);
  }
  return DLCA_OK;
}
