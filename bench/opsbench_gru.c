/* dlca-opsbench's gru and rsvd suites (bench/opsbench_suites.h), at issue 33's
 * sizes: a GRU of batch 32, input 128, hidden 256 over 10 steps (forward,
 * forward + backward, a 5-GRU ensemble sharing its input, a cell called 10
 * times from the host; the cell through the GEMM and the sequences with their
 * projection fused, GRU_FUSED_T 0 and 10; GRU_SPLIT 64, every member split,
 * alone and with GRU_FUSED_T 10; the plain rows at the default GRU_SPLIT 1:
 * the single GRU split, the ensemble not), and the randomized SVD (oversampling 10, 2 power
 * iterations) of 1024 x 1024 and 4096 x 4096 at rank 32 and 8192 x 2048 at
 * rank 64, on random float32 data; the rSVD with its products by
 * dlca_rsvd_amul (RSVD_GEMM 1, the default), then by CLBlast (RSVD_GEMM 0,
 * rows ending in _clblast). */
#include <stdio.h>
#include <stdlib.h>

#include "ops/cl_gru.h"
#include "opsbench_suites.h"

enum { X, H0, WI, WH, BI, BH, Y, HN, DY, DX, DH0, DWI, DWH, DBI, DBH, NT };

typedef struct gru_call {
  dlca_context *ctx;
  dlca__gru_cfg c;
  dlca_tensor *t[NT];
  dlca_tensor *h[2]; /* the cell loop's states */
  dlca__gru_tape *tape;
} gru_call;

/* n floats in [-scale, scale) from a fixed LCG. */
static int filled(dlca_context *ctx, size_t n, float scale, uint64_t seed, dlca_tensor **t) {
  int rc = dlca_tensor_new(ctx, 1, &n, t);
  float *f = rc ? NULL : malloc(sizeof(float) * n);
  if (!rc && !f) rc = dlca__fail(DLCA_ENOMEM, "out of host memory for %zu floats", n);
  for (size_t i = 0; !rc && i < n; i++) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    f[i] = scale * (float)((double)(seed >> 40) / (double)(1ULL << 23) - 1.0);
  }
  if (!rc) rc = dlca_tensor_upload(*t, f, n);
  free(f);
  return rc;
}

static int gru_setup(dlca_context *ctx, gru_call *g, size_t M, size_t T) {
  size_t B = 32, D = 128, H = 256, G = 3 * H;
  g->ctx = ctx, g->c = (dlca__gru_cfg){M, 1, {B, T, D, H}}, g->tape = NULL;
  const size_t n[NT] = {B * T * D,     M * B * H, M * G * D, M * G * H, M * G,     M * G, M * B * T * H, M * B * H,
                        M * B * T * H, B * T * D, M * B * H, M * G * D, M * G * H, M * G, M * G};
  int rc = DLCA_OK;
  for (int i = 0; i < NT; i++) g->t[i] = NULL;
  for (int i = 0; !rc && i < NT; i++)
    rc = filled(ctx, n[i], i >= WI && i <= BH ? 0.1f : 1.0f, 10 + (uint64_t)i, &g->t[i]);
  g->h[0] = g->t[H0], g->h[1] = g->t[HN];
  return rc ? rc : dlca__gru_tape_new(ctx, &g->c, &g->tape);
}

static void gru_free(gru_call *g) {
  for (int i = 0; i < NT; i++) dlca_tensor_free(g->t[i]);
  dlca__gru_tape_free(g->tape);
}

static int gru_fwd(void *p) {
  gru_call *g = p;
  dlca__gru_cl_w w = {g->t[WI], g->t[WH], g->t[BI], g->t[BH]};
  return dlca__ops_cl_gru_forward(g->ctx, &g->c, &w, g->t[X], g->t[H0], g->t[Y], g->t[HN], g->tape);
}

