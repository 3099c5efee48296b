/* The trainer's OpenCL backend (lib/cl/trainer/, this header private to it): persistent device buffers and the epoch of
 * kernels-cl/trainer.cl (forward and backward steps from trainer_cpu.cl on
 * devices tuned with KERNELS 1, from trainer_tile.cl with KERNELS 2 or from
 * TILE_CELLS cells on), enqueued without a single blocking call.
 * Only the loss (when asked) and what the caller reads cross back to the
 * host. CPU twin: lib/ref/ref_trainer.c. Kernel design: doc/kernels.md. */
#ifndef DLCA_CL_TRAINER_CL_TRAINER_H
#define DLCA_CL_TRAINER_CL_TRAINER_H

#include "cl/bank_order.h"
#include "cl/runtime.h"
#include "cl/trainer_backend.h"

/* Functions shared between this folder's files are named dlca__clt_*: clt for
 * the OpenCL trainer. */
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
  int bwd_per_cu;              /* backward groups a compute unit, as planned (times WG / WG_NARROW) */
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
  cl_mem params, slots, grad, coef, coef_hard, wires, rev;
  /* (slots: the optimizer's state, t->n_slots slots of P floats in the
   * device's order, AdamW's m then v; a 4-byte placeholder with none) */
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
  /* A population's trainer group (group.c): the program is built with POP
   * (each kernel offsets its per-model buffers by model m = get_group_id(1)
   * times PS_<buffer>, and reads the per-model scalars from psc when its
   * pop_on argument is 1), and the buffers above are sub-buffers of the
   * group's. pop_m: models in dimension 1 of the launches (the group's
   * batched view of the state; 0 for a launch of one model). */
  struct dlca__clt_group *grp;
  cl_mem psc;
  int pop_m;
  /* The start grids [0] and the target [1] as last written without a wait
   * (upload.c): the trainer's copy the device reads from, and that read. */
  float *stage[2];
  cl_event stage_ev[2];
} cl_state;

/* One device buffer of the trainer: where it goes, its bytes (0: not
 * needed in this configuration), its name in errors, and its name in the
 * POP build options (PS_<id>: its stride in a group's buffer). */
typedef struct buf_spec {
  cl_mem *mem;
  size_t bytes;
  const char *what, *id;
} buf_spec;
#define CLT_MAX_BUFS 32

/* The tuned values the trainer reads (tunables.c): trainer.cl's, then
 * trainer_cpu.cl's (has_cpu) and trainer_tile.cl's (has_tile) where they
 * may run. */
typedef struct cl_tuned {
  int wg, per_cu, fwd_per_cu, cpw, cpw_min, wg_narrow, kernels, persist, pop_persist, pop_plan, pop_groups, tile_cells;
  int perc_split, split_per_cu, split_unit, perc_per_cu, push, bwd_tail, banks, bank_effort, bwd_maxnreg;
  int has_cpu, vec, cpu_per_cu;
  int has_tile, tl, twg, tile_per_cu, tile_fwd_per_cu, tfwd_stage, tv;
} cl_tuned;

/* ---- shape.c ---- */
int dlca__clt_push_slots(const dlca_layer *L, int fanout, int *fo, int *ov);
size_t dlca__clt_push_plan(const dlca_model *m, cl_shape *s);
void dlca__clt_shape_of(const dlca_model *m, cl_shape *s);

/* ---- footprint.c ---- */
size_t dlca__clt_backward_groups(const dlca_train_config *cfg, unsigned cu, int per_cu);
size_t dlca__clt_footprint(const dlca_model *m, const dlca_train_config *cfg, const cl_shape *s, size_t nwg);
size_t dlca__clt_cpu_scratch_floats(const cl_shape *s, int vec);
size_t dlca__clt_tile_fwd_tab_floats(const cl_shape *s);
size_t dlca__clt_tile_dbuf_floats(const cl_shape *s);
size_t dlca__clt_tile_local_floats(const cl_shape *s);
size_t dlca__clt_tile_fwd_local_floats(const cl_shape *s);
size_t dlca__clt_tile_groups(const dlca_train_config *cfg, unsigned cu, int per_cu, int tl);
size_t dlca__clt_cpu_groups(const dlca_train_config *cfg, unsigned cu, int per_cu, int vec);
size_t dlca__clt_backward_local(const dlca_trainer *t, const cl_shape *s, size_t cpw, size_t row, size_t drow);
size_t dlca__clt_perc_local_floats(const cl_shape *s, int cells_per_unit, int straight_through);
int dlca__clt_check_footprint(const dlca_trainer *t, const cl_shape *s);
int dlca__clt_check_host(const dlca_trainer *t, const cl_shape *s);
int dlca__clt_devmem_note(const dlca_trainer *t, const cl_shape *s);

