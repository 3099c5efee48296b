/* The GRU on the device (lib/ops/cl_gru.h): the input projection as one
 * GEMM, then kernels-cl/ops/gru.cl's dlca_gru_step once per step for every
 * member at once (a forward of at most GRU_FUSED_T steps, a cell: no GEMM,
 * the step kernel projects x too); the backward is dlca_gru_back_step once per step, then
 * GEMMs for dx and the weights and a column sum for the biases. A shared x is
 * one GEMM against the members' stacked W_ih ([M 3H, D]): its projection is
 * [B T, M 3H], and dx the sum over members falls out of one GEMM too. */
#include "ops/cl_gru_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/cl_blas.h"
#include "ops/cl_elementwise.h"

#define GRU_FILE "ops.cl"

/* The shared-input layout: one GEMM against the stacked weights. */
int dlca__gru_shared(const dlca__gru_cfg *c) { return c->x_shared || c->M == 1; }

int dlca__gru_cfg_check(const dlca__gru_cfg *c, const char *fn) {
  int rc = dlca__gru_dims_check(&c->d, fn);
  if (rc) return rc;
  if (!c->M || c->M > 4096) return dlca__fail(DLCA_EINVAL, "%s: ensemble of %zu GRUs, expected 1 to 4096", fn, c->M);
  if (c->M * c->d.T * c->d.B * 4 * c->d.H >= ((size_t)1 << 31) || c->M * c->d.B * c->d.T * c->d.D >= ((size_t)1 << 31))
    return dlca__fail(DLCA_EINVAL, "%s: M %zu x B %zu x T %zu x (D %zu, 4H %zu) is over 2^31 floats", fn, c->M, c->d.B,
                      c->d.T, c->d.D, 4 * c->d.H);
  size_t wide = c->d.H > c->d.D ? c->d.H : c->d.D;
  if (c->M * 3 * c->d.H * wide >= ((size_t)1 << 31))
    return dlca__fail(DLCA_EINVAL, "%s: hidden size %zu: the weights of %zu GRUs (3H x max(H, D)) are over 2^31 floats",
                      fn, c->d.H, c->M);
  return DLCA_OK;
}

void dlca__gru_tape_free(dlca__gru_tape *t) {
  if (!t) return;
  cl_mem *b[] = {&t->gi, &t->hs, &t->gates, &t->dgh, &t->dhd};
  for (int i = 0; i < 5; i++)
    if (*b[i]) clReleaseMemObject(*b[i]);
  free(t);
}

int dlca__gru_tape_new(dlca_context *ctx, const dlca__gru_cfg *c, dlca__gru_tape **out) {
  *out = NULL;
  int rc = dlca__gru_cfg_check(c, "gru");
  if (rc) return rc;
  dlca__gru_tape *t = calloc(1, sizeof *t);
  if (!t) return dlca__fail(DLCA_ENOMEM, "gru: out of host memory");
  t->ctx = ctx, t->c = *c;
  size_t M = c->M, B = c->d.B, T = c->d.T, H = c->d.H, f = sizeof(float);
  const size_t n[] = {M * B * T * 3 * H, M * (T + 1) * B * H, M * T * B * 4 * H, M * T * B * 3 * H, M * T * B * H};
  static const char *const what[] = {"gru input projection", "gru states", "gru gates", "gru dgh", "gru dh"};
  cl_mem *b[] = {&t->gi, &t->hs, &t->gates, &t->dgh, &t->dhd};
  char msg[160];
  for (int i = 0; !rc && i < 5; i++) {
    snprintf(msg, sizeof msg, "%s (M %zu, B %zu, T %zu, H %zu)", what[i], M, B, T, H);
    rc = dlca__buffer(ctx, n[i] * f, msg, b[i]);
  }
  if (rc)
    dlca__gru_tape_free(t);
  else
    *out = t;
  return rc;
}

/* DLCA_EINVAL unless t (of ctx) holds n elements. */
int dlca__gru_count(dlca_context *ctx, const dlca_tensor *t, size_t n, const char *fn, const char *what) {
  char w[96];
  snprintf(w, sizeof w, "%s: %s", fn, what);
  int rc = dlca__tensor_check(ctx, t, w);
  if (rc || t->n == n) return rc;
  char sh[96];
  dlca__tensor_shape_text(t, sh, sizeof sh);
  return dlca__fail(DLCA_EINVAL, "%s: %s has shape %s (%zu elements), expected %zu", fn, what, sh, t->n, n);
}

