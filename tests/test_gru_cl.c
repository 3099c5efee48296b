/* The GRU and the randomized SVD on the OpenCL device (PoCL in CI): the
 * public gru_cell, gru_sequence and rsvd vectors, the device against the twin
 * on fresh random inputs (ensembles, odd sizes, forward and BPTT), and bad input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_util.h"
#include "ops/cl_gru.h"
#include "ops/vector.h"
#include "ops_util.h"
#include "test_gru.h"

static const char *const vec_prefix[] = {"gru_cell_", "gru_sequence_", "rsvd_"};

START_TEST(test_gru_cl_vectors) {
  const char *dir = to_dir();
  if (!dir || !tcl_platform()) return;
  tcl_fresh_env("gru-cl-vectors");
  dlca_context *ctx = tcl_context();
  to_list list;
  to_list_files(dir, vec_prefix[_i], &list);
  ck_assert(list.n > 0);
  int (*run[])(dlca_context *, const dlca__ops_vector *, dlca__ops_result *) = {
      dlca__ops_cl_run_gru_cell, dlca__ops_cl_run_gru_sequence, dlca__ops_cl_run_rsvd};
  for (size_t f = 0; f < list.n; f++) {
    dlca__ops_vector v;
    dlca__ops_result r;
    ck_assert_msg(dlca__ops_vector_load(list.path[f], &v) == DLCA_OK, "%s", dlca_last_error());
    ck_assert_msg(run[_i](ctx, &v, &r) == DLCA_OK, "%s", dlca_last_error());
    double worst[2] = {0, 0};
    for (int g = 0; g < 2; g++) {
      const dlca__ops_set *set = g ? &v.grads : &v.outputs;
      for (size_t i = 0; i < set->n; i++) {
        double *got = g ? r.grad[i] : r.out[i];
        dlca__ops_cmp c = dlca__ops_compare(got, &set->t[i], v.tol_abs, v.tol_rel);
        ck_assert_msg(c.pass, "%s: %s[%zu] = %.9g, want %.9g", v.path, set->t[i].name, c.worst_index,
                      got[c.worst_index], set->t[i].data[c.worst_index]);
        worst[g] = fmax(worst[g], c.worst);
      }
    }
    fprintf(stderr, "gru cl %-16s forward %.2e backward %.2e (%zu grads)\n", v.name, worst[0], worst[1], v.grads.n);
    dlca__ops_result_free(&r);
    dlca__ops_vector_free(&v);
  }
  to_list_free(&list);
  dlca_context_free(ctx);
}
END_TEST

/* Host arrays of one random case: the six inputs, the two upstream gradients, as float and double. */
typedef struct gcase {
  dlca__gru_cfg c;
  size_t n[8];
  float *f[8];
  double *d[8];
} gcase;

enum { X, H0, WI, WH, BI, BH, DY, DHN };

static void gcase_make(gcase *g, uint64_t seed) {
  size_t M = g->c.M, B = g->c.d.B, T = g->c.d.T, D = g->c.d.D, H = g->c.d.H, G = 3 * H;
  size_t n[8] = {
      (g->c.x_shared ? 1 : M) * B * T * D, M * B * H, M * G * D, M * G * H, M * G, M * G, M * B * T * H, M * B * H};
  float ws = fminf(0.5f, 1.0f / sqrtf((float)H)); /* weights as torch.nn.GRU draws them */
  for (int i = 0; i < 8; i++) {
    g->n[i] = n[i];
    g->f[i] = malloc(sizeof(float) * n[i]), g->d[i] = malloc(sizeof(double) * n[i]);
    float r = i >= WI && i <= BH ? ws : 1.0f;
    tu_random(g->f[i], n[i], -r, r, seed + (uint64_t)i);
    to_double(g->f[i], g->d[i], n[i]);
  }
}

static void gcase_free(gcase *g) {
  for (int i = 0; i < 8; i++) free(g->f[i]), free(g->d[i]);
}

/* The worst |device - twin| of t against want (n values), failing past 2e-4 + 2e-4 |want|. */
static double worst_of(const dlca_tensor *t, const double *want, const char *what) {
  size_t n = dlca_tensor_numel(t);
  float *got = malloc(sizeof(float) * n);
  ck_assert_msg(dlca_tensor_download(t, got, n) == DLCA_OK, "%s", dlca_last_error());
  double w = 0;
  for (size_t i = 0; i < n; i++) {
    double e = fabs((double)got[i] - want[i]);
    ck_assert_msg(e <= 2e-4 + 2e-4 * fabs(want[i]), "%s[%zu] = %.9g, twin %.9g", what, i, got[i], want[i]);
    w = fmax(w, e);
  }
  free(got);
  return w;
}

