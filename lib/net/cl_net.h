/* Launchers of kernels-cl/ops/net.cl (in the program ops.cl) and the
 * device state of the network trainer. Internal. */
#ifndef DLCA_NET_CL_NET_H
#define DLCA_NET_CL_NET_H
#include "net/net_impl.h"
#include "ops/tensor.h"

/* perm (n uints) = the epoch's order, dlca_net_perm(seed, epoch, n, i). */
int dlca__net_cl_perm(dlca_context *ctx, cl_mem perm, size_t n, uint64_t seed, uint64_t epoch);
/* dst [N, row...] = the rows perm[first + j] of src [n, row...] (perm NULL:
 * rows first + j). Enqueues only. */
int dlca__net_cl_gather(dlca_context *ctx, const dlca_tensor *src, dlca_tensor *dst, size_t n, cl_mem perm,
                        size_t first);
/* acc[0] += w loss[0], acc[1] += w. */
int dlca__net_cl_accum(dlca_context *ctx, const dlca_tensor *loss, dlca_tensor *acc, float w);
/* acc[2] += the rows of logits [N, K] whose first maximum is target's class. */
int dlca__net_cl_correct(dlca_context *ctx, const dlca_tensor *logits, const dlca_tensor *target, dlca_tensor *acc);
#endif