/* ---- tunables.c ---- */
/* Reads the trainer's tunables and checks their ranges by hand. */
int dlca__clt_tunables(dlca_trainer *t, cl_tuned *u);

/* ---- plan.c ---- */
/* The launches' groups, cells and kernels set, fitted to the device; ends
 * with dlca__clt_check_footprint. */
int dlca__clt_plan(dlca_trainer *t, cl_state *st, const cl_tuned *u);

/* ---- order.c ---- */
const dlca_model *dlca__clt_device_model(const dlca_trainer *t);
int dlca__clt_reorder_model(dlca_trainer *t, cl_state *st);
int dlca__clt_upload_params(dlca_trainer *t, cl_mem buf, const float *ext, const char *what);
int dlca__clt_download_params(dlca_trainer *t, cl_mem buf, float *ext, const char *what);
/* The same for P floats at float offset `at` of buf (the state slots). */
int dlca__clt_upload_params_at(dlca_trainer *t, cl_mem buf, size_t at, const float *ext, const char *what);
int dlca__clt_download_params_at(dlca_trainer *t, cl_mem buf, size_t at, float *ext, const char *what);

/* ---- build.c ---- */
int dlca__clt_build(dlca_trainer *t, cl_state *st, cl_program *prog, cl_program *step_prog);
int dlca__clt_kernels(dlca_trainer *t, cl_state *st);

/* ---- buffers.c ---- */
void dlca__clt_destroy(dlca_trainer *t);
/* Every buffer of st (pointers into st), in the order they are allocated;
 * returns how many. */
int dlca__clt_buf_specs(const dlca_trainer *t, cl_state *st, buf_spec *out);
int dlca__clt_alloc_buffers(dlca_trainer *t, cl_state *st);

/* ---- upload.c ---- */
int dlca__clt_upload_wiring(dlca_trainer *t, cl_state *st);
int dlca__clt_upload_initial(dlca_trainer *t, cl_state *st);
int dlca__clt_sync_target(dlca_trainer *t);
int dlca__clt_sync_input(dlca_trainer *t);
/* Waits for the device's read of the start grids (k 0) or target (k 1)
 * written without a wait (upload.c). */
int dlca__clt_stage_wait(cl_state *st, int k);
int dlca__clt_sync_masks(dlca_trainer *t);

/* ---- enqueue.c ---- */
int dlca__clt_step(dlca_trainer *t);
int dlca__clt_loss(dlca_trainer *t, double *loss);
int dlca__clt_eval_hard(dlca_trainer *t, dlca_eval *out);
/* The loss from the loss buffer's two words (the status word checked), and
 * the evaluation from dlca_eval's two. */
int dlca__clt_loss_of(const dlca_trainer *t, const float *l, double *loss);
void dlca__clt_eval_of(const dlca_trainer *t, const float *r, dlca_eval *out);

/* ---- group.c ---- */
/* Slot t->slot of t->group for every buffer of st (the group's buffers
 * made at its first trainer, whose sizes every later one must have). */
int dlca__clt_group_alloc(dlca_trainer *t, cl_state *st, const buf_spec *b, int n);
/* The POP build options of t's group: -DPOP=1 and every buffer's stride. */
int dlca__clt_group_options(dlca_trainer *t, cl_state *st, char *opts, size_t cap);
/* The stride of the group's buffer b (one of its parents; 0 for none). */
size_t dlca__clt_group_stride_of(const struct dlca__clt_group *g, cl_mem b);
/* Bytes of every model's buffer `id` together (M times its stride). */
size_t dlca__clt_group_span(const struct dlca__clt_group *g, const char *id);
/* BWD_PERSIST in a batched view (POP_PERSIST): each active member's
 * one-launch backward pass on its own slot. */
int dlca__clt_group_backward_each(struct dlca__clt_group *g);
/* DLCA_START_UPLOAD in a batched view: each model's start grids into dst. */
int dlca__clt_group_copy_start(dlca_trainer *t, cl_state *st, cl_mem dst);

/* ---- enqueue.c ---- */
/* The steps of one epoch and of one hard evaluation on st (the trainer's,
 * or a group's batched view whose scalars are in st->psc). */
int dlca__clt_enqueue_step(dlca_trainer *t, cl_state *st);
int dlca__clt_enqueue_eval(dlca_trainer *t, cl_state *st);
/* One backward launch of step `step` on st (with BWD_PERSIST: every step). */
int dlca__clt_enqueue_backward(dlca_trainer *t, cl_state *st, int step);
/* The per-model scalars of t's next launch (POP_WORDS words, kernels-cl/trainer/common.cl's
 * POP_* indices): the epoch key, active, lr, bias corrections, gradient noise, 1/tau, the suite's scalars. */
#define POP_WORDS 32
void dlca__clt_pop_scalars(const dlca_trainer *t, int active, cl_uint *w);

/* ---- ops.c ---- */
int dlca__clt_init(dlca_trainer *t);

#endif
