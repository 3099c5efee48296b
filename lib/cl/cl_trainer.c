/* The trainer's OpenCL backend: persistent device buffers and the epoch of
 * kernels-cl/trainer.cl (forward and backward steps from trainer_cpu.cl on
 * devices tuned with KERNELS 1, from trainer_tile.cl with KERNELS 2 or from
 * TILE_CELLS cells on), enqueued without a single blocking call.
 * Only the loss (when asked) and what the caller reads cross back to the
 * host. CPU twin: lib/ref/ref_trainer.c. Kernel design: doc/kernels.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cl/bank_order.h"
#include "cl/runtime.h"
#include "train/trainer_impl.h"

#define KFILE "trainer.cl"
#define CPU_KFILE "trainer_cpu.cl"
#define TILE_KFILE "trainer_tile.cl"

/* The shape of the compiled kernels and the local memory they need. */
typedef struct cl_shape {
  int C, K, S, NP, NU, PTOT, UTOTAL, PG1, NGP, NGU, wg;
  int gmax;                    /* widest update layer (gates) */
  int dw;                      /* widest update vector, input included */
  size_t n_wires, n_rev;
  int fanout[DLCA_MAX_LAYERS]; /* most gates reading one input of update layer l (ELL width of rev) */
  size_t act_floats;           /* max(UTOTAL, C*K*9) */
  size_t acc_stride;           /* floats of one work-group's partial sums */
  int nwg;                     /* backward work-groups */
  int nwg_fwd;                 /* forward work-groups */
  int cpw;                     /* cells side by side in a backward work-group */
  int persist;                 /* 1: the whole backward pass in one launch (BWD_PERSIST) */
  int psplit;                  /* 1: the perception stacks' backward in a launch of its own (PERC_SPLIT_CELLS) */
  int cpwp;                    /* cells side by side in a unit of that launch (PERC_SPLIT_UNIT_CELLS, CPWP) */
  int nwg_perc;                /* that launch's work-groups (PERC_GROUPS_PER_CU; nwg without the split) */
  int nslots;                  /* slots of the gate and loss sums: max(nwg, nwg_perc); a slot no group
                                * writes stays zero */
  int uin;                     /* the update input's width, C + C S K */
  size_t units;                /* backward tasks per step: ceil(cells / cpw) */
  int kernels;                 /* 0: forward/backward of trainer.cl; 1: of trainer_cpu.cl; 2: of trainer_tile.cl */
  int vec, cpu_per_cu;         /* trainer_cpu.cl: cells per work-item (VEC), CPU_GROUPS_PER_CU */
  int tl, twg;                 /* trainer_tile.cl: cells per tile (TL), threads per group (TWG) */
  int tile_per_cu, tile_fwd_per_cu; /* trainer_tile.cl: TILE_GROUPS_PER_CU, TILE_FWD_GROUPS_PER_CU */
  int tfwd_stage;              /* trainer_tile.cl: TFWD_STAGE (the forward step stages its tables) */
  int fwd_tile;                /* 1: the forward steps are trainer_tile.cl's (KERNELS 2, or TILE_CELLS) */
  size_t scratch_floats;       /* trainer_cpu.cl, trainer_tile.cl: floats of one group's scratch (0 for trainer.cl) */
  int push;                    /* 1: dlca_backward's update layers push their input gradients (BWD_PUSH) */
  int bwd_tail;                /* BWD_TAIL: the last update layers run in warp 0 (with the push, WG >= 32) */
  int bwd_maxnreg;             /* BWD_MAXNREG: dlca_backward's register cap under PSPLIT (PTX devices; 0: none) */
  int push_off[DLCA_MAX_LAYERS + 1]; /* BWD_PUSH: where layer l's gradient slots start in a cell's act row */
  size_t pact;                 /* floats of a cell's act row in dlca_backward (PACT): act_floats, or with
                                * BWD_PUSH the planned row of activations and gradient slots */
} cl_shape;

typedef struct cl_state {
  cl_shape sh;
  cl_kernel k_coef, k_start, k_fwd, k_bwd, k_adamw, k_eval;
  cl_kernel k_perc;       /* trainer.cl's dlca_backward_perc under PSPLIT, or NULL */
  cl_mem dU;              /* PSPLIT: the update input's gradient of every cell (one step), or a placeholder */
  cl_mem params, m, v, grad, coef, coef_hard, wires, rev;
  cl_mem rslot, rcoef;    /* each update gate's two slots in rev; the coefficients in rev's order (dlca_coef) */
  cl_mem pwire;           /* BWD_PUSH: each update gate's inputs, gradient slots and output's slots, then each
                           * update input's slots (trainer.cl) */
  cl_mem gkey;            /* each device gate's index in the model: the noise counters' key (BWD_BANKS) */
  cl_mem coef_st;         /* straight-through forward coefficients (issue 6), or NULL */
  cl_mem gumbel;          /* the Gumbel table (issue 6), or a 4-byte placeholder */
  cl_mem states;          /* (T+1) grids */
  cl_mem hard[2];         /* hard evaluation ping-pong */
  cl_mem g[2], dP[2];     /* backward ping-pong */
  cl_mem partial, loss_partial, loss, eval_out, target, input, masks;
  cl_mem scratch;         /* trainer_cpu.cl, trainer_tile.cl: every group's activations, or NULL */
  cl_mem flags;           /* trainer.cl: steps each unit has finished (units ints), then the status word */
  int hard_final;         /* which hard buffer holds the last hard state */
  /* BWD_BANKS: the device runs the model with each hidden update layer's
   * gates in a bank-aware order (bank_order.c): pm has its wires, device
   * logit i is logit pmap[i] of the model, and row[l][u] is where unit u of
   * update level l went. NULL: the model's own order. */
  dlca_model *pm;
  size_t *pmap;
  int *row[DLCA_MAX_LAYERS + 1];
} cl_state;

