/* Models: shapes, the paper's presets, wiring generation, initialisation,
 * and the dlca-model JSON format (doc/semantics.md sections 2-5). */
#ifndef DLCA_CL_MODEL_H
#define DLCA_CL_MODEL_H

#include "dlca_cl/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dlca_model dlca_model;

#define DLCA_MAX_LAYERS 64
#define DLCA_MAX_LOSS_CHANNELS 16

typedef enum dlca_wiring {
  DLCA_WIRING_FIRST_KERNEL = 0, /* neighbour paired with centre; first perception layer */
  DLCA_WIRING_UNIQUE = 1,       /* needs 2G >= N */
  DLCA_WIRING_RANDOM = 2
} dlca_wiring;

/* How a gate's parameters give its soft output (issue 6). A gate computes
 * c0 + c1 a + c2 b + c3 ab either way (doc/semantics.md section 1).
 *  - SOFTMAX16 (0, the paper's): 16 logits, one per op; p = softmax(logits / T),
 *    c = M^T p; the hard gate is the argmax (ties: the lowest op).
 *  - IWP (1, input-wise, Ruettgers et al. 2025): 4 logits w00, w01, w10, w11,
 *    one per input combination (a, b); s_ab = sigmoid(w_ab / T) is the
 *    probability that the gate outputs 1 there: c0 = s00, c1 = s10 - s00,
 *    c2 = s01 - s00, c3 = s00 - s01 - s10 + s11. The hard gate is the truth
 *    table of the signs: op 8 [w00 > 0] + 4 [w01 > 0] + 2 [w10 > 0] + [w11 > 0]. */
typedef enum dlca_parametrisation {
  DLCA_PARAM_SOFTMAX16 = 0,
  DLCA_PARAM_IWP = 1
} dlca_parametrisation;

/* The pass-through initialisation: softmax-16 sets logit 3 (A) to 10 and the
 * others to 0 (doc/semantics.md section 1); IWP sets w = (-z, -z, +z, +z),
 * gate A with s = sigmoid(z) on each row. z = 3 measured best on the reduced
 * checkerboard (doc/training.md, "Input-wise gates"). */
#define DLCA_SOFTMAX16_INIT 10.0f
#define DLCA_IWP_INIT_DEFAULT 3.0f

/* The shape of a model. `perceive_layers` is [9, n1, ..., nS] (length
 * n_perceive_layers = S + 1); `update_layers` is [C + C*S*K, m1, ..., C]. */
typedef struct dlca_model_shape {
  int channels;
  int periodic;
  int n_kernels;
  int n_perceive_layers;
  int perceive_layers[DLCA_MAX_LAYERS];
  int n_update_layers;
  int update_layers[DLCA_MAX_LAYERS];
  dlca_wiring perceive_first_wiring; /* default FIRST_KERNEL */
  dlca_wiring wiring;                /* every other layer; default UNIQUE */
  dlca_parametrisation parametrisation; /* default (0) SOFTMAX16 */
} dlca_model_shape;

/* How a preset's start grids are made. */
typedef enum dlca_start {
  DLCA_START_RANDOM = 0, /* every channel of every cell a fair random bit */
  DLCA_START_SEED = 1,   /* zeros, except the centre cell: all channels 1 */
  DLCA_START_ZEROS = 2,
  DLCA_START_UPLOAD = 3  /* given by the caller */
} dlca_start;

/* A preset of doc/semantics.md section 5: model shape and the paper's
 * training protocol. */
typedef struct dlca_preset {
  const char *name;
  dlca_model_shape shape;
  int height, width, steps, batch, epochs;
  int async;
  float fire_rate;
  float lr;
  dlca_start start;
  int n_loss_channels;
  int loss_channels[DLCA_MAX_LOSS_CHANNELS];
} dlca_preset;

/* Presets by name: "gol", "checkerboard", "checkerboard-async", "growth", "colour". */
DLCA_API DLCA_WUR int dlca_preset_get(const char *name, dlca_preset *out);
/* The preset names, NULL-terminated. */
DLCA_API const char *const *dlca_preset_names(void);

/* A new model with wires drawn from `seed` (doc/rng.md) and logits at the
 * pass-through initialisation of its parametrisation (softmax-16: all 0,
 * gate 3 = 10.0; IWP: (-z, -z, z, z) with z = DLCA_IWP_INIT_DEFAULT). */
DLCA_API DLCA_WUR int dlca_model_new(const dlca_model_shape *shape, uint64_t seed, dlca_model **out);
DLCA_API DLCA_WUR int dlca_model_new_preset(const char *preset, uint64_t seed, dlca_model **out);
DLCA_API DLCA_WUR int dlca_model_clone(const dlca_model *m, dlca_model **out);
DLCA_API void dlca_model_free(dlca_model *m);

/* dlca-model JSON, version 1 (doc/model-format.md). Loading validates every
 * field; a failure names the file and the JSON path of the offending field.
 * Saving is atomic: a temp file, fsync, then rename. */
DLCA_API DLCA_WUR int dlca_model_load(const char *path, dlca_model **out);
DLCA_API DLCA_WUR int dlca_model_save(const dlca_model *m, const char *path);

