/* Reader for the dlca-ops-vector files of the compute layer
 * (shared/testdata/ops/README.md): one op case with its inputs, outputs,
 * upstream gradients, gradients and tolerance. Internal; not installed. */
#ifndef DLCA_OPS_VECTOR_H
#define DLCA_OPS_VECTOR_H
#include <jansson.h>
#include <stddef.h>

#define DLCA__OPS_MAX_RANK 4

/* One named tensor: row-major data as double (integer targets included). */
typedef struct dlca__ops_tensor {
  const char *name; /* borrowed from the vector's JSON */
  int rank;         /* 0 (a scalar) to DLCA__OPS_MAX_RANK */
  size_t shape[DLCA__OPS_MAX_RANK];
  size_t n; /* the element count: the product of shape, 1 for a scalar */
  double *data;
} dlca__ops_tensor;

/* The tensors of one section ("inputs", "outputs", ...), in file order. */
typedef struct dlca__ops_set {
  size_t n;
  dlca__ops_tensor *t;
} dlca__ops_set;

typedef struct dlca__ops_vector {
  char *path;       /* the file, for messages */
  json_t *root;     /* owns every borrowed string and attrs */
  const char *name; /* "case" */
  const char *op;
  json_t *attrs; /* borrowed: an object (empty where the file has none) */
  dlca__ops_set inputs, outputs, grad_outputs, grads;
  double tol_abs, tol_rel;
} dlca__ops_vector;

/* Loads path: format "dlca-ops-vector", version 1. DLCA_EIO for a file that
 * cannot be read, DLCA_EPARSE (naming the file and the JSON path) for
 * anything malformed, including a tensor of rank over 4. On failure *v is
 * left empty (safe to free). */
int dlca__ops_vector_load(const char *path, dlca__ops_vector *v);
void dlca__ops_vector_free(dlca__ops_vector *v);

/* The tensor called name in set, or NULL. */
const dlca__ops_tensor *dlca__ops_set_find(const dlca__ops_set *set, const char *name);
/* The same, failing (DLCA_EPARSE, naming file, section and name) where absent. */
int dlca__ops_vector_tensor(const dlca__ops_vector *v, const char *section, const char *name,
                            const dlca__ops_tensor **out);

/* Typed attributes: DLCA_EPARSE naming "attrs.KEY" where absent or of another type. */
int dlca__ops_vector_attr_string(const dlca__ops_vector *v, const char *key, const char **out);
int dlca__ops_vector_attr_double(const dlca__ops_vector *v, const char *key, double *out);
int dlca__ops_vector_attr_int(const dlca__ops_vector *v, const char *key, long *out);
int dlca__ops_vector_attr_bool(const dlca__ops_vector *v, const char *key, int *out);
/* An array of at most max integers; *n gets the count. */
int dlca__ops_vector_attr_ints(const dlca__ops_vector *v, const char *key, long *out, size_t max, size_t *n);

/* The comparison of one result against the file's values. */
typedef struct dlca__ops_cmp {
  double worst;       /* max |got - want| (INFINITY for a NaN) */
  double worst_ratio; /* max |got - want| / (abs + rel*|want|): <= 1 passes */
  size_t worst_index; /* where worst_ratio is reached */
  int pass;           /* every element meets abs + rel*|want| */
} dlca__ops_cmp;

/* Compares n = want->n values of got (double or float) against want. */
dlca__ops_cmp dlca__ops_compare(const double *got, const dlca__ops_tensor *want, double abs, double rel);
dlca__ops_cmp dlca__ops_compare_f(const float *got, const dlca__ops_tensor *want, double abs, double rel);

#endif
