/* The model's layout, shared by the reference engine, the OpenCL trainer and
 * the JSON reader/writer. Not installed. */
#ifndef DLCA_MODEL_IMPL_H
#define DLCA_MODEL_IMPL_H

#include <jansson.h>
#include "core/internal.h"

/* One layer: n_gates gates reading a vector of n_in values. */
typedef struct dlca_layer {
  int n_in, n_gates;
  int32_t *wa, *wb;  /* [n_gates] */
  size_t offset;     /* first logit of the layer in the flat parameter array */
  size_t gate0;      /* first gate of the layer in flat gate order (offset / params per gate) */
} dlca_layer;

struct dlca_model {
  dlca_model_shape shape;
  int n_perceive;   /* S: perception layers with gates */
  int n_update;     /* update layers with gates */
  dlca_layer perceive[DLCA_MAX_LAYERS]; /* logits [K][G][NPG] at offset */
  dlca_layer update[DLCA_MAX_LAYERS];   /* logits [G][NPG] at offset */
  size_t n_params;
  float *params;
};

/* The model's derived sizes. */
/* Logits per gate of a parametrisation: 16 (softmax-16) or 4 (IWP). */
static inline int dlca__npg(dlca_parametrisation p) { return p == DLCA_PARAM_IWP ? 4 : 16; }
static inline int dlca__model_npg(const dlca_model *m) { return dlca__npg(m->shape.parametrisation); }
static inline size_t dlca__model_n_gates(const dlca_model *m) { return m->n_params / (size_t)dlca__model_npg(m); }
/* S: outputs of one perception kernel, the last perception width. */
static inline int dlca__model_S(const dlca_model *m) {
  return m->shape.perceive_layers[m->shape.n_perceive_layers - 1];
}
static inline int dlca__model_K(const dlca_model *m) { return m->shape.n_kernels; }
static inline int dlca__model_C(const dlca_model *m) { return m->shape.channels; }
/* Width of the update network's input: C + C*S*K (doc/semantics.md section 3.3). */
static inline int dlca__model_update_in(const dlca_model *m) {
  return m->shape.channels * (1 + dlca__model_S(m) * m->shape.n_kernels);
}
/* The largest layer input or output width, for scratch buffers. */
int dlca__model_max_width(const dlca_model *m);

/* Checks a shape (sizes, layer widths, 2G >= N for unique wiring when
 * generating); DLCA_EMODEL with a message otherwise. */
int dlca__shape_validate(const dlca_model_shape *s, int generating);
/* Allocates a model of this shape with zeroed wires and logits. */
int dlca__model_alloc(const dlca_model_shape *s, dlca_model **out);
/* Fills a layer's wires by kind from a splitmix64 state (doc/semantics.md section 2). */
int dlca__wire_layer(dlca_layer *L, dlca_wiring kind, uint64_t *rng);
/* Sets every logit to the pass-through initialisation of strength z. */
void dlca__model_init_logits(dlca_model *m, float z);
/* The hard op (0..15, doc/semantics.md section 1) of one gate's logits: softmax-16 the
 * argmax (ties to the lowest op), IWP 8 [w00 > 0] + 4 [w01 > 0] +
 * 2 [w10 > 0] + [w11 > 0]. */
int dlca__hard_op(dlca_parametrisation p, const float *logits);

/* The dlca-model JSON reader and writer. `where` names the source in messages
 * (a file path, or "file.json: model"). */
int dlca__model_from_json(json_t *root, const char *where, dlca_model **out);
json_t *dlca__model_to_json(const dlca_model *m);

#endif