/* The model the device runs: the trainer's, or its bank-aware order. */
static const dlca_model *device_model(const dlca_trainer *t) {
  const cl_state *st = t->impl;
  return st && st->pm ? st->pm : t->model;
}

/* BWD_BANKS: pm (the wires in the device's order; its logits stay zero,
 * upload_params maps the model's through pmap) and pmap, from t->model and
 * st->row. */
static int reorder_model(dlca_trainer *t, cl_state *st) {
  const dlca_model *m = t->model;
  const size_t npg = (size_t)dlca__model_npg(m);
  int rc = dlca__model_alloc(&m->shape, &st->pm);
  if (rc) return rc;
  if (!(st->pmap = malloc(sizeof(size_t) * (m->n_params ? m->n_params : 1))))
    return dlca__fail(DLCA_ENOMEM, "OpenCL trainer: out of host memory");
  dlca_model *pm = st->pm;
  for (size_t i = 0; i < m->n_params; i++) st->pmap[i] = i;
  for (int l = 0; l < m->n_perceive; l++) {
    memcpy(pm->perceive[l].wa, m->perceive[l].wa, sizeof(int32_t) * (size_t)m->perceive[l].n_gates);
    memcpy(pm->perceive[l].wb, m->perceive[l].wb, sizeof(int32_t) * (size_t)m->perceive[l].n_gates);
  }
  for (int l = 0; l < m->n_update; l++) {
    const dlca_layer *L = &m->update[l];
    dlca_layer *P = &pm->update[l];
    for (int e = 0; e < L->n_gates; e++) {
      const int r = st->row[l + 1][e];
      P->wa[r] = st->row[l][L->wa[e]], P->wb[r] = st->row[l][L->wb[e]];
      for (size_t j = 0; j < npg; j++) st->pmap[P->offset + (size_t)r * npg + j] = L->offset + (size_t)e * npg + j;
    }
  }
  return DLCA_OK;
}

/* Logits (and their gradients and moments) between the model's order (ext)
 * and the device's (dev), through a host buffer. */
static int upload_params(dlca_trainer *t, cl_mem buf, const float *ext, const char *what) {
  const cl_state *st = t->impl;
  const size_t P = t->model->n_params;
  if (!st->pmap) return dlca__upload(t->ctx, buf, 0, P * 4, ext, what);
  float *dev = malloc(sizeof(float) * (P ? P : 1));
  if (!dev) return dlca__fail(DLCA_ENOMEM, "OpenCL trainer: out of host memory");
  for (size_t i = 0; i < P; i++) dev[i] = ext[st->pmap[i]];
  int rc = dlca__upload(t->ctx, buf, 0, P * 4, dev, what);
  free(dev);
  return rc;
}

static int download_params(dlca_trainer *t, cl_mem buf, float *ext, const char *what) {
  const cl_state *st = t->impl;
  const size_t P = t->model->n_params;
  if (!st->pmap) return dlca__download(t->ctx, buf, 0, P * 4, ext, what);
  float *dev = malloc(sizeof(float) * (P ? P : 1));
  if (!dev) return dlca__fail(DLCA_ENOMEM, "OpenCL trainer: out of host memory");
  int rc = dlca__download(t->ctx, buf, 0, P * 4, dev, what);
  if (!rc)
    for (size_t i = 0; i < P; i++) ext[st->pmap[i]] = dev[i];
  free(dev);
  return rc;
}

/* The most gates of layer L that read one of its inputs (at least 1). */
static int layer_fanout(const dlca_layer *L) {
  int *cnt = calloc((size_t)L->n_in, sizeof(int)), r = 1;
  if (!cnt) return 2 * L->n_gates; /* an upper bound; only wastes table space */
  for (int g = 0; g < L->n_gates; g++) cnt[L->wa[g]]++, cnt[L->wb[g]]++;
  for (int i = 0; i < L->n_in; i++)
    if (cnt[i] > r) r = cnt[i];
  free(cnt);
  return r;
}

/* BWD_PUSH's gradient slots of update layer L's inputs (trainer.cl): the
 * readers of each input (fo[i]) and where its slots past the first two
 * start (ov[i] = R2 n + the readers past two of inputs 0 .. i-1); returns
 * the slots' floats. */
