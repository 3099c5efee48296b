/* The CPU reference trainer back end (ref_trainer.c) as lib/train/trainer.c
 * sees it. Layering: train/epoch.h. */
#ifndef DLCA_REF_REF_TRAINER_H
#define DLCA_REF_REF_TRAINER_H

#include "train/trainer_impl.h"

extern const dlca_trainer_ops dlca__ref_trainer_ops;

#endif
