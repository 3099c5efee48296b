/* Parity: run the same case on the CPU reference and on a device (or against
 * a JAX reference vector) and report the largest errors. */
#ifndef DLCA_CL_PARITY_H
#define DLCA_CL_PARITY_H

#include "dlca_cl/trainer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dlca_quantity {
  DLCA_Q_SOFT_STATE = 0,
  DLCA_Q_HARD_STATE,
  DLCA_Q_SOFT_LOSS,
  DLCA_Q_HARD_LOSS,
  DLCA_Q_GRAD,
  DLCA_Q_PARAMS_AFTER_STEP,
  DLCA_Q_COUNT
} dlca_quantity;

/* The quantity's name as it appears in JSON ("soft_state", ...). */
DLCA_API const char *dlca_quantity_name(int q);

typedef struct dlca_parity_report {
  char case_name[128];
  double max_abs[DLCA_Q_COUNT];  /* max |x - ref| */
  double max_rel[DLCA_Q_COUNT];  /* max |x - ref| / max(1, |ref|) */
  double tolerance[DLCA_Q_COUNT];/* the README's tolerance, as an absolute bound */
  int pass[DLCA_Q_COUNT];
  int all_pass;
} dlca_parity_report;

/* Runs one reference-vector file on ctx (NULL: the CPU reference) and
 * compares with the vector's float64 results. */
DLCA_API DLCA_WUR int dlca_parity_vector(dlca_context *ctx, const char *path,
                                         dlca_parity_report *out);

/* Draws n fresh random cases for a model's shape (random logits, random start
 * grids, random targets and masks, never zeros), runs each on the CPU
 * reference and on ctx, and reports the worst errors over the n cases. */
DLCA_API DLCA_WUR int dlca_parity_random(dlca_context *ctx, const dlca_model *m,
                                         const dlca_run *run, int n, uint64_t seed,
                                         dlca_parity_report *out);

/* The same random cases (0/1 start grids) on the packed-bits hard circuit
 * (include/dlca_cl/bits.h) against the CPU reference's hard rollout: the
 * hard state and the hard loss must match exactly. The quantities it does
 * not compare have tolerance -1 and pass 1. */
DLCA_API DLCA_WUR int dlca_parity_bits(const dlca_model *m, const dlca_run *run, int n, uint64_t seed,
                                       dlca_parity_report *out);

#ifdef __cplusplus
}
#endif
#endif