static int push_slots(const dlca_layer *L, int fanout, int *fo, int *ov) {
  const int n = L->n_in, r2 = fanout < 2 ? fanout : 2;
  for (int i = 0; i < n; i++) fo[i] = 0;
  for (int g = 0; g < L->n_gates; g++) fo[L->wa[g]]++, fo[L->wb[g]]++;
  int o = r2 * n;
  for (int i = 0; i < n; i++) ov[i] = o, o += fo[i] > 2 ? fo[i] - 2 : 0;
  return o;
}

/* BWD_PUSH's layout of a cell's act row in dlca_backward: the activations
 * (UTOTAL floats; the last layer's outputs, which nothing reads, hold the
 * output gradient), then the gradient slots of each update layer's inputs
 * (push_slots), planned from the last layer down: layer l's slots go at the
 * first place past the activations its phase and the ones below still read
 * (the inputs of layers 0 .. l) that misses the slots it reads (those of
 * layer l + 1). Returns the floats a row needs, 0 where a slot index would
 * not fit 16 bits (or out of host memory). */
static size_t push_plan(const dlca_model *m, cl_shape *s) {
  const int *U = m->shape.update_layers;
  int *fo = malloc(sizeof(int) * (size_t)s->dw), *ov = malloc(sizeof(int) * (size_t)s->dw), big = !fo || !ov;
  int size[DLCA_MAX_LAYERS]; /* floats of layer l's gradient slots */
  for (int l = 0; l < s->NU && !big; l++)
    if ((size[l] = push_slots(&m->update[l], s->fanout[l], fo, ov)) > 65536 || U[l] > 65536) big = 1;
  free(fo), free(ov);
  if (big) return 0;
  size_t ao[DLCA_MAX_LAYERS + 1], top;
  ao[0] = 0;
  for (int l = 0; l < s->NU; l++) ao[l + 1] = ao[l] + (size_t)U[l];
  size_t in_off = ao[s->NU], in_size = (size_t)U[s->NU];
  s->push_off[s->NU] = (int)in_off, top = in_off + in_size;
  for (int l = s->NU - 1; l >= 0; l--) {
    size_t o = ao[l] + (size_t)U[l], sz = (size_t)size[l];
    if (o < in_off + in_size && o + sz > in_off) o = in_off + in_size;
    s->push_off[l] = (int)o;
    if (o + sz > top) top = o + sz;
    in_off = o, in_size = sz;
  }
  return top;
}

static void shape_of(const dlca_model *m, cl_shape *s) {
  memset(s, 0, sizeof *s);
  s->C = m->shape.channels, s->K = m->shape.n_kernels, s->S = dlca__model_S(m);
  s->NP = m->n_perceive, s->NU = m->n_update;
  for (int l = 0; l <= s->NP; l++) s->PTOT += m->shape.perceive_layers[l];
  for (int l = 0; l <= s->NU; l++) {
    s->UTOTAL += m->shape.update_layers[l];
    if (m->shape.update_layers[l] > s->dw) s->dw = m->shape.update_layers[l];
  }
  for (int l = 0; l < s->NP; l++) s->PG1 += m->perceive[l].n_gates, s->n_wires += 2 * (size_t)m->perceive[l].n_gates;
  for (int l = 0; l < s->NU; l++) {
    s->NGU += m->update[l].n_gates;
    if (m->update[l].n_gates > s->gmax) s->gmax = m->update[l].n_gates;
    s->n_wires += 2 * (size_t)m->update[l].n_gates;
    s->fanout[l] = layer_fanout(&m->update[l]);
    s->n_rev += (size_t)s->fanout[l] * (size_t)m->update[l].n_in;
  }
  s->NGP = s->K * s->PG1;
  size_t ck9 = (size_t)s->C * s->K * 9;
  s->act_floats = (size_t)s->UTOTAL > ck9 ? (size_t)s->UTOTAL : ck9;
  s->pact = s->act_floats;
  s->acc_stride = (size_t)s->K * s->PG1 * 4 + (size_t)s->NGU * 4;
}

static size_t backward_groups(const dlca_train_config *cfg, unsigned cu, int per_cu) {
  size_t cells = (size_t)cfg->batch * cfg->height * cfg->width, n = (size_t)(cu ? cu : 1) * (size_t)per_cu;
  return n < cells ? n : cells;
}

