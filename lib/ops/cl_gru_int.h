/* What lib/ops/cl_gru*.c share: the tape's buffers and the launch helpers
 * of kernels-cl/ops/gru.cl. Internal. */
#ifndef DLCA_OPS_CL_GRU_INT_H
#define DLCA_OPS_CL_GRU_INT_H
#include "ops/cl_gru.h"

/* The program of ops.cl and gru.cl's tunables as built into it. */
typedef struct dlca__gru_tuned_t {
  cl_program prog;
  int tj, tb, wg, fused_t, split, sj, sb, sks;
} dlca__gru_tuned_t;

struct dlca__gru_tape {
  dlca_context *ctx;
  dlca__gru_cfg c;
  cl_mem gi;               /* the input projection [B T, M 3H] or [M, B T, 3H]; the backward's dgi */
  cl_mem hs;               /* [M, T+1, B, H] */
  cl_mem gates;            /* [M, T, B, 4H] */
  cl_mem dgh;              /* [M, T, B, 3H] */
  cl_mem dhd;              /* [M, T, B, H] */
  int kept;                /* a forward wrote the gates */
};

/* 1 for the shared-input layout (x_shared or M = 1): one GEMM against the stacked W_ih. */
int dlca__gru_shared(const dlca__gru_cfg *c);
int dlca__gru_cfg_check(const dlca__gru_cfg *c, const char *fn);
int dlca__gru_weights_check(dlca_context *ctx, const dlca__gru_cfg *c, const dlca__gru_cl_w *w, const char *fn);
/* DLCA_EINVAL unless t (of ctx) holds n elements, naming fn and what. */
int dlca__gru_count(dlca_context *ctx, const dlca_tensor *t, size_t n, const char *fn, const char *what);
/* The kernel `name` of gru.cl and its work-group: (GRU_TJ, GRU_TB, 1), or (GRU_WG, 1, 1) where flat. */
/* The program and tunables, from the context's memo (lib/cl/memo.c). */
int dlca__gru_tuned(dlca_context *ctx, dlca__gru_tuned_t *v);
/* The kernel from the context's pool: hand it back with dlca__memo_kernel_put. */
int dlca__gru_kernel(dlca_context *ctx, const char *name, int flat, cl_kernel *k, size_t *lws);
int dlca__gru_set_args(cl_kernel k, const char *name, int nargs, const size_t *sizes, const void *const *args);
/* A flat kernel over n items, released after. */
int dlca__gru_flat_launch(dlca_context *ctx, const char *name, size_t n, int nargs,
                          const size_t *sizes, const void *const *args);
/* The step kernels' grid: hidden units x batch rows x members. */
void dlca__gru_step_grid(const dlca__gru_cfg *c, const size_t *lws, size_t *gws);
/* The strides of gi and dgi in floats: per member, per row (b, t). */
void dlca__gru_gi_strides(const dlca__gru_cfg *c, cl_uint *gm, cl_uint *grow);
#endif
