/* The CPU twin of the compute layer against every public vector of its ops
 * (shared/testdata/ops): forward outputs and gradients at each file's
 * tolerance, with the worst error per op printed to stderr. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ref_case.h"
#include "ops/vector.h"
#include "ops_util.h"
#include "util.h"

/* The ops the twin covers, as file-name prefixes. */
static const char *const covered[] = {"unary_", "binary_", "reduce_", "movement_", "mse_", "softmax_cross_entropy_"};
#define N_COVERED (sizeof covered / sizeof covered[0])

/* Compares one section; returns the worst |got - want| and fails the test on a miss. */
static double check_set(const dlca__ops_vector *v, const dlca__ops_set *set, double **got, const char *sec) {
  double worst = 0;
  for (size_t i = 0; i < set->n; i++) {
    dlca__ops_cmp c = dlca__ops_compare(got[i], &set->t[i], v->tol_abs, v->tol_rel);
    const dlca__ops_tensor *w = &set->t[i];
    ck_assert_msg(c.pass, "%s: %s.%s[%zu] = %.17g, want %.17g (worst %.3g, abs %g rel %g)", v->path, sec, w->name,
                  c.worst_index, got[i][c.worst_index], w->data[c.worst_index], c.worst, v->tol_abs, v->tol_rel);
    if (c.worst > worst) worst = c.worst;
  }
  return worst;
}

/* Runs one file; *fwd and *bwd get its worst errors. */
static void run_file(const char *path, double *fwd, double *bwd, size_t *n_grads) {
  dlca__ops_vector v;
  dlca__ops_result r;
  ck_assert_msg(dlca__ops_vector_load(path, &v) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(dlca__ops_ref_run(&v, &r) == DLCA_OK, "%s", dlca_last_error());
  *fwd = check_set(&v, &v.outputs, r.out, "outputs");
  *bwd = check_set(&v, &v.grads, r.grad, "grads");
  *n_grads = v.grads.n;
  fprintf(stderr, "ops ref %-28s forward %.2e  backward %.2e (%zu grads)  tolerance %g + %g|want|\n", v.name, *fwd,
          *bwd, v.grads.n, v.tol_abs, v.tol_rel);
  dlca__ops_result_free(&r);
  dlca__ops_vector_free(&v);
}

START_TEST(test_ops_ref_vectors) {
  const char *dir = to_dir();
  if (!dir) return;
  to_list list;
  to_list_files(dir, covered[_i], &list);
  ck_assert_msg(list.n > 0, "%s: no %s*.json", dir, covered[_i]);
  double wf = 0, wb = 0;
  size_t grads = 0;
  for (size_t i = 0; i < list.n; i++) {
    double f, b;
    size_t ng;
    run_file(list.path[i], &f, &b, &ng);
    wf = fmax(wf, f), wb = fmax(wb, b), grads += ng;
  }
  fprintf(stderr, "ops ref worst of %.*s (%zu files): forward %.2e backward %.2e\n", (int)strlen(covered[_i]) - 1,
          covered[_i], list.n, wf, wb);
  ck_assert_msg(grads > 0 || !strcmp(covered[_i], "binary_"), "%s: no gradient checked", covered[_i]);
  to_list_free(&list);
}
END_TEST

/* An op the twin lacks is EUNSUPPORTED with "op X not implemented" (dlca-parity's exit 2). */
START_TEST(test_ops_ref_unsupported) {
  const char *dir = to_dir();
  if (!dir) return;
  dlca__ops_vector v;
  dlca__ops_result r;
  const char *path = tu_write(tu_tmpdir("ops-unsupported"), "nope.json",
                              "{\"format\": \"dlca-ops-vector\", \"version\": 1, \"op\": \"no_such_op\", "
                              "\"tolerance\": {\"abs\": 1e-4, \"rel\": 1e-4}}");
  (void)dir;
  ck_assert_msg(dlca__ops_vector_load(path, &v) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_int_eq(dlca__ops_ref_run(&v, &r), DLCA_EUNSUPPORTED);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "op no_such_op not implemented"));
  dlca__ops_vector_free(&v);
}
END_TEST

/* A file whose output shape is not what the op gives is refused by path. */
START_TEST(test_ops_ref_bad_shape) {
  const char *tmp = tu_tmpdir("ops-shape");
  const char *path =
      tu_write(tmp, "bad.json",
               "{\"format\": \"dlca-ops-vector\", \"version\": 1, \"op\": \"binary\", \"attrs\": "
               "{\"fn\": \"add\"}, \"tolerance\": {\"abs\": 1e-4, \"rel\": 1e-4}, \"inputs\": {\"a\": "
               "{\"shape\": [2, 3], \"data\": [1,2,3,4,5,6]}, \"b\": {\"shape\": [3], \"data\": [1,2,3]}},"
               "\"outputs\": {\"y\": {\"shape\": [3, 2], \"data\": [0,0,0,0,0,0]}}}");
  dlca__ops_vector v;
  dlca__ops_result r;
  ck_assert_int_eq(dlca__ops_vector_load(path, &v), DLCA_OK);
  ck_assert_int_eq(dlca__ops_ref_run(&v, &r), DLCA_EPARSE);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "outputs.y.shape: [3, 2], op binary gives [2, 3]"));
  dlca__ops_vector_free(&v);
  path = tu_write(tmp, "bad2.json",
                  "{\"format\": \"dlca-ops-vector\", \"version\": 1, \"op\": \"binary\", \"attrs\": "
                  "{\"fn\": \"add\"}, \"tolerance\": {\"abs\": 1e-4, \"rel\": 1e-4}, \"inputs\": {\"a\": "
                  "{\"shape\": [2, 3], \"data\": [1,2,3,4,5,6]}, \"b\": {\"shape\": [2], \"data\": [1,2]}}}");
  ck_assert_int_eq(dlca__ops_vector_load(path, &v), DLCA_OK);
  ck_assert_int_eq(dlca__ops_ref_run(&v, &r), DLCA_EPARSE);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "do not broadcast"));
  dlca__ops_vector_free(&v);
}
END_TEST

TCase *to_tcase_ref(void) {
  TCase *tc = tcase_create("ref");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_ops_ref_vectors, 0, (int)N_COVERED);
  tcase_add_test(tc, test_ops_ref_unsupported);
  tcase_add_test(tc, test_ops_ref_bad_shape);
  return tc;
}