static int gru_fwd_bwd(void *p) {
  gru_call *g = p;
  dlca__gru_cl_w w = {g->t[WI], g->t[WH], g->t[BI], g->t[BH]};
  dlca__gru_cl_dw dw = {g->t[DWI], g->t[DWH], g->t[DBI], g->t[DBH]};
  int rc = gru_fwd(p);
  return rc ? rc
            : dlca__ops_cl_gru_backward(g->ctx, &g->c, &w, g->t[X], g->tape, g->t[DY], NULL, g->t[DX], g->t[DH0], &dw);
}

/* A cell (T = 1) stepped 10 times from the host, its state ping-ponging. */
static int cell_loop(void *p) {
  gru_call *g = p;
  dlca__gru_cl_w w = {g->t[WI], g->t[WH], g->t[BI], g->t[BH]};
  int rc = DLCA_OK;
  for (int t = 0; !rc && t < 10; t++)
    rc = dlca__ops_cl_gru_forward(g->ctx, &g->c, &w, g->t[X], g->h[t & 1], g->h[(t + 1) & 1], NULL, g->tape);
  return rc;
}

/* One case: set up, time, add the row. flops and bytes per call. */
static int gru_case(ob_bench *b, size_t M, size_t T, int (*call)(void *), const char *name, double flops,
                    double bytes) {
  gru_call g;
  double med, min;
  int rc = gru_setup(b->ctx, &g, M, T);
  if (!rc && !(rc = ob_time(b, call, &g, &med, &min))) ob_add(b, "gru", name, med, min, flops, bytes);
  gru_free(&g);
  return rc;
}

int ob_suite_gru(ob_bench *b) {
  double B = 32, D = 128, H = 256, T = 10, G = 3 * H;
  double fwd = 2 * B * T * D * G + T * 2 * B * H * G, w = 4 * (G * D + G * H + 2 * G);
  double io = 4 * (B * T * D + B * H + B * T * H);
  int rc;
  if ((rc = gru_case(b, 1, 10, gru_fwd, "gru_b32_d128_h256_t10_fwd", fwd, w + io)) ||
      (rc = gru_case(b, 1, 10, gru_fwd_bwd, "gru_b32_d128_h256_t10_fwd_bwd", 3 * fwd, 3 * (w + io))) ||
      (rc = gru_case(b, 5, 10, gru_fwd, "gru_ens5_b32_d128_h256_t10_fwd", 5 * fwd, 5 * w + io)) ||
      (rc = gru_case(b, 5, 10, gru_fwd_bwd, "gru_ens5_b32_d128_h256_t10_fwd_bwd", 15 * fwd, 15 * w + 3 * io)))
    return rc;
  if ((rc = gru_case(b, 1, 1, cell_loop, "grucell_b32_d128_h256_x10_host", fwd, 10 * w + io))) return rc;
  /* GRU_FUSED_T 0: the cell through the GEMM; 10: the sequence's projection inside its step kernels */
  if ((rc = dlca__tuning_override(b->ctx, "ops.cl", "GRU_FUSED_T", 0)) ||
      (rc = gru_case(b, 1, 1, cell_loop, "grucell_b32_d128_h256_x10_host_gemm", fwd, 10 * w + io)) ||
      (rc = dlca__tuning_override(b->ctx, "ops.cl", "GRU_FUSED_T", 10)) ||
      (rc = gru_case(b, 1, 10, gru_fwd, "gru_b32_d128_h256_t10_fwd_fused", fwd, w + io)) ||
      (rc = gru_case(b, 5, 10, gru_fwd, "gru_ens5_b32_d128_h256_t10_fwd_fused", 5 * fwd, 5 * w + io)) ||
      (rc = dlca__tuning_override(b->ctx, "ops.cl", "GRU_FUSED_T", 1)))
    return rc;
  /* GRU_SPLIT 64: the steps of the ensemble too as dlca_gru_step_split */
  if ((rc = dlca__tuning_override(b->ctx, "ops.cl", "GRU_SPLIT", 64)) ||
      (rc = gru_case(b, 1, 10, gru_fwd, "gru_b32_d128_h256_t10_fwd_split", fwd, w + io)) ||
      (rc = gru_case(b, 5, 10, gru_fwd, "gru_ens5_b32_d128_h256_t10_fwd_split", 5 * fwd, 5 * w + io)) ||
      (rc = gru_case(b, 1, 1, cell_loop, "grucell_b32_d128_h256_x10_host_split", fwd, 10 * w + io)) ||
      (rc = dlca__tuning_override(b->ctx, "ops.cl", "GRU_FUSED_T", 10)) ||
      (rc = gru_case(b, 1, 10, gru_fwd, "gru_b32_d128_h256_t10_fwd_fused_split", fwd, w + io)) ||
      (rc = gru_case(b, 5, 10, gru_fwd, "gru_ens5_b32_d128_h256_t10_fwd_fused_split", 5 * fwd, 5 * w + io)) ||
      (rc = dlca__tuning_override(b->ctx, "ops.cl", "GRU_FUSED_T", 1)))
    return rc;
  return dlca__tuning_override(b->ctx, "ops.cl", "GRU_SPLIT", 1);
}