int dlca__gru_weights_check(dlca_context *ctx, const dlca__gru_cfg *c, const dlca__gru_cl_w *w, const char *fn) {
  size_t M = c->M, G = 3 * c->d.H;
  int rc;
  if ((rc = dlca__gru_count(ctx, w->w_ih, M * G * c->d.D, fn, "w_ih")) ||
      (rc = dlca__gru_count(ctx, w->w_hh, M * G * c->d.H, fn, "w_hh")))
    return rc;
  if (!w->b_ih != !w->b_hh) return dlca__fail(DLCA_EINVAL, "%s: b_ih and b_hh: both or neither", fn);
  if (w->b_ih && ((rc = dlca__gru_count(ctx, w->b_ih, M * G, fn, "b_ih")) ||
                  (rc = dlca__gru_count(ctx, w->b_hh, M * G, fn, "b_hh"))))
    return rc;
  return DLCA_OK;
}

/* The program and gru.cl's tunables into v, from the context's memo (lib/cl/memo.c). */
int dlca__gru_tuned(dlca_context *ctx, dlca__gru_tuned_t *v) {
  int rc;
  if ((rc = dlca__memo_program(ctx, GRU_FILE, NULL, &v->prog)) ||
      (rc = dlca__memo_tunable(ctx, GRU_FILE, "GRU_TJ", &v->tj)) ||
      (rc = dlca__memo_tunable(ctx, GRU_FILE, "GRU_TB", &v->tb)) ||
      (rc = dlca__memo_tunable(ctx, GRU_FILE, "GRU_WG", &v->wg)) ||
      (rc = dlca__memo_tunable(ctx, GRU_FILE, "GRU_FUSED_T", &v->fused_t)) ||
      (rc = dlca__memo_tunable(ctx, GRU_FILE, "GRU_SPLIT", &v->split)) ||
      (rc = dlca__memo_tunable(ctx, GRU_FILE, "GRU_SJ", &v->sj)) ||
      (rc = dlca__memo_tunable(ctx, GRU_FILE, "GRU_SB", &v->sb)) ||
      (rc = dlca__memo_tunable(ctx, GRU_FILE, "GRU_SKS", &v->sks)))
    return rc;
  return DLCA_OK;
}

/* The kernel `name` of gru.cl and its work-group (GRU_TJ, GRU_TB, 1), or (GRU_WG) where flat. */
int dlca__gru_kernel(dlca_context *ctx, const char *name, int flat, cl_kernel *k, size_t *lws) {
  dlca__gru_tuned_t v;
  int rc = dlca__gru_tuned(ctx, &v);
  if (rc) return rc;
  size_t n = flat ? (size_t)v.wg : (size_t)v.tj * (size_t)v.tb;
  if (n > ctx->info.max_work_group)
    return dlca__fail(DLCA_ECONFIG,
                      "%s: GRU_TJ %d x GRU_TB %d (or GRU_WG %d) is over the device's largest work-group, %zu", GRU_FILE,
                      v.tj, v.tb, v.wg, ctx->info.max_work_group);
  lws[0] = flat ? (size_t)v.wg : (size_t)v.tj, lws[1] = flat ? 1 : (size_t)v.tb, lws[2] = 1;
  return dlca__memo_kernel(ctx, v.prog, name, k);
}

int dlca__gru_set_args(cl_kernel k, const char *name, int nargs, const size_t *sizes, const void *const *args) {
  for (int i = 0; i < nargs; i++) {
    cl_int err = clSetKernelArg(k, (cl_uint)i, sizes[i], args[i]);
    if (err != CL_SUCCESS) return dlca__fail_cl(err, "%s: argument %d: %s", name, i, dlca__cl_error_name(err));
  }
  return DLCA_OK;
}

/* A flat kernel over n items, handed back to its pool after. */
int dlca__gru_flat_launch(dlca_context *ctx, const char *name, size_t n, int nargs,
                          const size_t *sizes, const void *const *args) {
  cl_kernel k;
  size_t lws[3];
  int rc = dlca__gru_kernel(ctx, name, 1, &k, lws);
  if (rc) return rc;
  rc = dlca__gru_set_args(k, name, nargs, sizes, args);
  size_t gws = (n + lws[0] - 1) / lws[0] * lws[0];
  if (!rc && n) rc = dlca__launch(ctx, k, name, 1, &gws, lws);
  dlca__memo_kernel_put(ctx, k);
  return rc;
}

