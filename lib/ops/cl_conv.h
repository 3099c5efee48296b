/* Launchers of kernels-cl/ops/conv.cl: conv2d by im2col + GEMM
 * (dlca__ops_cl_gemm) and 2-D max/mean pooling, forward and backward, on
 * device tensors. They enqueue on ctx's in-order queue and never block.
 * Twins: lib/ops/ref_conv.h (which defines dlca__conv2d and dlca__pool_fn).
 * Internal. */
#ifndef DLCA_OPS_CL_CONV_H
#define DLCA_OPS_CL_CONV_H
#include "ops/ref_case.h"
#include "ops/ref_conv.h"
#include "ops/tensor.h"

/* y [N,O,OH,OW] = conv2d(x [N,C,H,W], w [O,C,KH,KW]) + b [O] (b may be NULL), zero padding, groups 1,
 * OH = (H + 2 ph - KH) / sh + 1. col is scratch of at least dlca__conv2d_col_floats() floats (NULL: the
 * launcher allocates and frees one). im2col, then GEMM (dlca__ops_cl_gemm), then the bias.
 * DLCA_EINVAL naming the shapes where they do not fit (dlca__conv2d_dims), y is not [N,O,OH,OW] or the
 * scratch would be over 2^31 floats (dlca__conv2d_col_floats is 0 then, as for shapes that do not fit). */
size_t dlca__conv2d_col_floats(const dlca_tensor *x, const dlca_tensor *w, const dlca__conv2d *p);
int dlca__ops_cl_conv2d(dlca_context *ctx, const dlca__conv2d *p, const dlca_tensor *x, const dlca_tensor *w,
                        const dlca_tensor *b, dlca_tensor *y, cl_mem col);
/* dx (may be NULL) by GEMM then col2im, dw by GEMM, db the sums of dy over N, OH, OW in a fixed order.
 * dw and db may be NULL too. */
int dlca__ops_cl_conv2d_backward(dlca_context *ctx, const dlca__conv2d *p, const dlca_tensor *x, const dlca_tensor *w,
                                 const dlca_tensor *dy, dlca_tensor *dx, dlca_tensor *dw, dlca_tensor *db, cl_mem col);

/* max or mean pooling over k x k windows with stride s (no padding) of x [N,C,H,W]; max's gradient goes to
 * the first maximum of each window (row-major). */
int dlca__ops_cl_pool2d(dlca_context *ctx, dlca__pool_fn fn, int k, int s, const dlca_tensor *x, dlca_tensor *y);
int dlca__ops_cl_pool2d_backward(dlca_context *ctx, dlca__pool_fn fn, int k, int s, const dlca_tensor *x,
                                 const dlca_tensor *dy, dlca_tensor *dx);

/* The device runner of the conv2d vector files: the forward, then the
 * backward with the file's grad_outputs; results as doubles into r's slots,
 * which the caller has allocated in dlca__ops_ref_run's layout (as
 * dlca__ops_cl_run does). Waits for the device. */
int dlca__ops_cl_run_conv2d(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r);
#endif
