/* The bank-aware order of the update gates (lib/cl/bank_order.c): its
 * rows are permutations that keep the update input and the new state in
 * place, the same model always gets the same order, the aimed search
 * reaches its measured cycles a gather, and the disk cache returns the
 * order it stored and recomputes a bad entry. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cl/bank_order.h"
#include "cl_util.h"

static dlca_model *checkerboard(void) {
  dlca_model *m = NULL;
  ck_assert(dlca_model_new_preset("checkerboard", 1, &m) == DLCA_OK);
  return m;
}

static void free_rows(const dlca_model *m, int **rows) {
  for (int l = 0; l <= m->n_update; l++) free(rows[l]), rows[l] = NULL;
}

static int same_rows(const dlca_model *m, int **a, int **b) {
  for (int l = 0; l <= m->n_update; l++)
    if (memcmp(a[l], b[l], sizeof(int) * (size_t)m->shape.update_layers[l])) return 0;
  return 1;
}

/* Cycles of a warp gather: the most distinct inputs in one bank, averaged
 * over every gather (layer, warp of 32 gates, side) of the update layers
 * of at least 64 gates. */
static double cycles_per_gather(const dlca_model *m, int **row) {
  double sum = 0;
  int n = 0;
  for (int i = 0; i < m->n_update; i++) {
    const dlca_layer *L = &m->update[i];
    if (L->n_gates < 64) continue;
    int *at = malloc(sizeof(int) * (size_t)L->n_gates);
    unsigned char *seen = calloc((size_t)L->n_in, 1);
    ck_assert(at && seen);
    for (int g = 0; g < L->n_gates; g++) at[row[i + 1][g]] = g;
    for (int w = 0; w * 32 < L->n_gates; w++)
      for (int s = 0; s < 2; s++) {
        int cnt[32] = {0}, most = 0;
        memset(seen, 0, (size_t)L->n_in);
        for (int r = w * 32; r < L->n_gates && r < w * 32 + 32; r++) {
          const int u = (s ? L->wb : L->wa)[at[r]];
          if (seen[u]) continue;
          seen[u] = 1;
          const int c = ++cnt[row[i][u] % 32];
          most = c > most ? c : most;
        }
        sum += most, n++;
      }
    free(at), free(seen);
  }
  return sum / n;
}

/* spec: lib/cl/bank_order.c, its search as doc/performance.md ("A bank-aware
 * gate order") measured */
START_TEST(test_order_rows) {
  dlca_model *m = checkerboard();
  int *a[DLCA_MAX_LAYERS + 1], *b[DLCA_MAX_LAYERS + 1], *id[DLCA_MAX_LAYERS + 1];
  ck_assert(dlca__bank_order(m, 1200, a) == DLCA_OK);
  for (int l = 0; l <= m->n_update; l++) {
    const int n = m->shape.update_layers[l];
    char *seen = calloc((size_t)n, 1);
    ck_assert(seen && (id[l] = malloc(sizeof(int) * (size_t)n)));
    for (int u = 0; u < n; u++) {
      ck_assert(a[l][u] >= 0 && a[l][u] < n && !seen[a[l][u]]);
      seen[a[l][u]] = 1, id[l][u] = u;
      if (l == 0 || l == m->n_update) ck_assert_int_eq(a[l][u], u);
    }
    free(seen);
  }
  /* the model's own order: 3.3 cycles; random swaps alone at 150 a unit:
   * 1.9; the aimed search at 1200: 1.2 */
  const double before = cycles_per_gather(m, id), after = cycles_per_gather(m, a);
  ck_assert_msg(before > 3.0 && after < 1.3, "cycles a gather %.3f -> %.3f", before, after);
  ck_assert(dlca__bank_order(m, 1200, b) == DLCA_OK);
  ck_assert(same_rows(m, a, b));
  free_rows(m, a), free_rows(m, b), free_rows(m, id);
  dlca_model_free(m);
}
END_TEST

