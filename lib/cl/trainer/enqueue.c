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

static int enqueue_backward(dlca_trainer *t, cl_state *st, int step);

/* A launch of one model, or with st->pop_m, of every model of a group
 * (dimension 1: the model). */
static int launch(const dlca_trainer *t, const cl_state *st, cl_kernel k, const char *name, size_t gws, size_t lws) {
  if (!st->pop_m) return dlca__launch(t->ctx, k, name, 1, &gws, &lws);
  const size_t g2[2] = {gws, (size_t)st->pop_m}, l2[2] = {lws, 1};
  return dlca__launch(t->ctx, k, name, 2, g2, l2);
}

/* POP programs' last two arguments: the scalars buffer and pop_on. */
static void pop_args(argset *a, const cl_state *st) {
  if (!st->grp) return;
  cl_int on = st->pop_m > 0;
  ARG(a, st->psc), ARG(a, on);
}

/* The same for start, forward and eval, then the stride of their grid
 * buffer buf (states or the hard ping-pong) in a batched launch. */
static void pop_args_g(argset *a, const cl_state *st, cl_mem buf) {
  if (!st->grp) return;
  pop_args(a, st);
  cl_ulong gs = st->pop_m ? dlca__clt_group_stride_of(st->grp, buf) : 0;
  ARG(a, gs);
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

static int enqueue_coef(dlca_trainer *t, cl_state *st) {
  cl_int ng = (cl_int)dlca__model_n_gates(t->model);
  relax_args r = relax_of(t);
  cl_mem cst = st->coef_st ? st->coef_st : st->coef_hard; /* not written unless st */
  argset a = {st->k_coef, 0, 0};
  ARG(&a, st->params), ARG(&a, st->coef), ARG(&a, st->coef_hard), ARG(&a, cst), ARG(&a, r.st), ARG(&a, st->gumbel);
  ARG(&a, r.use_gumbel), ARG(&a, r.key), ARG(&a, r.inv_tau), ARG(&a, ng), ARG(&a, st->rslot), ARG(&a, st->rcoef);
  ARG(&a, st->gkey);
  pop_args(&a, st);
  int rc = arg_done(&a, "dlca_coef");
  return rc ? rc : launch(t, st, st->k_coef, "coef", ((size_t)ng + 63) / 64 * 64, 64);
}

/* Epoch e's start grids into dst. */
static int enqueue_start(dlca_trainer *t, cl_state *st, uint64_t epoch, cl_mem dst) {
  if (t->cfg.start == DLCA_START_UPLOAD && st->pop_m) return dlca__clt_group_copy_start(t, st, dst);
  if (t->cfg.start == DLCA_START_UPLOAD) {
    cl_int err = clEnqueueCopyBuffer(t->ctx->queue, st->input, dst, 0, 0, t->grid * 4, 0, NULL, NULL);
    return err ? dlca__fail_cl(err, "copying the start grids: %s", dlca__cl_error_name(err)) : DLCA_OK;
  }
  cl_int kind = t->cfg.start == DLCA_START_RANDOM ? 0 : t->cfg.start == DLCA_START_SEED ? 1 : 2;
  cl_ulong key = dlca__epoch_key(t->cfg.seed, epoch);
  cl_int B = t->cfg.batch, H = t->cfg.height, W = t->cfg.width;
  argset a = {st->k_start, 0, 0};
  ARG(&a, dst), ARG(&a, kind), ARG(&a, key), ARG(&a, B), ARG(&a, H), ARG(&a, W);
  pop_args_g(&a, st, dst);
  int rc = arg_done(&a, "dlca_start");
  return rc ? rc : launch(t, st, st->k_start, "start", (t->grid + 255) / 256 * 256, 256);
}

static int enqueue_forward(dlca_trainer *t, cl_state *st, uint64_t epoch, cl_mem cur, size_t cur_off, cl_mem nxt,
                           size_t nxt_off, cl_mem coef, int step) {
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
    return rc ? rc : launch(t, st, st->k_fwd, "forward_tile", (size_t)s->nwg_fwd * s->twg, (size_t)s->twg);
  }
  if (s->kernels) {
    /* trainer_cpu.cl: groups of one work-item, each with its scratch */
    ARG(&a, st->scratch);
    pop_args_g(&a, st, cur);
    int rc = arg_done(&a, "dlca_forward_cpu");
    return rc ? rc : launch(t, st, st->k_fwd, "forward", (size_t)s->nwg, 1);
  }
  LOCAL(&a, (size_t)s->UTOTAL), LOCAL(&a, 9 * (size_t)s->C), LOCAL(&a, 4 * (size_t)s->NGP);
  pop_args_g(&a, st, cur);
  int rc = arg_done(&a, "dlca_forward");
  return rc ? rc : launch(t, st, st->k_fwd, "forward", (size_t)s->nwg_fwd * s->wg, (size_t)s->wg);
}

