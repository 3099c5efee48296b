/* What the host hands the device: the wiring and its reverse, the target,
 * the start grids and the fire masks. */
#include <stdlib.h>
#include <string.h>
#include "cl/trainer/cl_trainer.h"

/* BWD_PUSH's wiring of update layer l (pwire, trainer.cl), its gates
 * starting at update gate u: gate g's slots in its inputs, their entries'
 * places k among each input's readers in the model's gate order (a before
 * b), as rev has them without BWD_BANKS, so that the slots add up in the
 * same order either way; its output's readers and overflow slots, from the
 * layer above. fill, fo and po are scratch of the layer's inputs. */
static void push_layer(const cl_state *st, const dlca_layer *L, int l, int last, size_t u, int32_t *fill, int *fo,
                       int *po, int32_t *pw) {
  const cl_shape *s = &st->sh;
  const size_t n = (size_t)L->n_in, R = (size_t)s->fanout[l];
  dlca__clt_push_slots(L, (int)R, fo, po);
  const int r2 = R < 2 ? (int)R : 2;
  memset(fill, 0, sizeof(int32_t) * n);
  for (int e = 0; e < L->n_gates; e++) {
    const int g = st->pm ? st->row[l + 1][e] : e;
    for (int side = 0; side < 2; side++) {
      const int in = side ? L->wb[g] : L->wa[g], k = fill[in]++;
      const int sl = k < r2 ? k * (int)n + in : po[in] + k - 2;
      pw[4 * (u + (size_t)g) + side] = (int32_t)((uint32_t)in | (uint32_t)sl << 16);
    }
  }
  if (l == 0) /* the update input's, for dU */
    for (int i = 0; i < (int)n; i++) {
      const size_t v = 4 * (size_t)s->NGU + 2 * (size_t)i;
      pw[v] = fo[i], pw[v + 1] = po[i];
    }
  else /* the layer below's gates: their outputs are this layer's inputs */
    for (int i = 0; i < (int)n; i++) {
      const size_t v = u - n + (size_t)i;
      pw[4 * v + 2] = fo[i], pw[4 * v + 3] = po[i];
    }
  if (last) /* the last layer's outputs: one slot, the output gradient */
    for (int g = 0; g < L->n_gates; g++) pw[4 * (u + (size_t)g) + 2] = 1, pw[4 * (u + (size_t)g) + 3] = 0;
}

/* Wires of every layer, then the update layers' reverse wiring, one ELL block
 * per layer: with n inputs and fan-out R (shape_of), entry k of input i is
 * rev[base + k n + i] = (2 gate + side, the gate's other input), side 0 for
 * input a, 1 for b; the consumers of input i in gate order, a before b, then
 * (-1, 0) up to R. The kernel sums the entries in this order. rslot[u] holds
 * the indices of update gate u's two entries (side a, side b), where
 * dlca_coef writes the coefficients that the entries need (rcoef, whose
 * padding entries dlca__clt_init clears and nothing writes). */
