/* What the trainer needs of the device: its buffers in bytes (global memory)
 * and a work-group's local memory, for each set of kernels. */
#include <stdio.h>
#include "cl/trainer/cl_trainer.h"
#include "train/host_memory.h"

size_t dlca__clt_backward_groups(const dlca_train_config *cfg, unsigned cu, int per_cu) {
  size_t cells = (size_t)cfg->batch * cfg->height * cfg->width, n = (size_t)(cu ? cu : 1) * (size_t)per_cu;
  return n < cells ? n : cells;
}

/* Every device buffer, in bytes, for a given number of backward groups. */
size_t dlca__clt_footprint(const dlca_model *m, const dlca_train_config *cfg, const cl_shape *s, size_t nwg) {
  size_t P = m->n_params, NG = dlca__model_n_gates(m), grid = (size_t)cfg->batch * cfg->height * cfg->width * s->C;
  size_t cells = (size_t)cfg->batch * cfg->height * cfg->width;
  size_t f = (2 + dlca__train_slots(cfg)) * P * sizeof(float) + 2 * NG * 4 * sizeof(float); /* logits, grad, state */
  f += (s->n_wires + 2 * s->n_rev) * sizeof(int);
  f += 2 * (size_t)s->NGU * sizeof(int) + 2 * s->n_rev * sizeof(float); /* rslot, rcoef */
  f += ((size_t)cfg->steps + 1 + 2 + 2 + 2) * grid * sizeof(float); /* states, hard, g, target/input */
  f += 2 * 9 * grid * sizeof(float);                                 /* dP */
  f += nwg * s->acc_stride * sizeof(float) + nwg * sizeof(float);
  f += nwg * s->scratch_floats * sizeof(float);
  if (cfg->async) f += (size_t)cfg->steps * cells;
  if (s->psplit) f += cells * (size_t)m->shape.update_layers[0] * sizeof(float); /* dU */
  f += (cells + 1) * sizeof(int); /* flags of the persistent backward pass, at most one per cell */
  if (cfg->relax.straight_through) f += NG * 4 * sizeof(float);
  if (cfg->relax.gumbel_scale > 0) f += DLCA_GUMBEL_LEVELS * sizeof(float);
  return f;
}

/* trainer_cpu.cl: floats of one group's scratch, SCR_SIZE of the kernel:
 * VEC lanes of the activations, two gradient rows, the patch and its
 * gradient, the output gradient and one perception stack's values and
 * gradients, then the gate sums, min(VEC, 8) lanes each. */
size_t dlca__clt_cpu_scratch_floats(const cl_shape *s, int vec) {
  size_t per_lane = (size_t)s->UTOTAL + 2 * (size_t)s->dw + 19 * (size_t)s->C + 2 * (size_t)s->PTOT;
  return (size_t)vec * per_lane + (size_t)(vec > 8 ? 8 : vec) * s->acc_stride;
}

/* trainer_tile.cl: local floats of a backward group, the larger of the two
 * steps: two rows of DW lanes (at least TWG x 4 for the final reduction),
 * one more for a layer's input, the patch and the output gradient. */
size_t dlca__clt_tile_fwd_tab_floats(const cl_shape *s) {
  return s->tfwd_stage ? 10 * (size_t)(s->gmax > s->NGP ? s->gmax : s->NGP) : 4;
}
size_t dlca__clt_tile_dbuf_floats(const cl_shape *s) {
  size_t rows = 2 * (size_t)s->dw * (size_t)s->tl;
  return rows > 4 * (size_t)s->twg ? rows : 4 * (size_t)s->twg;
}
size_t dlca__clt_tile_local_floats(const cl_shape *s) {
  return dlca__clt_tile_dbuf_floats(s) + ((size_t)s->dw + 10 * (size_t)s->C) * (size_t)s->tl;
}

/* trainer_tile.cl: local floats of a forward group: two rows of DW lanes,
 * the patch, and with TFWD_STAGE the staged tables (2 TABN float4 and 2
 * TABN uint, TABN = max(GMAX, NGP)), otherwise one unused float4. */
size_t dlca__clt_tile_fwd_local_floats(const cl_shape *s) {
  return (2 * (size_t)s->dw + 9 * (size_t)s->C) * (size_t)s->tl + dlca__clt_tile_fwd_tab_floats(s);
}

/* trainer_tile.cl: compute units x groups per unit, at most one per tile. */
size_t dlca__clt_tile_groups(const dlca_train_config *cfg, unsigned cu, int per_cu, int tl) {
  size_t cells = (size_t)cfg->batch * cfg->height * cfg->width, tiles = (cells + (size_t)tl - 1) / (size_t)tl;
  size_t n = (size_t)(cu ? cu : 1) * (size_t)per_cu;
  return n < tiles ? n : tiles;
}

/* trainer_cpu.cl: compute units x CPU_GROUPS_PER_CU groups, but no more than
 * there are chunks of VEC cells. */
size_t dlca__clt_cpu_groups(const dlca_train_config *cfg, unsigned cu, int per_cu, int vec) {
  size_t cells = (size_t)cfg->batch * cfg->height * cfg->width, chunks = (cells + (size_t)vec - 1) / (size_t)vec;
  size_t n = (size_t)(cu ? cu : 1) * (size_t)per_cu;
  return n < chunks ? n : chunks;
}

