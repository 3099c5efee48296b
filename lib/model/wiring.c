/* Wiring generation, doc/semantics.md section 2. Shuffles are Fisher-Yates driven
 * by splitmix64 (doc/rng.md): reproducible for a seed, not JAX's PRNG. */
#include <stdlib.h>
#include "model/model_impl.h"

static void shuffle_pairs(int32_t *a, int32_t *b, int n, uint64_t *rng) {
  for (int i = n - 1; i > 0; i--) {
    int j = (int)dlca__rand_below(rng, (uint32_t)i + 1);
    int32_t t = a[i]; a[i] = a[j]; a[j] = t;
    t = b[i]; b[i] = b[j]; b[j] = t;
  }
}

static void shuffle_ints(int32_t *v, int n, uint64_t *rng) {
  for (int i = n - 1; i > 0; i--) {
    int j = (int)dlca__rand_below(rng, (uint32_t)i + 1);
    int32_t t = v[i]; v[i] = v[j]; v[j] = t;
  }
}

static int wire_first_kernel(dlca_layer *L, uint64_t *rng) {
  if (L->n_in != 9 || L->n_gates != 8)
    return dlca__fail(DLCA_EMODEL, "first_kernel wiring needs 9 inputs and 8 gates, not %d and %d",
                      L->n_in, L->n_gates);
  static const int32_t nb[8] = {0, 1, 2, 3, 5, 6, 7, 8};
  for (int g = 0; g < 8; g++) {
    L->wa[g] = nb[g];
    L->wb[g] = 4; /* the centre */
  }
  shuffle_pairs(L->wa, L->wb, 8, rng);
  return DLCA_OK;
}

static int wire_unique(dlca_layer *L, uint64_t *rng) {
  int N = L->n_in, G = L->n_gates, n = 0;
  if (2L * G < N)
    return dlca__fail(DLCA_EMODEL, "unique wiring needs 2G >= N, but G = %d and N = %d", G, N);
  /* 1. (0,1), (2,3), ...  2. (1,2), (3,4), ...  3. (i, i+k) for k = 2, 3, ... */
  for (int i = 0; i + 1 < N && n < G; i += 2, n++) L->wa[n] = i, L->wb[n] = i + 1;
  for (int i = 1; i + 1 < N && n < G; i += 2, n++) L->wa[n] = i, L->wb[n] = i + 1;
  for (int k = 2; k < N && n < G; k++)
    for (int i = 0; i + k < N && n < G; i++, n++) L->wa[n] = i, L->wb[n] = i + k;
  if (n < G)
    return dlca__fail(DLCA_EMODEL, "unique wiring: %d inputs give only %d distinct pairs, %d gates asked",
                      N, n, G);
  shuffle_pairs(L->wa, L->wb, G, rng);
  return DLCA_OK;
}

static int wire_random(dlca_layer *L, uint64_t *rng) {
  int N = L->n_in, G = L->n_gates;
  int32_t *idx = malloc(sizeof(int32_t) * (size_t)(2 * G)), *perm = malloc(sizeof(int32_t) * (size_t)N);
  if (!idx || !perm) {
    free(idx);
    free(perm);
    return dlca__fail(DLCA_ENOMEM, "random wiring: out of memory");
  }
  for (int i = 0; i < 2 * G; i++) idx[i] = i;
  shuffle_ints(idx, 2 * G, rng);
  for (int i = 0; i < N; i++) perm[i] = i;
  shuffle_ints(perm, N, rng);
  for (int g = 0; g < G; g++) {
    L->wa[g] = perm[idx[g] % N];
    L->wb[g] = perm[idx[G + g] % N];
  }
  free(idx);
  free(perm);
  return DLCA_OK;
}

int dlca__wire_layer(dlca_layer *L, dlca_wiring kind, uint64_t *rng) {
  switch (kind) {
    case DLCA_WIRING_FIRST_KERNEL: return wire_first_kernel(L, rng);
    case DLCA_WIRING_UNIQUE: return wire_unique(L, rng);
    case DLCA_WIRING_RANDOM: return wire_random(L, rng);
  }
  return dlca__fail(DLCA_EINVAL, "unknown wiring kind %d", (int)kind);
}