int dlca__clt_upload_wiring(dlca_trainer *t, cl_state *st) {
  const dlca_model *m = dlca__clt_device_model(t);
  const cl_shape *s = &st->sh;
  int32_t *w = malloc(sizeof(int32_t) * s->n_wires), *rv = malloc(sizeof(int32_t) * 2 * (s->n_rev + 1));
  int32_t *slot = malloc(sizeof(int32_t) * 2 * ((size_t)s->NGU + 1)), *fill = NULL;
  /* BWD_PUSH: pwire (trainer.cl), 4 ints an update gate, then 2 an update input */
  size_t n_push = s->push ? 4 * (size_t)s->NGU + 2 * (size_t)s->uin : 1;
  int32_t *pw = calloc(n_push, sizeof(int32_t));
  int *fo = malloc(sizeof(int) * (size_t)s->dw), *po = malloc(sizeof(int) * (size_t)s->dw);
  int rc = DLCA_OK;
  size_t o = 0, ov = 0, u = 0;
  if (!w || !rv || !slot || !pw || !fo || !po) goto oom;
  for (int l = 0; l < m->n_perceive; l++) {
    const dlca_layer *L = &m->perceive[l];
    memcpy(w + o, L->wa, sizeof(int32_t) * L->n_gates), o += L->n_gates;
    memcpy(w + o, L->wb, sizeof(int32_t) * L->n_gates), o += L->n_gates;
  }
  for (int l = 0; l < m->n_update; l++) {
    const dlca_layer *L = &m->update[l];
    const size_t n = (size_t)L->n_in, R = (size_t)s->fanout[l];
    memcpy(w + o, L->wa, sizeof(int32_t) * L->n_gates), o += L->n_gates;
    memcpy(w + o, L->wb, sizeof(int32_t) * L->n_gates), o += L->n_gates;
    if (!(fill = calloc(n, sizeof(int32_t)))) goto oom;
    for (size_t e = 0; e < R * n; e++) rv[2 * (ov + e)] = -1, rv[2 * (ov + e) + 1] = 0;
    for (int g = 0; g < L->n_gates; g++)
      for (int side = 0; side < 2; side++) {
        const int32_t in = side ? L->wb[g] : L->wa[g], other = side ? L->wa[g] : L->wb[g];
        const size_t e = ov + (size_t)fill[in]++ * n + (size_t)in;
        rv[2 * e] = 2 * g + side, rv[2 * e + 1] = other;
        slot[2 * (u + (size_t)g) + side] = (int32_t)e;
      }
    if (s->push) push_layer(st, L, l, l == m->n_update - 1, u, fill, fo, po, pw);
    free(fill), fill = NULL;
    u += (size_t)L->n_gates;
    ov += R * n;
  }
  rc = dlca__upload(t->ctx, st->wires, 0, sizeof(int32_t) * s->n_wires, w, "wires");
  if (!rc) rc = dlca__upload(t->ctx, st->rev, 0, sizeof(int32_t) * 2 * s->n_rev, rv, "reverse wiring");
  if (!rc) rc = dlca__upload(t->ctx, st->rslot, 0, sizeof(int32_t) * 2 * (size_t)s->NGU, slot, "reverse slots");
  if (!rc && s->push) rc = dlca__upload(t->ctx, st->pwire, 0, sizeof(int32_t) * n_push, pw, "push wiring");
  free(w), free(rv), free(slot), free(pw), free(fo), free(po);
  return rc;
oom:
  free(w), free(rv), free(slot), free(fill), free(pw), free(fo), free(po);
  return dlca__fail(DLCA_ENOMEM, "OpenCL trainer: out of host memory");
}
/* Waits for the device's read of stage k, if one is pending. */
int dlca__clt_stage_wait(cl_state *st, int k) {
  if (!st->stage_ev[k]) return DLCA_OK;
  cl_int err = clWaitForEvents(1, &st->stage_ev[k]);
  clReleaseEvent(st->stage_ev[k]);
  st->stage_ev[k] = NULL;
  return err ? dlca__fail_cl(err, "OpenCL trainer: writing the %s: %s", k ? "target" : "start grids",
                             dlca__cl_error_name(err))
             : DLCA_OK;
}

/* The start grids (k 0) or the target (k 1), written without a wait: gol
 * writes both every epoch, and a blocking write costs a round trip (tens
 * of us a model and epoch on an NVIDIA driver). The device reads them from
 * the trainer's own copy, rewritten only once that read is done. */
static int write_staged(dlca_trainer *t, int k, cl_mem buf, const float *src) {
  cl_state *st = t->impl;
  const size_t bytes = t->grid * 4;
  int rc = dlca__clt_stage_wait(st, k);
  if (rc) return rc;
  if (!st->stage[k] && !(st->stage[k] = malloc(bytes)))
    return dlca__fail(DLCA_ENOMEM, "OpenCL trainer: out of host memory for the %s", k ? "target" : "start grids");
  memcpy(st->stage[k], src, bytes);
  cl_int err = clEnqueueWriteBuffer(t->ctx->queue, buf, CL_FALSE, 0, bytes, st->stage[k], 0, NULL, &st->stage_ev[k]);
  if (err) {
    st->stage_ev[k] = NULL;
    return dlca__fail_cl(err, "%s: writing %zu bytes to %s failed: %s", k ? "target" : "start grids", bytes,
                         t->ctx->info.name, dlca__cl_error_name(err));
  }
  return DLCA_OK;
}

