/* Runs one dlca-ops-vector case on the CPU twin: the forward, then (where the
 * file has grads) the backward with its grad_outputs. dlca-parity --vector and
 * the ops suite use it. Internal. */
#ifndef DLCA_OPS_REF_CASE_H
#define DLCA_OPS_REF_CASE_H
#include "ops/ref.h"
#include "ops/vector.h"

/* out[i] is the result for v->outputs.t[i], grad[i] for v->grads.t[i], each
 * of the file's element count. */
typedef struct dlca__ops_result {
  size_t n_out, n_grad;
  double **out, **grad;
} dlca__ops_result;

/* DLCA_EUNSUPPORTED "op X not implemented" for an op the twin lacks;
 * DLCA_EPARSE where the file's attrs or shapes do not fit the op (naming the
 * file and the JSON path). On failure *r is empty. */
int dlca__ops_ref_run(const dlca__ops_vector *v, dlca__ops_result *r);
void dlca__ops_result_free(dlca__ops_result *r);

/* A movement case's attrs (fn and its dims, shape, pads + value, ranges or strides). */
int dlca__ops_vector_move(const dlca__ops_vector *v, dlca__move *m);

/* The shape of a file's tensor. */
dlca__shape dlca__ops_shape(const dlca__ops_tensor *t);
#endif
