/* The `gemm` and `dense` cases of dlca-ops-vector files on the device
 * (lib/ops/cl_blas.h): the file's tensors as float32 device tensors, the
 * forward, the backward with its grad_outputs, the results read back as
 * doubles into the slots dlca__ops_ref_run would fill. */
#include <stdlib.h>
#include <string.h>

#include "ops/cl_blas.h"
#include "ops/run_blas.h"

/* A tensor of shape s (rank 2 or 1), from data where not NULL. */
static int tensor(dlca_context *ctx, int rank, size_t d0, size_t d1, const double *data, dlca_tensor **out) {
  size_t shape[2] = {d0, d1};
  int rc = dlca_tensor_new(ctx, rank, shape, out);
  if (rc || !data) return rc;
  size_t n = (*out)->n;
  float *f = malloc(sizeof(float) * (n ? n : 1));
  if (!f) return dlca__fail(DLCA_ENOMEM, "out of host memory for a tensor of %zu floats", n);
  for (size_t i = 0; i < n; i++) f[i] = (float)data[i];
  rc = dlca_tensor_upload(*out, f, n);
  free(f);
  return rc;
}

/* Waits for t and copies it into the double slot out (NULL: nothing). */
static int result(const dlca_tensor *t, double *out) {
  if (!out || !t) return DLCA_OK;
  float *f = malloc(sizeof(float) * (t->n ? t->n : 1));
  if (!f) return dlca__fail(DLCA_ENOMEM, "out of host memory for a result of %zu floats", t->n);
  int rc = dlca_tensor_download(t, f, t->n);
  for (size_t i = 0; !rc && i < t->n; i++) out[i] = f[i];
  free(f);
  return rc;
}

static void free_all(dlca_tensor **t, int n) {
  for (int i = 0; i < n; i++) dlca_tensor_free(t[i]);
}

/* d op(A) and d op(B) as GEMMs of dy with the other operand (alpha the file's). */
static int gemm_grads(dlca_context *ctx, const dlca__gemm_case *c, dlca_tensor *const *t) {
  const dlca__gemm *g = &c->g;
  size_t m = g->m, n = g->n, k = g->k, la = g->trans_a ? m : k, lb = g->trans_b ? k : n;
  float al = (float)c->alpha;
  dlca__gemm ga = g->trans_a ? (dlca__gemm){g->trans_b, 1, k, m, n, al, 0, lb, n, m, 0, 0, 0, 1, 0, 0, 0}
                             : (dlca__gemm){0, !g->trans_b, m, k, n, al, 0, n, lb, k, 0, 0, 0, 1, 0, 0, 0};
  dlca__gemm gb = g->trans_b ? (dlca__gemm){1, g->trans_a, n, k, m, al, 0, n, la, k, 0, 0, 0, 1, 0, 0, 0}
                             : (dlca__gemm){!g->trans_a, 0, k, n, m, al, 0, la, n, n, 0, 0, 0, 1, 0, 0, 0};
  int rc = DLCA_OK;
  if (c->da && g->trans_a) rc = dlca__ops_cl_gemm(ctx, &ga, t[1]->buf, t[3]->buf, t[4]->buf);
  else if (c->da) rc = dlca__ops_cl_gemm(ctx, &ga, t[3]->buf, t[1]->buf, t[4]->buf);
  if (!rc && c->db && g->trans_b) rc = dlca__ops_cl_gemm(ctx, &gb, t[3]->buf, t[0]->buf, t[5]->buf);
  else if (!rc && c->db) rc = dlca__ops_cl_gemm(ctx, &gb, t[0]->buf, t[3]->buf, t[5]->buf);
  if (rc || !c->dc) return rc;
  /* dC = beta dy: a copy, then a GEMM with k = 0 (C = beta C). */
  cl_int err = clEnqueueCopyBuffer(ctx->queue, t[3]->buf, t[6]->buf, 0, 0, sizeof(float) * t[3]->n, 0, NULL, NULL);
  if (err != CL_SUCCESS) return dlca__fail_cl(err, "gemm backward: copying dy: %s", dlca__cl_error_name(err));
  dlca__gemm gc = {0, 0, m, n, 0, 1.0f, (float)c->beta, n, n, n, 0, 0, 0, 1, 0, 0, 0};
  return dlca__ops_cl_gemm(ctx, &gc, t[6]->buf, t[6]->buf, t[6]->buf);
}