int dlca__clt_enqueue_backward(dlca_trainer *t, cl_state *st, int step) { return enqueue_backward(t, st, step); }

static int enqueue_backward(dlca_trainer *t, cl_state *st, int step) {
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
    pop_args(&a, st);
    int rc = arg_done(&a, s->kernels == 1 ? "dlca_backward_cpu" : "dlca_backward_tile");
    size_t lws = s->kernels == 1 ? 1 : (size_t)s->twg;
    const char *name = s->kernels == 1 ? "backward" : "backward_tile";
    return rc ? rc : launch(t, st, st->k_bwd, name, (size_t)s->nwg * lws, lws);
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
  pop_args(&a, st);
  int rc = arg_done(&a, "dlca_backward");
  size_t lws = (size_t)s->wg;
  if (!rc) rc = launch(t, st, st->k_bwd, "backward", (size_t)s->nwg * lws, lws);
  if (rc || !s->psplit) return rc;
  /* PSPLIT: the perception stacks' backward of the same step, by the same
   * groups (their slots of the gate sums) */
  argset b = {st->k_perc, 0, 0};
  ARG(&b, st->states), ARG(&b, grid), ARG(&b, ti), ARG(&b, st->dU), ARG(&b, st->dP[0]), ARG(&b, st->dP[1]);
  ARG(&b, fcoef), ARG(&b, st->coef), ARG(&b, st->partial), ARG(&b, B), ARG(&b, H), ARG(&b, W);
  LOCAL(&b, cpwp * (size_t)s->C * (size_t)s->K * 9), LOCAL(&b, cpwp * 9 * (size_t)s->C), LOCAL(&b, cpwp * (size_t)s->uin);
  LOCAL(&b, (size_t)s->wg), LOCAL(&b, 4 * (size_t)s->NGP), LOCAL(&b, st->coef_st ? 4 * (size_t)s->NGP : 4);
  if (t->cfg.shared_program) ARG(&b, st->wires); /* pwires.cl's P_WIRES_ARG */
  pop_args(&b, st);
  rc = arg_done(&b, "dlca_backward_perc");
  return rc ? rc : launch(t, st, st->k_perc, "backward_perc", (size_t)s->nwg_perc * lws, lws);
}

static int enqueue_adamw(dlca_trainer *t, cl_state *st) {
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
  pop_args(&a, st);
  int rc = arg_done(&a, "dlca_adamw");
  size_t ng = dlca__model_n_gates(t->model);
  return rc ? rc : launch(t, st, st->k_adamw, "adamw", (ng + 63) / 64 * 64, 64);
}

int dlca__clt_enqueue_step(dlca_trainer *t, cl_state *st) {
  const int T = t->cfg.steps;
  int rc = enqueue_coef(t, st);
  /* states holds T+1 grids: the start grids, then one per step */
  if (!rc) rc = enqueue_start(t, st, t->epoch, st->states);
  for (int s = 0; s < T && !rc; s++)
    rc = enqueue_forward(t, st, t->epoch, st->states, (size_t)s * t->grid, st->states, (size_t)(s + 1) * t->grid,
                         forward_coef(st), s);
  if (!rc) {
    float zero = 0.0f;
    size_t bytes = st->pop_m ? dlca__clt_group_span(st->grp, "partial") : (size_t)st->sh.nslots * st->sh.acc_stride * 4;
    cl_int err = clEnqueueFillBuffer(t->ctx->queue, st->partial, &zero, 4, 0, bytes, 0, NULL, NULL);
    if (err) rc = dlca__fail_cl(err, "clearing the gradient sums: %s", dlca__cl_error_name(err));
  }
  /* one launch for every step with BWD_PERSIST (its step flags start at
   * zero: dlca__clt_init, then dlca_adamw of each epoch), else one per step */
  if (st->sh.persist && st->pop_m) {
    if (!rc) rc = dlca__clt_group_backward_each(st->grp);
  } else if (st->sh.persist) {
    if (!rc) rc = enqueue_backward(t, st, T - 1);
  } else {
    for (int s = T - 1; s >= 0 && !rc; s--) rc = enqueue_backward(t, st, s);
  }
  if (!rc) rc = enqueue_adamw(t, st);
  /* the first step is the first use of most buffers */
  return rc == DLCA_EDEVMEM ? dlca__clt_devmem_note(t, &st->sh) : rc;
}

