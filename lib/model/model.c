/* Model construction: shape checks, allocation, initialisation, accessors and
 * the gate histogram. Wiring is in wiring.c, presets in presets.c, JSON in json.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "model/model_impl.h"

int dlca__model_max_width(const dlca_model *m) {
  int w = 9;
  for (int i = 0; i < m->shape.n_perceive_layers; i++)
    if (m->shape.perceive_layers[i] > w) w = m->shape.perceive_layers[i];
  for (int i = 0; i < m->shape.n_update_layers; i++)
    if (m->shape.update_layers[i] > w) w = m->shape.update_layers[i];
  return w;
}

int dlca__shape_validate(const dlca_model_shape *s, int generating) {
  if (!s) return dlca__fail(DLCA_EINVAL, "model shape is NULL");
  if (s->parametrisation != DLCA_PARAM_SOFTMAX16 && s->parametrisation != DLCA_PARAM_IWP)
    return dlca__fail(DLCA_EMODEL, "parametrisation: %d is not %d (softmax16) or %d (iwp)", (int)s->parametrisation,
                      DLCA_PARAM_SOFTMAX16, DLCA_PARAM_IWP);
  if (s->channels < 1 || s->channels > 4096)
    return dlca__fail(DLCA_EMODEL, "channels: %d is not in [1, 4096]", s->channels);
  if (s->n_kernels < 1 || s->n_kernels > 4096)
    return dlca__fail(DLCA_EMODEL, "perceive.n_kernels: %d is not in [1, 4096]", s->n_kernels);
  if (s->n_perceive_layers < 2 || s->n_perceive_layers > DLCA_MAX_LAYERS)
    return dlca__fail(DLCA_EMODEL, "perceive.layers: needs 2 to %d entries, has %d", DLCA_MAX_LAYERS,
                      s->n_perceive_layers);
  if (s->perceive_layers[0] != 9)
    return dlca__fail(DLCA_EMODEL, "perceive.layers[0]: %d, but a 3x3 patch has 9 inputs",
                      s->perceive_layers[0]);
  for (int i = 1; i < s->n_perceive_layers; i++)
    if (s->perceive_layers[i] < 1 || s->perceive_layers[i] > 65536)
      return dlca__fail(DLCA_EMODEL, "perceive.layers[%d]: %d gates is not in [1, 65536]", i,
                        s->perceive_layers[i]);
  if (s->n_update_layers < 2 || s->n_update_layers > DLCA_MAX_LAYERS)
    return dlca__fail(DLCA_EMODEL, "update.layers: needs 2 to %d entries, has %d", DLCA_MAX_LAYERS,
                      s->n_update_layers);
  long S = s->perceive_layers[s->n_perceive_layers - 1];
  long need = (long)s->channels * (1 + S * s->n_kernels);
  if (s->update_layers[0] != need)
    return dlca__fail(DLCA_EMODEL,
                      "update.layers[0]: %d, but C + C*S*K = %d + %d*%ld*%d = %ld",
                      s->update_layers[0], s->channels, s->channels, S, s->n_kernels, need);
  for (int i = 1; i < s->n_update_layers; i++)
    if (s->update_layers[i] < 1 || s->update_layers[i] > 65536)
      return dlca__fail(DLCA_EMODEL, "update.layers[%d]: %d gates is not in [1, 65536]", i,
                        s->update_layers[i]);
  if (s->update_layers[s->n_update_layers - 1] != s->channels)
    return dlca__fail(DLCA_EMODEL, "update.layers[%d]: the last layer has %d gates, but channels is %d",
                      s->n_update_layers - 1, s->update_layers[s->n_update_layers - 1], s->channels);
  if (!generating) return DLCA_OK;
  if (s->perceive_first_wiring == DLCA_WIRING_FIRST_KERNEL && s->perceive_layers[1] != 8)
    return dlca__fail(DLCA_EMODEL, "perceive.layers[1]: first_kernel wiring needs 8 gates, not %d",
                      s->perceive_layers[1]);
  for (int pass = 0; pass < 2; pass++) {
    const int *L = pass ? s->update_layers : s->perceive_layers;
    int n = pass ? s->n_update_layers : s->n_perceive_layers;
    for (int i = 1; i < n; i++) {
      dlca_wiring kind = (!pass && i == 1) ? s->perceive_first_wiring : s->wiring;
      if (kind == DLCA_WIRING_UNIQUE && 2L * L[i] < L[i - 1])
        return dlca__fail(DLCA_EMODEL,
                          "%s.layers[%d]: unique wiring needs 2G >= N, but G = %d and N = %d",
                          pass ? "update" : "perceive", i, L[i], L[i - 1]);
    }
  }
  return DLCA_OK;
}

int dlca__model_alloc(const dlca_model_shape *s, dlca_model **out) {
  dlca_model *m = calloc(1, sizeof *m);
  if (!m) return dlca__fail(DLCA_ENOMEM, "model: out of memory");
  m->shape = *s;
  m->n_perceive = s->n_perceive_layers - 1;
  m->n_update = s->n_update_layers - 1;
  const size_t npg = (size_t)dlca__npg(s->parametrisation);
  size_t off = 0;
  for (int i = 0; i < m->n_perceive; i++) {
    dlca_layer *L = &m->perceive[i];
    L->n_in = s->perceive_layers[i];
    L->n_gates = s->perceive_layers[i + 1];
    L->offset = off, L->gate0 = off / npg;
    off += (size_t)s->n_kernels * L->n_gates * npg;
  }
  for (int i = 0; i < m->n_update; i++) {
    dlca_layer *L = &m->update[i];
    L->n_in = s->update_layers[i];
    L->n_gates = s->update_layers[i + 1];
    L->offset = off, L->gate0 = off / npg;
    off += (size_t)L->n_gates * npg;
  }
  m->n_params = off;
  m->params = calloc(off, sizeof(float));
  int ok = m->params != NULL;
  for (int p = 0; p < 2 && ok; p++) {
    int n = p ? m->n_update : m->n_perceive;
    dlca_layer *Ls = p ? m->update : m->perceive;
    for (int i = 0; i < n && ok; i++) {
      Ls[i].wa = calloc((size_t)Ls[i].n_gates, sizeof(int32_t));
      Ls[i].wb = calloc((size_t)Ls[i].n_gates, sizeof(int32_t));
      ok = Ls[i].wa && Ls[i].wb;
    }
  }
  if (!ok) {
    dlca_model_free(m);
    return dlca__fail(DLCA_ENOMEM, "model: out of memory for %zu logits", off);
  }
  *out = m;
  return DLCA_OK;
}

void dlca__model_init_logits(dlca_model *m, float z) {
  const size_t n = dlca__model_n_gates(m);
  if (m->shape.parametrisation == DLCA_PARAM_IWP) {
    /* gate A: outputs 0 on (0, 0) and (0, 1), 1 on (1, 0) and (1, 1) */
    for (size_t g = 0; g < n; g++) {
      float *w = m->params + 4 * g;
      w[0] = -z, w[1] = -z, w[2] = z, w[3] = z;
    }
    return;
  }
  /* doc/semantics.md section 1: every logit 0, the pass-through gate (3) 10.0 */
  memset(m->params, 0, m->n_params * sizeof(float));
  for (size_t g = 0; g < n; g++) m->params[g * 16 + 3] = z;
}

