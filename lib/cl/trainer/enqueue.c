/* The epoch on the device: the kernels enqueued in order, with their
 * arguments, and the two reads that cross back to the host (loss, hard
 * evaluation). */
#include <math.h>
#include <string.h>
#include "cl/trainer/cl_trainer.h"
#include "optim/internal.h"

/* clSetKernelArg in sequence; stops at the first error. */
typedef struct argset {
  cl_kernel k;
  cl_uint i;
  cl_int err;
} argset;
static void arg(argset *a, size_t size, const void *v) {
  if (!a->err) a->err = clSetKernelArg(a->k, a->i, size, v);
  a->i++;
}
#define ARG(a, v) arg(a, sizeof(v), &(v))
#define LOCAL(a, floats) arg(a, (floats) * sizeof(float), NULL)
static int arg_done(argset *a, const char *kernel) {
  if (a->err)
    return dlca__fail_cl(a->err, "%s: setting argument %u: %s", kernel, a->i - 1, dlca__cl_error_name(a->err));
  return DLCA_OK;
}

/* The noise arguments of dlca_coef and dlca_adamw for the current epoch. */
typedef struct relax_args {
  cl_int use_gumbel, st;
  cl_ulong key;
  cl_float inv_tau;
} relax_args;

static relax_args relax_of(const dlca_trainer *t) {
  relax_args r;
  r.use_gumbel = t->cfg.relax.gumbel_scale > 0;
  r.st = t->cfg.relax.straight_through != 0;
  r.key = dlca__epoch_key(t->cfg.seed, t->epoch);
  r.inv_tau = dlca__relax_inv_tau(&t->cfg.relax);
  return r;
}

/* The coefficients that run the soft forward pass: hard ones of the noisy
 * logits under straight-through, else the soft ones. */
static cl_mem forward_coef(const cl_state *st) { return st->coef_st ? st->coef_st : st->coef; }

static int enqueue_coef(dlca_trainer *t) {
  cl_state *st = t->impl;
  cl_int ng = (cl_int)dlca__model_n_gates(t->model);
  relax_args r = relax_of(t);
  cl_mem cst = st->coef_st ? st->coef_st : st->coef_hard; /* not written unless st */
  argset a = {st->k_coef, 0, 0};
  ARG(&a, st->params), ARG(&a, st->coef), ARG(&a, st->coef_hard), ARG(&a, cst), ARG(&a, r.st), ARG(&a, st->gumbel);
  ARG(&a, r.use_gumbel), ARG(&a, r.key), ARG(&a, r.inv_tau), ARG(&a, ng), ARG(&a, st->rslot), ARG(&a, st->rcoef);
  ARG(&a, st->gkey);
  int rc = arg_done(&a, "dlca_coef");
  size_t gws = ((size_t)ng + 63) / 64 * 64, lws = 64;
  return rc ? rc : dlca__launch(t->ctx, st->k_coef, "coef", 1, &gws, &lws);
}

/* Epoch e's start grids into dst. */
static int enqueue_start(dlca_trainer *t, uint64_t epoch, cl_mem dst) {
  cl_state *st = t->impl;
  if (t->cfg.start == DLCA_START_UPLOAD) {
    cl_int err = clEnqueueCopyBuffer(t->ctx->queue, st->input, dst, 0, 0, t->grid * 4, 0, NULL, NULL);
    return err ? dlca__fail_cl(err, "copying the start grids: %s", dlca__cl_error_name(err)) : DLCA_OK;
  }
  cl_int kind = t->cfg.start == DLCA_START_RANDOM ? 0 : t->cfg.start == DLCA_START_SEED ? 1 : 2;
  cl_ulong key = dlca__epoch_key(t->cfg.seed, epoch);
  cl_int B = t->cfg.batch, H = t->cfg.height, W = t->cfg.width;
  argset a = {st->k_start, 0, 0};
  ARG(&a, dst), ARG(&a, kind), ARG(&a, key), ARG(&a, B), ARG(&a, H), ARG(&a, W);
  int rc = arg_done(&a, "dlca_start");
  size_t gws = (t->grid + 255) / 256 * 256, lws = 256;
  return rc ? rc : dlca__launch(t->ctx, st->k_start, "start", 1, &gws, &lws);
}

