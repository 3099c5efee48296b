/* The OpenCL trainer back end (lib/cl/trainer/) as the rest of the library
 * sees it: its ops for lib/train/trainer.c, its footprint, and what the tests
 * ask of it. Layering: train/epoch.h. */
#ifndef DLCA_CL_TRAINER_BACKEND_H
#define DLCA_CL_TRAINER_BACKEND_H

#include "train/trainer_impl.h"

extern const dlca_trainer_ops dlca__cl_trainer_ops;

/* Device bytes the OpenCL trainer allocates for this model and configuration. */
size_t dlca__cl_trainer_footprint(const dlca_model *m, const dlca_train_config *cfg);
/* The work-group size an OpenCL trainer's kernels were built for (WG or
 * WG_NARROW, lib/cl/trainer/plan.c); 0 for the CPU reference. For tests. */
int dlca__cl_trainer_wg(const dlca_trainer *t);
int dlca__cl_trainer_psplit(const dlca_trainer *t);
int dlca__cl_trainer_push(const dlca_trainer *t);
int dlca__cl_trainer_banks(const dlca_trainer *t);
/* Cells per unit of dlca_backward_perc under the split (PERC_SPLIT_UNIT_CELLS), else 0. For tests. */
int dlca__cl_trainer_perc_unit(const dlca_trainer *t);
/* Under PSPLIT: dlca_backward's work-groups, and dlca_backward_perc's
 * (PERC_GROUPS_PER_CU); 0 otherwise. */
int dlca__cl_trainer_groups(const dlca_trainer *t, int *nwg_perc);
/* 1 when the OpenCL trainer runs its backward pass in one launch (BWD_PERSIST), else 0 */
int dlca__cl_trainer_persist(const dlca_trainer *t);

#endif
