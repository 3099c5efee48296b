/* The optimizer suite's per-step scalars for the DiffLogic CA trainer,
 * computed as lib/optim/optimizer.c computes them for dlca_optim_step: in
 * double as torch computes its Python floats, rounded to float once. */
#include <math.h>
#include <string.h>
#include "optim/trainer_glue.h"

void dlca__optim_trainer_scalars(const dlca_optim_config *c, uint64_t t, dlca__optim_scalars *k) {
  memset(k, 0, sizeof *k);
  k->lr = (float)c->lr, k->wd = (float)c->weight_decay, k->eps = (float)c->eps;
  k->decay = (float)(1.0 - c->lr * c->weight_decay);
  k->momentum = (float)c->momentum, k->damp1 = (float)(1.0 - c->dampening);
  k->first = t == 1;
  if (c->kind == DLCA_OPTIM_ADAM || c->kind == DLCA_OPTIM_ADAMW) {
    k->b1 = (float)c->beta1, k->omb1 = (float)(1.0 - c->beta1);
    k->b2 = (float)c->beta2, k->omb2 = (float)(1.0 - c->beta2);
    k->step_size = (float)(c->lr / (1.0 - pow(c->beta1, (double)t)));
    k->bc2_sqrt = (float)sqrt(1.0 - pow(c->beta2, (double)t));
  } else if (c->kind == DLCA_OPTIM_RMSPROP) {
    k->b2 = (float)c->alpha, k->omb2 = (float)(1.0 - c->alpha);
  } else if (c->kind == DLCA_OPTIM_ADAGRAD) {
    k->step_size = (float)(c->lr / (1.0 + (double)(t - 1) * c->lr_decay));
  }
}