/* spec: doc/kernel-cache.md, "Bank-aware orders" */
START_TEST(test_order_cache) {
  if (!tcl_platform()) return;
  const char *dir = tcl_fresh_env("order-cache");
  char orders[1100], path[1400] = "";
  snprintf(orders, sizeof orders, "%s/orders", dir);
  dlca_model *m = checkerboard();
  int *want[DLCA_MAX_LAYERS + 1], *got[DLCA_MAX_LAYERS + 1], cached = -1;
  ck_assert(dlca__bank_order(m, 40, want) == DLCA_OK);
  dlca_context *ctx = tcl_context();
  /* computed and stored, then read */
  ck_assert(dlca__bank_order_cached(ctx, m, 40, got, &cached) == DLCA_OK);
  ck_assert_int_eq(cached, 0);
  ck_assert(same_rows(m, want, got));
  free_rows(m, got);
  ck_assert_int_eq(tcl_count_files(orders, ".order"), 1);
  ck_assert(dlca__bank_order_cached(ctx, m, 40, got, &cached) == DLCA_OK);
  ck_assert_int_eq(cached, 1);
  ck_assert(same_rows(m, want, got));
  free_rows(m, got);
  /* another effort is another entry */
  ck_assert(dlca__bank_order_cached(ctx, m, 41, got, &cached) == DLCA_OK);
  ck_assert_int_eq(cached, 0);
  free_rows(m, got);
  ck_assert_int_eq(tcl_count_files(orders, ".order"), 2);
  /* a flipped byte fails the checksum; a well-formed entry whose rows are
   * not permutations is refused: both computed again and rewritten */
  uint64_t key = 0;
  for (int how = 0; how < 2; how++) {
    ck_assert(dlca_cache_clear() == DLCA_OK);
    ck_assert(dlca__bank_order_cached(ctx, m, 40, got, &cached) == DLCA_OK);
    free_rows(m, got);
    DIR *d = opendir(orders);
    struct dirent *e;
    ck_assert(d != NULL);
    while ((e = readdir(d)))
      if (strstr(e->d_name, ".order")) snprintf(path, sizeof path, "%s/%s", orders, e->d_name);
    closedir(d);
    key = strtoull(strrchr(path, '/') + 1, NULL, 16);
    if (how == 0) tcl_flip_byte(path, 100);
    else {
      size_t n = 0;
      for (int l = 0; l <= m->n_update; l++) n += (size_t)m->shape.update_layers[l];
      int32_t *zeros = calloc(n, sizeof(int32_t));
      dlca__cache_id id;
      dlca__cache_key_hash(&id, &key);
      ck_assert(zeros && dlca__cache_store(path, &id, (const unsigned char *)zeros, n * sizeof(int32_t)) == DLCA_OK);
      free(zeros);
    }
    ck_assert(dlca__bank_order_cached(ctx, m, 40, got, &cached) == DLCA_OK);
    ck_assert_msg(cached == 0, "bad entry %d read", how);
    ck_assert(same_rows(m, want, got));
    free_rows(m, got);
    ck_assert(dlca__bank_order_cached(ctx, m, 40, got, &cached) == DLCA_OK);
    ck_assert_int_eq(cached, 1);
    free_rows(m, got);
  }
  ck_assert_str_eq(dlca_context_warnings(ctx), "");
  dlca_context_free(ctx);
  /* dlca_cache_clear deletes the orders; DLCA_CL_CACHE=0 neither reads nor writes */
  ck_assert(dlca_cache_clear() == DLCA_OK);
  ck_assert_int_eq(tcl_count_files(orders, ".order"), 0);
  setenv("DLCA_CL_CACHE", "0", 1);
  ctx = tcl_context();
  ck_assert(dlca__bank_order_cached(ctx, m, 40, got, &cached) == DLCA_OK);
  ck_assert_int_eq(cached, 0);
  ck_assert(same_rows(m, want, got));
  free_rows(m, got);
  ck_assert_int_eq(tcl_count_files(orders, ".order"), 0);
  dlca_context_free(ctx);
  unsetenv("DLCA_CL_CACHE");
  free_rows(m, want);
  dlca_model_free(m);
}
END_TEST

Suite *suite_banks(void) {
  Suite *s = suite_create("banks");
  TCase *tc = tcase_create("banks");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_order_rows);
  tcase_add_test(tc, test_order_cache);
  suite_add_tcase(s, tc);
  return s;
}
