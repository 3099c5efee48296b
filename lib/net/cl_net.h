/* Launchers of kernels-cl/ops/net.cl (in the program ops.cl) and the
 * device state of the network trainer. Internal. */
#ifndef DLCA_NET_CL_NET_H
#define DLCA_NET_CL_NET_H
#include "net/net_impl.h"
#include "ops/tensor.h"

/* dst [N, row...] = the rows perm(seed, epoch, first + j) of src [n, row...]
 * (permute), else rows first + j. Enqueues only. */
int dlca__net_cl_gather(dlca_context *ctx, const dlca_tensor *src, dlca_tensor *dst, size_t n, uint64_t seed,
                        uint64_t epoch, size_t first, int permute);
/* acc[0] += w loss[0], acc[1] += w. */
int dlca__net_cl_accum(dlca_context *ctx, const dlca_tensor *loss, dlca_tensor *acc, float w);
/* acc[2] += the rows of logits [N, K] whose first maximum is target's class. */
int dlca__net_cl_correct(dlca_context *ctx, const dlca_tensor *logits, const dlca_tensor *target, dlca_tensor *acc);
#endif