int dlca_model_init_pass_through(dlca_model *m, float z) {
  if (!m) return dlca__fail(DLCA_EINVAL, "dlca_model_init_pass_through: NULL model");
  if (!(z > 0) || !isfinite(z))
    return dlca__fail(DLCA_EINVAL, "dlca_model_init_pass_through: strength %g is not finite and > 0", (double)z);
  dlca__model_init_logits(m, z);
  return DLCA_OK;
}

int dlca__hard_op(dlca_parametrisation p, const float *l) {
  if (p == DLCA_PARAM_IWP) return 8 * (l[0] > 0) + 4 * (l[1] > 0) + 2 * (l[2] > 0) + (l[3] > 0);
  int best = 0; /* doc/semantics.md section 1: ties go to the lowest index */
  for (int i = 1; i < 16; i++)
    if (l[i] > l[best]) best = i;
  return best;
}

const char *dlca_parametrisation_name(int p) {
  return p == DLCA_PARAM_SOFTMAX16 ? "softmax16" : p == DLCA_PARAM_IWP ? "iwp" : "unknown";
}

int dlca_model_new(const dlca_model_shape *shape, uint64_t seed, dlca_model **out) {
  if (!out) return dlca__fail(DLCA_EINVAL, "dlca_model_new: out is NULL");
  *out = NULL;
  int rc = dlca__shape_validate(shape, 1);
  if (rc) return rc;
  dlca_model *m;
  if ((rc = dlca__model_alloc(shape, &m))) return rc;
  uint64_t rng = seed;
  for (int i = 0; i < m->n_perceive && !rc; i++)
    rc = dlca__wire_layer(&m->perceive[i], i == 0 ? shape->perceive_first_wiring : shape->wiring, &rng);
  for (int i = 0; i < m->n_update && !rc; i++)
    rc = dlca__wire_layer(&m->update[i], shape->wiring, &rng);
  if (rc) {
    dlca_model_free(m);
    return rc;
  }
  dlca__model_init_logits(m, shape->parametrisation == DLCA_PARAM_IWP ? DLCA_IWP_INIT_DEFAULT : DLCA_SOFTMAX16_INIT);
  *out = m;
  return DLCA_OK;
}

