/* The plan of the trainer's launches: the tuned kernels' groups, cells per
 * group and tiles, fitted to the device (dlca__clt_plan, in the order of its
 * named steps). */
#include "cl/trainer/cl_trainer.h"

static size_t cells_of(const dlca_trainer *t) { return (size_t)t->cfg.batch * t->cfg.height * t->cfg.width; }

/* population_plan with POP_PLAN_MODELS, for a model whose perception
 * stacks outnumber WG_NARROW threads (trainer.cl): the backward pass's
 * choices are made for that many models' cells (plan_cells) and its groups
 * are POP_GROUPS, never by the population's size, so a model's bits are the
 * same in any population and alone. */
static int pop_planned(const dlca_trainer *t, const cl_tuned *u) {
  const dlca_model_shape *m = &t->model->shape;
  return t->cfg.population_plan && u->pop_plan > 0 && m->channels * m->n_kernels > u->wg_narrow;
}
static size_t plan_cells(const dlca_trainer *t, const cl_tuned *u) {
  return pop_planned(t, u) ? cells_of(t) * (size_t)u->pop_plan : cells_of(t);
}

/* KERNELS 1: trainer_cpu.cl's VEC and groups (s->nwg, which also sizes
 * `partial`), and its scratch. */
static void cpu_configure(const dlca_context *ctx, const dlca_train_config *cfg, cl_shape *s, const cl_tuned *u) {
  s->vec = u->vec, s->cpu_per_cu = u->cpu_per_cu;
  s->nwg = (int)dlca__clt_cpu_groups(cfg, ctx->info.compute_units, s->cpu_per_cu, s->vec);
  s->scratch_floats = dlca__clt_cpu_scratch_floats(s, s->vec);
}

/* trainer_tile.cl's tile (TL cells, TWG threads) and groups per compute
 * unit (backward and forward; dlca__clt_tile_groups() caps them at one per tile), and
 * whether the local memory of its forward step (with `backward`, of its
 * backward step) fits: into *fits, or with fits NULL as DLCA_ECONFIG naming
 * what does not. */
static int tile_configure(const dlca_context *ctx, cl_shape *s, const cl_tuned *u, int backward, int *fits) {
  s->tl = u->tl, s->twg = u->twg, s->tfwd_stage = u->tfwd_stage;
  size_t need = dlca__clt_tile_fwd_local_floats(s);
  if (backward && dlca__clt_tile_local_floats(s) > need) need = dlca__clt_tile_local_floats(s);
  size_t local = need * sizeof(float);
  if (fits) *fits = local <= ctx->info.local_mem;
  if (fits && !*fits) return DLCA_OK;
  if (local > ctx->info.local_mem)
    return dlca__fail(DLCA_ECONFIG,
                      "%s: a tile of %d cells needs %zu KiB of local memory per work-group; %s has %llu KiB "
                      "(set a smaller TL)",
                      TILE_KFILE, s->tl, local / 1024, ctx->info.name, (unsigned long long)ctx->info.local_mem / 1024);
  s->tile_per_cu = u->tile_per_cu, s->tile_fwd_per_cu = u->tile_fwd_per_cu;
  return DLCA_OK;
}

/* Groups the device runs at once: compute units x groups per compute unit. */
static size_t slots_of(const dlca_context *ctx, int per_cu) {
  return (size_t)(ctx->info.compute_units ? ctx->info.compute_units : 1) * (size_t)per_cu;
}

/* The backward launch for s->wg threads per group: cells side by side
 * (s->cpw) and groups (s->nwg). Returns the local memory a group needs:
 * per cell act, dact, patch; then dout and the perception coefficients.
 * Fewer cells side by side where the tuned number does not fit, and only
 * while the batch still fills every group the device runs at once (compute
 * units x BWD_GROUPS_PER_CU); a smaller one halves them, down to
 * CELLS_PER_GROUP_MIN. H100 (doc/performance.md): 3 cells win at batch 512
 * (147.9 ms against 169.9 with 2), 2 at batch 2 (1.19 ms against 1.27 with
 * 3), and 1 is 1.5x slower than 2 for the 196 cells of checkerboard-async. */
