/* The plan of the trainer's launches: the tuned kernels' groups, cells per
 * group and tiles, fitted to the device. */
#include "cl/trainer/cl_trainer.h"

/* KERNELS 1: trainer_cpu.cl's VEC and groups (s->nwg, which also sizes
 * `partial`), and its scratch. */
int dlca__clt_cpu_configure(dlca_context *ctx, const dlca_train_config *cfg, cl_shape *s) {
  int rc;
  if ((rc = dlca__tunable(ctx, CPU_KFILE, "VEC", &s->vec))) return rc;
  if ((rc = dlca__tunable(ctx, CPU_KFILE, "CPU_GROUPS_PER_CU", &s->cpu_per_cu))) return rc;
  if (s->vec != 4 && s->vec != 8 && s->vec != 16)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned VEC = %d is not 4, 8 or 16", CPU_KFILE, s->vec);
  if (s->cpu_per_cu < 1 || s->cpu_per_cu > 64)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned CPU_GROUPS_PER_CU = %d is not in [1, 64]", CPU_KFILE, s->cpu_per_cu);
  s->nwg = (int)dlca__clt_cpu_groups(cfg, ctx->info.compute_units, s->cpu_per_cu, s->vec);
  s->scratch_floats = dlca__clt_cpu_scratch_floats(s, s->vec);
  return DLCA_OK;
}

/* trainer_tile.cl's tile (TL cells, TWG threads) and groups per compute
 * unit (backward and forward; dlca__clt_tile_groups() caps them at one per tile), and
 * whether the local memory of its forward step (with `backward`, of its
 * backward step) fits: into *fits, or with fits NULL as DLCA_ECONFIG naming
 * what does not. */
int dlca__clt_tile_configure(const dlca_context *ctx, cl_shape *s, int backward, int *fits) {
  int rc, per_cu, fwd_per_cu;
  if ((rc = dlca__tunable((dlca_context *)ctx, TILE_KFILE, "TL", &s->tl))) return rc;
  if ((rc = dlca__tunable((dlca_context *)ctx, TILE_KFILE, "TWG", &s->twg))) return rc;
  if ((rc = dlca__tunable((dlca_context *)ctx, TILE_KFILE, "TILE_GROUPS_PER_CU", &per_cu))) return rc;
  if ((rc = dlca__tunable((dlca_context *)ctx, TILE_KFILE, "TILE_FWD_GROUPS_PER_CU", &fwd_per_cu))) return rc;
  if ((rc = dlca__tunable((dlca_context *)ctx, TILE_KFILE, "TFWD_STAGE", &s->tfwd_stage))) return rc;
  if (s->tfwd_stage != 0 && s->tfwd_stage != 1)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned TFWD_STAGE = %d is not 0 or 1", TILE_KFILE, s->tfwd_stage);
  int tv;
  if ((rc = dlca__tunable((dlca_context *)ctx, TILE_KFILE, "TV", &tv))) return rc;
  if (tv != 1 && tv != 2 && tv != 4)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned TV = %d is not 1, 2 or 4 (cells a lane of the forward step)",
                      TILE_KFILE, tv);
  if (s->tl < 4 || s->tl > 64 || s->tl % 4)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned TL = %d is not a multiple of 4 in [4, 64]", TILE_KFILE, s->tl);
  if (s->twg < s->tl || s->twg % s->tl || (s->twg & (s->twg - 1)) || (size_t)s->twg > ctx->info.max_work_group)
    return dlca__fail(DLCA_ECONFIG,
                      "%s: tuned TWG = %d is not a power of two, a multiple of TL = %d and within the device's %zu",
                      TILE_KFILE, s->twg, s->tl, ctx->info.max_work_group);
  if (per_cu < 1 || per_cu > 64 || fwd_per_cu < 1 || fwd_per_cu > 64)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned groups per compute unit must be in [1, 64]", TILE_KFILE);
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
  s->tile_per_cu = per_cu, s->tile_fwd_per_cu = fwd_per_cu;
  return DLCA_OK;
}
/* Groups the device runs at once: compute units x groups per compute unit. */
size_t dlca__clt_slots_of(const dlca_context *ctx, int per_cu) {
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
size_t dlca__clt_plan_groups(const dlca_trainer *t, cl_shape *s, int per_cu, int cpw, int cpw_min) {
  const dlca_context *ctx = t->ctx;
  size_t local;
  for (;;) {
    local = dlca__clt_backward_local(t, s, (size_t)cpw, s->act_floats, 2 * (size_t)s->dw);
    if (local <= ctx->info.local_mem || cpw == 1) break;
    cpw--;
  }
  const size_t cells = (size_t)t->cfg.batch * t->cfg.height * t->cfg.width, slots = dlca__clt_slots_of(ctx, per_cu);
  while (cpw > cpw_min && (cells + (size_t)cpw - 1) / (size_t)cpw < slots)
    cpw = cpw / 2 < cpw_min ? cpw_min : cpw / 2;
  s->cpw = cpw;
  const size_t groups = (cells + (size_t)cpw - 1) / (size_t)cpw;
  s->nwg = (int)dlca__clt_backward_groups(&t->cfg, ctx->info.compute_units, per_cu);
  if ((size_t)s->nwg > groups) s->nwg = (int)groups; /* no group without a cell */
  return local;
}