static int enqueue_forward(dlca_trainer *t, uint64_t epoch, cl_mem cur, size_t cur_off, cl_mem nxt,
                           size_t nxt_off, cl_mem coef, int step) {
  cl_state *st = t->impl;
  const cl_shape *s = &st->sh;
  cl_int use_masks = t->masks != NULL, ti = step, B = t->cfg.batch, H = t->cfg.height, W = t->cfg.width;
  cl_ulong key = dlca__epoch_key(t->cfg.seed, epoch), co = cur_off, no = nxt_off;
  cl_float rate = t->cfg.fire_rate;
  argset a = {st->k_fwd, 0, 0};
  ARG(&a, cur), ARG(&a, co), ARG(&a, nxt), ARG(&a, no), ARG(&a, coef), ARG(&a, st->wires), ARG(&a, st->masks);
  ARG(&a, use_masks), ARG(&a, key), ARG(&a, rate), ARG(&a, ti), ARG(&a, B), ARG(&a, H), ARG(&a, W);
  if (s->fwd_tile) {
    /* trainer_tile.cl: the two rows, the patch and the staged tables */
    LOCAL(&a, 2 * (size_t)s->dw * (size_t)s->tl), LOCAL(&a, 9 * (size_t)s->C * (size_t)s->tl);
    LOCAL(&a, dlca__clt_tile_fwd_tab_floats(s));
    int rc = arg_done(&a, "dlca_forward_tile");
    size_t lws = (size_t)s->twg, gws = (size_t)s->nwg_fwd * lws;
    return rc ? rc : dlca__launch(t->ctx, st->k_fwd, "forward_tile", 1, &gws, &lws);
  }
  if (s->kernels) {
    /* trainer_cpu.cl: groups of one work-item, each with its scratch */
    ARG(&a, st->scratch);
    int rc = arg_done(&a, "dlca_forward_cpu");
    size_t lws = 1, gws = (size_t)s->nwg;
    return rc ? rc : dlca__launch(t->ctx, st->k_fwd, "forward", 1, &gws, &lws);
  }
  LOCAL(&a, (size_t)s->UTOTAL), LOCAL(&a, 9 * (size_t)s->C), LOCAL(&a, 4 * (size_t)s->NGP);
  int rc = arg_done(&a, "dlca_forward");
  size_t lws = (size_t)s->wg, gws = (size_t)s->nwg_fwd * lws;
  return rc ? rc : dlca__launch(t->ctx, st->k_fwd, "forward", 1, &gws, &lws);
}