/* The grid of the step kernels: hidden units x batch rows x members. */
void dlca__gru_step_grid(const dlca__gru_cfg *c, const size_t *lws, size_t *gws) {
  gws[0] = (c->d.H + lws[0] - 1) / lws[0] * lws[0];
  gws[1] = (c->d.B + lws[1] - 1) / lws[1] * lws[1];
  gws[2] = c->M;
}

/* The strides of gi (and dgi) in floats: per member and per row (b, t). */
void dlca__gru_gi_strides(const dlca__gru_cfg *c, cl_uint *gm, cl_uint *grow) {
  size_t G = 3 * c->d.H;
  *gm = (cl_uint)(dlca__gru_shared(c) ? G : c->d.B * c->d.T * G);
  *grow = (cl_uint)(dlca__gru_shared(c) ? c->M * G : G);
}

/* gi = x W_ih^T for every member and step. */
static int project(dlca_context *ctx, const dlca__gru_cfg *c, const dlca_tensor *x, const dlca_tensor *w_ih,
                   cl_mem gi) {
  size_t BT = c->d.B * c->d.T, G = 3 * c->d.H, D = c->d.D, M = c->M;
  dlca__gemm g = {.trans_b = 1,
                  .m = BT,
                  .n = G,
                  .k = D,
                  .alpha = 1.0f,
                  .lda = D,
                  .ldb = D,
                  .ldc = G,
                  .batch = M,
                  .stride_a = BT * D,
                  .stride_b = G * D,
                  .stride_c = BT * G};
  if (dlca__gru_shared(c)) g.n = M * G, g.ldc = M * G, g.batch = 1, g.stride_a = g.stride_b = g.stride_c = 0;
  return dlca__ops_cl_gemm(ctx, &g, x->buf, w_ih->buf, gi);
}

/* Whether the forward projects x inside the step kernel (T <= GRU_FUSED_T): no GEMM, one launch a step. */
static int fused(dlca_context *ctx, const dlca__gru_cfg *c) {
  dlca__gru_tuned_t v;
  return !dlca__gru_tuned(ctx, &v) && c->d.T <= (size_t)v.fused_t;
}

/* An ensemble of at most GRU_SPLIT members (M <= GRU_SPLIT) where its local memory fits and GRU_SJ <= GRU_SKS: *k
 * (handed back) becomes dlca_gru_step_split, lws and gws its grid (GRU_SKS, GRU_SB) and (H / GRU_SJ GRU_SKS, B, M)
 * rounded up, *wl the bytes of its staged rows; else all unchanged. */
static int split(dlca_context *ctx, const dlca__gru_cfg *c, int fuse, cl_kernel *k, size_t *lws, size_t *gws,
                 size_t *wl) {
  dlca__gru_tuned_t v;
  int rc = dlca__gru_tuned(ctx, &v);
  if (rc || c->M > (size_t)v.split) return rc;
  size_t K = fuse && c->d.D > c->d.H ? c->d.D : c->d.H, f = sizeof(float), sb = (size_t)v.sb, sks = (size_t)v.sks;
  size_t dyn = (3 * (size_t)v.sj * K + sb * (K + sks)) * f, need = dyn + sb * 3 * (size_t)v.sj * sks * f;
  if (need > ctx->info.local_mem || sb * sks > ctx->info.max_work_group || (size_t)v.sj > sks) return DLCA_OK;
  cl_kernel s;
  size_t l2[3];
  if ((rc = dlca__gru_kernel(ctx, "dlca_gru_step_split", 0, &s, l2))) return rc;
  dlca__memo_kernel_put(ctx, *k), *k = s, *wl = dyn;
  lws[0] = sks, lws[1] = sb, lws[2] = 1;
  gws[0] = (c->d.H + (size_t)v.sj - 1) / (size_t)v.sj * sks, gws[1] = (c->d.B + sb - 1) / sb * sb, gws[2] = c->M;
  return DLCA_OK;
}

