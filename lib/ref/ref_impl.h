/* Internals of the CPU reference engine: the gate algebra (doc/semantics.md section 1)
 * and the per-cell activation layout shared by forward.c and backward.c. */
#ifndef DLCA_REF_IMPL_H
#define DLCA_REF_IMPL_H

#include "model/model_impl.h"

/* op_i(a, b) = M[i][0] + M[i][1] a + M[i][2] b + M[i][3] ab (doc/semantics.md section 1). */
extern const float dlca__gate_M[16][4];

/* Per-gate coefficients, 4 floats per gate in flat gate order (gate g of
 * the flat parameter array is logits [NPG g, NPG g + NPG)). Soft: softmax-16
 * c = M^T p with p the softmax in double, IWP from the sigmoids in double;
 * hard: row op of M, op = dlca__hard_op of the logits. */
void dlca__gate_coefficients(const dlca_model *m, int hard, float *coef);
/* The softmax of one gate's logits, in double; _t: of logits * inv_tau. */
void dlca__softmax16(const float *logits, double p[16]);
void dlca__softmax16_t(const float *logits, float inv_tau, double p[16]);
/* Coefficients of n gates from any logits z (noisy ones, issue 6): soft from
 * softmax(z * inv_tau) (IWP: sigmoid(z * inv_tau)), hard from the hard op of z. */
void dlca__coefficients(dlca_parametrisation par, size_t n, const float *z, float inv_tau, int hard, float *coef);
/* dL/dz of n gates from the 4 sums dL/dc of each. softmax-16, p =
 * softmax(z * inv_tau): dL/dp = M dL/dc, p (dL/dp - p . dL/dp) inv_tau.
 * IWP, s = sigmoid(z * inv_tau): dL/ds00 = dc0 - dc1 - dc2 + dc3,
 * dL/ds01 = dc2 - dc3, dL/ds10 = dc1 - dc3, dL/ds11 = dc3, times
 * s (1 - s) inv_tau. */
void dlca__logit_grad_t(dlca_parametrisation par, size_t n, const float *z, float inv_tau, const double *dc,
                        float *grad);
/* dlca__logit_grad_t of the model's own logits at temperature 1. */
void dlca__logit_grad(const dlca_model *m, const double *dc, float *grad);

/* Where one cell's activations live in its scratch array. Perception block of
 * (channel c, kernel k) starts at (c*K + k) * pstride; layer l's input is at
 * poff[l] inside it. The update input (C + C*S*K) is at ubase + uoff[0]. */
typedef struct dlca_ref_layout {
  int C, K, S, nP, nU;
  int pstride;
  int poff[DLCA_MAX_LAYERS + 1];
  size_t ubase;
  int uoff[DLCA_MAX_LAYERS + 1];
  size_t total;
} dlca_ref_layout;

void dlca__ref_layout(const dlca_model *m, dlca_ref_layout *lay);

/* Reads the 3x3 patch of cell (r, q) of one grid [H][W][C] into patch[9][C]. */
void dlca__ref_patch(const float *grid, int H, int W, int C, int periodic, int r, int q, float *patch);
/* One cell's circuit: patch[9][C] -> act (all activations); returns a pointer
 * to the C outputs inside act. */
const float *dlca__ref_cell_forward(const dlca_model *m, const dlca_ref_layout *lay,
                                    const float *coef, const float *patch, float *act);

/* T steps from x; states receives steps+1 grids (x included) when keep_all,
 * else the final grid only. */
int dlca__ref_rollout(const dlca_model *m, const dlca_run *run, const float *coef, const float *x,
                      float *states, int keep_all);
/* The gradient sums dL/dc (4 doubles per gate, flat gate order) of one
 * rollout whose forward pass uses coef_fwd and whose backward pass takes the
 * gate derivatives from coef_der (the same pointer unless straight-through).
 * The final state goes to out_state if not NULL. */
int dlca__ref_gradient_sums(const dlca_model *m, const dlca_run *run, const float *x, const float *target,
                            const float *coef_fwd, const float *coef_der, double *loss, double *dc,
                            float *out_state);
/* sum over batch, cells and loss channels of (s - y)^2, in double. */
double dlca__ref_loss(const dlca_run *run, int C, const float *state, const float *target);

#endif