static size_t plan_groups(const dlca_trainer *t, cl_shape *s, const cl_tuned *u, int per_cu) {
  const dlca_context *ctx = t->ctx;
  int cpw = u->cpw;
  size_t local;
  for (;;) {
    local = dlca__clt_backward_local(t, s, (size_t)cpw, s->act_floats, 2 * (size_t)s->dw);
    if (local <= ctx->info.local_mem || cpw == 1) break;
    cpw--;
  }
  const size_t cells = cells_of(t), pcells = plan_cells(t, u), slots = slots_of(ctx, per_cu);
  while (cpw > u->cpw_min && (pcells + (size_t)cpw - 1) / (size_t)cpw < slots)
    cpw = cpw / 2 < u->cpw_min ? u->cpw_min : cpw / 2;
  s->cpw = cpw;
  const size_t groups = (cells + (size_t)cpw - 1) / (size_t)cpw;
  s->nwg = (int)dlca__clt_backward_groups(&t->cfg, ctx->info.compute_units, per_cu);
  if (pop_planned(t, u)) s->nwg = u->pop_groups; /* a model's own, whatever the population's size */
  if ((size_t)s->nwg > groups) s->nwg = (int)groups; /* no group without a cell */
  return local;
}

/* The forward groups, and the backward groups at WG, then WG_NARROW
 * (trainer.cl) where it pays: where the backward pass at WG would need more
 * groups than run at once, a narrow model (one perception stack and at
 * most two gates of its widest layer per thread) runs with fewer threads
 * per group and proportionally more groups per compute unit (into
 * *per_cu). H100 (doc/performance.md): checkerboard batch 2 1.17 -> 1.01
 * ms, batch 512 147.8 -> 131.2 ms; growth (C K = 512) and
 * checkerboard-async (98 groups) keep WG, where 128 threads are 2.1x and
 * 1.3x slower. Returns the backward group's local memory. */
static size_t plan_backward(const dlca_trainer *t, cl_shape *s, const cl_tuned *u, int *per_cu) {
  const dlca_context *ctx = t->ctx;
  const size_t cells = plan_cells(t, u);
  const int wg_narrow = u->wg_narrow;
  s->nwg_fwd = (int)dlca__clt_backward_groups(&t->cfg, ctx->info.compute_units, u->fwd_per_cu);
  size_t local = plan_groups(t, s, u, *per_cu);
  if (!s->kernels && wg_narrow > 0 && wg_narrow < s->wg && s->wg % wg_narrow == 0 && s->C * s->K <= wg_narrow &&
      s->gmax <= 2 * wg_narrow && (cells + (size_t)s->cpw - 1) / (size_t)s->cpw > slots_of(ctx, *per_cu)) {
    *per_cu *= s->wg / wg_narrow;
    s->wg = wg_narrow;
    local = plan_groups(t, s, u, *per_cu);
  }
  return local;
}

/* BWD_PERSIST: one backward launch per epoch where a step has at most
 * that many rounds of groups (more, and the launches per step cost
 * nothing next to the step: H100 batch 512, 165 rounds, 1.5% slower in
 * one launch) and there is more than one step. Its groups wait for each
 * other, so it is for devices that run all s->nwg groups at once (the
 * tuned groups per compute unit must fit); where they do not, the waits
 * give up and dlca__clt_loss reports it. */
static void plan_persist(const dlca_trainer *t, cl_shape *s, const cl_tuned *u) {
  s->units = (cells_of(t) + (size_t)s->cpw - 1) / (size_t)s->cpw;
  /* in a population's group only with POP_PERSIST (its groups wait for
   * each other, so the group launches it once per model); never under the
   * population plan */
  const int pop_ok = t->group ? u->pop_persist : 1;
  s->persist = !s->kernels && !pop_planned(t, u) && pop_ok && u->persist > 0 && t->cfg.steps > 1 &&
               (s->units + (size_t)s->nwg - 1) / (size_t)s->nwg <= (size_t)u->persist;
}

