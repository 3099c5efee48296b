/* The GRU and randomized-SVD twins (issue 33): the public gru_cell,
 * gru_sequence and rsvd vectors, central differences in double for the
 * backward through time (cell, sequence, ensemble) on other shapes, the rSVD
 * against LAPACK's full SVD, and bad input. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ref_case.h"
#include "ops/ref_gru.h"
#include "ops/vector.h"
#include "ops_util.h"
#include "test_gru.h"
#include "util.h"

static double urand(uint64_t *s, double lo, double hi) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return lo + (hi - lo) * (double)(*s >> 11) / 9007199254740992.0;
}

static double check_set(const dlca__ops_vector *v, const dlca__ops_set *set, double **got) {
  double worst = 0;
  for (size_t i = 0; i < set->n; i++) {
    dlca__ops_cmp c = dlca__ops_compare(got[i], &set->t[i], v->tol_abs, v->tol_rel);
    ck_assert_msg(c.pass, "%s: %s[%zu] = %.17g, want %.17g", v->path, set->t[i].name, c.worst_index,
                  got[i][c.worst_index], set->t[i].data[c.worst_index]);
    worst = fmax(worst, c.worst);
  }
  return worst;
}

static const char *const prefixes[] = {"gru_cell_", "gru_sequence_", "rsvd_"};

START_TEST(test_gru_ref_vectors) {
  const char *dir = to_dir();
  if (!dir) return;
  to_list list;
  to_list_files(dir, prefixes[_i], &list);
  ck_assert_msg(list.n > 0, "%s: no %s*.json", dir, prefixes[_i]);
  for (size_t i = 0; i < list.n; i++) {
    dlca__ops_vector v;
    dlca__ops_result r;
    ck_assert_msg(dlca__ops_vector_load(list.path[i], &v) == DLCA_OK, "%s", dlca_last_error());
    ck_assert_msg(dlca__ops_ref_run(&v, &r) == DLCA_OK, "%s", dlca_last_error());
    double f = check_set(&v, &v.outputs, r.out), b = check_set(&v, &v.grads, r.grad);
    ck_assert(v.grads.n == 6 || !strcmp(v.op, "rsvd"));
    fprintf(stderr, "gru ref %-16s forward %.2e backward %.2e (%zu grads)\n", v.name, f, b, v.grads.n);
    dlca__ops_result_free(&r);
    dlca__ops_vector_free(&v);
  }
  to_list_free(&list);
}
END_TEST

/* The parameters of one FD case in one array: x, h0, w_ih, w_hh, b_ih, b_hh (each M times). */
typedef struct fd_gru {
  size_t M;
  int x_shared;
  dlca__gru_dims d;
  size_t n[6], off[6], total, ny, nh;
} fd_gru;

static void fd_layout(fd_gru *c) {
  size_t G = 3 * c->d.H, M = c->M;
  size_t n[6] = {(c->x_shared ? 1 : M) * c->d.B * c->d.T * c->d.D,
                 M * c->d.B * c->d.H,
                 M * G * c->d.D,
                 M * G * c->d.H,
                 M * G,
                 M * G};
  c->total = 0;
  for (int k = 0; k < 6; k++) c->n[k] = n[k], c->off[k] = c->total, c->total += n[k];
  c->ny = M * c->d.B * c->d.T * c->d.H, c->nh = M * c->d.B * c->d.H;
}

static dlca__ref_gru_w fd_w(const fd_gru *c, const double *p) {
  dlca__ref_gru_w w = {p + c->off[2], p + c->off[3], p + c->off[4], p + c->off[5]};
  return w;
}

/* sum(y wy) + sum(h_n wh). */
static double fd_loss(const fd_gru *c, const double *p, const double *wy, const double *wh, double *y, double *hn) {
  dlca__ref_gru_w w = fd_w(c, p);
  ck_assert_int_eq(dlca__ref_gru_ensemble(c->M, c->x_shared, &c->d, &w, p, p + c->off[1], y, hn), DLCA_OK);
  double l = 0;
  for (size_t i = 0; i < c->ny; i++) l += y[i] * wy[i];
  for (size_t i = 0; i < c->nh; i++) l += hn[i] * wh[i];
  return l;
}

