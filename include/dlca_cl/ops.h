/* The ops of the compute layer on device tensors (include/dlca_cl/tensor.h),
 * each forward and backward, with PyTorch's semantics as
 * shared/testdata/ops/README.md pins them down, and a small reverse-mode
 * tape. Every op takes its context from its tensors, which must all belong
 * to the same one; it checks shapes and contexts (DLCA_EINVAL, naming the
 * function, the tensor and both shapes), enqueues on the context's in-order
 * queue and never blocks. Outputs are tensors the caller made, of the shape
 * the op gives (the *_shape functions say which). */
#ifndef DLCA_CL_OPS_H
#define DLCA_CL_OPS_H

#include "dlca_cl/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The functions of each op, as X-macro lists (UPPER, lower name). */
/* clang-format off */
#define DLCA_UNARY_FNS(X) \
  X(NEG, neg) X(EXP, exp) X(LOG, log) X(RELU, relu) X(SIGMOID, sigmoid) X(TANH, tanh) \
  X(SQRT, sqrt) X(RECIP, recip) X(EXP2, exp2) X(LOG2, log2) X(SIN, sin) X(COS, cos)
/* clang-format on */
#define DLCA_BINARY_FNS(X) X(ADD, add) X(SUB, sub) X(MUL, mul) X(DIV, div) X(MAX, max) X(MOD, mod) X(CMPLT, cmplt)
#define DLCA_REDUCE_FNS(X) X(SUM, sum) X(MAX, max) X(MEAN, mean)
#define DLCA_MOVE_FNS(X) X(PERMUTE, permute) X(EXPAND, expand) X(PAD, pad) X(SHRINK, shrink) X(STRIDE, stride)

#define DLCA_OPS_ENUM_(U, l) DLCA_UNARY_##U,
typedef enum dlca_unary_fn { DLCA_UNARY_FNS(DLCA_OPS_ENUM_) DLCA_UNARY_COUNT } dlca_unary_fn;
#undef DLCA_OPS_ENUM_
#define DLCA_OPS_ENUM_(U, l) DLCA_BINARY_##U,
typedef enum dlca_binary_fn { DLCA_BINARY_FNS(DLCA_OPS_ENUM_) DLCA_BINARY_COUNT } dlca_binary_fn;
#undef DLCA_OPS_ENUM_
#define DLCA_OPS_ENUM_(U, l) DLCA_REDUCE_##U,
typedef enum dlca_reduce_fn { DLCA_REDUCE_FNS(DLCA_OPS_ENUM_) DLCA_REDUCE_COUNT } dlca_reduce_fn;
#undef DLCA_OPS_ENUM_
#define DLCA_OPS_ENUM_(U, l) DLCA_MOVE_##U,
typedef enum dlca_move_fn { DLCA_MOVE_FNS(DLCA_OPS_ENUM_) DLCA_MOVE_COUNT } dlca_move_fn;
#undef DLCA_OPS_ENUM_

/* "exp", "add", "sum", "pad", ...; NULL for a value out of range. */
DLCA_API const char *dlca_unary_fn_name(dlca_unary_fn fn);
DLCA_API const char *dlca_binary_fn_name(dlca_binary_fn fn);
DLCA_API const char *dlca_reduce_fn_name(dlca_reduce_fn fn);
DLCA_API const char *dlca_move_fn_name(dlca_move_fn fn);

/* y = fn(x), y of x's shape. relu'(0) = 0. */
DLCA_API DLCA_WUR int dlca_unary(dlca_unary_fn fn, const dlca_tensor *x, dlca_tensor *y);
/* dx = dy * fn'(x), given y = fn(x); all of x's shape. */
DLCA_API DLCA_WUR int dlca_unary_backward(dlca_unary_fn fn, const dlca_tensor *x, const dlca_tensor *y,
                                          const dlca_tensor *dy, dlca_tensor *dx);

/* y = fn(a, b) with NumPy broadcasting (dlca_broadcast_shape gives y's
 * shape). mod is C's fmod, max torch.maximum, cmplt a < b as 1/0. */
DLCA_API DLCA_WUR int dlca_binary(dlca_binary_fn fn, const dlca_tensor *a, const dlca_tensor *b, dlca_tensor *y);
/* da, db (either may be NULL) of a's and b's shapes: the gradients of
 * sum(y * dy), summed over broadcast axes in a fixed order (no atomics:
 * bitwise reproducible). max's tie halves; cmplt has none (zeros). */
