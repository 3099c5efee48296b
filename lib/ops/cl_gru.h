/* The GRU on the device (issue 33): an ensemble of M one-layer GRUs
 * (M = 1: one GRU; T = 1: a cell), forward and backward through time, in
 * torch.nn.GRU's convention (gate order r, z, n; twin lib/ops/ref_gru.h).
 * The input projection of all T steps is one GEMM (dlca__ops_cl_gemm), the
 * recurrence one launch of kernels-cl/ops/gru.cl per step for all members;
 * the weight gradients are GEMMs over all steps at once. Launchers enqueue
 * on ctx's queue and never block. Internal. */
#ifndef DLCA_OPS_CL_GRU_H
#define DLCA_OPS_CL_GRU_H
#include "ops/ref_case.h"
#include "ops/ref_gru.h"
#include "ops/tensor.h"

/* M members of dims d; x [B, T, D] shared by all members (x_shared, or M = 1) or [M, B, T, D]. */
typedef struct dlca__gru_cfg {
  size_t M;
  int x_shared;
  dlca__gru_dims d;
} dlca__gru_cfg;

/* w_ih [M, 3H, D], w_hh [M, 3H, H], b_ih and b_hh [M, 3H] (both NULL: no biases); M = 1 may drop the M axis. */
typedef struct dlca__gru_cl_w {
  const dlca_tensor *w_ih, *w_hh, *b_ih, *b_hh;
} dlca__gru_cl_w;
/* Their gradients, the same shapes; any may be NULL (not computed). */
typedef struct dlca__gru_cl_dw {
  dlca_tensor *w_ih, *w_hh, *b_ih, *b_hh;
} dlca__gru_cl_dw;

/* The device memory of one configuration: the projected inputs, the states
 * (time-major), and what a forward keeps for its backward (the gates). A
 * forward and the backward of that forward share one. */
typedef struct dlca__gru_tape dlca__gru_tape;
/* DLCA_EINVAL for a bad configuration, DLCA_EDEVMEM (naming the buffer and
 * the sizes) where the device cannot hold it. */
int dlca__gru_tape_new(dlca_context *ctx, const dlca__gru_cfg *c, dlca__gru_tape **out);
void dlca__gru_tape_free(dlca__gru_tape *t);

/* y [M, B, T, H] (every step's h) and h_n [M, B, H] (may be NULL) from x
 * and h0 [M, B, H]. tape NULL: a temporary one, no backward possible.
 * DLCA_EINVAL naming the tensor whose element count does not fit. */
int dlca__ops_cl_gru_forward(dlca_context *ctx, const dlca__gru_cfg *c, const dlca__gru_cl_w *w,
                             const dlca_tensor *x, const dlca_tensor *h0, dlca_tensor *y, dlca_tensor *h_n,
                             dlca__gru_tape *tape);
/* BPTT after dlca__ops_cl_gru_forward with the same tape: dy [M, B, T, H] and
 * dh_n [M, B, H] (either may be NULL: zero) give dx (x's shape; a shared
 * x's is the sum over members), dh0 and dw (any may be NULL). */
int dlca__ops_cl_gru_backward(dlca_context *ctx, const dlca__gru_cfg *c, const dlca__gru_cl_w *w,
                              const dlca_tensor *x, dlca__gru_tape *tape, const dlca_tensor *dy,
                              const dlca_tensor *dh_n, dlca_tensor *dx, dlca_tensor *dh0, const dlca__gru_cl_dw *dw);

/* The gru_cell and gru_sequence cases of a dlca-ops-vector file on the
 * device, results as doubles in dlca__ops_ref_run's layout. */
int dlca__ops_cl_run_gru_cell(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r);
int dlca__ops_cl_run_gru_sequence(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r);

/* The randomized SVD of a [m, n] on the device (the twin's algorithm,
 * dlca__ref_rsvd): u [m, k], s [k], v [n, k] (counts checked), and s_host
 * (k doubles, may be NULL). Blocks: the l x l factorizations run on the host.
 * DLCA_EINVAL for a rank of 0 or above min(m, n), or a non-finite A (found
 * in its first Gram matrix, at no extra pass). */
int dlca__ops_cl_rsvd(dlca_context *ctx, const dlca__rsvd *p, const dlca_tensor *a, dlca_tensor *u, dlca_tensor *s,
                      dlca_tensor *v, double *s_host);
/* The rsvd case on the device (lib/ops/rsvd_cl.c): S into the result, and
 * DLCA_EPARITY where U, V or the reconstruction miss the README's conditions. */
int dlca__ops_cl_run_rsvd(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r);
#endif
