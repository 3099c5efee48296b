/* The trainer's optimizer (issue 32): the default AdamW in optax's form, or
 * one of the suite's torch.optim rules (dlca_cl/optim.h); its checks, its
 * state slots and their names. Both backends and the checkpoints read them. */
#include <math.h>
#include "optim/internal.h"
#include "train/trainer_impl.h"

dlca_optim_config dlca__train_suite(const dlca_train_config *c) {
  dlca_optim_config s = c->suite;
  s.lr = c->optim.lr;
  return s;
}

int dlca__train_optim_check(const dlca_train_config *c) {
  const dlca_optim *o = &c->optim;
  if (c->use_suite != 0 && c->use_suite != 1)
    return dlca__fail(DLCA_ECONFIG, "optimizer: use_suite = %d must be 0 or 1", c->use_suite);
  if (!(o->lr > 0) || !isfinite(o->lr))
    return dlca__fail(DLCA_ECONFIG, "optimizer: lr = %g must be finite and > 0", (double)o->lr);
  if (!(o->clip > 0))
    return dlca__fail(DLCA_ECONFIG, "optimizer: clip = %g must be > 0 (the gradient's clip by value)",
                      (double)o->clip);
  if (c->use_suite) {
    dlca_optim_config s = dlca__train_suite(c);
    return dlca_optim_config_check(&s);
  }
  if (!(o->beta1 >= 0 && o->beta1 < 1) || !(o->beta2 >= 0 && o->beta2 < 1))
    return dlca__fail(DLCA_ECONFIG, "adamw: beta1 = %g, beta2 = %g: each must be in [0, 1)", (double)o->beta1,
                      (double)o->beta2);
  if (!(o->eps > 0) || !isfinite(o->eps))
    return dlca__fail(DLCA_ECONFIG, "adamw: eps = %g must be finite and > 0", (double)o->eps);
  if (!(o->weight_decay >= 0) || !isfinite(o->weight_decay))
    return dlca__fail(DLCA_ECONFIG, "adamw: weight_decay = %g must be finite and >= 0", (double)o->weight_decay);
  return DLCA_OK;
}

size_t dlca__train_slots(const dlca_train_config *c) {
  if (!c->use_suite) return 2;
  dlca_optim_config s = dlca__train_suite(c);
  return dlca__optim_slots(&s);
}

const char *dlca__train_optim_name(const dlca_train_config *c) {
  return c->use_suite ? dlca_optim_kind_name(c->suite.kind) : "adamw";
}

const char *dlca__train_slot_name(const dlca_train_config *c, size_t slot, int *nonneg) {
  static const char *const adam[] = {"Adam first moment", "Adam second moment", "Adam max second moment"};
  const dlca_optim_config *s = &c->suite;
  *nonneg = 0;
  if (!c->use_suite || s->kind == DLCA_OPTIM_ADAM || s->kind == DLCA_OPTIM_ADAMW) {
    *nonneg = slot >= 1;
    return slot < 3 ? adam[slot] : "state";
  }
  if (s->kind == DLCA_OPTIM_SGD) return "momentum buffer";
  if (s->kind == DLCA_OPTIM_ADAGRAD) return *nonneg = 1, "Adagrad sum of squares";
  /* rmsprop: square_avg, then grad_avg when centered, then the momentum buffer */
  if (slot == 0) return *nonneg = 1, "RMSprop square average";
  if (slot == 1 && s->centered) return "RMSprop gradient average";
  return "RMSprop momentum buffer";
}

float dlca__train_slot_init(const dlca_train_config *c, size_t slot) {
  if (c->use_suite && c->suite.kind == DLCA_OPTIM_ADAGRAD && slot == 0)
    return (float)c->suite.initial_accumulator_value;
  return 0.0f;
}
