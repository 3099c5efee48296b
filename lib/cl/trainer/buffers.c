/* The trainer's device buffers and kernels: their release. */
#include <stdlib.h>
#include "cl/trainer/cl_trainer.h"

static void release(cl_mem *b) {
  if (*b) clReleaseMemObject(*b);
  *b = NULL;
}
void dlca__clt_destroy(dlca_trainer *t) {
  cl_state *st = t->impl;
  if (!st) return;
  cl_kernel ks[] = {st->k_coef, st->k_start, st->k_fwd, st->k_bwd, st->k_adamw, st->k_eval, st->k_perc};
  for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
    if (ks[i]) clReleaseKernel(ks[i]);
  cl_mem *bs[] = {&st->coef_st, &st->gumbel, &st->params, &st->m, &st->v, &st->grad, &st->coef, &st->coef_hard,
                  &st->wires, &st->rev, &st->states, &st->hard[0], &st->hard[1], &st->g[0], &st->g[1], &st->dP[0],
                  &st->dP[1], &st->partial, &st->loss_partial, &st->loss, &st->eval_out, &st->target, &st->input,
                  &st->masks, &st->scratch, &st->flags, &st->dU, &st->rslot, &st->rcoef, &st->pwire, &st->gkey};
  for (size_t i = 0; i < sizeof bs / sizeof bs[0]; i++) release(bs[i]);
  if (st->pm) dlca_model_free(st->pm);
  free(st->pmap);
  for (int l = 0; l <= DLCA_MAX_LAYERS; l++) free(st->row[l]);
  free(st);
  t->impl = NULL;
}