/* The worst |analytic - numeric| / (1 + |analytic|) over every parameter. */
static double fd_run(fd_gru *c, uint64_t seed) {
  fd_layout(c);
  double *p = malloc(sizeof(double) * c->total), *g = malloc(sizeof(double) * c->total);
  double *wy = malloc(sizeof(double) * c->ny), *wh = malloc(sizeof(double) * c->nh);
  double *y = malloc(sizeof(double) * c->ny), *hn = malloc(sizeof(double) * c->nh);
  for (size_t i = 0; i < c->total; i++) p[i] = urand(&seed, -1, 1);
  for (size_t i = 0; i < c->ny; i++) wy[i] = urand(&seed, -1, 1);
  for (size_t i = 0; i < c->nh; i++) wh[i] = urand(&seed, -1, 1);
  fd_loss(c, p, wy, wh, y, hn);
  dlca__ref_gru_w w = fd_w(c, p);
  dlca__ref_gru_dw dw = {g + c->off[2], g + c->off[3], g + c->off[4], g + c->off[5]};
  ck_assert_int_eq(
      dlca__ref_gru_ensemble_backward(c->M, c->x_shared, &c->d, &w, p, p + c->off[1], y, wy, wh, g, g + c->off[1], &dw),
      DLCA_OK);
  double worst = 0, h = 1e-6;
  for (size_t i = 0; i < c->total; i++) {
    double keep = p[i];
    p[i] = keep + h;
    double lp = fd_loss(c, p, wy, wh, y, hn);
    p[i] = keep - h;
    double lm = fd_loss(c, p, wy, wh, y, hn);
    p[i] = keep;
    worst = fmax(worst, fabs((lp - lm) / (2 * h) - g[i]) / (1 + fabs(g[i])));
  }
  free(p), free(g), free(wy), free(wh), free(y), free(hn);
  return worst;
}

static const fd_gru fd_cases[] = {
    {1, 0, {3, 1, 5, 4}, {0}, {0}, 0, 0, 0}, /* a cell */
    {1, 0, {2, 6, 3, 5}, {0}, {0}, 0, 0, 0}, /* a sequence */
    {3, 0, {2, 3, 4, 3}, {0}, {0}, 0, 0, 0}, /* an ensemble, inputs per member */
    {3, 1, {2, 4, 2, 3}, {0}, {0}, 0, 0, 0}, /* an ensemble sharing x */
};

START_TEST(test_gru_fd) {
  fd_gru c = fd_cases[_i];
  double worst = fd_run(&c, 100 + (uint64_t)_i);
  fprintf(stderr, "gru fd M %zu%s B %zu T %zu D %zu H %zu: worst %.2e\n", c.M, c.x_shared ? " (shared x)" : "", c.d.B,
          c.d.T, c.d.D, c.d.H, worst);
  ck_assert_msg(worst < 1e-7, "central differences disagree: %.3g", worst);
}
END_TEST

/* The cell's backward is the sequence's at T = 1, and h_n its y. */
START_TEST(test_gru_cell_is_step) {
  dlca__gru_dims d = {3, 1, 4, 5};
  uint64_t s = 7;
  double x[12], h[15], wi[60], wh[75], bi[15], bh[15], hn[15], y[15], dy[15];
  double *all[] = {x, h, wi, wh, bi, bh, dy};
  size_t n[] = {12, 15, 60, 75, 15, 15, 15};
  for (int k = 0; k < 7; k++)
    for (size_t i = 0; i < n[k]; i++) all[k][i] = urand(&s, -1, 1);
  dlca__ref_gru_w w = {wi, wh, bi, bh};
  ck_assert_int_eq(dlca__ref_gru_cell(&d, &w, x, h, hn), DLCA_OK);
  ck_assert_int_eq(dlca__ref_gru_sequence(&d, &w, x, h, y, NULL), DLCA_OK);
  for (int i = 0; i < 15; i++) ck_assert_double_eq(hn[i], y[i]);
  double dx1[12], dh1[15], dx2[12], dh2[15], g1[60], g2[60];
  dlca__ref_gru_dw dw1 = {g1, NULL, NULL, NULL}, dw2 = {g2, NULL, NULL, NULL};
  ck_assert_int_eq(dlca__ref_gru_cell_backward(&d, &w, x, h, dy, dx1, dh1, &dw1), DLCA_OK);
  ck_assert_int_eq(dlca__ref_gru_sequence_backward(&d, &w, x, h, y, NULL, dy, dx2, dh2, &dw2), DLCA_OK);
  for (int i = 0; i < 12; i++) ck_assert_double_eq_tol(dx1[i], dx2[i], 1e-15);
  for (int i = 0; i < 15; i++) ck_assert_double_eq_tol(dh1[i], dh2[i], 1e-15);
  for (int i = 0; i < 60; i++) ck_assert_double_eq_tol(g1[i], g2[i], 1e-15);
}
END_TEST

