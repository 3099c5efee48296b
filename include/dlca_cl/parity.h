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

/* ---- dlca-ops-vector files: the compute layer's oracle (shared/testdata/ops) ---- */

/* What a --vector file holds, told apart by its top-level "format" field. */
typedef enum dlca_vector_kind {
  DLCA_VECTOR_JAX = 0, /* a JAX reference vector of a DiffLogic CA (no "format" field) */
  DLCA_VECTOR_OPS = 1  /* "format": "dlca-ops-vector", one op case */
} dlca_vector_kind;

/* Reads path as JSON and says which kind it is. DLCA_EIO where it cannot be
 * read, DLCA_EPARSE (with line and column) where it is not JSON. */
DLCA_API DLCA_WUR int dlca_parity_vector_kind(const char *path, dlca_vector_kind *out);

#define DLCA_OPS_PARITY_MAX 32

/* One compared result: an output or a gradient of the case. */
typedef struct dlca_ops_parity_entry {
  char name[72];      /* "outputs.y", "grads.x" */
  double max_abs;     /* max |got - want| (INFINITY for a NaN) */
  double worst_ratio; /* max |got - want| / (tol_abs + tol_rel |want|): at most 1 passes */
  int pass;
} dlca_ops_parity_entry;

typedef struct dlca_ops_parity_report {
  char case_name[128];
  char op[64];
  double tol_abs, tol_rel; /* the file's tolerance */
  int n;                   /* entries used: the outputs in file order, then the grads */
  dlca_ops_parity_entry entry[DLCA_OPS_PARITY_MAX];
  int all_pass;
} dlca_ops_parity_report;

/* Runs one dlca-ops-vector case on ctx (NULL: the CPU twin, in double): the
 * forward, then the backward with the file's upstream gradients, and
 * compares every output and gradient with the file's at its tolerance.
 * DLCA_EUNSUPPORTED "op X not implemented" for an op this build lacks on
 * that backend; DLCA_EIO, DLCA_EPARSE for a file that cannot be read or
 * does not fit its op; DLCA_EPARITY where a case's own conditions fail
 * (rsvd's orthonormality and reconstruction), the message saying which. */
DLCA_API DLCA_WUR int dlca_parity_ops_vector(dlca_context *ctx, const char *path, dlca_ops_parity_report *out);

#ifdef __cplusplus
}
#endif
#endif