DLCA_API DLCA_WUR int dlca_binary_backward(dlca_binary_fn fn, const dlca_tensor *a, const dlca_tensor *b,
                                           const dlca_tensor *dy, dlca_tensor *da, dlca_tensor *db);
/* The broadcast shape of a and b into rank and shape[DLCA_TENSOR_MAX_RANK]. */
DLCA_API DLCA_WUR int dlca_broadcast_shape(const dlca_tensor *a, const dlca_tensor *b, int *rank, size_t *shape);

/* y = fn(x) over the naxes axes listed (negative counts from the end; none
 * listed: every axis), keeping them as 1s where keepdim is set. */
DLCA_API DLCA_WUR int dlca_reduce(dlca_reduce_fn fn, const dlca_tensor *x, const int *axes, int naxes, int keepdim,
                                  dlca_tensor *y);
/* dx (x's shape) from dy (y's shape): sum and mean spread, max to the first maximum. */
DLCA_API DLCA_WUR int dlca_reduce_backward(dlca_reduce_fn fn, const dlca_tensor *x, const int *axes, int naxes,
                                           int keepdim, const dlca_tensor *dy, dlca_tensor *dx);
DLCA_API DLCA_WUR int dlca_reduce_shape(const dlca_tensor *x, const int *axes, int naxes, int keepdim, int *rank,
                                        size_t *shape);

/* One movement and its arguments, one entry per axis of x (n of them):
 * permute: arg[k][0] the source axis of y's axis k; expand: the new extent
 * (-1 keeps the axis); pad: [before, after], filled with value; shrink:
 * [start, end); stride: the step (x[::s]). */
typedef struct dlca_movement {
  dlca_move_fn fn;
  int n;
  long arg[DLCA_TENSOR_MAX_RANK][2];
  double value;
} dlca_movement;
DLCA_API DLCA_WUR int dlca_move(const dlca_movement *m, const dlca_tensor *x, dlca_tensor *y);
/* dx = the adjoint applied to dy: expand sums over its broadcast axes (in a
 * fixed order), pad crops, the others scatter into zeros. */
DLCA_API DLCA_WUR int dlca_move_backward(const dlca_movement *m, const dlca_tensor *dy, dlca_tensor *dx);
DLCA_API DLCA_WUR int dlca_move_shape(const dlca_movement *m, const dlca_tensor *x, int *rank, size_t *shape);

/* y = x's elements (row-major) in y's shape, as torch.reshape: a copy; y
 * must hold as many elements (flatten [N, C, H, W] into [N, C H W]). The
 * backward copies dy into dx's shape. */
DLCA_API DLCA_WUR int dlca_reshape(const dlca_tensor *x, dlca_tensor *y);
DLCA_API DLCA_WUR int dlca_reshape_backward(const dlca_tensor *dy, dlca_tensor *dx);

/* Losses, reduction mean, into a one-element tensor; the backward takes the
 * upstream gradient g as a one-element tensor (no host round trip). */
DLCA_API DLCA_WUR int dlca_mse(const dlca_tensor *input, const dlca_tensor *target, dlca_tensor *loss);
/* d_input, d_target (either may be NULL). */
DLCA_API DLCA_WUR int dlca_mse_backward(const dlca_tensor *input, const dlca_tensor *target, const dlca_tensor *g,
                                        dlca_tensor *d_input, dlca_tensor *d_target);
/* logits [N, K], target [N] of class indices as floats; an index outside
 * 0..K-1 makes the loss NaN (the device cannot report it). */
DLCA_API DLCA_WUR int dlca_softmax_cross_entropy(const dlca_tensor *logits, const dlca_tensor *target,
                                                 dlca_tensor *loss);
DLCA_API DLCA_WUR int dlca_softmax_cross_entropy_backward(const dlca_tensor *logits, const dlca_tensor *target,
                                                          const dlca_tensor *g, dlca_tensor *d_logits);

/* y = alpha op(a) op(b) + beta c, through CLBlast: op transposes a's (b's)
 * last two axes where trans_a (trans_b) is set. a and b have rank 2, or 3
 * for a strided batch [batch, rows, cols] (a rank-2 operand is then shared
 * by every batch); y (and c, which may be NULL for none) is [m, n], or
 * [batch, m, n]. c must not be y. */
DLCA_API DLCA_WUR int dlca_gemm(int trans_a, int trans_b, float alpha, const dlca_tensor *a, const dlca_tensor *b,
                                float beta, const dlca_tensor *c, dlca_tensor *y);
