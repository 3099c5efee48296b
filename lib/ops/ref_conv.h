/* The CPU twin of conv2d and 2-D pooling (shared/testdata/ops/README.md, op
 * conv2d: torch.nn.functional.conv2d, NCHW, zero padding, groups 1,
 * dilation 1), in double, direct loops; and the shape rules the device
 * launchers (lib/ops/cl_conv.h) share. Every backward sums in a fixed
 * order, no atomics. Internal. */
#ifndef DLCA_OPS_REF_CONV_H
#define DLCA_OPS_REF_CONV_H
#include "ops/ref.h"
#include "ops/ref_case.h"

/* Stride (sh, sw >= 1) and zero padding (ph, pw >= 0). */
typedef struct dlca__conv2d {
  int sh, sw, ph, pw;
} dlca__conv2d;

/* x [N,C,H,W], w [O,C,KH,KW] and the output's OH = (H + 2 ph - KH) / sh + 1, OW likewise. */
typedef struct dlca__conv_dims {
  size_t N, C, H, W, O, KH, KW, OH, OW;
  int sh, sw, ph, pw;
} dlca__conv_dims;

/* The dimensions of conv2d(x, w) with p; bs (b's shape) may be NULL for no
 * bias. DLCA_EINVAL naming the shapes for a rank other than 4, w's C not
 * x's, a kernel larger than the padded input, b not [O], a stride < 1 or a
 * padding < 0. */
int dlca__conv2d_dims(const dlca__shape *xs, const dlca__shape *ws, const dlca__shape *bs, const dlca__conv2d *p,
                      dlca__conv_dims *d);
/* y [N,O,OH,OW]; b may be NULL. */
void dlca__ref_conv2d(const dlca__conv_dims *d, const double *x, const double *w, const double *b, double *y);
/* dx, dw, db (each may be NULL) = the gradients of sum(y * dy). */
void dlca__ref_conv2d_backward(const dlca__conv_dims *d, const double *x, const double *w, const double *dy, double *dx,
                               double *dw, double *db);

/* Pooling over k x k windows with stride s, no padding, floor (PyTorch's
 * max_pool2d / avg_pool2d). */
typedef enum { DLCA__POOL_max, DLCA__POOL_mean, DLCA__POOL_COUNT } dlca__pool_fn;
/* y's shape [N,C,(H-k)/s+1,(W-k)/s+1]; DLCA_EINVAL naming the shape for a
 * rank other than 4, k or s < 1, or a window larger than the input. */
int dlca__pool2d_shape(const dlca__shape *xs, int k, int s, dlca__shape *ys);
void dlca__ref_pool2d(dlca__pool_fn fn, int k, int s, const dlca__shape *xs, const double *x, double *y);
/* dx: mean spreads dy / k^2 over each window, max gives it to the first
 * maximum of each window (row-major); overlapping windows add up. */
void dlca__ref_pool2d_backward(dlca__pool_fn fn, int k, int s, const dlca__shape *xs, const double *x, const double *dy,
                               double *dx);

/* The reference runner of the conv2d vector files (lib/ops/ref_case.c). */
int dlca__ops_run_conv2d(const dlca__ops_vector *v, dlca__ops_result *r);
/* A conv2d file's attrs stride and padding as p. */
int dlca__ops_vector_conv2d(const dlca__ops_vector *v, dlca__conv2d *p);
#endif
