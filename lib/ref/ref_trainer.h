/* The CPU reference trainer back end (ref_trainer.c) as lib/train/trainer.c
 * sees it. Layering: train/epoch.h. */
#ifndef DLCA_REF_REF_TRAINER_H
#define DLCA_REF_REF_TRAINER_H

#include "train/trainer_impl.h"

extern const dlca_trainer_ops dlca__ref_trainer_ops;

/* Host bytes a reference trainer of this model and configuration holds at
 * its peak (ref_trainer.c); it refuses with DLCA_EDEVMEM where the process
 * cannot get them. */
size_t dlca__ref_trainer_footprint(const dlca_model *m, const dlca_train_config *cfg);

/* One step of the suite's rule c->kind (torch.optim, lib/optim/rules.c) at
 * step t >= 1 over n logits: each gradient clipped to [-clip, clip] first.
 * slots: dlca__optim_slots(c) slots of n floats each, slot-major (the twin
 * of dlca_adamw's suite rules, kernels-cl/trainer/adamw.cl). */
void dlca__ref_optim_step(const dlca_optim_config *c, float clip, size_t n, float *p, const float *grad,
                          float *slots, uint64_t t);

#endif
