/* The hard circuit on packed bits (lib/ref/bits.c): 64 cells of a channel
 * in a machine word, every gate one bitwise operation on whole words. It
 * gives what dlca_ref_forward(hard = 1) gives, bit for bit, for start grids
 * of 0s and 1s, at a small fraction of the cost, and scores many variants
 * of a circuit (one gate's op changed in each) in parallel: the search of
 * dlca-train --repair. doc/bits.md. */
#ifndef DLCA_CL_BITS_H
#define DLCA_CL_BITS_H

#include "dlca_cl/trainer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dlca_bits dlca_bits;

/* The hard circuit of m (every gate's hard op, dlca_model_hard_ops) for one
 * run: sizes, boundary, async fire masks (run->fire_masks, else drawn from
 * run->mask_key) and loss channels. x: start grids [batch][height][width]
 * [channels] of 0s and 1s (DLCA_EINVAL names the first other value);
 * target: [batch][height][width][channels], any values. Both are copied. */
DLCA_API DLCA_WUR int dlca_bits_new(const dlca_model *m, const dlca_run *run, const float *x,
                                    const float *target, dlca_bits **out);
/* The trainer's hard evaluation (dlca_trainer_eval_hard) as packed bits:
 * its current parameters, the current epoch's start grids and fire masks,
 * and its target (DLCA_ECONFIG when none is set). */
DLCA_API DLCA_WUR int dlca_trainer_bits(dlca_trainer *t, dlca_bits **out);
DLCA_API void dlca_bits_free(dlca_bits *b);
/* dlca_trainer_eval_hard_fresh(t, seed, n_batches) on the packed-bits
 * circuit on the host: the same batches and fire masks, so the same errors
 * and totals where the start grids are 0s and 1s (DLCA_EINVAL otherwise),
 * and the reference's loss (a device sums it in floats: equal where the
 * targets are 0s and 1s), from one read of the parameters and no other
 * device work; the batches run on all cores (OMP_NUM_THREADS). The trainer
 * is unchanged. */
DLCA_API DLCA_WUR int dlca_trainer_eval_fresh_bits(dlca_trainer *t, uint64_t seed, int n_batches, dlca_eval *out);
/* The same for model m trained with configuration c (its sizes, start,
 * async and loss channels): input, the start grids where c->start is
 * DLCA_START_UPLOAD (else NULL); target [batch][height][width][channels];
 * state: the last batch's final state, or NULL. */
DLCA_API DLCA_WUR int dlca_bits_eval_fresh(const dlca_model *m, const dlca_train_config *c, const float *input,
                                           const float *target, uint64_t seed, int n_batches, dlca_eval *out,
                                           float *state);

/* Gates in flat gate order (dlca_model_params order / params per gate). */
DLCA_API size_t dlca_bits_n_gates(const dlca_bits *b);
/* The op (0..15, doc/semantics.md section 1) of one gate; -1 when gate is out
 * of range. */
DLCA_API int dlca_bits_op(const dlca_bits *b, size_t gate);
DLCA_API DLCA_WUR int dlca_bits_set_op(dlca_bits *b, size_t gate, int op);

/* Marks in live[n_gates] (1 or 0) the gates whose output can reach the
 * loss: back from the loss channels through the ops' actual inputs (an op
 * that ignores an input does not make it live), over every step, so that
 * a channel read by a live gate is live too. Changing the op of a gate that
 * is not live cannot change the loss, errors or the loss channels' state.
 * Returns the number of live gates (0 on a NULL argument or out of memory). */
DLCA_API size_t dlca_bits_live_gates(const dlca_bits *b, uint8_t *live);

/* Runs the circuit: the hard loss, errors and accuracy as
 * dlca_trainer_eval_hard computes them from the same state, and the final
 * state [batch][height][width][channels] of 0s and 1s if state != NULL. */
DLCA_API DLCA_WUR int dlca_bits_run(const dlca_bits *b, dlca_eval *out, float *state);

/* n variants of the circuit, run in parallel (OpenMP) into out[i]; the
 * circuit itself is unchanged. Variant i sets gate gates[e] to op ops[e]
 * for e from first[i] to first[i + 1] - 1, in that order (a gate named
 * twice takes the later op); first == NULL means one change each (first[i]
 * = i). Several variants share each pass over the gates, and a change
 * costs little beside the pass: variants may differ from the circuit in
 * hundreds of gates. */
DLCA_API DLCA_WUR int dlca_bits_run_variants(const dlca_bits *b, size_t n, const size_t *first, const size_t *gates,
                                             const uint8_t *ops, dlca_eval *out);

#ifdef __cplusplus
}
#endif
#endif
