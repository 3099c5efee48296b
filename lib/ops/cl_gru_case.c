/* The gru_cell and gru_sequence vector cases on the device (lib/ops/cl_gru.h):
 * the file's inputs uploaded as float32, the forward, then the backward with
 * the file's grad_outputs; results as doubles. A cell is a sequence of one
 * step: x [B, D] is [B, 1, D], h is h0 and h_next is y. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/cl_gru.h"
#include "ops/ref_ops.h"

/* A device tensor holding the file's tensor t as float32 (NULL t: NULL). */
static int up(dlca_context *ctx, const dlca__ops_tensor *t, dlca_tensor **out) {
  *out = NULL;
  if (!t) return DLCA_OK;
  float *f = malloc(sizeof(float) * (t->n ? t->n : 1));
  if (!f) return dlca__fail(DLCA_ENOMEM, "gru: out of host memory");
  for (size_t i = 0; i < t->n; i++) f[i] = (float)t->data[i];
  int rc = dlca_tensor_new(ctx, t->rank, t->shape, out);
  if (!rc) rc = dlca_tensor_upload(*out, f, t->n);
  free(f);
  return rc;
}

/* A new device tensor of n elements (rank 1). */
static int fresh(dlca_context *ctx, size_t n, dlca_tensor **out) { return dlca_tensor_new(ctx, 1, &n, out); }

/* Downloads t into d (n doubles; d NULL: nothing). */
static int down(const dlca_tensor *t, double *d) {
  if (!d || !t) return DLCA_OK;
  float *f = malloc(sizeof(float) * t->n);
  if (!f) return dlca__fail(DLCA_ENOMEM, "gru: out of host memory");
  int rc = dlca_tensor_download(t, f, t->n);
  for (size_t i = 0; !rc && i < t->n; i++) d[i] = f[i];
  free(f);
  return rc;
}

enum { X, H0, WI, WH, BI, BH, Y, HN, DY, DHN, DX, DH0, DWI, DWH, DBI, DBH, NT };

/* The device side of one case: t[] holds every tensor; out and grad the result slots by name. */
static int run(dlca_context *ctx, const dlca__gru_cfg *c, dlca_tensor **t, double *const *slot) {
  dlca__gru_tape *tape = NULL;
  dlca__gru_cl_w w = {t[WI], t[WH], t[BI], t[BH]};
  dlca__gru_cl_dw dw = {t[DWI], t[DWH], t[DBI], t[DBH]};
  int rc = dlca__gru_tape_new(ctx, c, &tape);
  if (!rc) rc = dlca__ops_cl_gru_forward(ctx, c, &w, t[X], t[H0], t[Y], t[HN], tape);
  if (!rc && (t[DY] || t[DHN])) rc = dlca__ops_cl_gru_backward(ctx, c, &w, t[X], tape, t[DY], t[DHN], t[DX], t[DH0], &dw);
  for (int i = Y; !rc && i < NT; i++)
    if (i != DY && i != DHN) rc = down(t[i], slot[i]);
  dlca__gru_tape_free(tape);
  return rc;
}

/* Uploads the case's tensors, runs it into r's slots, frees everything. */
static int gru_case(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r, int cell) {
  int rc;
  dlca__gru_cfg c = {1, 1, {0, 1, 0, 0}};
  dlca__ref_gru_w wr;
  if ((rc = dlca__ops_gru_weights(v, &c.d, &wr))) return rc;
  const dlca__ops_tensor *x = dlca__ops_set_find(&v->inputs, "x");
  c.d.B = x->shape[0], c.d.T = cell ? 1 : x->shape[1];
  static const char *const in_names[2][6] = {{"x", "h0", "w_ih", "w_hh", "b_ih", "b_hh"},
                                             {"x", "h", "w_ih", "w_hh", "b_ih", "b_hh"}};
  dlca_tensor *t[NT] = {NULL};
  double *slot[NT] = {NULL};
  for (int i = 0; !rc && i < 6; i++) rc = up(ctx, dlca__ops_set_find(&v->inputs, in_names[cell][i]), &t[i]);
  const char *outs[2] = {cell ? "h_next" : "y", cell ? NULL : "h_n"};
  for (int i = 0; !rc && i < 2; i++) {
    const dlca__ops_tensor *o = outs[i] ? dlca__ops_set_find(&v->outputs, outs[i]) : NULL;
    if (o && !(rc = fresh(ctx, o->n, &t[Y + i]))) slot[Y + i] = r->out[o - v->outputs.t];
    if (!rc && o && v->grads.n) rc = up(ctx, dlca__ops_set_find(&v->grad_outputs, outs[i]), &t[DY + i]);
  }
  for (int i = 0; !rc && i < 6; i++) {
    const dlca__ops_tensor *g = dlca__ops_set_find(&v->grads, in_names[cell][i]);
    if (g && !(rc = fresh(ctx, g->n, &t[DX + i]))) slot[DX + i] = r->grad[g - v->grads.t];
  }
  if (!rc) rc = run(ctx, &c, t, slot);
  for (int i = 0; i < NT; i++) dlca_tensor_free(t[i]);
  return rc;
}

/* The result slots as dlca__ops_ref_run makes them (which checks every shape), filled with NaN so that a
 * slot the device leaves alone fails. */
static int with_result(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r, int cell) {
  int rc = dlca__ops_ref_run(v, r);
  if (rc) return rc;
  for (size_t i = 0; i < r->n_out; i++)
    for (size_t j = 0; j < v->outputs.t[i].n; j++) r->out[i][j] = NAN;
  for (size_t i = 0; i < r->n_grad; i++)
    for (size_t j = 0; j < v->grads.t[i].n; j++) r->grad[i][j] = NAN;
  if ((rc = gru_case(ctx, v, r, cell))) dlca__ops_result_free(r);
  return rc;
}

int dlca__ops_cl_run_gru_cell(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r) {
  return with_result(ctx, v, r, 1);
}

int dlca__ops_cl_run_gru_sequence(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r) {
  return with_result(ctx, v, r, 0);
}
