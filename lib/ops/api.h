/* Shared by the public ops (lib/ops/api*.c) and the tape (lib/ops/tape.c). Internal. */
#ifndef DLCA_OPS_API_H
#define DLCA_OPS_API_H
#include "dlca_cl/ops.h"
#include "ops/cl_elementwise.h"
#include "ops/ref_conv.h"

/* *ctx = the context of the first tensor of t[0..n) that is not NULL; then
 * each t[i] must belong to it (DLCA_EINVAL "fn: names[i]: ..."). A NULL
 * t[i] is refused unless bit i of optional is set. */
int dlca__api_ctx(const char *fn, dlca_context **ctx, int n, const dlca_tensor *const *t, const char *const *names,
                  unsigned optional);
/* dlca__api_ctx for a forward op, whose t[n-1] is the output: where a tape
 * records ctx, also DLCA_EINVAL if the output is one of the op's inputs or
 * a tensor an earlier record holds (its gradients would be wrong). */
int dlca__api_fwd(const char *fn, dlca_context **ctx, int n, const dlca_tensor *const *t, const char *const *names,
                  unsigned optional);
/* The tape check alone (lib/ops/tape.c). */
int dlca__tape_check(dlca_context *ctx, const char *fn, int n, const dlca_tensor *const *t);
/* DLCA_EINVAL "fn: name has shape [..], expected [..]" unless t has shape want. */
int dlca__api_shape(const char *fn, const char *name, const dlca_tensor *t, const dlca__shape *want);
/* The twin's reduce mask and y's shape from the public axes (naxes 0: every axis). */
int dlca__api_reduce_plan(const char *fn, const dlca_tensor *x, const int *axes, int naxes, int keepdim, unsigned *mask,
                          dlca__shape *ys);
/* The twin's movement of a public one. */
int dlca__api_move(const char *fn, const dlca_movement *m, dlca__move *out);

/* The sizes of y = op(a) op(b), per batch, for a and b of rank 2 or 3 (a strided batch). */
typedef struct dlca__gemm_plan {
  size_t batch, m, n, k;
  int a3, b3; /* a, b of rank 3 */
} dlca__gemm_plan;
int dlca__api_gemm_plan(const char *fn, int ta, int tb, const dlca_tensor *a, const dlca_tensor *b, dlca__gemm_plan *p,
                        dlca__shape *ys);
/* da, db, dc (each may be NULL) of y = alpha op(a) op(b) + beta c, given dy; enqueues only. */
int dlca__api_gemm_grads(dlca_context *ctx, const dlca__gemm_plan *p, int ta, int tb, float alpha, float beta,
                         const dlca_tensor *a, const dlca_tensor *b, const dlca_tensor *dy, dlca_tensor *da,
                         dlca_tensor *db, dlca_tensor *dc);
/* dx, dw, db (dx, db may be NULL) of y = act(x w^T + b), given y and dy (untouched: dz is scratch). */
int dlca__api_dense_grads(dlca_context *ctx, int act, const dlca_tensor *x, const dlca_tensor *w, const dlca_tensor *y,
                          const dlca_tensor *dy, dlca_tensor *dx, dlca_tensor *dw, dlca_tensor *db);

/* dx = dy's elements in dx's shape (the counts checked by the caller). */
int dlca__api_reshape_grad(dlca_context *ctx, const dlca_tensor *dy, dlca_tensor *dx);

/* One recorded op: its kind, function, inputs, output and arguments. */
typedef enum {
  DLCA__T_unary,
  DLCA__T_binary,
  DLCA__T_reduce,
  DLCA__T_move,
  DLCA__T_mse,
  DLCA__T_xent,
  DLCA__T_gemm,
  DLCA__T_dense,
  DLCA__T_conv,
  DLCA__T_pool,
  DLCA__T_reshape
} dlca__tape_kind;
typedef struct dlca__tape_rec {
  dlca__tape_kind kind;
  int fn;                   /* the function, or dense's activation */
  const dlca_tensor *in[3]; /* NULL where absent (gemm's c, dense's b) */
  const dlca_tensor *out;
  unsigned mask;     /* reduce */
  dlca__move move;   /* movement */
  float alpha, beta; /* gemm */
  int ta, tb;        /* gemm */
  dlca__conv2d conv; /* conv2d */
  int k, s;          /* pool2d */
} dlca__tape_rec;
/* Appends r to the calling thread's begun tape where it records ctx (else nothing). */
int dlca__tape_record(dlca_context *ctx, const dlca__tape_rec *r);
#endif
