/* The optimizer suite's cases of the dlca-ops-vector files
 * (shared/testdata/ops: op optimizer, clip_grad_norm, lr_schedule) on the
 * CPU twin or on a device. Internal. */
#ifndef DLCA_OPTIM_VECTOR_H
#define DLCA_OPTIM_VECTOR_H
#include "dlca_cl/optim.h"
#include "ops/ref_case.h"
#include "ops/vector.h"

/* Runs the case v on the CPU twin (ctx NULL) or on ctx's device (the
 * device optimizer and clipping; a schedule is computed on the host either
 * way, as a trainer computes it ahead of the step). *r is allocated here, in
 * dlca__ops_ref_run's layout (r->out[i] for v->outputs.t[i]); free it with
 * dlca__ops_result_free. DLCA_EUNSUPPORTED for another op; DLCA_EPARSE
 * naming the file for attrs or shapes that do not fit. */
int dlca__optim_run_vector(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r);
/* The same on a result already allocated (lib/ops/ref_case.c's dispatch). */
int dlca__optim_ref_case(const dlca__ops_vector *v, dlca__ops_result *r);
/* The file's optimizer (attrs name and hyper, torch's names) into cfg. */
int dlca__optim_vector_config(const dlca__ops_vector *v, dlca_optim_config *cfg);
#endif