/* Without a device: trainer.cl's steps on a GPU of 132 compute units with 2
 * backward groups per unit (doc/performance.md), the perception stacks'
 * backward split off (PSPLIT, an upper bound where it is not: its update
 * input gradients, 4 C (1 + S K) bytes a cell). trainer_cpu.cl's scratch
 * (cpu_scratch_floats) scales with a CPU's cores, not with this GPU's: on the
 * 2-core VM it is 2 x 2 groups of about 0.6 MiB for the checkerboard. */
size_t dlca__cl_trainer_footprint(const dlca_model *m, const dlca_train_config *cfg) {
  cl_shape s;
  dlca__clt_shape_of(m, &s);
  s.psplit = 1;
  return dlca__clt_footprint(m, cfg, &s, dlca__clt_backward_groups(cfg, 132, 2));
}
/* dlca_backward's local bytes for cpw cells of act rows of `row` floats and
 * dact rows of `drow` floats each, as enqueue_backward passes them (under
 * BWD_PUSH: the planned row, no dact rows, and a 4-float placeholder dact
 * that the caller adds) */
size_t dlca__clt_backward_local(const dlca_trainer *t, const cl_shape *s, size_t cpw, size_t row, size_t drow) {
  size_t dout = cpw * s->C > (size_t)s->wg ? cpw * s->C : (size_t)s->wg;
  return (cpw * (row + drow + 9 * (size_t)s->C) + dout + 4 * (size_t)s->NGP * (t->cfg.relax.straight_through ? 2 : 1)) *
         sizeof(float);
}
/* dlca_backward_perc's local floats for units of cpw cells: the K stacks'
 * patch-gradient columns of a unit's cells (also the staging of the sums'
 * flush), their patches and update-input gradients, the flush's parts and
 * the perception coefficients (twice under straight-through). */
size_t dlca__clt_perc_local_floats(const cl_shape *s, int cells_per_unit, int straight_through) {
  size_t cpw = (size_t)cells_per_unit, ck = (size_t)s->C * (size_t)s->K;
  return cpw * ck * 9 + cpw * 9 * (size_t)s->C + cpw * (size_t)s->uin + (size_t)s->wg +
         4 * (size_t)s->NGP * (straight_through ? 2 : 1) + (straight_through ? 0 : 4);
}

/* The largest power-of-two batch whose planned buffers fit `limit` bytes
 * (its backward groups as planned), 0 where none does. */
static size_t largest_batch(const dlca_trainer *t, const cl_shape *s, uint64_t limit) {
  const unsigned cu = t->ctx->info.compute_units;
  size_t fit = 0;
  dlca_train_config c = t->cfg;
  for (c.batch = 1; c.batch <= (1 << 30); c.batch *= 2) {
    size_t g = s->kernels == 1   ? dlca__clt_cpu_groups(&c, cu, s->cpu_per_cu, s->vec)
               : s->kernels == 2 ? dlca__clt_tile_groups(&c, cu, s->tile_per_cu, s->tl)
                                 : dlca__clt_backward_groups(&c, cu, s->bwd_per_cu);
    if (dlca__clt_footprint(t->model, &c, s, g) > limit) break;
    fit = (size_t)c.batch;
  }
  return fit;
}

/* DLCA_EDEVMEM where the planned buffers (dlca__clt_footprint) exceed the
 * device's global memory, naming the largest batch that would fit. */
int dlca__clt_check_footprint(const dlca_trainer *t, const cl_shape *s) {
  const dlca_context *ctx = t->ctx;
  const size_t need = dlca__clt_footprint(t->model, &t->cfg, s, (size_t)s->nslots);
  if (need <= ctx->info.global_mem) return DLCA_OK;
  return dlca__fail(DLCA_EDEVMEM, "training needs %.1f MiB of device memory, %s has %.1f MiB; a batch of %zu would fit",
                    need / 1048576.0, ctx->info.name, ctx->info.global_mem / 1048576.0,
                    largest_batch(t, s, ctx->info.global_mem));
}

/* On a CPU device the buffers are host memory, and PoCL aborts (an
 * assertion, exit 134) where one cannot be had, whatever
 * CL_DEVICE_GLOBAL_MEM_SIZE says (4.7 to 21 GB in different runs): so the
 * planned buffers are checked against what the process can really get
 * (train/host_memory.h), after the build, whose compiler maps memory too. */
int dlca__clt_check_host(const dlca_trainer *t, const cl_shape *s) {
  if (t->ctx->info.type != DLCA_DEVICE_CPU) return DLCA_OK;
  dlca__host_memory h;
  dlca__host_memory_read(&h);
  const size_t need = dlca__clt_footprint(t->model, &t->cfg, s, (size_t)s->nslots);
  if (need <= dlca__host_memory_limit(&h)) return DLCA_OK;
  char what[400];
  snprintf(what, sizeof what, "training on %s (a CPU device)", t->ctx->info.name);
  return dlca__host_memory_check(&h, need, what, (int)largest_batch(t, s, dlca__host_memory_limit(&h)));
}

/* Out of device memory while allocating or at a buffer's first use (where
 * many drivers really allocate it): the error of the buffer or launch, plus
 * what the trainer's buffers need in all. Returns DLCA_EDEVMEM. */
int dlca__clt_devmem_note(const dlca_trainer *t, const cl_shape *s) {
  char note[512];
  snprintf(note, sizeof note, " (the trainer's buffers need %.1f MiB in all; %s reports %.1f MiB)",
           dlca__clt_footprint(t->model, &t->cfg, s, (size_t)s->nslots) / 1048576.0, t->ctx->info.name,
           t->ctx->info.global_mem / 1048576.0);
  dlca__append_error(note);
  return DLCA_EDEVMEM;
}