/* The T launches of dlca_gru_step (or of dlca_gru_step_split); x non-NULL: the projection fused into them. */
static int steps(dlca_context *ctx, const dlca__gru_cfg *c, const dlca__gru_cl_w *w, dlca__gru_tape *tp,
                 const dlca_tensor *x, const dlca_tensor *h0, dlca_tensor *y, dlca_tensor *h_n, int keep) {
  cl_kernel k;
  size_t lws[3], gws[3];
  int rc = dlca__gru_kernel(ctx, "dlca_gru_step", 0, &k, lws);
  if (rc) return rc;
  dlca__gru_step_grid(c, lws, gws);
  cl_uint gm, grow, t = 0, B = (cl_uint)c->d.B, T = (cl_uint)c->d.T, H = (cl_uint)c->d.H;
  cl_uint D = x ? (cl_uint)c->d.D : 0, xm = c->x_shared ? 0 : (cl_uint)(c->d.B * c->d.T * c->d.D);
  dlca__gru_gi_strides(c, &gm, &grow);
  cl_int hb = w->b_ih != NULL, kp = keep, hh = h_n != NULL;
  cl_mem bi = hb ? w->b_ih->buf : w->w_hh->buf, bh = hb ? w->b_hh->buf : w->w_hh->buf, hn = hh ? h_n->buf : y->buf;
  cl_mem xb = x ? x->buf : tp->gi;
  size_t m = sizeof(cl_mem), u = sizeof(cl_uint), i = sizeof(cl_int);
  size_t sizes[] = {m, u, u, m, m, m, i, m, m, m, m, i, m, i, u, u, u, u, m, u, m, u};
  const void *args[] = {&tp->gi, &gm, &grow, &w->w_hh->buf, &bi, &bh, &hb, &h0->buf, &tp->hs, &y->buf,       &tp->gates,
                        &kp,     &hn, &hh,   &t,            &B,  &T,  &H,  &xb,      &xm,     &w->w_ih->buf, &D};
  size_t wl = 0;
  if ((rc = split(ctx, c, x != NULL, &k, lws, gws, &wl))) return dlca__memo_kernel_put(ctx, k), rc;
  rc = dlca__gru_set_args(k, "dlca_gru_step", 22, sizes, args);
  cl_int e0 = wl ? clSetKernelArg(k, 22, wl, NULL) : CL_SUCCESS;
  if (!rc && e0 != CL_SUCCESS) rc = dlca__fail_cl(e0, "dlca_gru_step_split: argument 22: %s", dlca__cl_error_name(e0));
  const char *name = wl ? "dlca_gru_step_split" : "dlca_gru_step";
  for (t = 0; !rc && t < T; t++) {
    cl_int err = clSetKernelArg(k, 14, u, &t);
    rc = err != CL_SUCCESS ? dlca__fail_cl(err, "%s: argument 14: %s", name, dlca__cl_error_name(err))
                           : dlca__launch(ctx, k, name, 3, gws, lws);
  }
  dlca__memo_kernel_put(ctx, k);
  return rc;
}

int dlca__ops_cl_gru_forward(dlca_context *ctx, const dlca__gru_cfg *c, const dlca__gru_cl_w *w, const dlca_tensor *x,
                             const dlca_tensor *h0, dlca_tensor *y, dlca_tensor *h_n, dlca__gru_tape *tape) {
  const char *fn = "gru forward";
  size_t M = c->M, B = c->d.B, T = c->d.T, H = c->d.H;
  int rc;
  if ((rc = dlca__gru_cfg_check(c, fn)) || (rc = dlca__gru_weights_check(ctx, c, w, fn)) ||
      (rc = dlca__gru_count(ctx, x, (c->x_shared ? 1 : M) * B * T * c->d.D, fn, "x")) ||
      (rc = dlca__gru_count(ctx, h0, M * B * H, fn, "h0")) || (rc = dlca__gru_count(ctx, y, M * B * T * H, fn, "y")) ||
      (h_n && (rc = dlca__gru_count(ctx, h_n, M * B * H, fn, "h_n"))))
    return rc;
  if (tape &&
      (tape->ctx != ctx || tape->c.M != M || tape->c.x_shared != c->x_shared || memcmp(&tape->c.d, &c->d, sizeof c->d)))
    return dlca__fail(DLCA_EINVAL, "%s: the tape was made for another configuration", fn);
  dlca__gru_tape *tp = tape;
  if (!tp && (rc = dlca__gru_tape_new(ctx, c, &tp))) return rc;
  int fuse = fused(ctx, c);
  if (fuse || !(rc = project(ctx, c, x, w->w_ih, tp->gi)))
    rc = steps(ctx, c, w, tp, fuse ? x : NULL, h0, y, h_n, tape != NULL);
  if (tape) tape->kept = !rc;
  if (!tape) dlca__gru_tape_free(tp); /* OpenCL keeps the buffers until the queued work is done */
  return rc;
}
