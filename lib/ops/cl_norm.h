/* Layer norm over the last axis and seeded dropout on device tensors
 * (kernels-cl/ops/norm.cl; twins in lib/ops/ref_gru.h). Enqueue only. Internal. */
#ifndef DLCA_OPS_CL_NORM_H
#define DLCA_OPS_CL_NORM_H
#include <stdint.h>

#include "ops/tensor.h"

/* y = layer_norm(x) over x's last axis (n), gamma and beta [n] (both NULL: none); y of x's shape. */
int dlca__ops_cl_layer_norm(dlca_context *ctx, double eps, const dlca_tensor *x, const dlca_tensor *gamma,
                            const dlca_tensor *beta, dlca_tensor *y);
/* dx (may be NULL), dgamma and dbeta (both or neither; summed over rows in row order) from dy. */
int dlca__ops_cl_layer_norm_backward(dlca_context *ctx, double eps, const dlca_tensor *x, const dlca_tensor *gamma,
                                     const dlca_tensor *dy, dlca_tensor *dx, dlca_tensor *dgamma, dlca_tensor *dbeta);
/* y = x keep(i) / (1 - p), keep as dlca__dropout_keep(seed, p, i); p in [0, 1). The backward is the same call
 * on dy with the same seed. */
int dlca__ops_cl_dropout(dlca_context *ctx, double p, uint64_t seed, const dlca_tensor *x, dlca_tensor *y);
#endif
