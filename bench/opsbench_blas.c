/* dlca-opsbench's gemm and dense suites (bench/opsbench_suites.h): SGEMM
 * through CLBlast at n x n x n, and the dense layer 64 -> 128 + ReLU at
 * batch 32, on random float32 data. */
#include <stdio.h>
#include <stdlib.h>

#include "ops/cl_blas.h"
#include "opsbench_suites.h"

/* A tensor of the given shape filled with values in [-1, 1) from a fixed LCG. */
static int random_tensor(dlca_context *ctx, int rank, const size_t *shape, uint64_t seed, dlca_tensor **t) {
  int rc = dlca_tensor_new(ctx, rank, shape, t);
  if (rc) return rc;
  size_t n = dlca_tensor_numel(*t);
  float *f = malloc(sizeof(float) * (n ? n : 1));
  if (!f) return dlca__fail(DLCA_ENOMEM, "out of host memory for %zu floats", n);
  for (size_t i = 0; i < n; i++) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    f[i] = (float)((double)(seed >> 40) / (double)(1ULL << 23) - 1.0);
  }
  rc = dlca_tensor_upload(*t, f, n);
  free(f);
  return rc;
}

typedef struct gemm_call {
  dlca_context *ctx;
  dlca__gemm g;
  dlca_tensor *a, *b, *c;
} gemm_call;

static int gemm_once(void *p) {
  gemm_call *c = p;
  return dlca__ops_cl_gemm(c->ctx, &c->g, c->a->buf, c->b->buf, c->c->buf);
}

int ob_suite_gemm(ob_bench *b) {
  for (int i = 0; i < b->n_sizes; i++) {
    size_t n = (size_t)b->sizes[i], shape[2] = {n, n};
    gemm_call c = {b->ctx, {0, 0, n, n, n, 1.0f, 0.0f, n, n, n, 0, 0, 0, 1, 0, 0, 0}, NULL, NULL, NULL};
    double med, min;
    int rc = random_tensor(b->ctx, 2, shape, 1, &c.a);
    if (!rc) rc = random_tensor(b->ctx, 2, shape, 2, &c.b);
    if (!rc) rc = dlca_tensor_new(b->ctx, 2, shape, &c.c);
    if (!rc) rc = ob_time(b, gemm_once, &c, &med, &min);
    dlca_tensor_free(c.a), dlca_tensor_free(c.b), dlca_tensor_free(c.c);
    if (rc) return rc;
    char name[64];
    snprintf(name, sizeof name, "sgemm_%zu", n);
    /* 2 n^3 flops; A and B read, C written once (beta 0) */
    ob_add(b, "gemm", name, med, min, 2.0 * (double)n * n * n, 3.0 * 4.0 * (double)n * n);
  }
  return DLCA_OK;
}

typedef struct dense_call {
  dlca_context *ctx;
  dlca_tensor *x, *w, *bias, *y, *dy, *dx, *dw, *db;
} dense_call;

static int dense_fwd(void *p) {
  dense_call *c = p;
  return dlca__ops_cl_dense(c->ctx, DLCA__ACT_relu, c->x, c->w, c->bias, c->y);
}

static int dense_fwd_bwd(void *p) {
  dense_call *c = p;
  int rc = dense_fwd(p);
  return rc ? rc
            : dlca__ops_cl_dense_backward(c->ctx, DLCA__ACT_relu, c->x, c->w, c->y, c->dy, c->dy, c->dx, c->dw,
                                          c->db);
}

int ob_suite_dense(ob_bench *b) {
  const size_t N = 32, in = 64, out = 128;
  size_t xs[2] = {N, in}, ws[2] = {out, in}, bs[1] = {out}, ys[2] = {N, out};
  dense_call c = {b->ctx, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  int rc = random_tensor(b->ctx, 2, xs, 3, &c.x);
  if (!rc) rc = random_tensor(b->ctx, 2, ws, 4, &c.w);
  if (!rc) rc = random_tensor(b->ctx, 1, bs, 5, &c.bias);
  if (!rc) rc = dlca_tensor_new(b->ctx, 2, ys, &c.y);
  if (!rc) rc = random_tensor(b->ctx, 2, ys, 6, &c.dy);
  if (!rc) rc = dlca_tensor_new(b->ctx, 2, xs, &c.dx);
  if (!rc) rc = dlca_tensor_new(b->ctx, 2, ws, &c.dw);
  if (!rc) rc = dlca_tensor_new(b->ctx, 1, bs, &c.db);
  double med, min, mac = (double)N * in * out, fb = 4.0 * (N * in + out * in + out + N * out);
  if (!rc && !(rc = ob_time(b, dense_fwd, &c, &med, &min)))
    ob_add(b, "dense", "dense_64x128_relu_b32_fwd", med, min, 2 * mac + 2.0 * N * out, fb);
  /* the backward: dz (y, dy read, dz written), dx and dW GEMMs, db */
  double bb = 4.0 * (3.0 * N * out + 2.0 * N * in + 2.0 * out * in + out);
  if (!rc && !(rc = ob_time(b, dense_fwd_bwd, &c, &med, &min)))
    ob_add(b, "dense", "dense_64x128_relu_b32_fwd_bwd", med, min, 6 * mac + 4.0 * N * out, fb + bb);
  dlca_tensor *all[] = {c.x, c.w, c.bias, c.y, c.dy, c.dx, c.dw, c.db};
  for (int i = 0; i < 8; i++) dlca_tensor_free(all[i]);
  return rc;
}