static dlca_tensor *vec(dlca_context *ctx, size_t n, const float *f) {
  return to_tensor(ctx, (dlca__shape){1, {n}}, f);
}

static const dlca__gru_cfg random_cfgs[] = {
    {1, 0, {5, 4, 11, 37}}, {3, 0, {4, 3, 6, 20}}, {3, 1, {2, 5, 7, 33}}, {2, 1, {33, 1, 9, 70}}, {1, 0, {1, 1, 1, 1}},
};

/* One random configuration on the device against the twin, forward and backward. */
static void twin_check(dlca_context *ctx, const dlca__gru_cfg *cfg, uint64_t seed, const char *tag) {
  gcase g = {*cfg, {0}, {0}, {0}};
  gcase_make(&g, seed);
  size_t M = g.c.M, ny = g.n[DY], nh = g.n[DHN];
  double *y = malloc(sizeof(double) * ny), *hn = malloc(sizeof(double) * nh), *gr[6];
  for (int i = 0; i < 6; i++) gr[i] = malloc(sizeof(double) * g.n[i]);
  dlca__ref_gru_w w = {g.d[WI], g.d[WH], g.d[BI], g.d[BH]};
  dlca__ref_gru_dw dw = {gr[WI], gr[WH], gr[BI], gr[BH]};
  ck_assert_int_eq(dlca__ref_gru_ensemble(M, g.c.x_shared, &g.c.d, &w, g.d[X], g.d[H0], y, hn), DLCA_OK);
  ck_assert_int_eq(dlca__ref_gru_ensemble_backward(M, g.c.x_shared, &g.c.d, &w, g.d[X], g.d[H0], y, g.d[DY], g.d[DHN],
                                                   gr[X], gr[H0], &dw),
                   DLCA_OK);
  dlca_tensor *t[8], *ty = vec(ctx, ny, NULL), *thn = vec(ctx, nh, NULL), *tg[6];
  for (int i = 0; i < 8; i++) t[i] = vec(ctx, g.n[i], g.f[i]);
  for (int i = 0; i < 6; i++) tg[i] = vec(ctx, g.n[i], NULL);
  dlca__gru_tape *tape;
  ck_assert_msg(dlca__gru_tape_new(ctx, &g.c, &tape) == DLCA_OK, "%s", dlca_last_error());
  dlca__gru_cl_w cw = {t[WI], t[WH], t[BI], t[BH]};
  dlca__gru_cl_dw cdw = {tg[WI], tg[WH], tg[BI], tg[BH]};
  ck_assert_msg(dlca__ops_cl_gru_forward(ctx, &g.c, &cw, t[X], t[H0], ty, thn, tape) == DLCA_OK, "%s",
                dlca_last_error());
  ck_assert_msg(dlca__ops_cl_gru_backward(ctx, &g.c, &cw, t[X], tape, t[DY], t[DHN], tg[X], tg[H0], &cdw) == DLCA_OK,
                "%s", dlca_last_error());
  double ef = fmax(worst_of(ty, y, "y"), worst_of(thn, hn, "h_n")), eb = 0;
  static const char *const names[6] = {"dx", "dh0", "dw_ih", "dw_hh", "db_ih", "db_hh"};
  for (int i = 0; i < 6; i++) eb = fmax(eb, worst_of(tg[i], gr[i], names[i]));
  fprintf(stderr, "gru cl%s M %zu%s B %zu T %zu D %zu H %zu: forward %.2e backward %.2e\n", tag, M,
          g.c.x_shared ? " (shared x)" : "", g.c.d.B, g.c.d.T, g.c.d.D, g.c.d.H, ef, eb);
  dlca__gru_tape_free(tape);
  for (int i = 0; i < 8; i++) dlca_tensor_free(t[i]);
  for (int i = 0; i < 6; i++) dlca_tensor_free(tg[i]), free(gr[i]);
  dlca_tensor_free(ty), dlca_tensor_free(thn);
  free(y), free(hn);
  gcase_free(&g);
}

START_TEST(test_gru_cl_twin) {
  if (!tcl_platform()) return;
  tcl_fresh_env("gru-cl-twin");
  dlca_context *ctx = tcl_context();
  twin_check(ctx, &random_cfgs[_i], 1000 + 10 * (uint64_t)_i, "");
  dlca_context_free(ctx);
}
END_TEST

