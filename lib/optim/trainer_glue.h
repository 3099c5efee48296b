/* What the DiffLogic CA trainer (lib/ref/optim.c, lib/cl/trainer/) takes
 * from the optimizer suite: the per-step scalars of a configuration. Not
 * installed. */
#ifndef DLCA_OPTIM_TRAINER_GLUE_H
#define DLCA_OPTIM_TRAINER_GLUE_H

#include "optim/internal.h"

/* The scalars of step t (1-based, as torch's state["step"]) of c, exactly
 * as dlca_optim_step computes them for its rules. */
void dlca__optim_trainer_scalars(const dlca_optim_config *c, uint64_t t, dlca__optim_scalars *k);

#endif
