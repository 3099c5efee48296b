/* The per-op runners of lib/ops/ref_case.c and the helpers they share. Internal. */
#ifndef DLCA_OPS_REF_OPS_H
#define DLCA_OPS_REF_OPS_H
#include "ops/ref_case.h"

/* inputs.name and its shape (s may be NULL). */
int dlca__ops_input(const dlca__ops_vector *v, const char *name, const dlca__ops_tensor **t, dlca__shape *s);
/* The result slot of outputs.name, checking the file's shape is want. */
int dlca__ops_out(const dlca__ops_vector *v, dlca__ops_result *r, const char *name, const dlca__shape *want,
                  double **out);
/* The same for grads.name; *out is NULL where the file has no such gradient. */
int dlca__ops_grad(const dlca__ops_vector *v, dlca__ops_result *r, const char *name, const dlca__shape *want,
                   double **out);
/* grad_outputs.name, of shape want. */
int dlca__ops_upstream(const dlca__ops_vector *v, const char *name, const dlca__shape *want, const double **dy);

/* rc, with a twin's DLCA_EINVAL (shapes or attrs that do not fit) made the
 * file's DLCA_EPARSE, its message prefixed with the file. */
int dlca__ops_as_parse(const dlca__ops_vector *v, int rc);

int dlca__ops_run_unary(const dlca__ops_vector *v, dlca__ops_result *r);
int dlca__ops_run_binary(const dlca__ops_vector *v, dlca__ops_result *r);
int dlca__ops_run_reduce(const dlca__ops_vector *v, dlca__ops_result *r);
int dlca__ops_run_movement(const dlca__ops_vector *v, dlca__ops_result *r);
int dlca__ops_run_mse(const dlca__ops_vector *v, dlca__ops_result *r);
int dlca__ops_run_softmax_xent(const dlca__ops_vector *v, dlca__ops_result *r);
#endif