int dlca__clt_step(dlca_trainer *t) { return dlca__clt_enqueue_step(t, t->impl); }

int dlca__clt_loss(dlca_trainer *t, double *loss) {
  cl_state *st = t->impl;
  float l[2]; /* the loss, then the status word of the one-launch backward pass */
  int rc = dlca__download(t->ctx, st->loss, 0, sizeof l, l, "loss");
  return rc ? rc : dlca__clt_loss_of(t, l, loss);
}

int dlca__clt_loss_of(const dlca_trainer *t, const float *l, double *loss) {
  cl_int status = 0;
  memcpy(&status, &l[1], sizeof status);
  if (status)
    return dlca__fail(DLCA_ECL,
                      "%s: the one-launch backward pass (trainer.cl BWD_PERSIST) gave up waiting for work-groups "
                      "that the device did not run at once, so this run's gradients are wrong; set BWD_PERSIST 0 "
                      "or fewer BWD_GROUPS_PER_CU in the tuning table for this device",
                      t->ctx->info.name);
  *loss = l[0];
  return DLCA_OK;
}

/* The hard circuit on epoch t->epoch's start grids, then dlca_eval. */
int dlca__clt_enqueue_eval(dlca_trainer *t, cl_state *st) {
  int rc = enqueue_coef(t, st);
  if (!rc) rc = enqueue_start(t, st, t->epoch, st->hard[0]);
  for (int s = 0; s < t->cfg.steps && !rc; s++)
    rc = enqueue_forward(t, st, t->epoch, st->hard[s % 2], 0, st->hard[(s + 1) % 2], 0, st->coef_hard, s);
  st->hard_final = t->cfg.steps % 2;
  if (rc) return rc;
  cl_int cells = t->cfg.batch * t->cfg.height * t->cfg.width;
  argset a = {st->k_eval, 0, 0};
  ARG(&a, st->hard[st->hard_final]), ARG(&a, st->target), ARG(&a, cells), ARG(&a, st->eval_out);
  LOCAL(&a, (size_t)st->sh.wg);
  pop_args_g(&a, st, st->hard[st->hard_final]);
  if ((rc = arg_done(&a, "dlca_eval"))) return rc;
  return launch(t, st, st->k_eval, "eval", (size_t)st->sh.wg, (size_t)st->sh.wg);
}

void dlca__clt_eval_of(const dlca_trainer *t, const float *r, dlca_eval *out) {
  const size_t cells = (size_t)t->cfg.batch * t->cfg.height * t->cfg.width;
  out->hard_loss = r[0];
  out->errors = (size_t)r[1];
  out->total = cells * (size_t)t->cfg.n_loss_channels;
  out->accuracy = 1.0 - (double)out->errors / (double)out->total;
}

int dlca__clt_eval_hard(dlca_trainer *t, dlca_eval *out) {
  cl_state *st = t->impl;
  int rc = dlca__clt_enqueue_eval(t, st);
  float r[2];
  if (!rc) rc = dlca__download(t->ctx, st->eval_out, 0, sizeof r, r, "hard evaluation");
  if (!rc) dlca__clt_eval_of(t, r, out);
  return rc;
}

/* The per-model scalars of t's next launch (common.cl's POP_* words). */
void dlca__clt_pop_scalars(const dlca_trainer *t, int active, cl_uint *w) {
  const dlca_optim *o = &t->cfg.optim;
  const int step = (int)t->epoch + 1;
  relax_args r = relax_of(t);
  float f[6] = {o->lr, (float)(1.0 - pow(o->beta1, step)), (float)(1.0 - pow(o->beta2, step)),
                dlca__grad_noise_sigma(t->cfg.relax.grad_noise, (uint64_t)step), r.inv_tau, 0};
  dlca__optim_scalars k;
  memset(&k, 0, sizeof k);
  if (t->cfg.use_suite) {
    const dlca_optim_config c = dlca__train_suite(&t->cfg);
    (void)dlca__optim_scalars_at(&c, (uint64_t)step, &k);
  }
  memset(w, 0, POP_WORDS * sizeof *w);
  w[0] = (cl_uint)r.key, w[1] = (cl_uint)(r.key >> 32), w[2] = (cl_uint)(active != 0);
  memcpy(w + 3, f, 5 * sizeof(float));
  memcpy(w + 8, &k, sizeof k);
}
