/* An OpenCL trainer group (lib/cl/trainer/group.c): the trainers of a
 * population, one per slot, whose buffers are slots of the group's, so
 * that one launch per phase runs every model's epoch (dimension 1 of the
 * launch is the model) and one read brings back every loss. Each slot's
 * trainer stays a whole trainer: its own calls (hard evaluation, fresh
 * grids, logits) work on its slot alone. Every trainer of a group has the
 * same shape, configuration (but its seed and lr) and plan; with
 * cfg.shared_program set, one program serves them all. doc/kernels.md. */
#ifndef DLCA_CL_TRAINER_GROUP_H
#define DLCA_CL_TRAINER_GROUP_H

#include "train/trainer_impl.h"

typedef struct dlca__clt_group dlca__clt_group;

/* A group of M slots on ctx; its buffers are made with its first trainer
 * (dlca__trainer_new_in with this group and a slot). */
int dlca__clt_group_new(dlca_context *ctx, int M, dlca__clt_group **out);
void dlca__clt_group_free(dlca__clt_group *g);
/* One epoch of each t[j] that is not NULL (the trainer of slot j), one
 * launch per phase; t[j] NULL: slot j is left as it is. */
int dlca__clt_group_step(dlca__clt_group *g, dlca_trainer *const *t);
/* The losses of the t[j] not NULL after their step, in one read. */
int dlca__clt_group_losses(dlca__clt_group *g, dlca_trainer *const *t, double *loss);
/* A hard evaluation of each t[j] not NULL (dlca_trainer_eval_hard's), one
 * launch per phase and one read. */
int dlca__clt_group_eval_hard(dlca__clt_group *g, dlca_trainer *const *t, dlca_eval *out);
/* Bytes a group adds to each model's buffers at most (their alignment). */
#define DLCA_CLT_GROUP_PAD (32 * 4096)

#endif
