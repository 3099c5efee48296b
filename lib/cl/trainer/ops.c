/* The OpenCL trainer backend's ops: set-up (cl_init) and the accessors. */
#include <stdlib.h>
#include <string.h>
#include "cl/trainer/cl_trainer.h"

int dlca__clt_init(dlca_trainer *t) {
  cl_state *st = calloc(1, sizeof *st);
  if (!st) return dlca__fail(DLCA_ENOMEM, "OpenCL trainer: out of host memory");
  t->impl = st;
  dlca_context *ctx = t->ctx;
  const dlca_model *m = t->model;
  cl_shape *s = &st->sh;
  dlca__clt_shape_of(m, s);
  int per_cu = 2, fwd_per_cu = 8, cpw = 1, cpw_min = 1, wg_narrow = 0, persist = 0, tile_cells = 0, rc;
  int perc_split = 0, split_per_cu = 0, split_unit = 0, perc_per_cu = 0, push = 0, banks = 0, bank_effort = 1200;
  if (s->PG1 > 1024)
    return dlca__fail(DLCA_ECONFIG, "a perception stack of %d gates is too large for the device trainer (at most 1024)",
                      s->PG1);
  if ((rc = dlca__tunable(ctx, KFILE, "WG", &s->wg))) return rc;
  if ((rc = dlca__tunable(ctx, KFILE, "BWD_GROUPS_PER_CU", &per_cu))) return rc;
  if ((rc = dlca__tunable(ctx, KFILE, "FWD_GROUPS_PER_CU", &fwd_per_cu))) return rc;
  if ((rc = dlca__tunable(ctx, KFILE, "CELLS_PER_GROUP", &cpw))) return rc;
  if ((rc = dlca__tunable(ctx, KFILE, "CELLS_PER_GROUP_MIN", &cpw_min))) return rc;
  if ((rc = dlca__tunable(ctx, KFILE, "WG_NARROW", &wg_narrow))) return rc;
  if ((rc = dlca__tunable(ctx, KFILE, "KERNELS", &s->kernels))) return rc;
  if ((rc = dlca__tunable(ctx, KFILE, "BWD_PERSIST", &persist))) return rc;
  if ((rc = dlca__tunable(ctx, KFILE, "TILE_CELLS", &tile_cells))) return rc;
  if ((rc = dlca__tunable(ctx, KFILE, "PERC_SPLIT_CELLS", &perc_split))) return rc;
  if ((rc = dlca__tunable(ctx, KFILE, "PERC_SPLIT_GROUPS_PER_CU", &split_per_cu))) return rc;
  if ((rc = dlca__tunable(ctx, KFILE, "PERC_SPLIT_UNIT_CELLS", &split_unit))) return rc;
  if ((rc = dlca__tunable(ctx, KFILE, "PERC_GROUPS_PER_CU", &perc_per_cu))) return rc;
  if ((rc = dlca__tunable(ctx, KFILE, "BWD_PUSH", &push))) return rc;
  if (push != 0 && push != 1)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned BWD_PUSH = %d is not 0 or 1", KFILE, push);
  if ((rc = dlca__tunable(ctx, KFILE, "BWD_TAIL", &s->bwd_tail))) return rc;
  if (s->bwd_tail != 0 && s->bwd_tail != 1)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned BWD_TAIL = %d is not 0 or 1", KFILE, s->bwd_tail);
  if ((rc = dlca__tunable(ctx, KFILE, "BWD_BANKS", &banks))) return rc;
  if ((rc = dlca__tunable(ctx, KFILE, "BWD_BANKS_EFFORT", &bank_effort))) return rc;
  if (bank_effort < 1 || bank_effort > 100000)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned BWD_BANKS_EFFORT = %d is not in [1, 100000] (proposals a unit)", KFILE,
                      bank_effort);
  if ((rc = dlca__tunable(ctx, KFILE, "BWD_MAXNREG", &s->bwd_maxnreg))) return rc;
  if (s->bwd_maxnreg != 0 && (s->bwd_maxnreg < 24 || s->bwd_maxnreg > 255))
    return dlca__fail(DLCA_ECONFIG, "%s: tuned BWD_MAXNREG = %d is not 0 (no cap) or in [24, 255] (registers)",
                      KFILE, s->bwd_maxnreg);
  if (banks != 0 && banks != 1)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned BWD_BANKS = %d is not 0 or 1", KFILE, banks);
  if (split_unit < 0 || split_unit > 64)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned PERC_SPLIT_UNIT_CELLS = %d is not in [0, 64] (0: CELLS_PER_GROUP)",
                      KFILE, split_unit);
  if (perc_split < 0)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned PERC_SPLIT_CELLS = %d is negative (0: never)", KFILE, perc_split);
  if (split_per_cu < 0)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned PERC_SPLIT_GROUPS_PER_CU = %d is negative (0: BWD_GROUPS_PER_CU)",
                      KFILE, split_per_cu);
  if (perc_per_cu < 0)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned PERC_GROUPS_PER_CU = %d is negative (0: dlca_backward's groups)",
                      KFILE, perc_per_cu);
  if (tile_cells < 0)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned TILE_CELLS = %d is negative (0: never)", KFILE, tile_cells);
  if (persist < 0 || persist > 1024)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned BWD_PERSIST = %d is not in [0, 1024] (rounds of groups per step)",
                      KFILE, persist);
  if (s->kernels < 0 || s->kernels > 2)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned KERNELS = %d is not 0 (trainer.cl), 1 (%s) or 2 (%s)", KFILE,
                      s->kernels, CPU_KFILE, TILE_KFILE);
  if (cpw < 1 || cpw > 16) return dlca__fail(DLCA_ECONFIG, "%s: tuned CELLS_PER_GROUP = %d is not in [1, 16]", KFILE, cpw);
  if (cpw_min < 1 || cpw_min > 16)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned CELLS_PER_GROUP_MIN = %d is not in [1, 16]", KFILE, cpw_min);
  if (per_cu < 1 || fwd_per_cu < 1)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned groups per compute unit must be at least 1", KFILE);
  if (s->wg < 1 || (s->wg & (s->wg - 1)) || (size_t)s->wg > ctx->info.max_work_group)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned WG = %d is not a power of two within the device's %zu", KFILE, s->wg,
                      ctx->info.max_work_group);
  if (wg_narrow < 0 || (wg_narrow & (wg_narrow - 1)))
    return dlca__fail(DLCA_ECONFIG, "%s: tuned WG_NARROW = %d is neither 0 nor a power of two", KFILE, wg_narrow);
  s->nwg_fwd = (int)dlca__clt_backward_groups(&t->cfg, ctx->info.compute_units, fwd_per_cu);
  const size_t cells = (size_t)t->cfg.batch * t->cfg.height * t->cfg.width;
  const int tuned_per_cu = per_cu;
  size_t local = dlca__clt_plan_groups(t, s, per_cu, cpw, cpw_min);
  /* WG_NARROW (trainer.cl): where the backward pass at WG would need more
   * groups than run at once, a narrow model (one perception stack and at
   * most two gates of its widest layer per thread) runs with fewer threads
   * per group and proportionally more groups per compute unit. H100
   * (doc/performance.md): checkerboard batch 2 1.17 -> 1.01 ms, batch 512
   * 147.8 -> 131.2 ms; growth (C K = 512) and checkerboard-async (98 groups)
   * keep WG, where 128 threads are 2.1x and 1.3x slower. */
  if (!s->kernels && wg_narrow > 0 && wg_narrow < s->wg && s->wg % wg_narrow == 0 && s->C * s->K <= wg_narrow &&
      s->gmax <= 2 * wg_narrow && (cells + (size_t)s->cpw - 1) / (size_t)s->cpw > dlca__clt_slots_of(ctx, per_cu)) {
    per_cu *= s->wg / wg_narrow;
    s->wg = wg_narrow;
    local = dlca__clt_plan_groups(t, s, per_cu, cpw, cpw_min);
  }
  /* BWD_PERSIST: one backward launch per epoch where a step has at most
   * that many rounds of groups (more, and the launches per step cost
   * nothing next to the step: H100 batch 512, 165 rounds, 1.5% slower in
   * one launch) and there is more than one step. Its groups wait for each
   * other, so it is for devices that run all s->nwg groups at once (the
   * tuned groups per compute unit must fit); where they do not, the waits
   * give up and cl_loss reports it. */
  s->units = (cells + (size_t)s->cpw - 1) / (size_t)s->cpw;
  s->persist = !s->kernels && persist > 0 && t->cfg.steps > 1 &&
               (s->units + (size_t)s->nwg - 1) / (size_t)s->nwg <= (size_t)persist;
  /* PERC_SPLIT_CELLS: from that many cells per step on, trainer.cl's
   * backward step is two launches, the perception stacks' backward apart
   * (dlca_backward_perc), so that dlca_backward holds fewer registers and
   * more of its groups fit a compute unit (doc/performance.md, 2026-11-26);
   * not with the one-launch backward pass, and only where the second
   * launch's local memory fits */
  s->uin = m->shape.update_layers[0];
  s->psplit = !s->kernels && !s->persist && perc_split > 0 && cells >= (size_t)perc_split &&
              dlca__clt_perc_local_floats(s, s->cpw, t->cfg.relax.straight_through) * sizeof(float) <= ctx->info.local_mem;
  /* PERC_SPLIT_GROUPS_PER_CU: the split's own backward groups per compute
   * unit (times WG / WG_NARROW where the narrow work-group is taken), since
   * its dlca_backward fits more of them (H200, checkerboard batch 512: 3,
   * in two rounds of 3) */
  if (s->psplit && split_per_cu > 0) {
    dlca__clt_plan_groups(t, s, split_per_cu * (per_cu / tuned_per_cu), cpw, cpw_min);
    s->units = (cells + (size_t)s->cpw - 1) / (size_t)s->cpw;
  }
  /* BWD_PUSH: with the split only (its dU is the sum of the update input's
   * slots), where every slot index fits 16 bits and the group's local memory
   * with the planned rows (instead of act and dact) fits the device */
  if (s->psplit && push) {
    const size_t top = dlca__clt_push_plan(m, s), row = top > s->act_floats ? top : s->act_floats;
    if (top && dlca__clt_backward_local(t, s, (size_t)s->cpw, row, 0) + 4 * sizeof(float) <= ctx->info.local_mem)
      s->push = 1, s->pact = row;
  }
  /* BWD_BANKS: with the push, the device runs the model with each hidden
   * update layer's gates in a bank-aware order (bank_order.c); the noise
   * counters stay keyed by the model's gate indices (gkey) */
  if (s->push && banks) {
    if ((rc = dlca__bank_order_cached(ctx, m, bank_effort, st->row, NULL)) || (rc = dlca__clt_reorder_model(t, st))) return rc;
  }
  /* PERC_SPLIT_UNIT_CELLS: the perception launch's own cells per unit (more
   * of them share its barriers and global-load round trips; 0: CPW),
   * lowered to what its local memory holds, never below CPW (which fits) */
  if (s->psplit) {
    s->cpwp = split_unit > s->cpw ? split_unit : s->cpw;
    while (s->cpwp > s->cpw &&
           dlca__clt_perc_local_floats(s, s->cpwp, t->cfg.relax.straight_through) * sizeof(float) > ctx->info.local_mem)
      s->cpwp--;
  }
  /* TILE_CELLS: from that many cells per step on, the forward steps of the
   * GPU-shaped set are trainer_tile.cl's where its tile fits in local memory
   * (H100, doc/performance.md v9: 2.3x faster than dlca_forward at batch
   * 512; its backward step is not, and runs only with KERNELS 2) */
  if (s->kernels == 0 && tile_cells > 0 && cells >= (size_t)tile_cells) {
    int fits = 0;
    if ((rc = dlca__clt_tile_configure(ctx, s, 0, &fits))) return rc;
    s->fwd_tile = fits;
  } else if (s->kernels == 2) {
    if ((rc = dlca__clt_tile_configure(ctx, s, 1, NULL))) return rc;
    s->fwd_tile = 1, s->persist = 0;
    s->nwg = (int)dlca__clt_tile_groups(&t->cfg, ctx->info.compute_units, s->tile_per_cu, s->tl);
    s->scratch_floats = s->act_floats * (size_t)s->tl;
  }
  if (s->fwd_tile) s->nwg_fwd = (int)dlca__clt_tile_groups(&t->cfg, ctx->info.compute_units, s->tile_fwd_per_cu, s->tl);
  if (s->kernels == 1) {
    if ((rc = dlca__clt_cpu_configure(ctx, &t->cfg, s))) return rc;
  } else if (s->kernels == 0 && local > ctx->info.local_mem)
    return dlca__fail(DLCA_ECONFIG,
                      "model needs %zu KiB of local memory per work-group for one cell's circuit; %s has %llu KiB",
                      local / 1024, ctx->info.name, (unsigned long long)ctx->info.local_mem / 1024);
  /* PERC_GROUPS_PER_CU: that launch's own groups per compute unit (times
   * WG / WG_NARROW, as PERC_SPLIT_GROUPS_PER_CU), so that a register cap
   * (BWD_MAXNREG) can give dlca_backward 4 groups an SM while
   * dlca_backward_perc keeps its 6 (doc/performance.md, v28). Its group g
   * adds to slot g of the sums; slots past either launch's groups stay zero. */
  s->nwg_perc = s->nwg;
  if (s->psplit && perc_per_cu > 0) {
    size_t n = dlca__clt_backward_groups(&t->cfg, ctx->info.compute_units, perc_per_cu * (per_cu / tuned_per_cu)),
           pu = (cells + (size_t)s->cpwp - 1) / (size_t)s->cpwp;
    s->nwg_perc = (int)(n < pu ? n : pu);
  }
  s->nslots = s->nwg > s->nwg_perc ? s->nwg : s->nwg_perc;
  size_t need = dlca__clt_footprint(m, &t->cfg, s, (size_t)s->nslots);
  if (need > ctx->info.global_mem) {
    size_t fit = 0;
    dlca_train_config c = t->cfg;
    for (c.batch = 1;; c.batch *= 2) {
      const unsigned cu = ctx->info.compute_units;
      size_t g = s->kernels == 1   ? dlca__clt_cpu_groups(&c, cu, s->cpu_per_cu, s->vec)
                 : s->kernels == 2 ? dlca__clt_tile_groups(&c, cu, s->tile_per_cu, s->tl)
                                   : dlca__clt_backward_groups(&c, cu, per_cu);
      if (dlca__clt_footprint(m, &c, s, g) > ctx->info.global_mem) break;
      fit = (size_t)c.batch;
    }
    return dlca__fail(DLCA_EDEVMEM,
                      "training needs %.1f MiB of device memory, %s has %.1f MiB; a batch of %zu would fit",
                      need / 1048576.0, ctx->info.name, ctx->info.global_mem / 1048576.0, fit);
  }
  cl_program prog, step_prog = NULL;
  static const char *const fwd_names[] = {"dlca_forward", "dlca_forward_cpu", "dlca_forward_tile"};
  static const char *const bwd_names[] = {"dlca_backward", "dlca_backward_cpu", "dlca_backward_tile"};
  if ((rc = dlca__clt_build(t, st, &prog, &step_prog))) return rc;
  if ((rc = dlca__kernel_create(ctx, prog, "dlca_coef", &st->k_coef)) ||
      (rc = dlca__kernel_create(ctx, prog, "dlca_start", &st->k_start)) ||
      (rc = dlca__kernel_create(ctx, s->kernels || s->fwd_tile ? step_prog : prog, fwd_names[s->fwd_tile ? 2 : s->kernels],
                                &st->k_fwd)) ||
      (rc = dlca__kernel_create(ctx, s->kernels ? step_prog : prog, bwd_names[s->kernels], &st->k_bwd)) ||
      (rc = dlca__kernel_create(ctx, prog, "dlca_adamw", &st->k_adamw)) ||
      (rc = dlca__kernel_create(ctx, prog, "dlca_eval", &st->k_eval)) ||
      (s->psplit && (rc = dlca__kernel_create(ctx, prog, "dlca_backward_perc", &st->k_perc))))
    return rc;
  size_t P = m->n_params, NG = dlca__model_n_gates(m), grid = t->grid * sizeof(float);
  if ((rc = dlca__buffer(ctx, P * 4, "logits", &st->params)) || (rc = dlca__buffer(ctx, P * 4, "Adam m", &st->m)) ||
      (rc = dlca__buffer(ctx, P * 4, "Adam v", &st->v)) || (rc = dlca__buffer(ctx, P * 4, "gradient", &st->grad)) ||
      (rc = dlca__buffer(ctx, NG * 16, "gate coefficients", &st->coef)) ||
      (rc = dlca__buffer(ctx, NG * 16, "hard gate coefficients", &st->coef_hard)) ||
      (rc = dlca__buffer(ctx, s->n_wires * 4, "wires", &st->wires)) ||
      (rc = dlca__buffer(ctx, s->n_rev * 8 + 8, "reverse wiring", &st->rev)) ||
      (rc = dlca__buffer(ctx, (size_t)s->NGU * 8 + 8, "reverse slots", &st->rslot)) ||
      (rc = dlca__buffer(ctx, s->n_rev * 8 + 8, "reverse coefficients", &st->rcoef)) ||
      (rc = dlca__buffer(ctx, s->push ? (size_t)s->NGU * 16 + (size_t)s->uin * 8 : 16, "push wiring", &st->pwire)) ||
      (rc = dlca__buffer(ctx, NG * 4, "gate keys", &st->gkey)) ||
      (rc = dlca__buffer(ctx, grid * ((size_t)t->cfg.steps + 1), "states of every step", &st->states)) ||
      (rc = dlca__buffer(ctx, grid, "hard states", &st->hard[0])) ||
      (rc = dlca__buffer(ctx, grid, "hard states", &st->hard[1])) ||
      (rc = dlca__buffer(ctx, grid, "state gradients", &st->g[0])) ||
      (rc = dlca__buffer(ctx, grid, "state gradients", &st->g[1])) ||
      (rc = dlca__buffer(ctx, 9 * grid, "patch gradients", &st->dP[0])) ||
      (rc = dlca__buffer(ctx, 9 * grid, "patch gradients", &st->dP[1])) ||
      (rc = dlca__buffer(ctx, (size_t)s->nslots * s->acc_stride * 4, "gate gradient sums", &st->partial)) ||
      (rc = dlca__buffer(ctx, (size_t)s->nslots * 4, "loss sums", &st->loss_partial)) ||
      (rc = dlca__buffer(ctx, 8, "loss", &st->loss)) || (rc = dlca__buffer(ctx, 8, "evaluation", &st->eval_out)) ||
      (rc = dlca__buffer(ctx, grid, "target", &st->target)) || (rc = dlca__buffer(ctx, grid, "start grids", &st->input)) ||
      (t->cfg.async && (rc = dlca__buffer(ctx, (size_t)t->cfg.steps * cells, "fire masks", &st->masks))) ||
      (rc = dlca__buffer(ctx, (s->units + 1) * sizeof(cl_int), "backward step flags", &st->flags)) ||
      (rc = dlca__buffer(ctx, s->psplit ? cells * (size_t)s->uin * 4 : 4, "update input gradients", &st->dU)) ||
      (s->kernels &&
       (rc = dlca__buffer(ctx, (size_t)s->nwg * s->scratch_floats * 4,
                          s->kernels == 1 ? "CPU kernels' activations" : "tile kernels' activations", &st->scratch))))
    return rc;
  if (t->cfg.relax.straight_through && (rc = dlca__buffer(ctx, NG * 16, "straight-through coefficients", &st->coef_st)))
    return rc;
  if (t->cfg.relax.gumbel_scale > 0) {
    float *table;
    if ((rc = dlca__gumbel_table(m->shape.parametrisation, t->cfg.relax.gumbel_scale, &table))) return rc;
    rc = dlca__buffer(ctx, DLCA_GUMBEL_LEVELS * sizeof(float), "Gumbel table", &st->gumbel);
    if (!rc) rc = dlca__upload(ctx, st->gumbel, 0, DLCA_GUMBEL_LEVELS * sizeof(float), table, "Gumbel table");
    free(table);
  } else {
    rc = dlca__buffer(ctx, sizeof(float), "Gumbel table", &st->gumbel);
  }
  if (rc) return rc;
  if ((rc = dlca__clt_upload_wiring(t, st))) return rc;
  if ((rc = dlca__clt_upload_params(t, st->params, m->params, "logits"))) return rc;
  {
    const size_t npg = (size_t)dlca__model_npg(m);
    cl_int *key = malloc(sizeof(cl_int) * (NG ? NG : 1));
    if (!key) return dlca__fail(DLCA_ENOMEM, "OpenCL trainer: out of host memory");
    for (size_t g = 0; g < NG; g++) key[g] = (cl_int)(st->pmap ? st->pmap[g * npg] / npg : g);
    rc = dlca__upload(ctx, st->gkey, 0, NG * 4, key, "gate keys");
    free(key);
    if (rc) return rc;
  }
  float zero = 0.0f;
  cl_int err = clEnqueueFillBuffer(ctx->queue, st->m, &zero, 4, 0, P * 4, 0, NULL, NULL);
  if (!err) err = clEnqueueFillBuffer(ctx->queue, st->v, &zero, 4, 0, P * 4, 0, NULL, NULL);
  if (!err) err = clEnqueueFillBuffer(ctx->queue, st->grad, &zero, 4, 0, P * 4, 0, NULL, NULL);
  if (!err) err = clEnqueueFillBuffer(ctx->queue, st->rcoef, &zero, 4, 0, s->n_rev * 8 + 8, 0, NULL, NULL);
  cl_int izero = 0; /* the flags and the status word */
  if (!err) err = clEnqueueFillBuffer(ctx->queue, st->flags, &izero, 4, 0, (s->units + 1) * 4, 0, NULL, NULL);
  /* loss slots past the backward's groups (PERC_GROUPS_PER_CU) are never written */
  if (!err) err = clEnqueueFillBuffer(ctx->queue, st->loss_partial, &zero, 4, 0, (size_t)s->nslots * 4, 0, NULL, NULL);
  if (err)
    return dlca__fail_cl(err, "OpenCL trainer: clearing the Adam moments, reverse coefficients and step flags: %s",
                         dlca__cl_error_name(err));
  return dlca__finish(ctx, "trainer set-up");
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

static int cl_get_moments(dlca_trainer *t, float *m, float *v) {
  cl_state *st = t->impl;
  int rc = dlca__clt_download_params(t, st->m, m, "Adam m");
  return rc ? rc : dlca__clt_download_params(t, st->v, v, "Adam v");
}

static int cl_set_moments(dlca_trainer *t, const float *m, const float *v) {
  cl_state *st = t->impl;
  int rc = dlca__clt_upload_params(t, st->m, m, "Adam m");
  return rc ? rc : dlca__clt_upload_params(t, st->v, v, "Adam v");
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
    cl_set_params,  cl_get_grad,          cl_get_state,        cl_get_moments,        cl_set_moments,
};