/* y of one forward of cfg on random inputs (seed), downloaded into out (M B T H floats). */
static void forward_bits(dlca_context *ctx, const dlca__gru_cfg *cfg, uint64_t seed, float *out) {
  gcase g = {*cfg, {0}, {0}, {0}};
  gcase_make(&g, seed);
  dlca_tensor *t[6], *ty = vec(ctx, g.n[DY], NULL);
  for (int i = 0; i < 6; i++) t[i] = vec(ctx, g.n[i], g.f[i]);
  dlca__gru_cl_w cw = {t[WI], t[WH], t[BI], t[BH]};
  ck_assert_msg(dlca__ops_cl_gru_forward(ctx, &g.c, &cw, t[X], t[H0], ty, NULL, NULL) == DLCA_OK, "%s",
                dlca_last_error());
  ck_assert_int_eq(dlca_tensor_download(ty, out, g.n[DY]), DLCA_OK);
  for (int i = 0; i < 6; i++) dlca_tensor_free(t[i]);
  dlca_tensor_free(ty);
  gcase_free(&g);
}

/* GRU_FUSED_T: the input projection inside the step kernel (a cell by default; here sequences and ensembles of
 * either layout too), and 0: a cell through the GEMM; both against the twin, the fused forward the same bits
 * twice. */
START_TEST(test_gru_cl_fused) {
  if (!tcl_platform()) return;
  tcl_fresh_env("gru-cl-fused");
  dlca_context *ctx = tcl_context();
  ck_assert_msg(dlca__tuning_override(ctx, "ops.cl", "GRU_FUSED_T", 16) == DLCA_OK, "%s", dlca_last_error());
  for (int i = 0; i < 3; i++) twin_check(ctx, &random_cfgs[i], 2000 + (uint64_t)i, " fused");
  dlca__gru_cfg c = {3, 0, {5, 4, 11, 37}};
  size_t n = 3 * 5 * 4 * 37;
  float *a = malloc(sizeof(float) * n), *b = malloc(sizeof(float) * n);
  forward_bits(ctx, &c, 7, a), forward_bits(ctx, &c, 7, b);
  ck_assert_msg(!memcmp(a, b, sizeof(float) * n), "the fused forward differs run to run");
  free(a), free(b);
  ck_assert_msg(dlca__tuning_override(ctx, "ops.cl", "GRU_FUSED_T", 0) == DLCA_OK, "%s", dlca_last_error());
  twin_check(ctx, &random_cfgs[3], 2003, " gemm cell");
  dlca_context_free(ctx);
}
END_TEST

/* GRU_SPLIT 64 (ensembles of up to 64, every one here; the default, 1, splits a single GRU only): the forward's
 * steps as dlca_gru_step_split (k sliced over work-items), with and without the fused projection, at the default
 * tiles and at odd ones (3 hidden units, 4 slices and 4 rows a group), against the twin and the same bits twice. */
START_TEST(test_gru_cl_split) {
  if (!tcl_platform()) return;
  tcl_fresh_env("gru-cl-split");
  dlca_context *ctx = tcl_context();
  ck_assert_msg(dlca__tuning_override(ctx, "ops.cl", "GRU_SPLIT", 64) == DLCA_OK, "%s", dlca_last_error());
  if (_i) {
    ck_assert_int_eq(dlca__tuning_override(ctx, "ops.cl", "GRU_SJ", 3), DLCA_OK);
    ck_assert_int_eq(dlca__tuning_override(ctx, "ops.cl", "GRU_SKS", 4), DLCA_OK);
    ck_assert_int_eq(dlca__tuning_override(ctx, "ops.cl", "GRU_SB", 4), DLCA_OK);
    ck_assert_int_eq(dlca__tuning_override(ctx, "ops.cl", "GRU_FUSED_T", 16), DLCA_OK);
  }
  size_t nc = sizeof random_cfgs / sizeof random_cfgs[0];
  for (size_t i = 0; i < nc; i++) twin_check(ctx, &random_cfgs[i], 3000 + (uint64_t)i, _i ? " split odd" : " split");
  dlca__gru_cfg wide = {2, 0, {3, 2, 50, 7}}, c = {2, 1, {9, 3, 11, 40}}; /* wide: D over H */
  twin_check(ctx, &wide, 3100, _i ? " split odd" : " split");
  size_t n = 2 * 9 * 3 * 40;
  float *a = malloc(sizeof(float) * n), *b = malloc(sizeof(float) * n);
  forward_bits(ctx, &c, 9, a), forward_bits(ctx, &c, 9, b);
  ck_assert_msg(!memcmp(a, b, sizeof(float) * n), "the split forward differs run to run");
  free(a), free(b);
  dlca_context_free(ctx);
}
END_TEST

