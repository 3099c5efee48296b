/* The trainer's device buffers: their allocation, and their release with the
 * kernels. */
#include <stdlib.h>
#include "cl/trainer/cl_trainer.h"

static void release(cl_mem *b) {
  if (*b) clReleaseMemObject(*b);
  *b = NULL;
}

void dlca__clt_destroy(dlca_trainer *t) {
  cl_state *st = t->impl;
  if (!st) return;
  for (int k = 0; k < 2; k++) { /* the device may still be reading the copy */
    if (st->stage_ev[k]) clWaitForEvents(1, &st->stage_ev[k]), clReleaseEvent(st->stage_ev[k]);
    free(st->stage[k]);
  }
  cl_kernel ks[] = {st->k_coef, st->k_start, st->k_fwd, st->k_bwd, st->k_adamw, st->k_eval, st->k_perc};
  for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
    if (ks[i]) clReleaseKernel(ks[i]);
  cl_mem *bs[] = {&st->coef_st, &st->gumbel, &st->params, &st->slots, &st->grad, &st->coef, &st->coef_hard,
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

/* Every buffer, in the order they are allocated. */
int dlca__clt_buf_specs(const dlca_trainer *t, cl_state *st, buf_spec *out) {
  const cl_shape *s = &st->sh;
  const dlca_model *m = t->model;
  const size_t P = m->n_params, NG = dlca__model_n_gates(m), grid = t->grid * sizeof(float);
  const size_t cells = (size_t)t->cfg.batch * t->cfg.height * t->cfg.width;
  const buf_spec bufs[] = {
      {&st->params, P * 4, "logits", "params"},
      {&st->slots, t->n_slots ? t->n_slots * P * 4 : 4, "optimizer state", "slots"},
      {&st->grad, P * 4, "gradient", "grad"},
      {&st->coef, NG * 16, "gate coefficients", "coef"},
      {&st->coef_hard, NG * 16, "hard gate coefficients", "coef_hard"},
      {&st->wires, s->n_wires * 4, "wires", "wires"},
      {&st->rev, s->n_rev * 8 + 8, "reverse wiring", "rev"},
      {&st->rslot, (size_t)s->NGU * 8 + 8, "reverse slots", "rslot"},
      {&st->rcoef, s->n_rev * 8 + 8, "reverse coefficients", "rcoef"},
      {&st->pwire, s->push ? (size_t)s->NGU * 16 + (size_t)s->uin * 8 : 16, "push wiring", "pwire"},
      {&st->gkey, NG * 4, "gate keys", "gkey"},
      {&st->states, grid * ((size_t)t->cfg.steps + 1), "states of every step", "states"},
      {&st->hard[0], grid, "hard states", "hard0"},
      {&st->hard[1], grid, "hard states", "hard1"},
      {&st->g[0], grid, "state gradients", "g0"},
      {&st->g[1], grid, "state gradients", "g1"},
      {&st->dP[0], 9 * grid, "patch gradients", "dP0"},
      {&st->dP[1], 9 * grid, "patch gradients", "dP1"},
      {&st->partial, (size_t)s->nslots * s->acc_stride * 4, "gate gradient sums", "partial"},
      {&st->loss_partial, (size_t)s->nslots * 4, "loss sums", "loss_partial"},
      {&st->loss, 8, "loss", "loss"},
      {&st->eval_out, 8, "evaluation", "eval_out"},
      {&st->target, grid, "target", "target"},
      {&st->input, grid, "start grids", "input"},
      {&st->masks, t->cfg.async ? (size_t)t->cfg.steps * cells : 0, "fire masks", "masks"},
      {&st->flags, (s->units + 1) * sizeof(cl_int), "backward step flags", "flags"},
      {&st->dU, s->psplit ? cells * (size_t)s->uin * 4 : 4, "update input gradients", "dU"},
      {&st->scratch, s->kernels ? (size_t)s->nwg * s->scratch_floats * 4 : 0,
       s->kernels == 1 ? "CPU kernels' activations" : "tile kernels' activations", "scratch"},
      {&st->coef_st, t->cfg.relax.straight_through ? NG * 16 : 0, "straight-through coefficients", "coef_st"},
      {&st->gumbel, t->cfg.relax.gumbel_scale > 0 ? DLCA_GUMBEL_LEVELS * sizeof(float) : sizeof(float), "Gumbel table",
       "gumbel"},
  };
  const int n = (int)(sizeof bufs / sizeof bufs[0]);
  for (int i = 0; i < n; i++) out[i] = bufs[i];
  return n;
}

/* Every buffer. The first that does not fit ends the set-up with
 * DLCA_EDEVMEM naming it and its size (dlca__buffer); cl_destroy releases
 * those made before. In a group: sub-buffers of the group's. */
int dlca__clt_alloc_buffers(dlca_trainer *t, cl_state *st) {
  buf_spec bufs[CLT_MAX_BUFS];
  const int n = dlca__clt_buf_specs(t, st, bufs);
  if (st->grp) return dlca__clt_group_alloc(t, st, bufs, n);
  for (int i = 0; i < n; i++) {
    int rc = bufs[i].bytes ? dlca__buffer(t->ctx, bufs[i].bytes, bufs[i].what, bufs[i].mem) : DLCA_OK;
    if (rc) return rc;
  }
  return DLCA_OK;
}
