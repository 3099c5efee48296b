/* The trainer's tunables: read from the tuning table (trainer.cl's, and
 * trainer_cpu.cl's or trainer_tile.cl's where those kernels may run), then
 * checked by hand in check_tunables. The checks are to go once the loader
 * checks the ranges declared on the @tunable lines (issue 30). */
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

/* trainer.cl's tunables */
static int check_trainer(const dlca_context *ctx, const cl_tuned *u) {
  if (u->push != 0 && u->push != 1) BAD("%s: tuned BWD_PUSH = %d is not 0 or 1", KFILE, u->push);
  if (u->bwd_tail != 0 && u->bwd_tail != 1) BAD("%s: tuned BWD_TAIL = %d is not 0 or 1", KFILE, u->bwd_tail);
  if (u->bank_effort < 1 || u->bank_effort > 100000)
    BAD("%s: tuned BWD_BANKS_EFFORT = %d is not in [1, 100000] (proposals a unit)", KFILE, u->bank_effort);
  if (u->bwd_maxnreg != 0 && (u->bwd_maxnreg < 24 || u->bwd_maxnreg > 255))
    BAD("%s: tuned BWD_MAXNREG = %d is not 0 (no cap) or in [24, 255] (registers)", KFILE, u->bwd_maxnreg);
  if (u->banks != 0 && u->banks != 1) BAD("%s: tuned BWD_BANKS = %d is not 0 or 1", KFILE, u->banks);
  if (u->split_unit < 0 || u->split_unit > 64)
    BAD("%s: tuned PERC_SPLIT_UNIT_CELLS = %d is not in [0, 64] (0: CELLS_PER_GROUP)", KFILE, u->split_unit);
  if (u->perc_split < 0) BAD("%s: tuned PERC_SPLIT_CELLS = %d is negative (0: never)", KFILE, u->perc_split);
  if (u->split_per_cu < 0)
    BAD("%s: tuned PERC_SPLIT_GROUPS_PER_CU = %d is negative (0: BWD_GROUPS_PER_CU)", KFILE, u->split_per_cu);
  if (u->perc_per_cu < 0)
    BAD("%s: tuned PERC_GROUPS_PER_CU = %d is negative (0: dlca_backward's groups)", KFILE, u->perc_per_cu);
  if (u->tile_cells < 0) BAD("%s: tuned TILE_CELLS = %d is negative (0: never)", KFILE, u->tile_cells);
  if (u->persist < 0 || u->persist > 1024)
    BAD("%s: tuned BWD_PERSIST = %d is not in [0, 1024] (rounds of groups per step)", KFILE, u->persist);
  if (u->kernels < 0 || u->kernels > 2)
    BAD("%s: tuned KERNELS = %d is not 0 (trainer.cl), 1 (%s) or 2 (%s)", KFILE, u->kernels, CPU_KFILE, TILE_KFILE);
  if (u->cpw < 1 || u->cpw > 16) BAD("%s: tuned CELLS_PER_GROUP = %d is not in [1, 16]", KFILE, u->cpw);
  if (u->cpw_min < 1 || u->cpw_min > 16) BAD("%s: tuned CELLS_PER_GROUP_MIN = %d is not in [1, 16]", KFILE, u->cpw_min);
  if (u->per_cu < 1 || u->fwd_per_cu < 1) BAD("%s: tuned groups per compute unit must be at least 1", KFILE);
  if (u->wg < 1 || (u->wg & (u->wg - 1)) || (size_t)u->wg > ctx->info.max_work_group)
    BAD("%s: tuned WG = %d is not a power of two within the device's %zu", KFILE, u->wg, ctx->info.max_work_group);
  if (u->wg_narrow < 0 || (u->wg_narrow & (u->wg_narrow - 1)))
    BAD("%s: tuned WG_NARROW = %d is neither 0 nor a power of two", KFILE, u->wg_narrow);
  return DLCA_OK;
}

/* Every hand-written range check of the trainer's tunables, in one place:
 * trainer.cl's, then trainer_cpu.cl's and trainer_tile.cl's where read. */
static int check_tunables(const dlca_context *ctx, const cl_tuned *u) {
  int rc = check_trainer(ctx, u);
  if (rc) return rc;
  if (u->has_cpu && u->vec != 4 && u->vec != 8 && u->vec != 16)
    BAD("%s: tuned VEC = %d is not 4, 8 or 16", CPU_KFILE, u->vec);
  if (u->has_cpu && (u->cpu_per_cu < 1 || u->cpu_per_cu > 64))
    BAD("%s: tuned CPU_GROUPS_PER_CU = %d is not in [1, 64]", CPU_KFILE, u->cpu_per_cu);
  if (!u->has_tile) return DLCA_OK;
  if (u->tfwd_stage != 0 && u->tfwd_stage != 1)
    BAD("%s: tuned TFWD_STAGE = %d is not 0 or 1", TILE_KFILE, u->tfwd_stage);
  if (u->tv != 1 && u->tv != 2 && u->tv != 4)
    BAD("%s: tuned TV = %d is not 1, 2 or 4 (cells a lane of the forward step)", TILE_KFILE, u->tv);
  if (u->tl < 4 || u->tl > 64 || u->tl % 4)
    BAD("%s: tuned TL = %d is not a multiple of 4 in [4, 64]", TILE_KFILE, u->tl);
  if (u->twg < u->tl || u->twg % u->tl || (u->twg & (u->twg - 1)) || (size_t)u->twg > ctx->info.max_work_group)
    BAD("%s: tuned TWG = %d is not a power of two, a multiple of TL = %d and within the device's %zu", TILE_KFILE,
        u->twg, u->tl, ctx->info.max_work_group);
  if (u->tile_per_cu < 1 || u->tile_per_cu > 64 || u->tile_fwd_per_cu < 1 || u->tile_fwd_per_cu > 64)
    BAD("%s: tuned groups per compute unit must be in [1, 64]", TILE_KFILE);
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