/* Every device buffer, in bytes, for a given number of backward groups. */
static size_t footprint(const dlca_model *m, const dlca_train_config *cfg, const cl_shape *s, size_t nwg) {
  size_t P = m->n_params, NG = dlca__model_n_gates(m), grid = (size_t)cfg->batch * cfg->height * cfg->width * s->C;
  size_t cells = (size_t)cfg->batch * cfg->height * cfg->width;
  size_t f = 4 * P * sizeof(float) + 2 * NG * 4 * sizeof(float);
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
static size_t cpu_scratch_floats(const cl_shape *s, int vec) {
  size_t per_lane = (size_t)s->UTOTAL + 2 * (size_t)s->dw + 19 * (size_t)s->C + 2 * (size_t)s->PTOT;
  return (size_t)vec * per_lane + (size_t)(vec > 8 ? 8 : vec) * s->acc_stride;
}

/* trainer_tile.cl: local floats of a backward group, the larger of the two
 * steps: two rows of DW lanes (at least TWG x 4 for the final reduction),
 * one more for a layer's input, the patch and the output gradient. */
static size_t tile_fwd_tab_floats(const cl_shape *s) {
  return s->tfwd_stage ? 10 * (size_t)(s->gmax > s->NGP ? s->gmax : s->NGP) : 4;
}
static size_t tile_dbuf_floats(const cl_shape *s) {
  size_t rows = 2 * (size_t)s->dw * (size_t)s->tl;
  return rows > 4 * (size_t)s->twg ? rows : 4 * (size_t)s->twg;
}
static size_t tile_local_floats(const cl_shape *s) {
  return tile_dbuf_floats(s) + ((size_t)s->dw + 10 * (size_t)s->C) * (size_t)s->tl;
}

/* trainer_tile.cl: local floats of a forward group: two rows of DW lanes,
 * the patch, and with TFWD_STAGE the staged tables (2 TABN float4 and 2
 * TABN uint, TABN = max(GMAX, NGP)), otherwise one unused float4. */
static size_t tile_fwd_local_floats(const cl_shape *s) {
  return (2 * (size_t)s->dw + 9 * (size_t)s->C) * (size_t)s->tl + tile_fwd_tab_floats(s);
}

/* trainer_tile.cl: compute units x groups per unit, at most one per tile. */
static size_t tile_groups(const dlca_train_config *cfg, unsigned cu, int per_cu, int tl) {
  size_t cells = (size_t)cfg->batch * cfg->height * cfg->width, tiles = (cells + (size_t)tl - 1) / (size_t)tl;
  size_t n = (size_t)(cu ? cu : 1) * (size_t)per_cu;
  return n < tiles ? n : tiles;
}

/* trainer_cpu.cl: compute units x CPU_GROUPS_PER_CU groups, but no more than
 * there are chunks of VEC cells. */
static size_t cpu_groups(const dlca_train_config *cfg, unsigned cu, int per_cu, int vec) {
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
  shape_of(m, &s);
  s.psplit = 1;
  return footprint(m, cfg, &s, backward_groups(cfg, 132, 2));
}

static void append_list(char *buf, size_t n, const char *name, const int *v, int count) {
  size_t len = strlen(buf);
  len += (size_t)snprintf(buf + len, n - len, " -D%s=", name);
  for (int i = 0; i < count && len < n; i++) len += (size_t)snprintf(buf + len, n - len, i ? ",%d" : "%d", v[i]);
}

/* The program of trainer.cl and, with KERNELS 1 or 2, that of
 * trainer_cpu.cl or trainer_tile.cl, both built with the same shape options. */
static int build(dlca_trainer *t, cl_state *st, cl_program *prog, cl_program *step_prog) {
  const cl_shape *s = &st->sh;
  const dlca_model *m = t->model;
  enum { OPTS = 65536 };
  char *opts = malloc(OPTS);
  if (!opts) return dlca__fail(DLCA_ENOMEM, "OpenCL trainer: out of host memory");
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
  const char *extra = getenv("DLCA_CL_BUILD_OPTIONS");
  if (s->persist && t->ctx->info.type == DLCA_DEVICE_CPU && !(extra && strstr(extra, "SPIN_MAX")))
    strncat(opts, " -DSPIN_MAX=0x80000000u", OPTS - strlen(opts) - 1);
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
  /* perception wires, baked in so that each stack unrolls into registers */
  int pw[2 * 1024], n = 0;
  for (int l = 0; l < m->n_perceive && n + 2 * m->perceive[l].n_gates <= 2 * 1024; l++) {
    memcpy(pw + n, m->perceive[l].wa, sizeof(int) * m->perceive[l].n_gates), n += m->perceive[l].n_gates;
    memcpy(pw + n, m->perceive[l].wb, sizeof(int) * m->perceive[l].n_gates), n += m->perceive[l].n_gates;
  }
  append_list(opts, OPTS, "P_WIRES", pw, n);
  /* The same stack flattened: gate q of the stack (layer by layer) writes
   * x[9 + q] from x[P_XA[q]] and x[P_XB[q]] with coefficient
   * P_CO[q] + k P_CG[q] of kernel k; P_BQ lists the gates in backward order
   * (last layer first, gates ascending). One loop of constant trip count. */
  int xa[1024], xb[1024], co[1024], cg[1024], bq[1024], q = 0, xo = 0;
  for (int l = 0; l < m->n_perceive && q + m->perceive[l].n_gates <= 1024; l++) {
    const dlca_layer *L = &m->perceive[l];
    for (int g = 0; g < L->n_gates; g++, q++)
      xa[q] = xo + L->wa[g], xb[q] = xo + L->wb[g], co[q] = s->K * (q - g) + g, cg[q] = L->n_gates;
    xo += L->n_in;
  }
  for (int l = m->n_perceive - 1, r = 0, q0 = q; l >= 0; l--) {
    q0 -= m->perceive[l].n_gates;
    for (int g = 0; g < m->perceive[l].n_gates; g++) bq[r++] = q0 + g;
  }
  append_list(opts, OPTS, "P_XA", xa, q), append_list(opts, OPTS, "P_XB", xb, q);
  append_list(opts, OPTS, "P_CO", co, q), append_list(opts, OPTS, "P_CG", cg, q);
  append_list(opts, OPTS, "P_BQ", bq, q);
  int rc = strlen(opts) + 1 >= OPTS
               ? dlca__fail(DLCA_ECONFIG, "the model is too large for the device trainer's build options")
               : dlca__program_get(t->ctx, KFILE, opts, prog, NULL);
  if (!rc && (s->kernels || s->fwd_tile))
    rc = dlca__program_get(t->ctx, s->kernels == 1 ? CPU_KFILE : TILE_KFILE, opts, step_prog, NULL);
  free(opts);
  return rc;
}

/* Wires of every layer, then the update layers' reverse wiring, one ELL block
 * per layer: with n inputs and fan-out R (shape_of), entry k of input i is
 * rev[base + k n + i] = (2 gate + side, the gate's other input), side 0 for
 * input a, 1 for b; the consumers of input i in gate order, a before b, then
 * (-1, 0) up to R. The kernel sums the entries in this order. rslot[u] holds
 * the indices of update gate u's two entries (side a, side b), where
 * dlca_coef writes the coefficients that the entries need (rcoef, whose
 * padding entries cl_init clears and nothing writes). */
static int upload_wiring(dlca_trainer *t, cl_state *st) {
  const dlca_model *m = device_model(t);
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
    if (s->push) {
      /* gate g's slots in its inputs: its entries' places k among each
       * input's readers in the model's gate order (a before b), as rev has
       * them without BWD_BANKS, so that the slots add up in the same order
       * either way; its output's readers and overflow slots, from the layer
       * above */
      push_slots(L, (int)R, fo, po);
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
        for (int i = 0; i < (int)n; i++) pw[4 * (size_t)s->NGU + 2 * (size_t)i] = fo[i], pw[4 * (size_t)s->NGU + 2 * (size_t)i + 1] = po[i];
      else /* the layer below's gates: their outputs are this layer's inputs */
        for (int i = 0; i < (int)n; i++) {
          const size_t v = u - n + (size_t)i;
          pw[4 * v + 2] = fo[i], pw[4 * v + 3] = po[i];
        }
      if (l == m->n_update - 1) /* the last layer's outputs: one slot, the output gradient */
        for (int g = 0; g < L->n_gates; g++) pw[4 * (u + (size_t)g) + 2] = 1, pw[4 * (u + (size_t)g) + 3] = 0;
    }
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

static void release(cl_mem *b) {
  if (*b) clReleaseMemObject(*b);
  *b = NULL;
}

/* KERNELS 1: trainer_cpu.cl's VEC and groups (s->nwg, which also sizes
 * `partial`), and its scratch. */
static int cpu_configure(dlca_context *ctx, const dlca_train_config *cfg, cl_shape *s) {
  int rc;
  if ((rc = dlca__tunable(ctx, CPU_KFILE, "VEC", &s->vec))) return rc;
  if ((rc = dlca__tunable(ctx, CPU_KFILE, "CPU_GROUPS_PER_CU", &s->cpu_per_cu))) return rc;
  if (s->vec != 4 && s->vec != 8 && s->vec != 16)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned VEC = %d is not 4, 8 or 16", CPU_KFILE, s->vec);
  if (s->cpu_per_cu < 1 || s->cpu_per_cu > 64)
    return dlca__fail(DLCA_ECONFIG, "%s: tuned CPU_GROUPS_PER_CU = %d is not in [1, 64]", CPU_KFILE, s->cpu_per_cu);
  s->nwg = (int)cpu_groups(cfg, ctx->info.compute_units, s->cpu_per_cu, s->vec);
  s->scratch_floats = cpu_scratch_floats(s, s->vec);
  return DLCA_OK;
}

/* trainer_tile.cl's tile (TL cells, TWG threads) and groups per compute
 * unit (backward and forward; tile_groups() caps them at one per tile), and
 * whether the local memory of its forward step (with `backward`, of its
 * backward step) fits: into *fits, or with fits NULL as DLCA_ECONFIG naming
 * what does not. */
static int tile_configure(const dlca_context *ctx, cl_shape *s, int backward, int *fits) {
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
  size_t need = tile_fwd_local_floats(s);
  if (backward && tile_local_floats(s) > need) need = tile_local_floats(s);
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

static void cl_destroy(dlca_trainer *t) {
  cl_state *st = t->impl;
  if (!st) return;
  cl_kernel ks[] = {st->k_coef, st->k_start, st->k_fwd, st->k_bwd, st->k_adamw, st->k_eval, st->k_perc};
  for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
    if (ks[i]) clReleaseKernel(ks[i]);
  cl_mem *bs[] = {&st->coef_st, &st->gumbel, &st->params, &st->m, &st->v, &st->grad, &st->coef, &st->coef_hard,
                  &st->wires, &st->rev, &st->states, &st->hard[0], &st->hard[1], &st->g[0], &st->g[1], &st->dP[0],
                  &st->dP[1], &st->partial, &st->loss_partial, &st->loss, &st->eval_out, &st->target, &st->input,
                  &st->masks, &st->scratch, &st->flags, &st->dU, &st->rslot, &st->rcoef, &st->pwire, &st->gkey};
  for (size_t i = 0; i < sizeof bs / sizeof bs[0]; i++) release(bs[i]);
  if (st->pm) dlca_model_free(st->pm);
  free(st->pmap);
  for (int l = 0; l <= DLCA_MAX_LAYERS; l++) free(st->row[l]);
  free(st);
  t->impl = NULL;
}

/* Groups the device runs at once: compute units x groups per compute unit. */
static size_t slots_of(const dlca_context *ctx, int per_cu) {
  return (size_t)(ctx->info.compute_units ? ctx->info.compute_units : 1) * (size_t)per_cu;
}

/* dlca_backward's local bytes for cpw cells of act rows of `row` floats and
 * dact rows of `drow` floats each, as enqueue_backward passes them (under
 * BWD_PUSH: the planned row, no dact rows, and a 4-float placeholder dact
 * that the caller adds) */
static size_t backward_local(const dlca_trainer *t, const cl_shape *s, size_t cpw, size_t row, size_t drow) {
  size_t dout = cpw * s->C > (size_t)s->wg ? cpw * s->C : (size_t)s->wg;
  return (cpw * (row + drow + 9 * (size_t)s->C) + dout + 4 * (size_t)s->NGP * (t->cfg.relax.straight_through ? 2 : 1)) *
         sizeof(float);
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
static size_t plan_groups(const dlca_trainer *t, cl_shape *s, int per_cu, int cpw, int cpw_min) {
  const dlca_context *ctx = t->ctx;
  size_t local;
  for (;;) {
    local = backward_local(t, s, (size_t)cpw, s->act_floats, 2 * (size_t)s->dw);
    if (local <= ctx->info.local_mem || cpw == 1) break;
    cpw--;
  }
  const size_t cells = (size_t)t->cfg.batch * t->cfg.height * t->cfg.width, slots = slots_of(ctx, per_cu);
  while (cpw > cpw_min && (cells + (size_t)cpw - 1) / (size_t)cpw < slots)
    cpw = cpw / 2 < cpw_min ? cpw_min : cpw / 2;
  s->cpw = cpw;
  const size_t groups = (cells + (size_t)cpw - 1) / (size_t)cpw;
  s->nwg = (int)backward_groups(&t->cfg, ctx->info.compute_units, per_cu);
  if ((size_t)s->nwg > groups) s->nwg = (int)groups; /* no group without a cell */
  return local;
}

/* dlca_backward_perc's local floats for units of cpw cells: the K stacks'
 * patch-gradient columns of a unit's cells (also the staging of the sums'
 * flush), their patches and update-input gradients, the flush's parts and
 * the perception coefficients (twice under straight-through). */
static size_t perc_local_floats(const cl_shape *s, int cells_per_unit, int straight_through) {
  size_t cpw = (size_t)cells_per_unit, ck = (size_t)s->C * (size_t)s->K;
  return cpw * ck * 9 + cpw * 9 * (size_t)s->C + cpw * (size_t)s->uin + (size_t)s->wg +
         4 * (size_t)s->NGP * (straight_through ? 2 : 1) + (straight_through ? 0 : 4);
}

static int cl_init(dlca_trainer *t) {
  cl_state *st = calloc(1, sizeof *st);
  if (!st) return dlca__fail(DLCA_ENOMEM, "OpenCL trainer: out of host memory");
  t->impl = st;
  dlca_context *ctx = t->ctx;
  const dlca_model *m = t->model;
  cl_shape *s = &st->sh;
  shape_of(m, s);
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
  s->nwg_fwd = (int)backward_groups(&t->cfg, ctx->info.compute_units, fwd_per_cu);
  const size_t cells = (size_t)t->cfg.batch * t->cfg.height * t->cfg.width;
  const int tuned_per_cu = per_cu;
  size_t local = plan_groups(t, s, per_cu, cpw, cpw_min);
  /* WG_NARROW (trainer.cl): where the backward pass at WG would need more
   * groups than run at once, a narrow model (one perception stack and at
   * most two gates of its widest layer per thread) runs with fewer threads
   * per group and proportionally more groups per compute unit. H100
   * (doc/performance.md): checkerboard batch 2 1.17 -> 1.01 ms, batch 512
   * 147.8 -> 131.2 ms; growth (C K = 512) and checkerboard-async (98 groups)
   * keep WG, where 128 threads are 2.1x and 1.3x slower. */
  if (!s->kernels && wg_narrow > 0 && wg_narrow < s->wg && s->wg % wg_narrow == 0 && s->C * s->K <= wg_narrow &&
      s->gmax <= 2 * wg_narrow && (cells + (size_t)s->cpw - 1) / (size_t)s->cpw > slots_of(ctx, per_cu)) {
    per_cu *= s->wg / wg_narrow;
    s->wg = wg_narrow;
    local = plan_groups(t, s, per_cu, cpw, cpw_min);
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
              perc_local_floats(s, s->cpw, t->cfg.relax.straight_through) * sizeof(float) <= ctx->info.local_mem;
  /* PERC_SPLIT_GROUPS_PER_CU: the split's own backward groups per compute
   * unit (times WG / WG_NARROW where the narrow work-group is taken), since
   * its dlca_backward fits more of them (H200, checkerboard batch 512: 3,
   * in two rounds of 3) */
  if (s->psplit && split_per_cu > 0) {
    plan_groups(t, s, split_per_cu * (per_cu / tuned_per_cu), cpw, cpw_min);
    s->units = (cells + (size_t)s->cpw - 1) / (size_t)s->cpw;
  }
  /* BWD_PUSH: with the split only (its dU is the sum of the update input's
   * slots), where every slot index fits 16 bits and the group's local memory
   * with the planned rows (instead of act and dact) fits the device */
  if (s->psplit && push) {
    const size_t top = push_plan(m, s), row = top > s->act_floats ? top : s->act_floats;
    if (top && backward_local(t, s, (size_t)s->cpw, row, 0) + 4 * sizeof(float) <= ctx->info.local_mem)
      s->push = 1, s->pact = row;
  }
  /* BWD_BANKS: with the push, the device runs the model with each hidden
   * update layer's gates in a bank-aware order (bank_order.c); the noise
   * counters stay keyed by the model's gate indices (gkey) */
  if (s->push && banks) {
    if ((rc = dlca__bank_order_cached(ctx, m, bank_effort, st->row, NULL)) || (rc = reorder_model(t, st))) return rc;
  }
  /* PERC_SPLIT_UNIT_CELLS: the perception launch's own cells per unit (more
   * of them share its barriers and global-load round trips; 0: CPW),
   * lowered to what its local memory holds, never below CPW (which fits) */
  if (s->psplit) {
    s->cpwp = split_unit > s->cpw ? split_unit : s->cpw;
    while (s->cpwp > s->cpw &&
           perc_local_floats(s, s->cpwp, t->cfg.relax.straight_through) * sizeof(float) > ctx->info.local_mem)
      s->cpwp--;
  }
  /* TILE_CELLS: from that many cells per step on, the forward steps of the
   * GPU-shaped set are trainer_tile.cl's where its tile fits in local memory
   * (H100, doc/performance.md v9: 2.3x faster than dlca_forward at batch
   * 512; its backward step is not, and runs only with KERNELS 2) */
  if (s->kernels == 0 && tile_cells > 0 && cells >= (size_t)tile_cells) {
    int fits = 0;
    if ((rc = tile_configure(ctx, s, 0, &fits))) return rc;
    s->fwd_tile = fits;
  } else if (s->kernels == 2) {
    if ((rc = tile_configure(ctx, s, 1, NULL))) return rc;
    s->fwd_tile = 1, s->persist = 0;
    s->nwg = (int)tile_groups(&t->cfg, ctx->info.compute_units, s->tile_per_cu, s->tl);
    s->scratch_floats = s->act_floats * (size_t)s->tl;
  }
  if (s->fwd_tile) s->nwg_fwd = (int)tile_groups(&t->cfg, ctx->info.compute_units, s->tile_fwd_per_cu, s->tl);
  if (s->kernels == 1) {
    if ((rc = cpu_configure(ctx, &t->cfg, s))) return rc;
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
    size_t n = backward_groups(&t->cfg, ctx->info.compute_units, perc_per_cu * (per_cu / tuned_per_cu)),
           pu = (cells + (size_t)s->cpwp - 1) / (size_t)s->cpwp;
    s->nwg_perc = (int)(n < pu ? n : pu);
  }
  s->nslots = s->nwg > s->nwg_perc ? s->nwg : s->nwg_perc;
  size_t need = footprint(m, &t->cfg, s, (size_t)s->nslots);
  if (need > ctx->info.global_mem) {
    size_t fit = 0;
    dlca_train_config c = t->cfg;
    for (c.batch = 1;; c.batch *= 2) {
      const unsigned cu = ctx->info.compute_units;
      size_t g = s->kernels == 1   ? cpu_groups(&c, cu, s->cpu_per_cu, s->vec)
                 : s->kernels == 2 ? tile_groups(&c, cu, s->tile_per_cu, s->tl)
                                   : backward_groups(&c, cu, per_cu);
      if (footprint(m, &c, s, g) > ctx->info.global_mem) break;
      fit = (size_t)c.batch;
    }
    return dlca__fail(DLCA_EDEVMEM,
                      "training needs %.1f MiB of device memory, %s has %.1f MiB; a batch of %zu would fit",
                      need / 1048576.0, ctx->info.name, ctx->info.global_mem / 1048576.0, fit);
  }
  cl_program prog, step_prog = NULL;
  static const char *const fwd_names[] = {"dlca_forward", "dlca_forward_cpu", "dlca_forward_tile"};
  static const char *const bwd_names[] = {"dlca_backward", "dlca_backward_cpu", "dlca_backward_tile"};
  if ((rc = build(t, st, &prog, &step_prog))) return rc;
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
  if ((rc = upload_wiring(t, st))) return rc;
  if ((rc = upload_params(t, st->params, m->params, "logits"))) return rc;
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

static int cl_sync_target(dlca_trainer *t) {
  cl_state *st = t->impl;
  return dlca__upload(t->ctx, st->target, 0, t->grid * 4, t->target, "target");
}

static int cl_sync_input(dlca_trainer *t) {
  cl_state *st = t->impl;
  return dlca__upload(t->ctx, st->input, 0, t->grid * 4, t->input, "start grids");
}

static int cl_sync_masks(dlca_trainer *t) {
  cl_state *st = t->impl;
  if (!t->masks) return DLCA_OK;
  size_t n = (size_t)t->cfg.steps * t->cfg.batch * t->cfg.height * t->cfg.width;
  return dlca__upload(t->ctx, st->masks, 0, n, t->masks, "fire masks");
}

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
    LOCAL(&a, tile_fwd_tab_floats(s));
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
      LOCAL(&a, tile_dbuf_floats(s)), LOCAL(&a, (size_t)s->dw * (size_t)s->tl);
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
  argset a = {st->k_adamw, 0, 0};
  ARG(&a, st->params), ARG(&a, st->grad), ARG(&a, st->m), ARG(&a, st->v), ARG(&a, st->partial), ARG(&a, nwg);
  ARG(&a, st->loss_partial), ARG(&a, st->loss), ARG(&a, st->flags), ARG(&a, units), ARG(&a, lr), ARG(&a, b1);
  ARG(&a, b2), ARG(&a, eps), ARG(&a, wd);
  ARG(&a, clip), ARG(&a, bc1), ARG(&a, bc2), ARG(&a, st->gumbel), ARG(&a, r.use_gumbel), ARG(&a, r.key);
  ARG(&a, r.inv_tau), ARG(&a, gn_sigma), ARG(&a, st->gkey);
  int rc = arg_done(&a, "dlca_adamw");
  size_t ng = dlca__model_n_gates(t->model), lws = 64, gws = (ng + 63) / 64 * 64;
  return rc ? rc : dlca__launch(t->ctx, st->k_adamw, "adamw", 1, &gws, &lws);
}

static int cl_step(dlca_trainer *t) {
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
   * zero: cl_init, then dlca_adamw of each epoch), else one per step */
  if (st->sh.persist) {
    if (!rc) rc = enqueue_backward(t, T - 1);
  } else {
    for (int s = T - 1; s >= 0 && !rc; s--) rc = enqueue_backward(t, s);
  }
  if (!rc) rc = enqueue_adamw(t);
  return rc;
}

static int cl_loss(dlca_trainer *t, double *loss) {
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

static int cl_eval_hard(dlca_trainer *t, dlca_eval *out) {
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

static int cl_get_params(dlca_trainer *t, float *p) {
  return download_params(t, ((cl_state *)t->impl)->params, p, "logits");
}

static int cl_set_params(dlca_trainer *t, const float *p) {
  return upload_params(t, ((cl_state *)t->impl)->params, p, "logits");
}

static int cl_get_grad(dlca_trainer *t, float *g) {
  return download_params(t, ((cl_state *)t->impl)->grad, g, "gradient");
}

static int cl_get_state(dlca_trainer *t, int hard, float *s) {
  cl_state *st = t->impl;
  if (hard) return dlca__download(t->ctx, st->hard[st->hard_final], 0, t->grid * 4, s, "hard state");
  return dlca__download(t->ctx, st->states, (size_t)t->cfg.steps * t->grid * 4, t->grid * 4, s, "soft state");
}

static int cl_get_moments(dlca_trainer *t, float *m, float *v) {
  cl_state *st = t->impl;
  int rc = download_params(t, st->m, m, "Adam m");
  return rc ? rc : download_params(t, st->v, v, "Adam v");
}

static int cl_set_moments(dlca_trainer *t, const float *m, const float *v) {
  cl_state *st = t->impl;
  int rc = upload_params(t, st->m, m, "Adam m");
  return rc ? rc : upload_params(t, st->v, v, "Adam v");
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
    "cl",         cl_init,        cl_destroy,   cl_sync_target, cl_sync_input,  cl_sync_masks,
    cl_step,      cl_loss,        cl_eval_hard, cl_get_params,  cl_set_params,  cl_get_grad,
    cl_get_state, cl_get_moments, cl_set_moments,
};