static int enqueue_backward(dlca_trainer *t, int step) {
  cl_state *st = t->impl;
  const cl_shape *s = &st->sh;
  const int T = t->cfg.steps;
  cl_int use_masks = t->masks != NULL, ti = step, B = t->cfg.batch, H = t->cfg.height, W = t->cfg.width;
  cl_ulong key = dlca__epoch_key(t->cfg.seed, t->epoch);
  cl_float rate = t->cfg.fire_rate;
  cl_mem fcoef = forward_coef(st);
  argset a = {st->k_bwd, 0, 0};
  if (s->kernels) {
    /* step t writes g[t % 2] and dP[t % 2], and reads those of step t + 1 */
    cl_int top = step == T - 1;
    cl_ulong t_off = (cl_ulong)step * t->grid, T_off = (cl_ulong)T * t->grid;
    cl_mem g_cur = st->g[step % 2], g_next = st->g[(step + 1) % 2];
    cl_mem dP_cur = st->dP[step % 2], dP_next = st->dP[(step + 1) % 2];
    ARG(&a, st->states), ARG(&a, t_off), ARG(&a, T_off), ARG(&a, st->target), ARG(&a, g_next), ARG(&a, g_cur);
    ARG(&a, dP_next), ARG(&a, dP_cur), ARG(&a, fcoef), ARG(&a, st->coef), ARG(&a, st->wires), ARG(&a, st->rev);
    ARG(&a, st->partial), ARG(&a, st->loss_partial), ARG(&a, st->masks), ARG(&a, use_masks), ARG(&a, key);
    ARG(&a, rate), ARG(&a, ti), ARG(&a, top), ARG(&a, B), ARG(&a, H), ARG(&a, W);
    ARG(&a, st->scratch);
    if (s->kernels == 2) {
      LOCAL(&a, dlca__clt_tile_dbuf_floats(s)), LOCAL(&a, (size_t)s->dw * (size_t)s->tl);
      LOCAL(&a, 9 * (size_t)s->C * (size_t)s->tl);
      LOCAL(&a, (size_t)s->C * (size_t)s->tl);
    }
    int rc = arg_done(&a, s->kernels == 1 ? "dlca_backward_cpu" : "dlca_backward_tile");
    size_t lws = s->kernels == 1 ? 1 : (size_t)s->twg, gws = (size_t)s->nwg * lws;
    return rc ? rc : dlca__launch(t->ctx, st->k_bwd, s->kernels == 1 ? "backward" : "backward_tile", 1, &gws, &lws);
  }
  /* trainer.cl: both ping-pong buffers; step t writes [t % 2] (with PERSIST
   * every step, in one launch) */
  cl_ulong grid = t->grid;
  cl_int Ti = T;
  ARG(&a, st->states), ARG(&a, grid), ARG(&a, Ti), ARG(&a, st->target), ARG(&a, st->g[0]), ARG(&a, st->g[1]);
  ARG(&a, st->dP[0]), ARG(&a, st->dP[1]), ARG(&a, fcoef), ARG(&a, st->coef), ARG(&a, st->wires), ARG(&a, st->rev);
  ARG(&a, st->rcoef), ARG(&a, st->partial), ARG(&a, st->loss_partial), ARG(&a, st->masks), ARG(&a, use_masks);
  ARG(&a, key), ARG(&a, rate), ARG(&a, ti), ARG(&a, B), ARG(&a, H), ARG(&a, W), ARG(&a, st->flags), ARG(&a, st->dU);
  ARG(&a, st->pwire);
  const size_t cpw = (size_t)s->cpw, cpwp = (size_t)s->cpwp;
  /* (under BWD_PUSH the gradients live in act's rows, and dact is unused) */
  LOCAL(&a, cpw * s->pact), LOCAL(&a, s->push ? 4 : cpw * 2 * (size_t)s->dw);
  LOCAL(&a, cpw * 9 * (size_t)s->C);
  LOCAL(&a, cpw * s->C > (size_t)s->wg ? cpw * s->C : (size_t)s->wg);
  LOCAL(&a, 4 * (size_t)s->NGP);
  LOCAL(&a, st->coef_st ? 4 * (size_t)s->NGP : 4);
  int rc = arg_done(&a, "dlca_backward");
  size_t lws = (size_t)s->wg, gws = (size_t)s->nwg * lws;
  if (!rc) rc = dlca__launch(t->ctx, st->k_bwd, "backward", 1, &gws, &lws);
  if (rc || !s->psplit) return rc;
  /* PSPLIT: the perception stacks' backward of the same step, by the same
   * groups (their slots of the gate sums) */
  argset b = {st->k_perc, 0, 0};
  ARG(&b, st->states), ARG(&b, grid), ARG(&b, ti), ARG(&b, st->dU), ARG(&b, st->dP[0]), ARG(&b, st->dP[1]);
  ARG(&b, fcoef), ARG(&b, st->coef), ARG(&b, st->partial), ARG(&b, B), ARG(&b, H), ARG(&b, W);
  LOCAL(&b, cpwp * (size_t)s->C * (size_t)s->K * 9), LOCAL(&b, cpwp * 9 * (size_t)s->C), LOCAL(&b, cpwp * (size_t)s->uin);
  LOCAL(&b, (size_t)s->wg), LOCAL(&b, 4 * (size_t)s->NGP), LOCAL(&b, st->coef_st ? 4 * (size_t)s->NGP : 4);
  if (t->cfg.shared_program) ARG(&b, st->wires); /* pwires.cl's P_WIRES_ARG */
  rc = arg_done(&b, "dlca_backward_perc");
  gws = (size_t)s->nwg_perc * lws;
  return rc ? rc : dlca__launch(t->ctx, st->k_perc, "backward_perc", 1, &gws, &lws);
}

static int enqueue_adamw(dlca_trainer *t) {
  cl_state *st = t->impl;
  const dlca_optim *o = &t->cfg.optim;
  int step = (int)t->epoch + 1;
  cl_int nwg = st->sh.nslots, units = st->sh.persist ? (cl_int)st->sh.units : 0;
  cl_float lr = o->lr, b1 = o->beta1, b2 = o->beta2, eps = o->eps, wd = o->weight_decay, clip = o->clip;
  cl_float bc1 = (float)(1.0 - pow(o->beta1, step)), bc2 = (float)(1.0 - pow(o->beta2, step));
  cl_float gn_sigma = dlca__grad_noise_sigma(t->cfg.relax.grad_noise, (uint64_t)step);
  relax_args r = relax_of(t);
  /* the suite's scalars of this step (unused by the default AdamW) */
  dlca__optim_scalars k;
  memset(&k, 0, sizeof k);
  if (t->cfg.use_suite) {
    const dlca_optim_config c = dlca__train_suite(&t->cfg);
    (void)dlca__optim_scalars_at(&c, (uint64_t)step, &k); /* fails only on NULL */
  }
  argset a = {st->k_adamw, 0, 0};
  ARG(&a, st->params), ARG(&a, st->grad), ARG(&a, st->slots), ARG(&a, st->partial), ARG(&a, nwg);
  ARG(&a, st->loss_partial), ARG(&a, st->loss), ARG(&a, st->flags), ARG(&a, units), ARG(&a, lr), ARG(&a, b1);
  ARG(&a, b2), ARG(&a, eps), ARG(&a, wd);
  ARG(&a, clip), ARG(&a, bc1), ARG(&a, bc2), ARG(&a, st->gumbel), ARG(&a, r.use_gumbel), ARG(&a, r.key);
  ARG(&a, r.inv_tau), ARG(&a, gn_sigma), ARG(&a, st->gkey), ARG(&a, k);
  int rc = arg_done(&a, "dlca_adamw");
  size_t ng = dlca__model_n_gates(t->model), lws = 64, gws = (ng + 63) / 64 * 64;
  return rc ? rc : dlca__launch(t->ctx, st->k_adamw, "adamw", 1, &gws, &lws);
}