int dlca__clt_sync_target(dlca_trainer *t) {
  cl_state *st = t->impl;
  return write_staged(t, 1, st->target, t->target);
}

int dlca__clt_sync_input(dlca_trainer *t) {
  cl_state *st = t->impl;
  return write_staged(t, 0, st->input, t->input);
}

int dlca__clt_sync_masks(dlca_trainer *t) {
  cl_state *st = t->impl;
  if (!t->masks) return DLCA_OK;
  size_t n = (size_t)t->cfg.steps * t->cfg.batch * t->cfg.height * t->cfg.width;
  return dlca__upload(t->ctx, st->masks, 0, n, t->masks, "fire masks");
}

/* The Gumbel table (issue 6), where the relaxation draws noise. */
static int upload_gumbel(dlca_trainer *t, cl_state *st) {
  if (!(t->cfg.relax.gumbel_scale > 0)) return DLCA_OK;
  float *table;
  int rc = dlca__gumbel_table(t->model->shape.parametrisation, t->cfg.relax.gumbel_scale, &table);
  if (rc) return rc;
  rc = dlca__upload(t->ctx, st->gumbel, 0, DLCA_GUMBEL_LEVELS * sizeof(float), table, "Gumbel table");
  free(table);
  return rc;
}

/* Each device gate's index in the model: the noise counters' key (gkey). */
static int upload_gate_keys(dlca_trainer *t, cl_state *st) {
  const dlca_model *m = t->model;
  const size_t NG = dlca__model_n_gates(m), npg = (size_t)dlca__model_npg(m);
  cl_int *key = malloc(sizeof(cl_int) * (NG ? NG : 1));
  if (!key) return dlca__fail(DLCA_ENOMEM, "OpenCL trainer: out of host memory");
  for (size_t g = 0; g < NG; g++) key[g] = (cl_int)(st->pmap ? st->pmap[g * npg] / npg : g);
  int rc = dlca__upload(t->ctx, st->gkey, 0, NG * 4, key, "gate keys");
  free(key);
  return rc;
}

/* Zeroes what starts at zero (the optimizer's state slots start at their
 * initial value, Adagrad's initial_accumulator_value): the gradient, the reverse
 * coefficients' padding, the step flags with the status word, and the loss
 * slots past the backward's groups (PERC_GROUPS_PER_CU), never written. */
static int clear_state(dlca_trainer *t, cl_state *st) {
  const cl_shape *s = &st->sh;
  cl_command_queue q = t->ctx->queue;
  const size_t P = t->model->n_params;
  float zero = 0.0f;
  cl_int izero = 0;
  cl_int err = CL_SUCCESS;
  for (size_t k = 0; k < t->n_slots && !err; k++) {
    const float v0 = dlca__train_slot_init(&t->cfg, k);
    err = clEnqueueFillBuffer(q, st->slots, &v0, 4, k * P * 4, P * 4, 0, NULL, NULL);
  }
  if (!err) err = clEnqueueFillBuffer(q, st->grad, &zero, 4, 0, P * 4, 0, NULL, NULL);
  if (!err) err = clEnqueueFillBuffer(q, st->rcoef, &zero, 4, 0, s->n_rev * 8 + 8, 0, NULL, NULL);
  if (!err) err = clEnqueueFillBuffer(q, st->flags, &izero, 4, 0, (s->units + 1) * 4, 0, NULL, NULL);
  if (!err) err = clEnqueueFillBuffer(q, st->loss_partial, &zero, 4, 0, (size_t)s->nslots * 4, 0, NULL, NULL);
  if (err)
    return dlca__fail_cl(err, "OpenCL trainer: clearing the optimizer state, reverse coefficients and step flags: %s",
                         dlca__cl_error_name(err));
  return DLCA_OK;
}

/* What the device needs before the first epoch, in this order: the noise
 * table, the wiring, the logits and gate keys, then the zeroed state. */
int dlca__clt_upload_initial(dlca_trainer *t, cl_state *st) {
  int rc;
  if ((rc = upload_gumbel(t, st)) || (rc = dlca__clt_upload_wiring(t, st)) ||
      (rc = dlca__clt_upload_params(t, st->params, t->model->params, "logits")) || (rc = upload_gate_keys(t, st)) ||
      (rc = clear_state(t, st)))
    return rc;
  return DLCA_OK;
}
