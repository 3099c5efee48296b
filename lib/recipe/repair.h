/* Greedy repair of a trained hard circuit (the recipes' repair, issue 6; internal):
 * a local search over the gates' hard ops that keeps every change that
 * lowers (values wrong, hard loss). The circuits are scored either on the
 * packed-bits circuit (dlca_bits, many variants at once, in parallel) or by
 * a caller's evaluation of logits, one circuit at a time. */
#ifndef DLCA_RECIPE_REPAIR_H
#define DLCA_RECIPE_REPAIR_H

#include <stddef.h>
#include "dlca_cl.h"

/* Scores the hard circuit of `logits` into *ev (errors and hard_loss);
 * returns a DLCA_ status. */
typedef int (*dlca__repair_score_fn)(void *ctx, const float *logits, dlca_eval *ev);
/* Called after each block of gates when not NULL: gates done, of total.
 * A nonzero return stops the search there, with the best circuit so far. */
typedef int (*dlca__repair_tick_fn)(void *ctx, int pass, size_t gate, size_t gates, const dlca_eval *best);

/* What the search needs of a circuit: its score, the scores of variants
 * (variant i: gate gates[i] set to ops[i], nothing else changed), and its
 * ops. `block` gates' variants are scored in one call. */
typedef struct dlca__repair_circuit_ops {
  int (*score)(void *c, dlca_eval *out);
  int (*variants)(void *c, size_t n, const size_t *gates, const uint8_t *ops, dlca_eval *out);
  int (*get_op)(void *c, size_t gate);
  int (*set_op)(void *c, size_t gate, int op);
  /* optional: marks the gates whose op can change the score (the others'
   * candidates are skipped: they could not be kept anyway) */
  void (*live)(void *c, uint8_t *live);
  size_t n_gates, block;
} dlca__repair_circuit_ops;

/* The hard op of gate g of logits with npg logits per gate (16: the argmax,
 * ties to the lowest; 4: the input-wise truth table of the signs). */
int dlca__repair_hard_op(const float *logits, int npg, size_t g);
/* Makes op the hard op of gate g, changing as little as it can: softmax-16
 * raises logit op to just above the largest; input-wise flips the signs
 * that differ. */
void dlca__repair_set_op(float *logits, int npg, size_t g, int op);

/* Up to max_passes passes over every gate, in order: each of the other 15
 * ops in turn, the first that lowers (errors, hard_loss) kept; stops after
 * a pass that changed nothing, or at 0 values wrong. A block's variants are
 * scored against the circuit as it was at the block's start; after a kept
 * change the block starts again at the next gate, so the result is that of
 * the serial search, whatever the block size. */
int dlca__repair_search(const dlca__repair_circuit_ops *ops, void *circuit, int max_passes, dlca__repair_tick_fn tick, void *ctx,
                  dlca_repair_result *out);
/* dlca__repair_search on logits (n_gates x npg, which hold the result), each
 * circuit scored by score(). */
int dlca__repair_circuit(float *logits, size_t n_gates, int npg, int max_passes, dlca__repair_score_fn score,
                   dlca__repair_tick_fn tick, void *ctx, dlca_repair_result *out);
/* dlca__repair_search on a packed-bits circuit, which holds the result. */
int dlca__repair_bits(dlca_bits *b, int max_passes, dlca__repair_tick_fn tick, void *ctx, dlca_repair_result *out);

/* Evolution of a packed-bits circuit (dlca-train --evolve), after
 * Cartesian genetic programming: `lineages` copies of the circuit evolve
 * side by side, each as a (1 + lambda) strategy. A generation scores lambda
 * offspring per lineage, each with 1 to max_changes random gates set to
 * random ops (the first to an op other than its own), and a lineage's best
 * offspring (the first of equals) replaces it unless it is worse: changes
 * that keep (errors, hard loss) are taken too, so that lineages drift
 * across plateaus. Every migrate_every generations the worst lineage (the
 * last of equals) becomes a copy of the best (the first of equals). The
 * draws come from seed (doc/rng.md's counter-based generator), so a seed
 * gives the same search on every machine and thread count. Stops at 0
 * values wrong, after `generations`, or when tick (called every 64
 * generations and at the last, with gate = generations done) returns nonzero; the circuit
 * becomes the best lineage. */
typedef struct dlca__evolve_params {
  uint64_t generations, seed;
  int lineages, lambda, max_changes, migrate_every;
} dlca__evolve_params;

int dlca__repair_evolve(dlca_bits *b, const dlca__evolve_params *p, dlca__repair_tick_fn tick, void *ctx, dlca_evolve_result *out);

/* Undoes what drift left behind: sets the gates whose op differs from
 * orig_ops[] back to it, wherever that does not make (errors, hard loss)
 * worse, so that the circuit keeps the trained ops it does not need to
 * change (and its active-gate count). All such gates at once first, then
 * halves of the set that failed, down to single gates; then every changed
 * gate left dead (dlca_bits_live_gates). *reverted counts the gates set
 * back. */
int dlca__repair_tidy(dlca_bits *b, const uint8_t *orig_ops, size_t *reverted);

#endif