DLCA_API void dlca_model_get_shape(const dlca_model *m, dlca_model_shape *out);
/* Counts: gates (perception gates counted once per kernel) and logits. */
DLCA_API size_t dlca_model_n_gates(const dlca_model *m);
DLCA_API size_t dlca_model_n_params(const dlca_model *m);
/* Logits per gate: 16 (softmax-16) or 4 (IWP). */
DLCA_API int dlca_model_params_per_gate(const dlca_model *m);
/* "softmax16" or "iwp" (the JSON spelling); "unknown" otherwise. */
DLCA_API const char *dlca_parametrisation_name(int parametrisation);
/* Sets every gate back to the pass-through gate A with strength z > 0:
 * softmax-16 logit 3 = z and the others 0; IWP w = (-z, -z, z, z).
 * DLCA_EINVAL for a z that is not finite and > 0. */
DLCA_API DLCA_WUR int dlca_model_init_pass_through(dlca_model *m, float z);

/* The logits as one flat float array of dlca_model_n_params() values, in the
 * order of the JSON: perception layer by layer as [kernel][gate][NPG], then
 * update layer by layer as [gate][NPG], NPG = dlca_model_params_per_gate()
 * (IWP: w00, w01, w10, w11). The pointer stays owned by the model. */
DLCA_API float *dlca_model_params(dlca_model *m);
DLCA_API const float *dlca_model_params_const(const dlca_model *m);
/* Offset, into the flat array, of a perception (0) or update (1) layer. */
DLCA_API size_t dlca_model_layer_offset(const dlca_model *m, int update, int layer);
/* The wires of a perception (update 0; shared by every kernel) or update (1)
 * layer: wa[g] and wb[g], the inputs of gate g, into arrays of the layer's
 * gate count (layers[layer + 1] of the shape). DLCA_EINVAL for a layer out of
 * range or a NULL argument. */
DLCA_API DLCA_WUR int dlca_model_wires(const dlca_model *m, int update, int layer, int32_t *wa, int32_t *wb);

/* The hard circuit's gate histogram: counts[i] = gates whose hard op is i
 * (softmax-16: the argmax; IWP: the truth table of the signs; perception
 * gates counted once per kernel). Returns the active-gate count: gates
 * other than pass-through A (3) and B (5). */
DLCA_API size_t dlca_model_gate_histogram(const dlca_model *m, size_t counts[16]);

/* The hard circuit of one cell, for deployment (doc/export.md). Every gate
 * takes its hard op; pass-through gates become wires, constants are folded
 * (FALSE, TRUE, and ops whose inputs are constant or the same signal), and
 * only the gates that reach the cell's C new state values are written.
 *  - C: `void NAME_cells64(const uint64_t in[9 * C], uint64_t out[C])`, 64
 *    cells at once, bit-sliced (bit i of in[f * C + c]: channel c of patch
 *    element f, row f / 3 - 1 and column f % 3 - 1 from cell i), and
 *    `void NAME_step(int height, int width, const uint8_t *state, uint8_t
 *    *next)`, one synchronous step of a grid [height][width][C] of 0s and 1s
 *    with the model's boundary (periodic, or 0 outside), and
 *    `NAME_step_async(height, width, state, fire, next)`, where a cell
 *    whose fire[r * width + q] is 0 keeps its state.
 *  - Verilog: a combinational `module NAME_cell(input wire [9*C-1:0] in,
 *    output wire [C-1:0] out)` with the same bit order (in[f * C + c]), and
 *    `module NAME_grid #(HEIGHT, WIDTH) (clk, load, init, state)`: a grid of
 *    cells with the model's boundary, one synchronous step per clock.
 * `name` is a C and Verilog identifier (letters, digits, '_'; not a digit
 * first; at most 64 characters), else DLCA_EINVAL. keep[n_keep] names the
 * channels whose values must be right at every step (the ones a deployment
 * shows, such as the loss channels); NULL or n_keep 0: all. A channel that
 * no kept channel reads, at any step, is written as a constant 0, and its
 * logic is left out. The file is written atomically. info, if not NULL,
 * gets the counts. */
typedef enum dlca_export_format { DLCA_EXPORT_C = 0, DLCA_EXPORT_VERILOG = 1 } dlca_export_format;
typedef struct dlca_export_info {
  size_t model_gates;   /* the model's gates, perception gates once per kernel and channel */
  size_t logic_gates;   /* the gates written: two-input ops and NOT */
  size_t not_gates;     /* of those, NOT */
  size_t inputs_used;   /* of the 9 C patch bits, those the outputs depend on */
  size_t const_outputs; /* outputs that are constant 0 or 1 (dropped channels included) */
  size_t channels_kept; /* channels written: the kept ones and those they read */
} dlca_export_info;
DLCA_API DLCA_WUR int dlca_model_export(const dlca_model *m, dlca_export_format format, const char *name,
                                        const int *keep, int n_keep, const char *path, dlca_export_info *info);

#ifdef __cplusplus
}
#endif
#endif
