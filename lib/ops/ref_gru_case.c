/* The CPU twin's runners of the gru_cell and gru_sequence vector cases
 * (shared/testdata/ops/README.md), dispatched from lib/ops/ref_case.c. */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "ops/ref_gru.h"
#include "ops/ref_ops.h"

#define BAD(...) dlca__fail(DLCA_EPARSE, __VA_ARGS__)

/* DLCA_EPARSE unless t (an input) has shape [d0, d1, d2][:rank]. */
static int want_shape(const dlca__ops_vector *v, const dlca__ops_tensor *t, int rank, size_t d0, size_t d1,
                      size_t d2) {
  size_t want[3] = {d0, d1, d2};
  int ok = t->rank == rank;
  for (int k = 0; ok && k < rank; k++) ok = t->shape[k] == want[k];
  if (ok) return DLCA_OK;
  char sh[96];
  int p = 0;
  for (int k = 0; k < rank && p >= 0 && (size_t)p < sizeof sh; k++)
    p += snprintf(sh + p, sizeof sh - (size_t)p, k ? ", %zu" : "%zu", want[k]);
  return BAD("%s: inputs.%s.shape: does not fit op %s, expected [%s]", v->path, t->name, v->op, sh);
}

/* The weights of a case, checked against d (D and H read from w_ih and w_hh). */
int dlca__ops_gru_weights(const dlca__ops_vector *v, dlca__gru_dims *d, dlca__ref_gru_w *w) {
  const dlca__ops_tensor *wi, *wh, *bi = dlca__ops_set_find(&v->inputs, "b_ih"),
                               *bh = dlca__ops_set_find(&v->inputs, "b_hh");
  int rc;
  if ((rc = dlca__ops_input(v, "w_ih", &wi, NULL)) || (rc = dlca__ops_input(v, "w_hh", &wh, NULL))) return rc;
  if (wh->rank != 2 || wh->shape[0] % 3 || wh->shape[0] != 3 * wh->shape[1])
    return BAD("%s: inputs.w_hh: expected [3H, H]", v->path);
  if (wi->rank != 2 || !wi->shape[1]) return BAD("%s: inputs.w_ih: expected [3H, D]", v->path);
  d->H = wh->shape[1], d->D = wi->shape[1];
  if ((rc = want_shape(v, wi, 2, 3 * d->H, d->D, 0)) || (bi && (rc = want_shape(v, bi, 1, 3 * d->H, 0, 0))) ||
      (bh && (rc = want_shape(v, bh, 1, 3 * d->H, 0, 0))))
    return rc;
  w->w_ih = wi->data, w->w_hh = wh->data, w->b_ih = bi ? bi->data : NULL, w->b_hh = bh ? bh->data : NULL;
  return DLCA_OK;
}

/* The six gradient slots of a case (NULL where the file has none). */
static int grad_slots(const dlca__ops_vector *v, dlca__ops_result *r, const dlca__gru_dims *d, const char *xn,
                      const dlca__shape *xs, const char *hn, const dlca__shape *hs, double **dx, double **dh,
                      dlca__ref_gru_dw *dw) {
  dlca__shape wi = {2, {3 * d->H, d->D}}, wh = {2, {3 * d->H, d->H}}, b = {1, {3 * d->H}};
  int rc;
  if ((rc = dlca__ops_grad(v, r, xn, xs, dx)) || (rc = dlca__ops_grad(v, r, hn, hs, dh)) ||
      (rc = dlca__ops_grad(v, r, "w_ih", &wi, &dw->w_ih)) || (rc = dlca__ops_grad(v, r, "w_hh", &wh, &dw->w_hh)) ||
      (rc = dlca__ops_grad(v, r, "b_ih", &b, &dw->b_ih)) || (rc = dlca__ops_grad(v, r, "b_hh", &b, &dw->b_hh)))
    return rc;
  return DLCA_OK;
}