/* PERC_SPLIT_CELLS: from that many cells per step on, trainer.cl's
 * backward step is two launches, the perception stacks' backward apart
 * (dlca_backward_perc), so that dlca_backward holds fewer registers and
 * more of its groups fit a compute unit (doc/performance.md, 2026-11-26);
 * not with the one-launch backward pass, and only where the second
 * launch's local memory fits. PERC_SPLIT_GROUPS_PER_CU: the split's own
 * backward groups per compute unit (times WG / WG_NARROW, `scale`, where
 * the narrow work-group is taken), since its dlca_backward fits more of
 * them (H200, checkerboard batch 512: 3, in two rounds of 3). */
static void plan_split(const dlca_trainer *t, cl_shape *s, const cl_tuned *u, int scale) {
  const size_t cells = plan_cells(t, u);
  s->psplit = !s->kernels && !s->persist && u->perc_split > 0 && cells >= (size_t)u->perc_split &&
              dlca__clt_perc_local_floats(s, s->cpw, t->cfg.relax.straight_through) * sizeof(float) <=
                  t->ctx->info.local_mem;
  if (s->psplit && u->split_per_cu > 0) {
    plan_groups(t, s, u, u->split_per_cu * scale);
    s->units = (cells_of(t) + (size_t)s->cpw - 1) / (size_t)s->cpw;
  }
}

/* BWD_PUSH: with the split only (its dU is the sum of the update input's
 * slots), where every slot index fits 16 bits and the group's local memory
 * with the planned rows (instead of act and dact) fits the device.
 * BWD_BANKS: with the push, the device runs the model with each hidden
 * update layer's gates in a bank-aware order (bank_order.c); the noise
 * counters stay keyed by the model's gate indices (gkey). Not under
 * population_plan: a population's fresh seeds would each search an order
 * on the host, and fill the kernel cache with them. */
static int plan_push(dlca_trainer *t, cl_state *st, const cl_tuned *u) {
  cl_shape *s = &st->sh;
  int rc;
  if (s->psplit && u->push) {
    const size_t top = dlca__clt_push_plan(t->model, s), row = top > s->act_floats ? top : s->act_floats;
    if (top && dlca__clt_backward_local(t, s, (size_t)s->cpw, row, 0) + 4 * sizeof(float) <= t->ctx->info.local_mem)
      s->push = 1, s->pact = row;
  }
  if (s->push && u->banks && !pop_planned(t, u)) {
    if ((rc = dlca__bank_order_cached(t->ctx, t->model, u->bank_effort, st->row, NULL)) ||
        (rc = dlca__clt_reorder_model(t, st)))
      return rc;
  }
  return DLCA_OK;
}

/* PERC_SPLIT_UNIT_CELLS: the perception launch's own cells per unit (more
 * of them share its barriers and global-load round trips; 0: CPW),
 * lowered to what its local memory holds, never below CPW (which fits) */
static void plan_perc_unit(const dlca_trainer *t, cl_shape *s, const cl_tuned *u) {
  if (!s->psplit) return;
  s->cpwp = u->split_unit > s->cpw ? u->split_unit : s->cpw;
  while (s->cpwp > s->cpw && dlca__clt_perc_local_floats(s, s->cpwp, t->cfg.relax.straight_through) * sizeof(float) >
                                 t->ctx->info.local_mem)
    s->cpwp--;
}

/* The forward and backward steps' kernels: trainer_cpu.cl's (KERNELS 1),
 * trainer_tile.cl's (KERNELS 2), or trainer.cl's, whose group must fit the
 * local memory (`local`). TILE_CELLS: from that many cells per step on, the
 * forward steps of the GPU-shaped set are trainer_tile.cl's where its tile
 * fits in local memory (a lane a cell makes a gate's inputs contiguous
 * rows: 2.3x faster than dlca_forward at batch 512 on the H100,
 * doc/performance.md, "What is fast, and why"; its backward step is not,
 * and runs only with KERNELS 2). */
