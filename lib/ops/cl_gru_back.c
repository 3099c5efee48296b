/* The GRU's backward through time on the device (lib/ops/cl_gru.h): T + 1
 * launches of dlca_gru_back_step (the last gives dh0), then dx = dgi W_ih,
 * dW_ih = dgi^T x and dW_hh = dgh^T h (the states time-major, so that all
 * steps are one GEMM per member), and the bias gradients as column sums. */
#include <stdio.h>
#include <string.h>

#include "ops/cl_blas.h"
#include "ops/cl_gru.h"
#include "ops/cl_gru_int.h"

/* The launches of dlca_gru_back_step, t = T-1 down to 0, then T for dh0 (where wanted). */
static int back_steps(dlca_context *ctx, const dlca__gru_cfg *c, const dlca__gru_cl_w *w, dlca__gru_tape *tp,
                      const dlca_tensor *dy, const dlca_tensor *dh_n, const dlca_tensor *dh0) {
  cl_kernel k;
  size_t lws[3], gws[3];
  int rc = dlca__gru_kernel(ctx, "dlca_gru_back_step", 0, &k, lws);
  if (rc) return rc;
  dlca__gru_step_grid(c, lws, gws);
  cl_uint gm, grow, t = 0, B = (cl_uint)c->d.B, T = (cl_uint)c->d.T, H = (cl_uint)c->d.H;
  dlca__gru_gi_strides(c, &gm, &grow);
  cl_int hy = dy != NULL, hh = dh_n != NULL;
  cl_mem bdy = hy ? dy->buf : tp->hs, bdh = hh ? dh_n->buf : tp->hs, bd0 = dh0 ? dh0->buf : tp->hs;
  size_t m = sizeof(cl_mem), u = sizeof(cl_uint), i = sizeof(cl_int);
  size_t sizes[] = {m, m, m, m, i, m, i, m, u, u, m, m, m, u, u, u, u};
  const void *args[] = {&w->w_hh->buf, &tp->hs,  &tp->gates, &bdy, &hy, &bdh, &hh, &tp->gi, &gm,
                        &grow,         &tp->dgh, &tp->dhd,   &bd0, &t,  &B,   &T,  &H};
  rc = dlca__gru_set_args(k, "dlca_gru_back_step", 17, sizes, args);
  for (cl_uint s = 0; !rc && s < T + (dh0 != NULL); s++) {
    t = s < T ? T - 1 - s : T;
    cl_int err = clSetKernelArg(k, 13, u, &t);
    rc = err != CL_SUCCESS ? dlca__fail_cl(err, "dlca_gru_back_step: argument 13: %s", dlca__cl_error_name(err))
                           : dlca__launch(ctx, k, "dlca_gru_back_step", 3, gws, lws);
  }
  dlca__memo_kernel_put(ctx, k);
  return rc;
}

/* dx = dgi W_ih: one GEMM over the stacked members for a shared x (their sum), else one per member. */
static int grad_x(dlca_context *ctx, const dlca__gru_cfg *c, const dlca__gru_cl_w *w, cl_mem dgi, dlca_tensor *dx) {
  size_t BT = c->d.B * c->d.T, G = 3 * c->d.H, D = c->d.D, M = c->M;
  dlca__gemm g = {.m = BT,
                  .n = D,
                  .k = G,
                  .alpha = 1.0f,
                  .lda = G,
                  .ldb = D,
                  .ldc = D,
                  .batch = M,
                  .stride_a = BT * G,
                  .stride_b = G * D,
                  .stride_c = BT * D};
  if (dlca__gru_shared(c)) g.k = M * G, g.lda = M * G, g.batch = 1, g.stride_a = g.stride_b = g.stride_c = 0;
  return dlca__ops_cl_gemm(ctx, &g, dgi, w->w_ih->buf, dx->buf);
}

/* dW_ih = dgi^T x and dW_hh = dgh^T hs[0..T-1], per member. */
static int grad_w(dlca_context *ctx, const dlca__gru_cfg *c, const dlca_tensor *x, dlca__gru_tape *tp,
                  const dlca__gru_cl_dw *dw) {
  size_t B = c->d.B, T = c->d.T, BT = B * T, G = 3 * c->d.H, D = c->d.D, H = c->d.H, M = c->M;
  int rc = DLCA_OK;
  if (dw->w_ih) {
    dlca__gemm g = {.trans_a = 1,
                    .m = G,
                    .n = D,
                    .k = BT,
                    .alpha = 1.0f,
                    .lda = G,
                    .ldb = D,
                    .ldc = D,
                    .batch = M,
                    .stride_a = BT * G,
                    .stride_b = BT * D,
                    .stride_c = G * D};
    if (dlca__gru_shared(c)) g.m = M * G, g.lda = M * G, g.batch = 1, g.stride_a = g.stride_b = g.stride_c = 0;
    rc = dlca__ops_cl_gemm(ctx, &g, tp->gi, x->buf, dw->w_ih->buf);
  }
  if (!rc && dw->w_hh) {
    dlca__gemm g = {.trans_a = 1,
                    .m = G,
                    .n = H,
                    .k = BT,
                    .alpha = 1.0f,
                    .lda = G,
                    .ldb = H,
                    .ldc = H,
                    .batch = M,
                    .stride_a = BT * G,
                    .stride_b = (T + 1) * B * H,
                    .stride_c = G * H};
    rc = dlca__ops_cl_gemm(ctx, &g, tp->dgh, tp->hs, dw->w_hh->buf);
  }
  return rc;
}