int dlca__clt_step(dlca_trainer *t) {
  cl_state *st = t->impl;
  const int T = t->cfg.steps;
  int rc = enqueue_coef(t);
  /* states holds T+1 grids: the start grids, then one per step */
  if (!rc) rc = enqueue_start(t, t->epoch, st->states);
  for (int s = 0; s < T && !rc; s++)
    rc = enqueue_forward(t, t->epoch, st->states, (size_t)s * t->grid, st->states, (size_t)(s + 1) * t->grid,
                         forward_coef(st), s);
  if (!rc) {
    float zero = 0.0f;
    cl_int err = clEnqueueFillBuffer(t->ctx->queue, st->partial, &zero, 4, 0,
                                     (size_t)st->sh.nslots * st->sh.acc_stride * 4, 0, NULL, NULL);
    if (err) rc = dlca__fail_cl(err, "clearing the gradient sums: %s", dlca__cl_error_name(err));
  }
  /* one launch for every step with BWD_PERSIST (its step flags start at
   * zero: dlca__clt_init, then dlca_adamw of each epoch), else one per step */
  if (st->sh.persist) {
    if (!rc) rc = enqueue_backward(t, T - 1);
  } else {
    for (int s = T - 1; s >= 0 && !rc; s--) rc = enqueue_backward(t, s);
  }
  if (!rc) rc = enqueue_adamw(t);
  /* the first step is the first use of most buffers */
  return rc == DLCA_EDEVMEM ? dlca__clt_devmem_note(t, &st->sh) : rc;
}

int dlca__clt_loss(dlca_trainer *t, double *loss) {
  cl_state *st = t->impl;
  float l[2]; /* the loss, then the status word of the one-launch backward pass */
  cl_int status = 0;
  int rc = dlca__download(t->ctx, st->loss, 0, sizeof l, l, "loss");
  if (!rc) memcpy(&status, &l[1], sizeof status);
  if (!rc && status)
    return dlca__fail(DLCA_ECL,
                      "%s: the one-launch backward pass (trainer.cl BWD_PERSIST) gave up waiting for work-groups "
                      "that the device did not run at once, so this run's gradients are wrong; set BWD_PERSIST 0 "
                      "or fewer BWD_GROUPS_PER_CU in the tuning table for this device",
                      t->ctx->info.name);
  if (!rc) *loss = l[0];
  return rc;
}

int dlca__clt_eval_hard(dlca_trainer *t, dlca_eval *out) {
  cl_state *st = t->impl;
  int rc = enqueue_coef(t);
  if (!rc) rc = enqueue_start(t, t->epoch, st->hard[0]);
  for (int s = 0; s < t->cfg.steps && !rc; s++)
    rc = enqueue_forward(t, t->epoch, st->hard[s % 2], 0, st->hard[(s + 1) % 2], 0, st->coef_hard, s);
  st->hard_final = t->cfg.steps % 2;
  if (rc) return rc;
  cl_int cells = t->cfg.batch * t->cfg.height * t->cfg.width;
  argset a = {st->k_eval, 0, 0};
  ARG(&a, st->hard[st->hard_final]), ARG(&a, st->target), ARG(&a, cells), ARG(&a, st->eval_out);
  LOCAL(&a, (size_t)st->sh.wg);
  if ((rc = arg_done(&a, "dlca_eval"))) return rc;
  size_t lws = (size_t)st->sh.wg;
  if ((rc = dlca__launch(t->ctx, st->k_eval, "eval", 1, &lws, &lws))) return rc;
  float r[2];
  if ((rc = dlca__download(t->ctx, st->eval_out, 0, sizeof r, r, "hard evaluation"))) return rc;
  out->hard_loss = r[0];
  out->errors = (size_t)r[1];
  out->total = (size_t)cells * (size_t)t->cfg.n_loss_channels;
  out->accuracy = 1.0 - (double)out->errors / (double)out->total;
  return DLCA_OK;
}