/* The device rSVD against the twin on the same seed: S, and U, V column by column (the same signs). */
START_TEST(test_rsvd_cl_twin) {
  if (!tcl_platform()) return;
  tcl_fresh_env("rsvd-cl-twin");
  dlca_context *ctx = tcl_context();
  size_t m = _i ? 150 : 90, n = _i ? 70 : 130, k = _i ? 12 : 5;
  dlca__rsvd p = {k, _i ? 10 : 6, (size_t)_i + 1, 77};
  double *a = malloc(sizeof(double) * m * n), *u = malloc(sizeof(double) * m * k), *s = malloc(sizeof(double) * k);
  double *v = malloc(sizeof(double) * n * k);
  float *af = malloc(sizeof(float) * m * n);
  tg_decaying(m, n, 0.75, 40 + (uint64_t)_i, a);
  for (size_t i = 0; i < m * n; i++) af[i] = (float)a[i], a[i] = af[i];
  ck_assert_int_eq(dlca__ref_rsvd(&p, m, n, a, u, s, v), DLCA_OK);
  dlca_tensor *ta = to_tensor(ctx, (dlca__shape){2, {m, n}}, af), *tu = vec(ctx, m * k, NULL), *ts = vec(ctx, k, NULL),
              *tv = vec(ctx, n * k, NULL);
  ck_assert_msg(dlca__ops_cl_rsvd(ctx, &p, ta, tu, ts, tv, NULL) == DLCA_OK, "%s", dlca_last_error());
  double es = worst_of(ts, s, "S"), eu = worst_of(tu, u, "U"), ev = worst_of(tv, v, "V");
  fprintf(stderr, "rsvd cl %zux%zu k %zu p %zu q %zu: S %.2e U %.2e V %.2e against the twin\n", m, n, k, p.oversample,
          p.power_iters, es, eu, ev);
  dlca_tensor_free(ta), dlca_tensor_free(tu), dlca_tensor_free(ts), dlca_tensor_free(tv);
  free(a), free(u), free(s), free(v), free(af);
  dlca_context_free(ctx);
}
END_TEST

/* A matrix of rank 3 with k + p = 8: the sketch is rank-deficient, Cholesky QR fails and Householder QR on the
 * host may take over; the top 3 values are still exact and U, V orthonormal. */
