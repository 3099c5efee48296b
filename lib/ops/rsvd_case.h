/* The rsvd vector case, shared by the CPU twin's runner and the device's
 * (lib/ops/rsvd_case.c, lib/ops/rsvd_cl.c). Internal. */
#ifndef DLCA_OPS_RSVD_CASE_H
#define DLCA_OPS_RSVD_CASE_H
#include "ops/ref_case.h"
#include "ops/ref_gru.h"

/* The sketch's seed where a case names none. */
#define DLCA__RSVD_SEED 20111

/* The case's attrs (rank, oversample, power_iters, optional seed) into p, A
 * (checked: rank, finite), and the result slot of outputs.S. */
int dlca__rsvd_case(const dlca__ops_vector *v, dlca__rsvd *p, const dlca__ops_tensor **a, double **s,
                    dlca__ops_result *r);
/* The README's conditions on U, S, V: DLCA_EPARITY, naming the file and the
 * figure, where U or V is not orthonormal to 1e-4 or the reconstruction error
 * is over 1.01 x optimal_rank_k_frobenius_error + 1e-4. S is checked against
 * outputs.S by the caller (dlca__ops_compare). */
int dlca__rsvd_case_verdict(const dlca__ops_vector *v, size_t m, size_t n, size_t k, const double *a, const double *u,
                            const double *s, const double *vv, double *orth, double *err);
#endif
