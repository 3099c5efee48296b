/* The optimizer on the device (dlca_cl/optim.h, issue 32): its object and
 * the block tables its launches walk (kernels-cl/optim/step.cl). Internal. */
#ifndef DLCA_OPTIM_CL_INTERNAL_H
#define DLCA_OPTIM_CL_INTERNAL_H
#include "cl/runtime.h"
#include "ops/tensor.h"
#include "optim/internal.h"

/* Buffer pairs a launch takes (step.cl's OPTIM_CHUNK). */
#define DLCA__OPTIM_CHUNK 8
/* Elements a work-group updates: a block never crosses a tensor. */
#define DLCA__OPTIM_BLOCK 2048

/* One block: the pair it reads (0..CHUNK-1), its first element in that
 * buffer, its first element in each state slot, its element count. */
typedef struct dlca__optim_block {
  cl_ulong slot, off, soff, count;
} dlca__optim_block;

/* A sequence of launches over a table: launch j runs blocks
 * first[j] .. first[j + 1] - 1 of the device table. */
typedef struct dlca__optim_plan {
  size_t n_launches;
  size_t *first; /* n_launches + 1 */
  size_t *tensor0; /* launch j's pairs are tensors tensor0[j] .. + CHUNK - 1 */
} dlca__optim_plan;

struct dlca_optim_cl {
  dlca_context *ctx;
  dlca_optimizer *host; /* the twin's bookkeeping: config, steps, sizes, offsets;
                           its state array stages save and load */
  size_t n;
  cl_mem state;   /* n_slots * total floats, the twin's layout (1 float without slots) */
  cl_mem table;   /* the plain plan's blocks, then the group plan's */
  cl_mem partial; /* a sum of squares per block (clip_grad_norm) */
  cl_mem norm;    /* the last norm and its scale */
  int fp64;       /* the device sums in double (else Kahan float) */
  size_t wg;
  dlca__optim_plan plain, group;
  int has_group;       /* the params were one group at creation */
  cl_mem group_parent; /* their buffer */
  size_t *group_off;   /* each member's offset there, in floats */
  cl_kernel k_step, k_sumsq, k_norm, k_scale, k_clamp;
  cl_kernel k_flat; /* the step over one flat range (step.cl's dlca_optim_*_flat) */
  /* The device state's layout: slot stride ss (a multiple of 4), tensor i
   * from dev_off[i]; a tiled group keeps its gaps there too, so that one
   * flat launch steps the whole group. Save and load map it to the twin's. */
  size_t ss, *dev_off;
  int tiled;        /* the params are a group in dlca_tensor_group_new's layout */
  size_t flat_span; /* a tiled group's elements, first member to last, gaps included */
  cl_mem flat_p, flat_g; /* k_flat's buffers, base and count as last set */
  size_t flat_base, flat_n;
  dlca__optim_scalars flat_k; /* k_flat's scalars as last set (SGD's stay the same after step 1) */
  int flat_k_set;
  /* dlca__optim_cl_grouped's caches, of the params and of the grads */
  cl_mem *cache_p, *cache_g;
  double last_max_norm; /* of the last clip_grad_norm: < 0 none yet */
  cl_mem pairs_set[4][2]; /* the parents the pairs of step, sumsq, scale, clamp hold (cl_step.c) */
};

/* Which tensors a launch reads: the group's parents, or each chunk's buffers. */
typedef struct dlca__optim_bufs {
  int grouped;
  cl_mem p_parent, g_parent;
  dlca_tensor *const *p; /* NULL: the kernel takes gradients only */
  const dlca_tensor *const *g;
} dlca__optim_bufs;

/* Tests only: nonzero makes new optimizers sum the norm in Kahan float, as
 * on a device without cl_khr_fp64. */
extern int dlca__optim_cl_no_fp64;

/* The block tables (cl_plan.c): both plans, the table uploaded. */
int dlca__optim_cl_plans(dlca_optim_cl *o, dlca_tensor *const *params);
void dlca__optim_cl_plans_free(dlca_optim_cl *o);
/* DLCA_EINVAL unless the n tensors are of ctx and of the optimizer's sizes. */
int dlca__optim_cl_check(dlca_optim_cl *o, const dlca_tensor *const *t, const char *what);
/* Whether the n tensors are the members of one group laid out as the
 * params at creation; *parent gets its buffer. cache (n + 1 entries: the
 * buffers last seen, then the answer) saves the queries a step. */
int dlca__optim_cl_grouped(dlca_optim_cl *o, const dlca_tensor *const *t, cl_mem *cache, cl_mem *parent);
/* Runs k once per launch of the plan that b selects: the buffers in args
 * 0..7 (p) and 8..15 (g), or 0..7 (g) where b->p is NULL, and the
 * launch's first block in arg first_arg. The other arguments are set. */
int dlca__optim_cl_walk(dlca_optim_cl *o, cl_kernel k, const char *name, const dlca__optim_bufs *b,
                        cl_uint first_arg);
/* The kernels' arguments that stay for the optimizer's life (its buffers, flags). */
int dlca__optim_cl_fixed_args(dlca_optim_cl *o);
/* The step kernel of an optimizer kind, and its flat form. */
const char *dlca__optim_cl_step_name(int kind);
const char *dlca__optim_cl_flat_name(int kind);
/* The kernel's argument i; DLCA_ECL naming the kernel. */
int dlca__optim_cl_arg(cl_kernel k, const char *name, cl_uint i, size_t size, const void *v);
#endif