START_TEST(test_rsvd_cl_low_rank) {
  if (!tcl_platform()) return;
  tcl_fresh_env("rsvd-cl-low-rank");
  dlca_context *ctx = tcl_context();
  size_t m = 40, n = 30, k = 3;
  float af[1200];
  double a[1200], want[30];
  double b[120];
  tg_decaying(m, 3, 0.5, 10, b); /* 40 x 3 */
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) a[i * n + j] = b[i * 3 + j % 3] * (1.0 + (double)(j / 3));
  for (size_t i = 0; i < m * n; i++) af[i] = (float)a[i], a[i] = af[i];
  dlca__rsvd p = {k, 5, 1, 3};
  double u[120], v[90], s[3], orth, err;
  ck_assert_int_eq(dlca__ref_rsvd(&p, m, n, a, u, s, v), DLCA_OK);
  for (size_t i = 0; i < k; i++) want[i] = s[i];
  dlca_tensor *ta = to_tensor(ctx, (dlca__shape){2, {m, n}}, af), *tu = vec(ctx, m * k, NULL), *ts = vec(ctx, k, NULL),
              *tv = vec(ctx, n * k, NULL);
  ck_assert_msg(dlca__ops_cl_rsvd(ctx, &p, ta, tu, ts, tv, s) == DLCA_OK, "%s", dlca_last_error());
  float fu[120], fv[90];
  ck_assert_int_eq(dlca_tensor_download(tu, fu, m * k), DLCA_OK);
  ck_assert_int_eq(dlca_tensor_download(tv, fv, n * k), DLCA_OK);
  to_double(fu, u, m * k), to_double(fv, v, n * k);
  dlca__rsvd_quality(m, n, k, a, u, s, v, &orth, &err);
  for (size_t i = 0; i < k; i++) ck_assert_double_eq_tol(s[i], want[i], 1e-4 * want[i]);
  fprintf(stderr, "rsvd cl rank-3 matrix, l 8: orth %.2e, error %.2e (S %.6g %.6g %.6g)\n", orth, err, s[0], s[1],
          s[2]);
  ck_assert_msg(orth < 1e-4 && err < 1e-4 * s[0], "orth %.3g error %.3g", orth, err);
  dlca_tensor_free(ta), dlca_tensor_free(tu), dlca_tensor_free(ts), dlca_tensor_free(tv);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_gru_cl_errors) {
  if (!tcl_platform()) return;
  tcl_fresh_env("gru-cl-errors");
  dlca_context *ctx = tcl_context();
  float af[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  dlca_tensor *a = to_tensor(ctx, (dlca__shape){2, {3, 4}}, af), *u = vec(ctx, 12, NULL), *s = vec(ctx, 4, NULL),
              *v = vec(ctx, 16, NULL);
  dlca__rsvd p = {4, 2, 1, 1};
  TU_EXPECT(dlca__ops_cl_rsvd(ctx, &p, a, u, s, v, NULL), DLCA_EINVAL, "rank 4, expected 1 to min(m, n) = 3");
  p.rank = 2;
  TU_EXPECT(dlca__ops_cl_rsvd(ctx, &p, a, u, s, v, NULL), DLCA_EINVAL, "U, S, V have 12, 4, 16 elements");
  dlca_tensor *u2 = vec(ctx, 6, NULL), *s2 = vec(ctx, 2, NULL), *v2 = vec(ctx, 8, NULL);
  af[5] = NAN;
  ck_assert_int_eq(dlca_tensor_upload(a, af, 12), DLCA_OK);
  TU_EXPECT(dlca__ops_cl_rsvd(ctx, &p, a, u2, s2, v2, NULL), DLCA_EINVAL, "A is not finite");
  dlca__gru_cfg c = {2, 0, {3, 2, 4, 5}};
  dlca_tensor *x = vec(ctx, 2 * 3 * 2 * 4, NULL), *h0 = vec(ctx, 2 * 3 * 5, NULL), *wi = vec(ctx, 2 * 15 * 4, NULL),
              *wh = vec(ctx, 2 * 15 * 5 + 1, NULL), *y = vec(ctx, 2 * 3 * 2 * 5, NULL);
  dlca__gru_cl_w w = {wi, wh, NULL, NULL};
  TU_EXPECT(dlca__ops_cl_gru_forward(ctx, &c, &w, x, h0, y, NULL, NULL), DLCA_EINVAL,
         "gru forward: w_hh has shape [151] (151 elements), expected 150");
  c.d.H = 0;
  TU_EXPECT(dlca__ops_cl_gru_forward(ctx, &c, &w, x, h0, y, NULL, NULL), DLCA_EINVAL, "hidden size 0");
  c.d.H = 30000;
  TU_EXPECT(dlca__ops_cl_gru_forward(ctx, &c, &w, x, h0, y, NULL, NULL), DLCA_EINVAL,
         "hidden size 30000: the weights of 2 GRUs (3H x max(H, D)) are over 2^31 floats");
  c.d.H = 5;
  dlca_tensor_free(wh);
  w.w_hh = wh = vec(ctx, 2 * 15 * 5, NULL);
  dlca__gru_tape *tape;
  ck_assert_int_eq(dlca__gru_tape_new(ctx, &c, &tape), DLCA_OK);
  TU_EXPECT(dlca__ops_cl_gru_backward(ctx, &c, &w, x, tape, y, NULL, NULL, NULL, NULL), DLCA_EINVAL,
         "no forward of this configuration");
  dlca__gru_tape_free(tape);
  dlca_tensor *all[] = {a, u, s, v, u2, s2, v2, x, h0, wi, wh, y};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) dlca_tensor_free(all[i]);
  dlca_context_free(ctx);
}
END_TEST

TCase *tg_tcase_cl(void) {
  TCase *tc = tcase_create("cl");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_gru_cl_vectors, 0, 3);
  tcase_add_loop_test(tc, test_gru_cl_twin, 0, (int)(sizeof random_cfgs / sizeof random_cfgs[0]));
  tcase_add_test(tc, test_gru_cl_fused);
  tcase_add_loop_test(tc, test_gru_cl_split, 0, 2);
  tcase_add_loop_test(tc, test_rsvd_cl_twin, 0, 2);
  tcase_add_test(tc, test_rsvd_cl_low_rank);
  tcase_add_test(tc, test_gru_cl_errors);
  return tc;
}
