/* The rsvd vector case (shared/testdata/ops/README.md) on the CPU twin, and
 * the README's three conditions that any backend's result must meet. */
#include <math.h>
#include <stdlib.h>

#include "core/internal.h"
#include "ops/ref_gru.h"
#include "ops/ref_ops.h"
#include "ops/rsvd_case.h"

int dlca__rsvd_case(const dlca__ops_vector *v, dlca__rsvd *p, const dlca__ops_tensor **a, double **s,
                    dlca__ops_result *r) {
  long k, os, q, seed = DLCA__RSVD_SEED;
  int rc;
  if ((rc = dlca__ops_vector_attr_int(v, "rank", &k)) || (rc = dlca__ops_vector_attr_int(v, "oversample", &os)) ||
      (rc = dlca__ops_vector_attr_int(v, "power_iters", &q)) ||
      (json_object_get(v->attrs, "seed") && (rc = dlca__ops_vector_attr_int(v, "seed", &seed))) ||
      (rc = dlca__ops_input(v, "A", a, NULL)))
    return rc;
  if (k < 1 || os < 0 || q < 0 || q > 64)
    return dlca__fail(DLCA_EPARSE, "%s: attrs: rank %ld, oversample %ld, power_iters %ld (expected >= 1, >= 0, 0..64)",
                      v->path, k, os, q);
  if ((*a)->rank != 2) return dlca__fail(DLCA_EPARSE, "%s: inputs.A: expected a matrix [m, n]", v->path);
  p->rank = (size_t)k, p->oversample = (size_t)os, p->power_iters = (size_t)q, p->seed = (uint64_t)seed;
  rc = dlca__ops_as_parse(v, dlca__rsvd_check(p, (*a)->shape[0], (*a)->shape[1], (*a)->data, NULL));
  dlca__shape ss = {1, {p->rank}};
  return rc ? rc : dlca__ops_out(v, r, "S", &ss, s);
}

int dlca__rsvd_case_verdict(const dlca__ops_vector *v, size_t m, size_t n, size_t k, const double *a, const double *u,
                            const double *s, const double *vv, double *orth, double *err) {
  json_t *o = json_object_get(v->root, "optimal_rank_k_frobenius_error");
  if (!json_is_number(o))
    return dlca__fail(DLCA_EPARSE, "%s: optimal_rank_k_frobenius_error: expected a number", v->path);
  double opt = json_number_value(o);
  dlca__rsvd_quality(m, n, k, a, u, s, vv, orth, err);
  if (!(*orth <= 1e-4))
    return dlca__fail(DLCA_EPARITY, "%s: U or V not orthonormal: max |X^T X - I| = %.3g, over 1e-4", v->path, *orth);
  if (!(*err <= 1.01 * opt + 1e-4))
    return dlca__fail(DLCA_EPARITY, "%s: ||A - U S V^T||_F = %.9g, over 1.01 x the optimum %.9g + 1e-4", v->path, *err,
                      opt);
  return DLCA_OK;
}

int dlca__ops_run_rsvd(const dlca__ops_vector *v, dlca__ops_result *r) {
  dlca__rsvd p;
  const dlca__ops_tensor *a;
  double *s, orth, err;
  int rc = dlca__rsvd_case(v, &p, &a, &s, r);
  if (rc) return rc;
  size_t m = a->shape[0], n = a->shape[1], k = p.rank;
  double *u = malloc(sizeof(double) * m * k), *vv = malloc(sizeof(double) * n * k);
  if (!u || !vv) rc = dlca__fail(DLCA_ENOMEM, "%s: out of host memory", v->path);
  if (!rc) rc = dlca__ref_rsvd(&p, m, n, a->data, u, s, vv);
  if (!rc) rc = dlca__rsvd_case_verdict(v, m, n, k, a->data, u, s, vv, &orth, &err);
  free(u), free(vv);
  return rc;
}
