/* The public GRU and randomized SVD (include/dlca_cl/ops.h) on the OpenCL
 * device (PoCL in CI) against the CPU twins (lib/ops/ref_gru.h) on fresh
 * random inputs (never zeros), and their refusals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cl_util.h"
#include "dlca_cl/ops.h"
#include "ops/ref_gru.h"
#include "ops_util.h"

#define OK(call) ck_assert_msg((call) == DLCA_OK, "%s", dlca_last_error())

TCase *to_tcase_api_gru(void);

enum { X, H0, WI, WH, BI, BH, DY, DHN, NIN };
static const dlca__gru_dims gru_dims[] = {{2, 1, 3, 4}, {3, 5, 2, 6}, {1, 7, 4, 3}};

START_TEST(test_api_gru) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-gru");
  dlca_context *ctx = tcl_context();
  const dlca__gru_dims d = gru_dims[_i];
  size_t B = d.B, T = d.T, D = d.D, H = d.H;
  const dlca__shape sh[NIN] = {{3, {B, T, D}}, {2, {B, H}}, {2, {3 * H, D}}, {2, {3 * H, H}},
                               {1, {3 * H}},   {1, {3 * H}}, {3, {B, T, H}}, {2, {B, H}}};
  dlca_tensor *t[NIN], *g[NIN] = {NULL};
  double *v[NIN], *want[NIN];
  for (int i = 0; i < NIN; i++) {
    t[i] = to_rand_tensor(ctx, sh[i], -0.8f, 0.9f, 7000 + 10 * (uint64_t)_i + (uint64_t)i, &v[i]);
    want[i] = calloc(dlca__shape_n(&sh[i]), sizeof(double));
    if (i < DY) g[i] = to_tensor(ctx, sh[i], NULL);
  }
  dlca_tensor *y = to_tensor(ctx, sh[DY], NULL), *hn = to_tensor(ctx, sh[DHN], NULL);
  double *ry = malloc(sizeof(double) * B * T * H), *rhn = malloc(sizeof(double) * B * H);
  dlca__ref_gru_w w = {v[WI], v[WH], v[BI], v[BH]};
  dlca__ref_gru_dw dw = {want[WI], want[WH], want[BI], want[BH]};
  OK(dlca__ref_gru_sequence(&d, &w, v[X], v[H0], ry, rhn));
  OK(dlca__ref_gru_sequence_backward(&d, &w, v[X], v[H0], ry, v[DY], v[DHN], want[X], want[H0], &dw));
  dlca_gru *gru;
  OK(dlca_gru_new(ctx, B, T, D, H, &gru));
  TU_EXPECT(dlca_gru_backward(gru, t[X], t[WI], t[WH], t[BI], t[BH], t[DY], t[DHN], g[X], g[H0], g[WI], g[WH], g[BI],
                              g[BH]),
            DLCA_EINVAL, "no forward");
  OK(dlca_gru_forward(gru, t[X], t[H0], t[WI], t[WH], t[BI], t[BH], y, hn));
  OK(dlca_gru_backward(gru, t[X], t[WI], t[WH], t[BI], t[BH], t[DY], t[DHN], g[X], g[H0], g[WI], g[WH], g[BI], g[BH]));
  to_check(y, ry, "y");
  to_check(hn, rhn, "h_n");
  static const char *const names[] = {"dx", "dh0", "dw_ih", "dw_hh", "db_ih", "db_hh"};
  for (int i = 0; i < DY; i++) to_check(g[i], want[i], names[i]);
  TU_EXPECT(dlca_gru_forward(gru, t[X], t[H0], t[WI], t[WH], t[BI], NULL, y, hn), DLCA_EINVAL, "both");
  TU_EXPECT(dlca_gru_forward(gru, t[H0], t[H0], t[WI], t[WH], NULL, NULL, y, hn), DLCA_EINVAL, "x");
  dlca_gru_free(gru);
  for (int i = 0; i < NIN; i++) dlca_tensor_free(t[i]), dlca_tensor_free(g[i]), free(v[i]), free(want[i]);
  dlca_tensor_free(y), dlca_tensor_free(hn), free(ry), free(rhn);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_api_rsvd) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-rsvd");
  dlca_context *ctx = tcl_context();
  const size_t m = 40, n = 24, r = 6, k = 4;
  double *l, *rr, *noise;
  dlca__shape ls = {2, {m, r}}, rs = {2, {r, n}}, as = {2, {m, n}};
  dlca_tensor *tl = to_rand_tensor(ctx, ls, -1, 1, 7101, &l), *tr = to_rand_tensor(ctx, rs, -1, 1, 7102, &rr);
  dlca_tensor *tn = to_rand_tensor(ctx, as, -1e-3f, 1e-3f, 7103, &noise), *ta = to_tensor(ctx, as, NULL);
  double *a = malloc(sizeof(double) * m * n); /* a low-rank A plus noise: a decaying spectrum */
  float *af = malloc(sizeof(float) * m * n);
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) {
      double s = noise[i * n + j];
      for (size_t q = 0; q < r; q++) s += l[i * r + q] * rr[q * n + j] * (1.0 / (double)(q + 1));
      af[i * n + j] = (float)s, a[i * n + j] = af[i * n + j];
    }
  OK(dlca_tensor_upload(ta, af, m * n));
  dlca__shape us = {2, {m, k}}, ss = {1, {k}}, vs = {2, {n, k}};
  dlca_tensor *u = to_tensor(ctx, us, NULL), *s = to_tensor(ctx, ss, NULL), *v = to_tensor(ctx, vs, NULL);
  double *ru = malloc(sizeof(double) * m * k), *rs_ = malloc(sizeof(double) * k), *rv = malloc(sizeof(double) * n * k);
  dlca__rsvd p = {k, 6, 2, 99};
  OK(dlca__ref_rsvd(&p, m, n, a, ru, rs_, rv));
  OK(dlca_rsvd(ta, k, 6, 2, 99, u, s, v));
  to_check(s, rs_, "S");
  float uf[40 * 4], vf[24 * 4], sf[4];
  OK(dlca_tensor_download(u, uf, m * k)), OK(dlca_tensor_download(v, vf, n * k)), OK(dlca_tensor_download(s, sf, k));
  double worst = 0; /* U diag(S) V^T against the twin's: sign-free */
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) {
      double got = 0, want = 0;
      for (size_t q = 0; q < k; q++) {
        got += uf[i * k + q] * sf[q] * vf[j * k + q];
        want += ru[i * k + q] * rs_[q] * rv[j * k + q];
      }
      worst = fmax(worst, fabs(got - want));
    }
  ck_assert_msg(worst < 1e-3, "U S V^T off the twin's by %g", worst);
  TU_EXPECT(dlca_rsvd(ta, 0, 6, 2, 99, u, s, v), DLCA_EINVAL, "rank 0");
  TU_EXPECT(dlca_rsvd(ta, k, 6, 2, 99, v, s, u), DLCA_EINVAL, "elements");
  dlca_tensor *all[] = {tl, tr, tn, ta, u, s, v};
  for (size_t i = 0; i < 7; i++) dlca_tensor_free(all[i]);
  free(l), free(rr), free(noise), free(a), free(af), free(ru), free(rs_), free(rv);
  dlca_context_free(ctx);
}
END_TEST

TCase *to_tcase_api_gru(void) {
  TCase *tc = tcase_create("api_gru");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_api_gru, 0, (int)(sizeof gru_dims / sizeof gru_dims[0]));
  tcase_add_test(tc, test_api_rsvd);
  return tc;
}
