/* The trainer's tunables: read from the tuning table (trainer.cl's, and
 * trainer_cpu.cl's or trainer_tile.cl's where those kernels may run), then
 * checked against the device in check_tunables; the loader checks each value
 * against the range its @tunable line declares. */
#include "cl/trainer/cl_trainer.h"

#define READ(file, name, field) \
  if ((rc = dlca__tunable(ctx, file, name, &u->field))) return rc

static int read_trainer(dlca_context *ctx, cl_tuned *u) {
  int rc;
  READ(KFILE, "WG", wg);
  READ(KFILE, "BWD_GROUPS_PER_CU", per_cu);
  READ(KFILE, "FWD_GROUPS_PER_CU", fwd_per_cu);
  READ(KFILE, "CELLS_PER_GROUP", cpw);
  READ(KFILE, "CELLS_PER_GROUP_MIN", cpw_min);
  READ(KFILE, "WG_NARROW", wg_narrow);
  READ(KFILE, "KERNELS", kernels);
  READ(KFILE, "BWD_PERSIST", persist);
  READ(KFILE, "POP_PERSIST", pop_persist);
  READ(KFILE, "POP_PLAN_MODELS", pop_plan);
  READ(KFILE, "POP_GROUPS", pop_groups);
  READ(KFILE, "TILE_CELLS", tile_cells);
  READ(KFILE, "PERC_SPLIT_CELLS", perc_split);
  READ(KFILE, "PERC_SPLIT_GROUPS_PER_CU", split_per_cu);
  READ(KFILE, "PERC_SPLIT_UNIT_CELLS", split_unit);
  READ(KFILE, "PERC_GROUPS_PER_CU", perc_per_cu);
  READ(KFILE, "BWD_PUSH", push);
  READ(KFILE, "BWD_TAIL", bwd_tail);
  READ(KFILE, "BWD_BANKS", banks);
  READ(KFILE, "BWD_BANKS_EFFORT", bank_effort);
  READ(KFILE, "BWD_MAXNREG", bwd_maxnreg);
  return DLCA_OK;
}

static int read_cpu(dlca_context *ctx, cl_tuned *u) {
  int rc;
  READ(CPU_KFILE, "VEC", vec);
  READ(CPU_KFILE, "CPU_GROUPS_PER_CU", cpu_per_cu);
  u->has_cpu = 1;
  return DLCA_OK;
}

static int read_tile(dlca_context *ctx, cl_tuned *u) {
  int rc;
  READ(TILE_KFILE, "TL", tl);
  READ(TILE_KFILE, "TWG", twg);
  READ(TILE_KFILE, "TILE_GROUPS_PER_CU", tile_per_cu);
  READ(TILE_KFILE, "TILE_FWD_GROUPS_PER_CU", tile_fwd_per_cu);
  READ(TILE_KFILE, "TFWD_STAGE", tfwd_stage);
  READ(TILE_KFILE, "TV", tv);
  u->has_tile = 1;
  return DLCA_OK;
}

#define BAD(...) return dlca__fail(DLCA_ECONFIG, __VA_ARGS__)

/* What the ranges declared on the @tunable lines cannot say, since it
 * depends on the device or on two tunables together: the loader has already
 * refused every value outside its declared range (doc/tuning-table.md). */
static int check_tunables(const dlca_context *ctx, const cl_tuned *u) {
  if ((size_t)u->wg > ctx->info.max_work_group)
    BAD("%s: tuned WG = %d is more than the device's %zu work-items a group", KFILE, u->wg,
        ctx->info.max_work_group);
  if (!u->has_tile) return DLCA_OK;
  if (u->twg < u->tl || u->twg % u->tl || (size_t)u->twg > ctx->info.max_work_group)
    BAD("%s: tuned TWG = %d is not a multiple of TL = %d within the device's %zu work-items a group", TILE_KFILE,
        u->twg, u->tl, ctx->info.max_work_group);
  return DLCA_OK;
}

int dlca__clt_tunables(dlca_trainer *t, cl_tuned *u) {
  const size_t cells = (size_t)t->cfg.batch * t->cfg.height * t->cfg.width;
  int rc = read_trainer(t->ctx, u);
  if (rc) return rc;
  /* trainer_cpu.cl's with KERNELS 1; trainer_tile.cl's with KERNELS 2, or
   * for its forward step from TILE_CELLS cells on (dlca__clt_plan) */
  if (u->kernels == 1 && (rc = read_cpu(t->ctx, u))) return rc;
  if ((u->kernels == 2 || (u->kernels == 0 && u->tile_cells > 0 && cells >= (size_t)u->tile_cells)) &&
      (rc = read_tile(t->ctx, u)))
    return rc;
  return check_tunables(t->ctx, u);
}
