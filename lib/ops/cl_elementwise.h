/* Launchers of kernels-cl/ops/elementwise.cl: the unary and binary ops on
 * device tensors. They enqueue and never block. Internal. */
#ifndef DLCA_OPS_CL_ELEMENTWISE_H
#define DLCA_OPS_CL_ELEMENTWISE_H
#include "ops/ref.h"
#include "ops/tensor.h"

/* y = fn(x); y has x's shape. DLCA_EINVAL for a shape mismatch or a tensor of another context. */
int dlca__ops_cl_unary(dlca_context *ctx, dlca__unary_fn fn, const dlca_tensor *x, dlca_tensor *y);
/* dx = dy * fn'(x), given y = fn(x); all of x's shape. */
int dlca__ops_cl_unary_backward(dlca_context *ctx, dlca__unary_fn fn, const dlca_tensor *x, const dlca_tensor *y,
                                const dlca_tensor *dy, dlca_tensor *dx);
/* y = fn(a, b) with NumPy broadcasting; y has the broadcast shape. */
int dlca__ops_cl_binary(dlca_context *ctx, dlca__binary_fn fn, const dlca_tensor *a, const dlca_tensor *b,
                        dlca_tensor *y);
/* da, db (either may be NULL; of a's and b's shapes) = the gradients of
 * sum(y * dy): each element sums its broadcast positions in y's row-major
 * order, one work-item per element, no atomics (bitwise reproducible). */
int dlca__ops_cl_binary_backward(dlca_context *ctx, dlca__binary_fn fn, const dlca_tensor *a, const dlca_tensor *b,
                                 const dlca_tensor *dy, dlca_tensor *da, dlca_tensor *db);

/* Shared by the launchers of kernels-cl/ops.cl. The kernel `name` (from the context's pool) and the
 * work-group size its program was built with (the tunable's value). */
int dlca__ops_cl_kernel(dlca_context *ctx, const char *tunable, const char *name, cl_kernel *k, size_t *wg);
/* Sets nargs arguments, launches over n_items (rounded up to wg) and hands k back to its pool. */
int dlca__ops_cl_launch(dlca_context *ctx, cl_kernel k, const char *name, size_t wg, size_t n_items, int nargs,
                        const size_t *sizes, const void *const *args);
/* DLCA_EINVAL unless b has a's shape, naming fn and what. */
int dlca__ops_cl_same_shape(const dlca_tensor *a, const dlca_tensor *b, const char *fn, const char *what);
dlca__shape dlca__ops_cl_shape(const dlca_tensor *t);
/* A view's rank-4 extents and strides, leading axes of extent 1 and stride 0. */
void dlca__ops_cl_uint4(const dlca__view *v, cl_uint4 *d, cl_uint4 *s);

/* y = fn(x) over the axes of mask (dlca__reduce_shape), y of the reduced
 * shape (with or without the kept 1s: only the element count and order
 * matter, checked against the shape dlca__reduce_shape gives). */
int dlca__ops_cl_reduce(dlca_context *ctx, dlca__reduce_fn fn, const dlca_tensor *x, unsigned mask,
                        const dlca_tensor *y);
/* dx from dy (y's shape): sum and mean spread, max to the first maximum. */
int dlca__ops_cl_reduce_backward(dlca_context *ctx, dlca__reduce_fn fn, const dlca_tensor *x, unsigned mask,
                                 const dlca_tensor *dy, dlca_tensor *dx);
/* The same without the shape check: y (any shape) gets the outputs in row-major order of x's kept axes. */
int dlca__ops_cl_reduce_raw(dlca_context *ctx, dlca__reduce_fn fn, const dlca_tensor *x, unsigned mask,
                            const dlca_tensor *y);

/* y = the movement m of x (y of the shape dlca__move_plan gives). */
int dlca__ops_cl_move(dlca_context *ctx, const dlca__move *m, const dlca_tensor *x, dlca_tensor *y);
/* dx (x's shape) = the adjoint of m applied to dy: expand sums over its
 * broadcast axes (in a fixed order), pad crops, the others scatter into zeros. */
int dlca__ops_cl_move_backward(dlca_context *ctx, const dlca__move *m, const dlca_tensor *dy, dlca_tensor *dx);

/* The losses, reduction mean, into a one-element tensor; the backward takes
 * the upstream gradient g as a one-element tensor too (no host round trip).
 * softmax_cross_entropy's target holds class indices as floats; one outside
 * 0..K-1 makes the loss NaN (the device cannot report it). */
int dlca__ops_cl_mse(dlca_context *ctx, const dlca_tensor *in, const dlca_tensor *target, dlca_tensor *loss);
int dlca__ops_cl_mse_backward(dlca_context *ctx, const dlca_tensor *in, const dlca_tensor *target, const dlca_tensor *g,
                              dlca_tensor *d_in, dlca_tensor *d_target);
int dlca__ops_cl_softmax_xent(dlca_context *ctx, const dlca_tensor *logits, const dlca_tensor *target,
                              dlca_tensor *loss);
int dlca__ops_cl_softmax_xent_backward(dlca_context *ctx, const dlca_tensor *logits, const dlca_tensor *target,
                                       const dlca_tensor *g, dlca_tensor *d_logits);
#endif