int dlca__ops_cl_run_gemm(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r) {
  dlca__gemm_case c;
  int rc = dlca__ops_gemm_case(v, r, &c);
  if (rc) return rc;
  dlca__gemm g = c.g;
  g.alpha = (float)c.alpha, g.beta = (float)c.beta;
  /* A, B, y (C's values, then the result in place), dy, dA, dB, dC */
  dlca_tensor *t[7] = {NULL};
  const dlca__ops_tensor *a = c.a, *b = c.b, *cc = c.c;
  rc = tensor(ctx, 2, a->shape[0], a->shape[1], a->data, &t[0]);
  if (!rc) rc = tensor(ctx, 2, b->shape[0], b->shape[1], b->data, &t[1]);
  if (!rc) rc = tensor(ctx, 2, cc->shape[0], cc->shape[1], cc->data, &t[2]);
  if (!rc) rc = dlca__ops_cl_gemm(ctx, &g, t[0]->buf, t[1]->buf, t[2]->buf);
  if (!rc) rc = result(t[2], c.y);
  if (!rc && c.dy) {
    rc = tensor(ctx, 2, cc->shape[0], cc->shape[1], c.dy, &t[3]);
    if (!rc) rc = tensor(ctx, 2, a->shape[0], a->shape[1], NULL, &t[4]);
    if (!rc) rc = tensor(ctx, 2, b->shape[0], b->shape[1], NULL, &t[5]);
    if (!rc) rc = tensor(ctx, 2, cc->shape[0], cc->shape[1], NULL, &t[6]);
    if (!rc) rc = gemm_grads(ctx, &c, t);
    if (!rc) rc = result(t[4], c.da);
    if (!rc) rc = result(t[5], c.db);
    if (!rc) rc = result(t[6], c.dc);
  }
  free_all(t, 7);
  return rc;
}

int dlca__ops_cl_run_dense(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r) {
  dlca__dense_case c;
  int rc = dlca__ops_dense_case(v, r, &c);
  if (rc) return rc;
  /* x, W, b, y, dy (then dz in place), dx, dW, db */
  dlca_tensor *t[8] = {NULL};
  rc = tensor(ctx, 2, c.n, c.in, c.x->data, &t[0]);
  if (!rc) rc = tensor(ctx, 2, c.out, c.in, c.w->data, &t[1]);
  if (!rc && c.b) rc = tensor(ctx, 1, c.out, 0, c.b->data, &t[2]);
  if (!rc) rc = tensor(ctx, 2, c.n, c.out, NULL, &t[3]);
  if (!rc) rc = dlca__ops_cl_dense(ctx, c.act, t[0], t[1], t[2], t[3]);
  if (!rc) rc = result(t[3], c.y);
  if (!rc && c.dy) {
    rc = tensor(ctx, 2, c.n, c.out, c.dy, &t[4]);
    if (!rc) rc = tensor(ctx, 2, c.n, c.in, NULL, &t[5]);
    if (!rc) rc = tensor(ctx, 2, c.out, c.in, NULL, &t[6]);
    if (!rc && c.b) rc = tensor(ctx, 1, c.out, 0, NULL, &t[7]);
    if (!rc) rc = dlca__ops_cl_dense_backward(ctx, c.act, t[0], t[1], t[3], t[4], t[4], t[5], t[6], t[7]);
    if (!rc) rc = result(t[5], c.dx);
    if (!rc) rc = result(t[6], c.dw);
    if (!rc) rc = result(t[7], c.db);
  }
  free_all(t, 8);
  return rc;
}