/* da, db, dc (each may be NULL; of a's, b's and y's shapes) from dy: GEMMs,
 * a shared operand's gradient summed over the batch in a fixed order. */
DLCA_API DLCA_WUR int dlca_gemm_backward(int trans_a, int trans_b, float alpha, const dlca_tensor *a,
                                         const dlca_tensor *b, float beta, const dlca_tensor *dy, dlca_tensor *da,
                                         dlca_tensor *db, dlca_tensor *dc);

/* The activations of dense (the order of lib/ops/ref_blas.h's). */
typedef enum dlca_activation {
  DLCA_ACT_NONE,
  DLCA_ACT_RELU,
  DLCA_ACT_SIGMOID,
  DLCA_ACT_TANH,
  DLCA_ACT_COUNT
} dlca_activation;
/* y [N, out] = act(x [N, in] w [out, in]^T + b [out]) (torch.nn.Linear, then
 * act); b may be NULL. One GEMM, then the bias and activation in one kernel. */
DLCA_API DLCA_WUR int dlca_dense(dlca_activation act, const dlca_tensor *x, const dlca_tensor *w, const dlca_tensor *b,
                                 dlca_tensor *y);
/* dx (may be NULL), dw, db (may be NULL) from y = dense(x) and dy (not changed). */
DLCA_API DLCA_WUR int dlca_dense_backward(dlca_activation act, const dlca_tensor *x, const dlca_tensor *w,
                                          const dlca_tensor *y, const dlca_tensor *dy, dlca_tensor *dx, dlca_tensor *dw,
                                          dlca_tensor *db);

/* Stride and zero padding of conv2d (NULL: stride 1, no padding). */
typedef struct dlca_conv2d_params {
  int stride_h, stride_w, pad_h, pad_w;
} dlca_conv2d_params;
/* y [N, O, OH, OW] = conv2d(x [N, C, H, W], w [O, C, KH, KW]) + b [O]
 * (torch.nn.functional.conv2d, groups 1; b may be NULL), OH = (H + 2 pad_h
 * - KH) / stride_h + 1: im2col, one GEMM, then the bias. */
DLCA_API DLCA_WUR int dlca_conv2d(const dlca_conv2d_params *p, const dlca_tensor *x, const dlca_tensor *w,
                                  const dlca_tensor *b, dlca_tensor *y);
/* dx, dw, db (each may be NULL) from dy: GEMMs and col2im, db summed in a fixed order. */
DLCA_API DLCA_WUR int dlca_conv2d_backward(const dlca_conv2d_params *p, const dlca_tensor *x, const dlca_tensor *w,
                                           const dlca_tensor *dy, dlca_tensor *dx, dlca_tensor *dw, dlca_tensor *db);
DLCA_API DLCA_WUR int dlca_conv2d_shape(const dlca_conv2d_params *p, const dlca_tensor *x, const dlca_tensor *w,
                                        int *rank, size_t *shape);

typedef enum dlca_pool_fn { DLCA_POOL_MAX, DLCA_POOL_MEAN, DLCA_POOL_COUNT } dlca_pool_fn;
/* Max or mean over k x k windows of x [N, C, H, W] with stride s, no
 * padding (max_pool2d / avg_pool2d); max's gradient goes to the first
 * maximum of each window. */
DLCA_API DLCA_WUR int dlca_pool2d(dlca_pool_fn fn, int k, int s, const dlca_tensor *x, dlca_tensor *y);
DLCA_API DLCA_WUR int dlca_pool2d_backward(dlca_pool_fn fn, int k, int s, const dlca_tensor *x, const dlca_tensor *dy,
                                           dlca_tensor *dx);
DLCA_API DLCA_WUR int dlca_pool2d_shape(dlca_pool_fn fn, int k, int s, const dlca_tensor *x, int *rank, size_t *shape);

/* ---- GRU and randomized SVD (twins: lib/ops/ref_gru.h) ----
 * A one-layer torch.nn.GRU, batch first, gate order r, z, n (T = 1:
 * torch.nn.GRUCell): x [B, T, D], h0 [B, H], w_ih [3H, D], w_hh [3H, H],
 * b_ih and b_hh [3H] (both NULL: no biases); y [B, T, H] every step's h,
 * h_n [B, H] (may be NULL). A dlca_gru holds the device buffers of one
 * (B, T, D, H) and what its last forward keeps for the backward (BPTT, with
 * the same x and weights): dy, dh_n (either NULL: zero) give dx, dh0 and
 * the weight gradients (any NULL: not computed). Counts are checked
 * (DLCA_EINVAL naming the tensor); the calls enqueue only. Not on the tape. */
