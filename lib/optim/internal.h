/* The optimizer object and the per-step scalars that a device kernel would
 * take as arguments. Not installed. */
#ifndef DLCA_OPTIM_INTERNAL_H
#define DLCA_OPTIM_INTERNAL_H

#include "core/internal.h"

struct dlca_optimizer {
  dlca_optim_config cfg;
  uint64_t steps;
  size_t n_tensors, total, n_slots;
  size_t *sizes, *offsets;
  float *state; /* n_slots * total floats, slot-major */
};

/* The scalars of one step, in float as a kernel receives them. */
typedef struct dlca__optim_scalars {
  float lr, wd, eps, decay; /* decay: AdamW's 1 - lr * wd */
  float momentum, damp1;    /* damp1: 1 - dampening */
  float b1, omb1, b2, omb2; /* beta and 1 - beta; rmsprop's alpha in b2 */
  float step_size, bc2_sqrt; /* adam: lr / bc1, sqrt(bc2); adagrad: clr in step_size */
  int first;                /* sgd: the momentum buffer starts as the gradient */
} dlca__optim_scalars;

/* The scalars of step `step` (1-based, as torch's state["step"]) for c: what
 * the device kernels take as their optim_scalars argument
 * (kernels-cl/optim/rules.cl, the same fields in the same order). */
int dlca__optim_scalars_at(const dlca_optim_config *c, uint64_t step, dlca__optim_scalars *k);

/* The per-element rules over one tensor: n elements of p and g, state slots
 * s[0..] each pointing at the tensor's part of its slot. */
void dlca__sgd(size_t n, float *p, const float *g, float *const *s, const dlca_optim_config *c,
               const dlca__optim_scalars *k);
void dlca__adam(size_t n, float *p, const float *g, float *const *s, const dlca_optim_config *c,
                const dlca__optim_scalars *k);
void dlca__rmsprop(size_t n, float *p, const float *g, float *const *s, const dlca_optim_config *c,
                   const dlca__optim_scalars *k);
void dlca__adagrad(size_t n, float *p, const float *g, float *const *s, const dlca_optim_config *c,
                   const dlca__optim_scalars *k);

/* The number of slots a checked configuration needs. */
size_t dlca__optim_slots(const dlca_optim_config *c);
#endif