/* Files whose shapes or attrs do not fit are EPARSE naming the file and the field; an rsvd rank over min(m, n) or
 * a non-finite A likewise. */
START_TEST(test_gru_ref_bad_files) {
  const char *tmp = tu_tmpdir("gru-bad");
  static const struct {
    const char *text, *msg;
  } bad[] = {
      {"{\"format\": \"dlca-ops-vector\", \"version\": 1, \"op\": \"gru_cell\", \"tolerance\": {\"abs\": 1e-4, "
       "\"rel\": 1e-4}, \"inputs\": {\"x\": {\"shape\": [1, 2], \"data\": [1, 2]}, \"h\": {\"shape\": [1, 1], "
       "\"data\": [0]}, \"w_ih\": {\"shape\": [3, 2], \"data\": [1, 2, 3, 4, 5, 6]}, \"w_hh\": {\"shape\": [2, 1], "
       "\"data\": [1, 2]}}, \"outputs\": {\"h_next\": {\"shape\": [1, 1], \"data\": [0]}}}",
       "inputs.w_hh: expected [3H, H]"},
      {"{\"format\": \"dlca-ops-vector\", \"version\": 1, \"op\": \"gru_cell\", \"tolerance\": {\"abs\": 1e-4, "
       "\"rel\": 1e-4}, \"inputs\": {\"x\": {\"shape\": [1, 2], \"data\": [1, 2]}, \"h\": {\"shape\": [2, 1], "
       "\"data\": [0, 0]}, \"w_ih\": {\"shape\": [3, 2], \"data\": [1, 2, 3, 4, 5, 6]}, \"w_hh\": {\"shape\": [3, 1], "
       "\"data\": [1, 2, 3]}}, \"outputs\": {\"h_next\": {\"shape\": [1, 1], \"data\": [0]}}}",
       "inputs.h.shape: does not fit op gru_cell, expected [1, 1]"},
      {"{\"format\": \"dlca-ops-vector\", \"version\": 1, \"op\": \"rsvd\", \"attrs\": {\"rank\": 3, \"oversample\": "
       "1, "
       "\"power_iters\": 1}, \"tolerance\": {\"abs\": 1e-4, \"rel\": 1e-4}, \"inputs\": {\"A\": {\"shape\": [2, 2], "
       "\"data\": [1, 2, 3, 4]}}, \"outputs\": {\"S\": {\"shape\": [3], \"data\": [0, 0, 0]}}}",
       "rank 3, expected 1 to min(m, n) = 2"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char name[32];
    snprintf(name, sizeof name, "bad%zu.json", i);
    dlca__ops_vector v;
    dlca__ops_result r;
    ck_assert_msg(dlca__ops_vector_load(tu_write(tmp, name, bad[i].text), &v) == DLCA_OK, "%s", dlca_last_error());
    ck_assert_int_eq(dlca__ops_ref_run(&v, &r), DLCA_EPARSE);
    ck_assert_msg(strstr(dlca_last_error(), bad[i].msg) && strstr(dlca_last_error(), name), "\"%s\" lacks \"%s\"",
                  dlca_last_error(), bad[i].msg);
    dlca__ops_vector_free(&v);
  }
}
END_TEST

TCase *tg_tcase_ref(void) {
  TCase *tc = tcase_create("ref");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_gru_ref_vectors, 0, 3);
  tcase_add_loop_test(tc, test_gru_fd, 0, (int)(sizeof fd_cases / sizeof fd_cases[0]));
  tcase_add_test(tc, test_gru_cell_is_step);
  tcase_add_test(tc, test_gru_ref_bad_files);
  tg_add_rsvd_ref(tc);
  return tc;
}

Suite *suite_gru(void) {
  Suite *s = suite_create("gru");
  TCase *ref = tg_tcase_ref(), *cl = tg_tcase_cl();
  tg_add_norm(ref, cl);
  tg_add_rsvd_cl(cl);
  suite_add_tcase(s, ref);
  suite_add_tcase(s, cl);
  return s;
}
