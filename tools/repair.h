/* Greedy repair of a trained hard circuit (dlca-train --repair, issue 6):
 * a local search over the gates' hard ops that keeps every change that
 * lowers (values wrong, hard loss), scored by a caller's evaluation. */
#ifndef DLCA_TOOLS_REPAIR_H
#define DLCA_TOOLS_REPAIR_H

#include <stddef.h>
#include "dlca_cl.h"

/* Scores the hard circuit of `logits` into *ev (errors and hard_loss);
 * returns a DLCA_ status. */
typedef int (*repair_score_fn)(void *ctx, const float *logits, dlca_eval *ev);
/* Called after each gate's candidates when not NULL: gate done, of total.
 * A nonzero return stops the search there, with the best circuit so far. */
typedef int (*repair_tick_fn)(void *ctx, int pass, size_t gate, size_t gates, const dlca_eval *best);

typedef struct repair_result {
  dlca_eval before, after; /* the circuit given and the one returned */
  int passes;              /* passes run */
  int stopped;             /* the tick stopped it */
  size_t changed;          /* gates whose hard op changed (counted per change kept) */
  size_t tried;            /* circuits scored */
} repair_result;

/* The hard op of gate g of logits with npg logits per gate (16: the argmax,
 * ties to the lowest; 4: the input-wise truth table of the signs). */
int repair_hard_op(const float *logits, int npg, size_t g);
/* Makes op the hard op of gate g, changing as little as it can: softmax-16
 * raises logit op to just above the largest; input-wise flips the signs
 * that differ. */
void repair_set_op(float *logits, int npg, size_t g, int op);

/* Up to max_passes passes over every gate, in order: each of the other 15
 * ops in turn, the first that lowers (errors, hard_loss) kept; stops after
 * a pass that changed nothing, or at 0 values wrong. logits (n_gates x npg)
 * hold the result. */
int repair_circuit(float *logits, size_t n_gates, int npg, int max_passes, repair_score_fn score,
                   repair_tick_fn tick, void *ctx, repair_result *out);

#endif
