/* What a network trainer will allocate, checked before it allocates: an
 * out-of-memory batch is a clear DLCA_EDEVMEM naming the batch that fits,
 * never a failure mid-step (or PoCL's abort where host memory runs out). */
#include <stdio.h>
#include "cl/runtime.h"
#include "net/net_impl.h"
#include "optim/internal.h"
#include "train/host_memory.h"

/* Bytes per sample of the batch (activations and their gradients, targets,
 * conv2d's im2col scratch) and bytes fixed (parameters, gradients, state). */
static void footprint(const dlca_net *net, const dlca_optim_config *cfg, int host, double *per, double *fixed) {
  double acts = 0, col = 0, word = host ? sizeof(double) : sizeof(float);
  for (size_t i = 0; i <= net->n_layers; i++) acts += (double)dlca__nshape_n(&net->shape[i]);
  for (size_t i = 0; i < net->n_layers; i++)
    if (net->layers[i].kind == DLCA_NET_CONV2D) {
      double c = (double)net->wsize[i] / (double)net->layers[i].units * (double)dlca__nshape_n(&net->shape[i + 1]) /
                 (double)net->shape[i + 1].d[0];
      col = c > col ? c : col;
    }
  *per = word * (2 * acts + (double)dlca_net_target_size(net) + (host ? 0 : col));
  *fixed = (double)net->n_params * sizeof(float) * (double)(3 + dlca__optim_slots(cfg)) * (host ? 2 : 1);
}

int dlca__net_check_memory(const dlca_net_trainer *t) {
  const dlca_context *ctx = t->ctx;
  int host = !ctx || ctx->info.type == DLCA_DEVICE_CPU;
  double per, fixed;
  footprint(t->net, &t->cfg, !ctx, &per, &fixed);
  double need = fixed + per * (double)t->batch;
  if (ctx && need > (double)ctx->info.global_mem) {
    double fit = ((double)ctx->info.global_mem - fixed) / per;
    return dlca__fail(DLCA_EDEVMEM, "net trainer: batch %zu needs %.1f MiB of device memory, %s has %.1f MiB; a "
                      "batch of %.0f would fit", t->batch, need / 1048576, ctx->info.name,
                      (double)ctx->info.global_mem / 1048576, fit > 0 ? fit : 0);
  }
  if (!host) return DLCA_OK;
  dlca__host_memory h;
  dlca__host_memory_read(&h);
  double limit = (double)dlca__host_memory_limit(&h), fit = (limit - fixed) / per;
  if (need <= limit) return DLCA_OK;
  char what[400];
  snprintf(what, sizeof what, "training a network of batch %zu on %s", t->batch,
           ctx ? ctx->info.name : "the CPU twin");
  return dlca__host_memory_check(&h, (uint64_t)need, what, fit > 0 && fit < 2e9 ? (int)fit : 0);
}