int dlca__ops_run_gru_cell(const dlca__ops_vector *v, dlca__ops_result *r) {
  const dlca__ops_tensor *x, *h;
  dlca__gru_dims d = {0, 1, 0, 0};
  dlca__ref_gru_w w;
  dlca__ref_gru_dw dw;
  double *hn, *dx, *dh;
  const double *g;
  int rc;
  if ((rc = dlca__ops_gru_weights(v, &d, &w)) || (rc = dlca__ops_input(v, "x", &x, NULL)) ||
      (rc = dlca__ops_input(v, "h", &h, NULL)))
    return rc;
  d.B = x->rank == 2 ? x->shape[0] : 0;
  dlca__shape xs = {2, {d.B, d.D}}, hs = {2, {d.B, d.H}};
  if ((rc = want_shape(v, x, 2, d.B, d.D, 0)) || (rc = want_shape(v, h, 2, d.B, d.H, 0)) ||
      (rc = dlca__ops_as_parse(v, dlca__gru_dims_check(&d, "gru_cell"))) ||
      (rc = dlca__ops_out(v, r, "h_next", &hs, &hn)) || (rc = grad_slots(v, r, &d, "x", &xs, "h", &hs, &dx, &dh, &dw)))
    return rc;
  if ((rc = dlca__ref_gru_cell(&d, &w, x->data, h->data, hn))) return rc;
  if (!v->grads.n) return DLCA_OK;
  if ((rc = dlca__ops_upstream(v, "h_next", &hs, &g))) return rc;
  return dlca__ref_gru_cell_backward(&d, &w, x->data, h->data, g, dx, dh, &dw);
}

/* batch_first must be true where given: the files are [B, T, D]. */
static int batch_first(const dlca__ops_vector *v) {
  int bf = 1;
  if (json_object_get(v->attrs, "batch_first") && dlca__ops_vector_attr_bool(v, "batch_first", &bf)) return DLCA_EPARSE;
  return bf ? DLCA_OK : dlca__fail(DLCA_EUNSUPPORTED, "%s: attrs.batch_first false is not supported", v->path);
}

int dlca__ops_run_gru_sequence(const dlca__ops_vector *v, dlca__ops_result *r) {
  const dlca__ops_tensor *x, *h0;
  dlca__gru_dims d = {0, 0, 0, 0};
  dlca__ref_gru_w w;
  dlca__ref_gru_dw dw;
  double *y, *hn, *dx, *dh0;
  const double *gy, *gh;
  int rc;
  if ((rc = batch_first(v)) || (rc = dlca__ops_gru_weights(v, &d, &w)) || (rc = dlca__ops_input(v, "x", &x, NULL)) ||
      (rc = dlca__ops_input(v, "h0", &h0, NULL)))
    return rc;
  d.B = x->rank == 3 ? x->shape[0] : 0, d.T = x->rank == 3 ? x->shape[1] : 0;
  dlca__shape xs = {3, {d.B, d.T, d.D}}, hs = {2, {d.B, d.H}}, ys = {3, {d.B, d.T, d.H}};
  if ((rc = want_shape(v, x, 3, d.B, d.T, d.D)) || (rc = want_shape(v, h0, 2, d.B, d.H, 0)) ||
      (rc = dlca__ops_as_parse(v, dlca__gru_dims_check(&d, "gru_sequence"))) ||
      (rc = dlca__ops_out(v, r, "y", &ys, &y)) || (rc = dlca__ops_out(v, r, "h_n", &hs, &hn)) ||
      (rc = grad_slots(v, r, &d, "x", &xs, "h0", &hs, &dx, &dh0, &dw)))
    return rc;
  if ((rc = dlca__ref_gru_sequence(&d, &w, x->data, h0->data, y, hn))) return rc;
  if (!v->grads.n) return DLCA_OK;
  if ((rc = dlca__ops_upstream(v, "y", &ys, &gy)) || (rc = dlca__ops_upstream(v, "h_n", &hs, &gh))) return rc;
  return dlca__ref_gru_sequence_backward(&d, &w, x->data, h0->data, y, gy, gh, dx, dh0, &dw);
}
