/* The trainer's programs: the shape options every kernel is built with. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cl/trainer/cl_trainer.h"

static void append_list(char *buf, size_t n, const char *name, const int *v, int count) {
  size_t len = strlen(buf);
  len += (size_t)snprintf(buf + len, n - len, " -D%s=", name);
  for (int i = 0; i < count && len < n; i++) len += (size_t)snprintf(buf + len, n - len, i ? ",%d" : "%d", v[i]);
}

enum { OPTS = 65536 };

/* The shape's -D options, with SPIN_MAX on a CPU device. */
static void shape_options(const dlca_trainer *t, const cl_shape *s, char *opts) {
  const dlca_model *m = t->model;
  snprintf(opts, OPTS,
           "-cl-std=CL1.2 -DC=%d -DK=%d -DS=%d -DNP=%d -DNU=%d -DPERIODIC=%d -DASYNC=%d -DNLOSS=%d -DPTOT=%d "
           "-DUTOTAL=%d -DPG1=%d -DNGP=%d -DNGU=%d -DDW=%d -DCPW=%d -DACTF=%zu -DGMAX=%d -DST=%d -DLWG=%d -DNPG=%d "
           "-DPERSIST=%d -DPSPLIT=%d -DCPWP=%d -DNV_PTX=%d -DPUSH=%d -DPACT=%zu",
           s->C, s->K, s->S, s->NP, s->NU, m->shape.periodic ? 1 : 0, t->cfg.async ? 1 : 0, t->cfg.n_loss_channels,
           s->PTOT, s->UTOTAL, s->PG1, s->NGP, s->NGU, s->dw, s->cpw, s->act_floats, s->gmax,
           t->cfg.relax.straight_through ? 1 : 0, s->wg, dlca__model_npg(m), s->persist, s->psplit, s->psplit ? s->cpwp : s->cpw,
           strstr(t->ctx->info.vendor, "NVIDIA") != NULL, s->push, s->pact);
  /* A CPU device's worker threads share the cores with other processes, so
   * a persistent group can wait for a descheduled neighbour far longer than
   * on a GPU: its waits give up after 64 times trainer.cl's polls (seconds,
   * not tens of ms; the 2-core CI VM gave up under a parallel make check).
   * DLCA_CL_BUILD_OPTIONS that set SPIN_MAX themselves (tests) win. */
  const char *extra = dlca__build_options_env();
  if (s->persist && t->ctx->info.type == DLCA_DEVICE_CPU && !(extra && strstr(extra, "SPIN_MAX")))
    strncat(opts, " -DSPIN_MAX=0x80000000u", OPTS - strlen(opts) - 1);
}

/* The optimizer of the configuration (issue 32): OPTIM and the rule's
 * flags for adamw.cl, constants of the program like the model's shape. The
 * default AdamW adds nothing, so that its program is the one it always was;
 * a suite rule is built with correctly rounded division and square root,
 * as the optimizer suite's program is, to give its twin's bits. */
static void optim_options(const dlca_trainer *t, char *opts) {
  const dlca_optim_config *c = &t->cfg.suite;
  if (!t->cfg.use_suite) return;
  size_t len = strlen(opts);
  snprintf(opts + len, OPTS - len,
           " -DOPTIM=%d -DOPT_MOMENTUM=%d -DOPT_NESTEROV=%d -DOPT_WD=%d -DOPT_AMSGRAD=%d -DOPT_CENTERED=%d"
           " -cl-fp32-correctly-rounded-divide-sqrt",
           1 + c->kind, c->momentum != 0, c->nesterov != 0, c->weight_decay != 0, c->amsgrad != 0, c->centered != 0);
}

/* The layers' sizes and fan-outs, the push's tail and offsets, the loss
 * channels and the register cap. */
static void layer_options(const dlca_trainer *t, const cl_shape *s, char *opts) {
  const dlca_model *m = t->model;
  append_list(opts, OPTS, "P_SIZES", m->shape.perceive_layers, m->shape.n_perceive_layers);
  append_list(opts, OPTS, "U_SIZES", m->shape.update_layers, m->shape.n_update_layers);
  append_list(opts, OPTS, "U_FANOUT", s->fanout, s->NU);
  if (s->push && s->bwd_tail && s->wg >= 32) {
    /* TAIL_L: the first of the last update layers (not layer 0) that hold
     * at most 32 gates together, a lane each of warp 0 */
    int tail_l = s->NU, sum = 0;
    for (int l = s->NU - 1; l >= 1 && sum + m->shape.update_layers[l + 1] <= 32; l--)
      sum += m->shape.update_layers[l + 1], tail_l = l;
    size_t len = strlen(opts);
    if (tail_l < s->NU) snprintf(opts + len, OPTS - len, " -DTAIL_L=%d", tail_l);
  }
  if (s->push) append_list(opts, OPTS, "PUSH_OFFS", s->push_off, s->NU + 1);
  append_list(opts, OPTS, "LOSS_CH", t->cfg.loss_channels, t->cfg.n_loss_channels);
  { /* BWD_NREG: dlca_backward's @ptx-maxnreg, only under the split (trainer.cl) */
    size_t len = strlen(opts);
    snprintf(opts + len, OPTS - len, " -DBWD_NREG=%d", s->psplit ? s->bwd_maxnreg : 0);
  }
}

