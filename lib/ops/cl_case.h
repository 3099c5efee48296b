/* Runs one dlca-ops-vector case on an OpenCL device with the ops' launchers:
 * the forward, then (where the file has grads) the backward with its
 * grad_outputs, results widened to double in the layout dlca__ops_ref_run
 * gives (lib/ops/ref_case.h). dlca-parity --vector and the ops suite use it.
 * Internal. */
#ifndef DLCA_OPS_CL_CASE_H
#define DLCA_OPS_CL_CASE_H
#include "ops/ref_case.h"
#include "ops/tensor.h"

/* DLCA_EUNSUPPORTED "op X not implemented" for an op with no device runner;
 * DLCA_EPARSE where the file's attrs or shapes do not fit the op; a device
 * error as the launchers give it. Waits for the device. On failure *r is
 * empty. The runners of other parts' ops (dlca__ops_cl_run_<op>) get r
 * already allocated (dlca__ops_result_alloc), as the twin's runners do, or
 * allocate it themselves (marked so in lib/ops/cl_case.c's table). */
int dlca__ops_cl_run(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r);

/* r's slots for v's outputs and grads, zeroed (DLCA_ENOMEM naming the file). */
int dlca__ops_result_alloc(const dlca__ops_vector *v, dlca__ops_result *r);

/* A file's tensor on the device as float32 (blocking upload). */
int dlca__ops_cl_tensor(dlca_context *ctx, const dlca__ops_tensor *t, dlca_tensor **out);
/* Waits, then copies t's elements into dst as double. */
int dlca__ops_cl_fetch(const dlca_tensor *t, double *dst);
#endif
