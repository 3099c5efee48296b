/* dlca-opsbench's conv suite (bench/opsbench_suites.h): conv2d 3x3, stride
 * 1, padding 1, with bias, forward and forward + backward (dx, dw, db), on
 * random float32 data with the scratch allocated once (as a trainer does):
 * the digits CNN's second layer (N 64, C 16, 8x8, O 32) and a larger one
 * (N 64, C 32, 32x32, O 64). Floors: 2 N O OH OW C KH KW flops forward, three
 * times that with the backward; the bytes of the tensors read and written once. */
#include <stdio.h>
#include <stdlib.h>

#include "ops/cl_conv.h"
#include "opsbench_suites.h"

static int random_tensor(dlca_context *ctx, const size_t *shape, int rank, uint64_t seed, dlca_tensor **t) {
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

enum { X, W, B, Y, DY, DX, DW, DB, COUNT };

typedef struct conv_call {
  dlca_context *ctx;
  dlca__conv2d p;
  dlca_tensor *t[COUNT];
  cl_mem col;
} conv_call;

static int conv_fwd(void *arg) {
  conv_call *c = arg;
  return dlca__ops_cl_conv2d(c->ctx, &c->p, c->t[X], c->t[W], c->t[B], c->t[Y], c->col);
}

static int conv_fwd_bwd(void *arg) {
  conv_call *c = arg;
  int rc = conv_fwd(arg);
  return rc ? rc
            : dlca__ops_cl_conv2d_backward(c->ctx, &c->p, c->t[X], c->t[W], c->t[DY], c->t[DX], c->t[DW], c->t[DB],
                                           c->col);
}

/* The two rows of one shape: x [N, C, H, H], w [O, C, 3, 3]. */
static int conv_case(ob_bench *b, size_t N, size_t C, size_t H, size_t O) {
  size_t xs[4] = {N, C, H, H}, ws[4] = {O, C, 3, 3}, bs[1] = {O}, ys[4] = {N, O, H, H};
  const size_t *sh[COUNT] = {xs, ws, bs, ys, ys, xs, ws, bs};
  conv_call c = {b->ctx, {1, 1, 1, 1}, {NULL}, NULL};
  int rc = DLCA_OK;
  for (int k = 0; k < COUNT && !rc; k++)
    rc = k == Y || k >= DX ? dlca_tensor_new(b->ctx, k == B || k == DB ? 1 : 4, sh[k], &c.t[k])
                           : random_tensor(b->ctx, sh[k], k == B ? 1 : 4, 10 + (uint64_t)k, &c.t[k]);
  if (!rc) rc = dlca__buffer(b->ctx, sizeof(float) * dlca__conv2d_col_floats(c.t[X], c.t[W], &c.p), "col", &c.col);
  double mac = (double)N * O * H * H * C * 9, nx = (double)N * C * H * H, nw = (double)O * C * 9;
  double ny = (double)N * O * H * H, fb = 4.0 * (nx + nw + O + ny), med, min;
  char name[64];
  snprintf(name, sizeof name, "conv2d_n%zu_c%zu_%zux%zu_o%zu_k3_fwd", N, C, H, H, O);
  if (!rc && !(rc = ob_time(b, conv_fwd, &c, &med, &min))) ob_add(b, "conv", name, med, min, 2 * mac + ny, fb);
  snprintf(name, sizeof name, "conv2d_n%zu_c%zu_%zux%zu_o%zu_k3_fwd_bwd", N, C, H, H, O);
  if (!rc && !(rc = ob_time(b, conv_fwd_bwd, &c, &med, &min)))
    ob_add(b, "conv", name, med, min, 6 * mac + 2 * ny, 2 * fb); /* + dy read, dx, dw, db written */
  for (int k = 0; k < COUNT; k++) dlca_tensor_free(c.t[k]);
  if (c.col) clReleaseMemObject(c.col);
  return rc;
}

int ob_suite_conv(ob_bench *b) {
  int rc = conv_case(b, 64, 16, 8, 32);
  return rc ? rc : conv_case(b, 64, 32, 32, 64);
}
