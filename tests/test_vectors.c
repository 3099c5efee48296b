/* The CPU reference against the JAX float64 reference vectors, at the
 * tolerances of shared/testdata/reference/README.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "train/vector.h"
#include "util.h"

static const char *const cases[] = {"tiny_sync.json", "tiny_periodic.json", "tiny_async.json",
                                    "checkerboard_init.json", "checkerboard_mixed.json"};

static double max_abs_f(const float *a, const double *b, size_t n, double *maxref) {
  double e = 0, mr = 0;
  for (size_t i = 0; i < n; i++) {
    double d = fabs((double)a[i] - b[i]);
    if (d > e || isnan(d)) e = isnan(d) ? INFINITY : d;
    if (fabs(b[i]) > mr) mr = fabs(b[i]);
  }
  if (maxref) *maxref = mr;
  return e;
}

START_TEST(test_vector_ref) {
  const char *path = tu_vector_path(cases[_i]);
  if (!path) return;
  dlca_vector v;
  int rc = dlca__vector_load(path, &v);
  ck_assert_msg(rc == DLCA_OK, "%s", dlca_last_error());
  dlca_model *m = v.model;
  size_t n = (size_t)v.run.batch * v.run.height * v.run.width * m->shape.channels, P = m->n_params;
  float *s = malloc(sizeof(float) * n), *g = malloc(sizeof(float) * P);
  float *mm = calloc(P, sizeof(float)), *vv = calloc(P, sizeof(float));
  double loss, hloss, mr;
  ck_assert_int_eq(dlca_ref_forward(m, &v.run, v.input, 1, v.target, s, &hloss), DLCA_OK);
  double e_hard = max_abs_f(s, v.hard_state, n, NULL);
  ck_assert_int_eq(dlca_ref_gradient(m, &v.run, v.input, v.target, &loss, g, s), DLCA_OK);
  double e_soft = max_abs_f(s, v.soft_state, n, NULL);
  double e_grad = max_abs_f(g, v.grad, P, &mr);
  dlca_ref_adamw(P, m->params, g, mm, vv, v.t, &v.optim);
  double e_par = max_abs_f(m->params, v.params_after, P, NULL);
  double rl = fabs(loss - v.soft_loss) / fabs(v.soft_loss);
  fprintf(stderr, "%-24s soft_state %.2e hard_state %.2e soft_loss %.2e (rel) hard_loss %g/%g grad %.2e (max|ref| %.3g) params %.2e\n",
          v.name, e_soft, e_hard, rl, hloss, v.hard_loss, e_grad, mr, e_par);
  ck_assert_msg(e_soft <= 1e-4, "soft state error %g", e_soft);
  ck_assert_msg(e_hard == 0, "hard state error %g", e_hard);
  ck_assert_msg(rl <= 1e-4, "soft loss relative error %g", rl);
  ck_assert_msg(hloss == v.hard_loss, "hard loss %g, expected %g", hloss, v.hard_loss);
  ck_assert_msg(e_grad <= 1e-3 * fmax(1, mr), "grad error %g (max |ref| %g)", e_grad, mr);
  ck_assert_msg(e_par <= 1e-4, "params-after-step error %g", e_par);
  free(s), free(g), free(mm), free(vv);
  dlca__vector_free(&v);
}
END_TEST

Suite *suite_vectors(void) {
  Suite *s = suite_create("vectors");
  TCase *tc = tcase_create("ref");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_vector_ref, 0, 5);
  suite_add_tcase(s, tc);
  return s;
}
