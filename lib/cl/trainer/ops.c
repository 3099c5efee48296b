/* The OpenCL trainer backend's ops: its set-up as a sequence of named steps,
 * the accessors, and the ops table. */
#include <stdlib.h>
#include <string.h>
#include "cl/trainer/cl_trainer.h"

/* The trainer's set-up, in named steps: the shape of the kernels, the
 * tunables, the plan of the launches (which checks the device's memory),
 * the programs and kernels, on a CPU device the host's memory, the
 * buffers, and what they hold at the start. What a failed step made stays
 * in t->impl for dlca__clt_destroy. */
int dlca__clt_init(dlca_trainer *t) {
  cl_state *st = calloc(1, sizeof *st);
  if (!st) return dlca__fail(DLCA_ENOMEM, "OpenCL trainer: out of host memory");
  t->impl = st;
  st->grp = t->group;
  dlca__clt_shape_of(t->model, &st->sh);
  if (st->sh.PG1 > 1024)
    return dlca__fail(DLCA_ECONFIG, "a perception stack of %d gates is too large for the device trainer (at most 1024)",
                      st->sh.PG1);
  cl_tuned u = {0};
  int rc;
  if ((rc = dlca__clt_tunables(t, &u)) || (rc = dlca__clt_plan(t, st, &u)) || (rc = dlca__clt_kernels(t, st)) ||
      (rc = dlca__clt_check_host(t, &st->sh)))
    return rc;
  if ((rc = dlca__clt_alloc_buffers(t, st)) || (rc = dlca__clt_upload_initial(t, st)) ||
      (rc = dlca__finish(t->ctx, "trainer set-up")))
    return rc == DLCA_EDEVMEM ? dlca__clt_devmem_note(t, &st->sh) : rc;
  return DLCA_OK;
}

static int cl_get_params(dlca_trainer *t, float *p) {
  return dlca__clt_download_params(t, ((cl_state *)t->impl)->params, p, "logits");
}

static int cl_set_params(dlca_trainer *t, const float *p) {
  return dlca__clt_upload_params(t, ((cl_state *)t->impl)->params, p, "logits");
}

static int cl_get_grad(dlca_trainer *t, float *g) {
  return dlca__clt_download_params(t, ((cl_state *)t->impl)->grad, g, "gradient");
}

static int cl_get_state(dlca_trainer *t, int hard, float *s) {
  cl_state *st = t->impl;
  if (hard) return dlca__download(t->ctx, st->hard[st->hard_final], 0, t->grid * 4, s, "hard state");
  return dlca__download(t->ctx, st->states, (size_t)t->cfg.steps * t->grid * 4, t->grid * 4, s, "soft state");
}

static int cl_get_slots(dlca_trainer *t, float *s) {
  cl_state *st = t->impl;
  const size_t P = t->model->n_params;
  int rc = DLCA_OK;
  for (size_t k = 0; k < t->n_slots && !rc; k++)
    rc = dlca__clt_download_params_at(t, st->slots, k * P, s + k * P, "optimizer state");
  return rc;
}

static int cl_set_slots(dlca_trainer *t, const float *s) {
  cl_state *st = t->impl;
  const size_t P = t->model->n_params;
  int rc = DLCA_OK;
  for (size_t k = 0; k < t->n_slots && !rc; k++)
    rc = dlca__clt_upload_params_at(t, st->slots, k * P, s + k * P, "optimizer state");
  return rc;
}

int dlca__cl_trainer_wg(const dlca_trainer *t) {
  return t && t->ops == &dlca__cl_trainer_ops && t->impl ? ((const cl_state *)t->impl)->sh.wg : 0;
}

/* 1 where the trainer runs the perception stacks' backward in a launch of
 * its own (PSPLIT; tests). */
int dlca__cl_trainer_psplit(const dlca_trainer *t) {
  return t && t->ops == &dlca__cl_trainer_ops && t->impl ? ((const cl_state *)t->impl)->sh.psplit : 0;
}

/* 1 where dlca_backward's update layers push their input gradients
 * (BWD_PUSH; tests). */
int dlca__cl_trainer_push(const dlca_trainer *t) {
  return t && t->ops == &dlca__cl_trainer_ops && t->impl ? ((const cl_state *)t->impl)->sh.push : 0;
}

/* The hidden update units the bank-aware order moved (BWD_BANKS; tests): 0
 * where the device runs the model's own order. */
int dlca__cl_trainer_banks(const dlca_trainer *t) {
  const cl_state *st = t && t->ops == &dlca__cl_trainer_ops ? t->impl : NULL;
  if (!st || !st->pm) return 0;
  int moved = 0;
  for (int l = 1; l < t->model->n_update; l++)
    for (int u = 0; u < t->model->shape.update_layers[l]; u++) moved += st->row[l][u] != u;
  return moved;
}

int dlca__cl_trainer_perc_unit(const dlca_trainer *t) {
  const cl_state *st = t && t->ops == &dlca__cl_trainer_ops ? t->impl : NULL;
  return st && st->sh.psplit ? st->sh.cpwp : 0;
}

int dlca__cl_trainer_groups(const dlca_trainer *t, int *nwg_perc) {
  const cl_state *st = t && t->ops == &dlca__cl_trainer_ops ? t->impl : NULL;
  if (nwg_perc) *nwg_perc = st && st->sh.psplit ? st->sh.nwg_perc : 0;
  return st && st->sh.psplit ? st->sh.nwg : 0;
}

int dlca__cl_trainer_persist(const dlca_trainer *t) {
  return t && t->ops == &dlca__cl_trainer_ops && t->impl ? ((const cl_state *)t->impl)->sh.persist : 0;
}

const dlca_trainer_ops dlca__cl_trainer_ops = {
    "cl",           dlca__clt_init,       dlca__clt_destroy,   dlca__clt_sync_target, dlca__clt_sync_input,
    dlca__clt_sync_masks, dlca__clt_step,  dlca__clt_loss,      dlca__clt_eval_hard,   cl_get_params,
    cl_set_params,  cl_get_grad,          cl_get_state,        cl_get_slots,          cl_set_slots,
};