static int plan_steps(const dlca_trainer *t, cl_shape *s, const cl_tuned *u, size_t local) {
  const dlca_context *ctx = t->ctx;
  int rc;
  if (s->kernels == 2 && t->cfg.shared_program)
    return dlca__fail(DLCA_ECONFIG,
                      "KERNELS 2 (trainer_tile.cl) compiles the perception wires in: not with shared_program");
  /* shared_program: the tile forward compiles the wires in, the GPU-shaped one reads them */
  if (s->kernels == 0 && u->tile_cells > 0 && cells_of(t) >= (size_t)u->tile_cells && !t->cfg.shared_program) {
    int fits = 0;
    if ((rc = tile_configure(ctx, s, u, 0, &fits))) return rc;
    s->fwd_tile = fits;
  } else if (s->kernels == 2) {
    if ((rc = tile_configure(ctx, s, u, 1, NULL))) return rc;
    s->fwd_tile = 1, s->persist = 0;
    s->nwg = (int)dlca__clt_tile_groups(&t->cfg, ctx->info.compute_units, s->tile_per_cu, s->tl);
    s->scratch_floats = s->act_floats * (size_t)s->tl;
  }
  if (s->fwd_tile) s->nwg_fwd = (int)dlca__clt_tile_groups(&t->cfg, ctx->info.compute_units, s->tile_fwd_per_cu, s->tl);
  if (s->kernels == 1) cpu_configure(ctx, &t->cfg, s, u);
  else if (s->kernels == 0 && local > ctx->info.local_mem)
    return dlca__fail(DLCA_ECONFIG,
                      "model needs %zu KiB of local memory per work-group for one cell's circuit; %s has %llu KiB",
                      local / 1024, ctx->info.name, (unsigned long long)ctx->info.local_mem / 1024);
  return DLCA_OK;
}

/* PERC_GROUPS_PER_CU: that launch's own groups per compute unit (times
 * WG / WG_NARROW, as PERC_SPLIT_GROUPS_PER_CU), so that a register cap
 * (BWD_MAXNREG) can give dlca_backward 4 groups an SM while
 * dlca_backward_perc keeps its 6 (doc/performance.md, "Register caps
 * written into the PTX"); under the population plan, POP_GROUPS. Its
 * group g adds to slot g of the sums; slots past either launch's groups
 * stay zero. */
static void plan_perc_groups(const dlca_trainer *t, cl_shape *s, const cl_tuned *u, int scale) {
  s->nwg_perc = s->nwg;
  if (s->psplit && u->perc_per_cu > 0) {
    const unsigned cu = t->ctx->info.compute_units;
    const size_t pu = (cells_of(t) + (size_t)s->cpwp - 1) / (size_t)s->cpwp,
                 n = pop_planned(t, u) ? (size_t)u->pop_groups
                                       : dlca__clt_backward_groups(&t->cfg, cu, u->perc_per_cu * scale);
    s->nwg_perc = (int)(n < pu ? n : pu);
  }
  s->nslots = s->nwg > s->nwg_perc ? s->nwg : s->nwg_perc;
}

int dlca__clt_plan(dlca_trainer *t, cl_state *st, const cl_tuned *u) {
  cl_shape *s = &st->sh;
  int per_cu = u->per_cu, rc;
  s->wg = u->wg, s->kernels = u->kernels, s->bwd_tail = u->bwd_tail, s->bwd_maxnreg = u->bwd_maxnreg;
  const size_t local = plan_backward(t, s, u, &per_cu);
  const int scale = per_cu / u->per_cu;
  plan_persist(t, s, u);
  plan_split(t, s, u, scale);
  if ((rc = plan_push(t, st, u))) return rc;
  plan_perc_unit(t, s, u);
  if ((rc = plan_steps(t, s, u, local))) return rc;
  plan_perc_groups(t, s, u, scale);
  s->bwd_per_cu = per_cu;
  return dlca__clt_check_footprint(t, s);
}