int dlca_model_new_preset(const char *preset, uint64_t seed, dlca_model **out) {
  dlca_preset p;
  int rc = dlca_preset_get(preset, &p);
  if (rc) return rc;
  return dlca_model_new(&p.shape, seed, out);
}

int dlca_model_clone(const dlca_model *src, dlca_model **out) {
  if (!src || !out) return dlca__fail(DLCA_EINVAL, "dlca_model_clone: NULL argument");
  dlca_model *m;
  int rc = dlca__model_alloc(&src->shape, &m);
  if (rc) return rc;
  for (int i = 0; i < m->n_perceive; i++) {
    memcpy(m->perceive[i].wa, src->perceive[i].wa, sizeof(int32_t) * (size_t)m->perceive[i].n_gates);
    memcpy(m->perceive[i].wb, src->perceive[i].wb, sizeof(int32_t) * (size_t)m->perceive[i].n_gates);
  }
  for (int i = 0; i < m->n_update; i++) {
    memcpy(m->update[i].wa, src->update[i].wa, sizeof(int32_t) * (size_t)m->update[i].n_gates);
    memcpy(m->update[i].wb, src->update[i].wb, sizeof(int32_t) * (size_t)m->update[i].n_gates);
  }
  memcpy(m->params, src->params, sizeof(float) * m->n_params);
  *out = m;
  return DLCA_OK;
}

void dlca_model_free(dlca_model *m) {
  if (!m) return;
  for (int i = 0; i < DLCA_MAX_LAYERS; i++) {
    free(m->perceive[i].wa);
    free(m->perceive[i].wb);
    free(m->update[i].wa);
    free(m->update[i].wb);
  }
  free(m->params);
  free(m);
}

void dlca_model_get_shape(const dlca_model *m, dlca_model_shape *out) { *out = m->shape; }
size_t dlca_model_n_params(const dlca_model *m) { return m->n_params; }
size_t dlca_model_n_gates(const dlca_model *m) { return dlca__model_n_gates(m); }
int dlca_model_params_per_gate(const dlca_model *m) { return dlca__model_npg(m); }
float *dlca_model_params(dlca_model *m) { return m->params; }
const float *dlca_model_params_const(const dlca_model *m) { return m->params; }

size_t dlca_model_layer_offset(const dlca_model *m, int update, int layer) {
  if (update) return (layer >= 0 && layer < m->n_update) ? m->update[layer].offset : m->n_params;
  return (layer >= 0 && layer < m->n_perceive) ? m->perceive[layer].offset : m->n_params;
}

int dlca_model_wires(const dlca_model *m, int update, int layer, int32_t *wa, int32_t *wb) {
  const int n = m ? (update ? m->n_update : m->n_perceive) : 0;
  if (!wa || !wb || layer < 0 || layer >= n)
    return dlca__fail(DLCA_EINVAL, "dlca_model_wires: %s layer %d of %d, or a NULL argument",
                      update ? "update" : "perception", layer, n);
  const dlca_layer *L = update ? &m->update[layer] : &m->perceive[layer];
  memcpy(wa, L->wa, (size_t)L->n_gates * sizeof *wa);
  memcpy(wb, L->wb, (size_t)L->n_gates * sizeof *wb);
  return DLCA_OK;
}

size_t dlca_model_gate_histogram(const dlca_model *m, size_t counts[16]) {
  size_t active = 0;
  for (int i = 0; i < 16; i++) counts[i] = 0;
  const size_t npg = (size_t)dlca__model_npg(m);
  for (size_t g = 0; g < dlca__model_n_gates(m); g++) {
    int best = dlca__hard_op(m->shape.parametrisation, m->params + g * npg);
    counts[best]++;
    if (best != 3 && best != 5) active++;
  }
  return active;
}
