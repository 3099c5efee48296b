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

#endif