typedef struct rsvd_call {
  dlca_context *ctx;
  dlca__rsvd p;
  dlca_tensor *a, *u, *s, *v;
} rsvd_call;

static int rsvd_once(void *p) {
  rsvd_call *r = p;
  return dlca__ops_cl_rsvd(r->ctx, &r->p, r->a, r->u, r->s, r->v, NULL);
}

/* One size: A and the outputs, then the timed calls with the products by dlca_rsvd_amul (own 1) or CLBlast (own 0,
 * the row's name ending in _clblast). */
static int rsvd_size(ob_bench *b, size_t m, size_t n, size_t k, int own) {
  size_t l = k + 10, shape[2] = {m, n};
  rsvd_call r = {b->ctx, {k, 10, 2, 1}, NULL, NULL, NULL, NULL};
  dlca_tensor *flat = NULL;
  double med, min;
  int rc = dlca__tuning_override(b->ctx, "ops.cl", "RSVD_GEMM", own);
  if (!rc) rc = filled(b->ctx, m * n, 1.0f, 7, &flat);
  if (!rc) rc = dlca_tensor_new(b->ctx, 2, shape, &r.a);
  if (!rc && clEnqueueCopyBuffer(b->ctx->queue, flat->buf, r.a->buf, 0, 0, 4 * m * n, 0, NULL, NULL) != CL_SUCCESS)
    rc = dlca__fail(DLCA_ECL, "rsvd suite: copying A");
  if (!rc) rc = filled(b->ctx, m * k, 1, 8, &r.u);
  if (!rc) rc = filled(b->ctx, k, 1, 9, &r.s);
  if (!rc) rc = filled(b->ctx, n * k, 1, 10, &r.v);
  if (!rc) rc = ob_time(b, rsvd_once, &r, &med, &min);
  char name[64];
  snprintf(name, sizeof name, "rsvd_%zux%zu_k%zu_p10_q2%s", m, n, k, own ? "" : "_clblast");
  /* 6 products with A (2 m n l each) dominate; A read 6 times */
  if (!rc) ob_add(b, "rsvd", name, med, min, 12.0 * m * n * l, 24.0 * m * n);
  dlca_tensor_free(flat), dlca_tensor_free(r.a), dlca_tensor_free(r.u), dlca_tensor_free(r.s), dlca_tensor_free(r.v);
  return rc;
}

int ob_suite_rsvd(ob_bench *b) {
  static const size_t sz[3][3] = {{1024, 1024, 32}, {4096, 4096, 32}, {8192, 2048, 64}};
  int rc = DLCA_OK;
  for (int i = 0; !rc && i < 6; i++) rc = rsvd_size(b, sz[i % 3][0], sz[i % 3][1], sz[i % 3][2], i < 3);
  int rc2 = dlca__tuning_override(b->ctx, "ops.cl", "RSVD_GEMM", 1);
  return rc ? rc : rc2;
}