/* db_ih, db_hh: the column sums of dgi and dgh per member. */
static int grad_b(dlca_context *ctx, const dlca__gru_cfg *c, dlca__gru_tape *tp, const dlca__gru_cl_dw *dw) {
  cl_uint gm, grow, rows = (cl_uint)(c->d.B * c->d.T), cols = (cl_uint)(3 * c->d.H), n = (cl_uint)(c->M * 3 * c->d.H);
  dlca__gru_gi_strides(c, &gm, &grow);
  cl_uint hm = rows * cols;
  size_t m = sizeof(cl_mem), u = sizeof(cl_uint), sizes[] = {m, u, u, u, u, m, u};
  int rc = DLCA_OK;
  if (dw->b_ih) {
    const void *args[] = {&tp->gi, &rows, &cols, &grow, &gm, &dw->b_ih->buf, &n};
    rc = dlca__gru_flat_launch(ctx, "dlca_gru_colsum", n, 7, sizes, args);
  }
  if (!rc && dw->b_hh) {
    const void *args[] = {&tp->dgh, &rows, &cols, &cols, &hm, &dw->b_hh->buf, &n};
    rc = dlca__gru_flat_launch(ctx, "dlca_gru_colsum", n, 7, sizes, args);
  }
  return rc;
}

static int grads_check(dlca_context *ctx, const dlca__gru_cfg *c, const dlca_tensor *x, dlca__gru_tape *tp,
                       const dlca_tensor *dy, const dlca_tensor *dh_n, const dlca_tensor *dx, const dlca_tensor *dh0,
                       const dlca__gru_cl_dw *dw) {
  const char *fn = "gru backward";
  size_t M = c->M, B = c->d.B, T = c->d.T, H = c->d.H, D = c->d.D, G = 3 * H;
  size_t nx = (c->x_shared ? 1 : M) * B * T * D;
  int rc;
  if (!tp || !tp->kept || tp->ctx != ctx || tp->c.M != M || tp->c.x_shared != c->x_shared ||
      memcmp(&tp->c.d, &c->d, sizeof c->d))
    return dlca__fail(DLCA_EINVAL, "%s: no forward of this configuration on this tape", fn);
  if ((rc = dlca__gru_count(ctx, x, nx, fn, "x")) || (dy && (rc = dlca__gru_count(ctx, dy, M * B * T * H, fn, "dy"))) ||
      (dh_n && (rc = dlca__gru_count(ctx, dh_n, M * B * H, fn, "dh_n"))) ||
      (dx && (rc = dlca__gru_count(ctx, dx, nx, fn, "dx"))) ||
      (dh0 && (rc = dlca__gru_count(ctx, dh0, M * B * H, fn, "dh0"))) ||
      (dw->w_ih && (rc = dlca__gru_count(ctx, dw->w_ih, M * G * D, fn, "dw_ih"))) ||
      (dw->w_hh && (rc = dlca__gru_count(ctx, dw->w_hh, M * G * H, fn, "dw_hh"))) ||
      (dw->b_ih && (rc = dlca__gru_count(ctx, dw->b_ih, M * G, fn, "db_ih"))) ||
      (dw->b_hh && (rc = dlca__gru_count(ctx, dw->b_hh, M * G, fn, "db_hh"))))
    return rc;
  return DLCA_OK;
}

int dlca__ops_cl_gru_backward(dlca_context *ctx, const dlca__gru_cfg *c, const dlca__gru_cl_w *w, const dlca_tensor *x,
                              dlca__gru_tape *tape, const dlca_tensor *dy, const dlca_tensor *dh_n, dlca_tensor *dx,
                              dlca_tensor *dh0, const dlca__gru_cl_dw *dw) {
  static const dlca__gru_cl_dw none = {NULL, NULL, NULL, NULL};
  if (!dw) dw = &none;
  int rc;
  if ((rc = dlca__gru_cfg_check(c, "gru backward")) || (rc = dlca__gru_weights_check(ctx, c, w, "gru backward")) ||
      (rc = grads_check(ctx, c, x, tape, dy, dh_n, dx, dh0, dw)))
    return rc;
  if ((rc = back_steps(ctx, c, w, tape, dy, dh_n, dh0)) || (dx && (rc = grad_x(ctx, c, w, tape->gi, dx))) ||
      (rc = grad_w(ctx, c, x, tape, dw)) || (rc = grad_b(ctx, c, tape, dw)))
    return rc;
  return DLCA_OK;
}