/* The perception wires, baked in so that each stack unrolls into registers,
 * then the same stack flattened: gate q of the stack (layer by layer) writes
 * x[9 + q] from x[P_XA[q]] and x[P_XB[q]] with coefficient
 * P_CO[q] + k P_CG[q] of kernel k; P_BQ lists the gates in backward order
 * (last layer first, gates ascending). One loop of constant trip count.
 * shared_program: the wires are read from the wires buffer instead
 * (kernels-cl/trainer/pwires.cl: P_XO, P_WO, P_GN, which hold no seed). */
static void perception_options(const dlca_trainer *t, const cl_shape *s, char *opts) {
  const dlca_model *m = t->model;
  const int shared = t->cfg.shared_program;
  int pw[2 * 1024], n = 0;
  for (int l = 0; l < m->n_perceive && n + 2 * m->perceive[l].n_gates <= 2 * 1024 && !shared; l++) {
    memcpy(pw + n, m->perceive[l].wa, sizeof(int) * m->perceive[l].n_gates), n += m->perceive[l].n_gates;
    memcpy(pw + n, m->perceive[l].wb, sizeof(int) * m->perceive[l].n_gates), n += m->perceive[l].n_gates;
  }
  if (!shared) append_list(opts, OPTS, "P_WIRES", pw, n);
  int xa[1024], xb[1024], co[1024], cg[1024], bq[1024], q = 0, xo = 0, wo = 0;
  for (int l = 0; l < m->n_perceive && q + m->perceive[l].n_gates <= 1024; l++) {
    const dlca_layer *L = &m->perceive[l];
    for (int g = 0; g < L->n_gates; g++, q++) {
      xa[q] = shared ? xo : xo + L->wa[g], xb[q] = shared ? wo + g : xo + L->wb[g];
      co[q] = s->K * (q - g) + g, cg[q] = L->n_gates;
    }
    xo += L->n_in, wo += 2 * L->n_gates;
  }
  for (int l = m->n_perceive - 1, r = 0, q0 = q; l >= 0; l--) {
    q0 -= m->perceive[l].n_gates;
    for (int g = 0; g < m->perceive[l].n_gates; g++) bq[r++] = q0 + g;
  }
  if (shared) strncat(opts, " -DP_WIRES_ARG=1", OPTS - strlen(opts) - 1);
  append_list(opts, OPTS, shared ? "P_XO" : "P_XA", xa, q), append_list(opts, OPTS, shared ? "P_WO" : "P_XB", xb, q);
  if (shared) append_list(opts, OPTS, "P_GN", cg, q);
  append_list(opts, OPTS, "P_CO", co, q), append_list(opts, OPTS, "P_CG", cg, q);
  append_list(opts, OPTS, "P_BQ", bq, q);
}

/* The program of trainer.cl and, with KERNELS 1 or 2, that of
 * trainer_cpu.cl or trainer_tile.cl, both built with the same shape options. */
int dlca__clt_build(dlca_trainer *t, cl_state *st, cl_program *prog, cl_program *step_prog) {
  const cl_shape *s = &st->sh;
  char *opts = malloc(OPTS);
  if (!opts) return dlca__fail(DLCA_ENOMEM, "OpenCL trainer: out of host memory");
  shape_options(t, s, opts);
  layer_options(t, s, opts);
  perception_options(t, s, opts);
  optim_options(t, opts);
  int rc = st->grp ? dlca__clt_group_options(t, (cl_state *)st, opts, OPTS) : DLCA_OK;
  if (rc) {
    free(opts);
    return rc;
  }
  rc = strlen(opts) + 1 >= OPTS
               ? dlca__fail(DLCA_ECONFIG, "the model is too large for the device trainer's build options")
               : dlca__program_get(t->ctx, KFILE, opts, prog, NULL);
  if (!rc && (s->kernels || s->fwd_tile))
    rc = dlca__program_get(t->ctx, s->kernels == 1 ? CPU_KFILE : TILE_KFILE, opts, step_prog, NULL);
  free(opts);
  return rc;
}

/* The programs (dlca__clt_build), then the kernels of the planned set: the
 * forward step from trainer_cpu.cl or trainer_tile.cl where planned, the
 * backward step from the KERNELS set, the rest from trainer.cl. */
int dlca__clt_kernels(dlca_trainer *t, cl_state *st) {
  static const char *const fwd_names[] = {"dlca_forward", "dlca_forward_cpu", "dlca_forward_tile"};
  static const char *const bwd_names[] = {"dlca_backward", "dlca_backward_cpu", "dlca_backward_tile"};
  const cl_shape *s = &st->sh;
  dlca_context *ctx = t->ctx;
  cl_program prog, step_prog = NULL;
  int rc = dlca__clt_build(t, st, &prog, &step_prog);
  if (rc) return rc;
  cl_program fwd_prog = s->kernels || s->fwd_tile ? step_prog : prog, bwd_prog = s->kernels ? step_prog : prog;
  if ((rc = dlca__kernel_create(ctx, prog, "dlca_coef", &st->k_coef)) ||
      (rc = dlca__kernel_create(ctx, prog, "dlca_start", &st->k_start)) ||
      (rc = dlca__kernel_create(ctx, fwd_prog, fwd_names[s->fwd_tile ? 2 : s->kernels], &st->k_fwd)) ||
      (rc = dlca__kernel_create(ctx, bwd_prog, bwd_names[s->kernels], &st->k_bwd)) ||
      (rc = dlca__kernel_create(ctx, prog, "dlca_adamw", &st->k_adamw)) ||
      (rc = dlca__kernel_create(ctx, prog, "dlca_eval", &st->k_eval)) ||
      (s->psplit && (rc = dlca__kernel_create(ctx, prog, "dlca_backward_perc", &st->k_perc))))
    return rc;
  return DLCA_OK;
}