typedef struct dlca_gru dlca_gru;
DLCA_API DLCA_WUR int dlca_gru_new(dlca_context *ctx, size_t B, size_t T, size_t D, size_t H, dlca_gru **out);
DLCA_API void dlca_gru_free(dlca_gru *g);
DLCA_API DLCA_WUR int dlca_gru_forward(dlca_gru *g, const dlca_tensor *x, const dlca_tensor *h0,
                                       const dlca_tensor *w_ih, const dlca_tensor *w_hh, const dlca_tensor *b_ih,
                                       const dlca_tensor *b_hh, dlca_tensor *y, dlca_tensor *h_n);
DLCA_API DLCA_WUR int dlca_gru_backward(dlca_gru *g, const dlca_tensor *x, const dlca_tensor *w_ih,
                                        const dlca_tensor *w_hh, const dlca_tensor *b_ih, const dlca_tensor *b_hh,
                                        const dlca_tensor *dy, const dlca_tensor *dh_n, dlca_tensor *dx,
                                        dlca_tensor *dh0, dlca_tensor *dw_ih, dlca_tensor *dw_hh, dlca_tensor *db_ih,
                                        dlca_tensor *db_hh);
/* The randomized SVD of a [m, n] on a's device: u [m, rank], s [rank]
 * (descending), v [n, rank] with a ~ u diag(s) v^T; rank + oversample
 * sketch columns (Gaussian, from seed), power_iters power iterations.
 * DLCA_EINVAL for a rank of 0 or above min(m, n), or a non-finite a. */
DLCA_API DLCA_WUR int dlca_rsvd(const dlca_tensor *a, size_t rank, size_t oversample, size_t power_iters,
                                uint64_t seed, dlca_tensor *u, dlca_tensor *s, dlca_tensor *v);

/* Waits for every op enqueued on ctx. */
DLCA_API DLCA_WUR int dlca_ops_finish(dlca_context *ctx);

/* ---- the tape: reverse-mode gradients over the ops above ----
 * While a tape is begun on a thread, every forward op that thread runs on
 * the tape's context is recorded, with the tensors its backward needs
 * (inputs and output, by reference: they must keep their values and stay
 * alive until dlca_tape_backward). dlca_tape_backward(tape, loss) runs the
 * backwards in reverse order from loss (seeded with ones: the gradient of
 * the sum of loss), summing the gradient of a tensor used several times in
 * a fixed order, no atomics. While recording, an op whose output is one
 * of its inputs or a tensor the tape already holds is refused (DLCA_EINVAL):
 * its gradients would be wrong. Tensors changed by other means (an upload)
 * are not detected. */
typedef struct dlca_tape dlca_tape;
DLCA_API DLCA_WUR int dlca_tape_new(dlca_context *ctx, dlca_tape **out);
/* Frees the records and the gradients (NULL is allowed); ends it if begun
 * on this thread (a tape begun on another thread must be ended there first). */
DLCA_API void dlca_tape_free(dlca_tape *tape);
/* Starts recording on the calling thread (one tape per thread at a time:
 * DLCA_EINVAL where another is begun). */
DLCA_API DLCA_WUR int dlca_tape_begin(dlca_tape *tape);
/* Stops recording; the records stay for dlca_tape_backward. */
DLCA_API void dlca_tape_end(dlca_tape *tape);
/* Drops the records; the gradients' buffers are kept for the next backward
 * to write into again (dlca_tape_grad gives NULL until it runs). */
DLCA_API void dlca_tape_clear(dlca_tape *tape);
DLCA_API size_t dlca_tape_size(const dlca_tape *tape);
/* Gradients of sum(loss) for every tensor the records reach (replacing
 * those of an earlier call); enqueues only. DLCA_EINVAL where no record
 * made loss. */
DLCA_API DLCA_WUR int dlca_tape_backward(dlca_tape *tape, const dlca_tensor *loss);
/* The gradient of t (of t's shape, owned by the tape, valid until the next
 * backward, clear or free), or NULL where t does not reach the loss. The
 * next backward writes into the same buffers where the shapes fit, with no
 * allocation, and frees those it does not use. */
DLCA_API const dlca_tensor *dlca_tape_grad(const dlca_tape *tape, const dlca_tensor *t);

#ifdef __cplusplus
}
#endif
#endif
