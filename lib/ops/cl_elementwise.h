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
#endif
