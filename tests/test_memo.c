/* The launchers' memo (lib/cl/memo.c): programs and tuned values found once
 * per context and dropped when the tuner's overrides change, a kernel file
 * edited on disk seen by the next context, and the kernel pools (one
 * kernel per user at a time, several threads launching at once). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_util.h"
#include "dlca_cl/ops.h"
#include "dlca_cl/tensor.h"

static void append_comment(const char *dir, const char *file, const char *text) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "ab");
  ck_assert(f != NULL);
  fputs(text, f);
  fclose(f);
}

/* Whether ctx holds a program whose source contains text. */
static int holds_source(const dlca_context *ctx, const char *text) {
  for (size_t i = 0; i < ctx->n_programs; i++)
    if (strstr(ctx->programs[i].source, text)) return 1;
  return 0;
}

START_TEST(test_memo_programs_and_values) {
  if (!tcl_platform()) return;
  tcl_fresh_env("memo");
  const char *kdir = tcl_kernel_copy("memo");
  dlca_context *ctx = tcl_context();
  cl_program p1, p2;
  int v;
  ck_assert_msg(dlca__memo_program(ctx, "selftest.cl", NULL, &p1) == DLCA_OK, "%s", dlca_last_error());
  ck_assert(dlca__memo_tunable(ctx, "selftest.cl", "WG_SIZE", &v) == DLCA_OK);
  ck_assert_int_eq(v, 64);
  /* an edit on disk is not seen by this context... */
  append_comment(kdir, "selftest.cl", "// memo edit\n");
  ck_assert(dlca__memo_program(ctx, "selftest.cl", NULL, &p2) == DLCA_OK);
  ck_assert(p1 == p2);
  ck_assert(!holds_source(ctx, "// memo edit"));
  /* ...other options are another entry... */
  ck_assert(dlca__memo_program(ctx, "selftest.cl", "-DDLCA_TEST_MEMO=1", &p2) == DLCA_OK);
  ck_assert(p1 != p2);
  /* ...and an override drops the entries: the next lookup builds with the new value */
  ck_assert(dlca__tuning_override(ctx, "selftest.cl", "WG_SIZE", 128) == DLCA_OK);
  ck_assert(dlca__memo_tunable(ctx, "selftest.cl", "WG_SIZE", &v) == DLCA_OK);
  ck_assert_int_eq(v, 128);
  ck_assert(dlca__memo_program(ctx, "selftest.cl", NULL, &p2) == DLCA_OK);
  ck_assert(p1 != p2);
  dlca__tuning_clear_overrides(ctx);
  ck_assert(dlca__memo_tunable(ctx, "selftest.cl", "WG_SIZE", &v) == DLCA_OK);
  ck_assert_int_eq(v, 64);
  /* errors are not remembered: each call reports them */
  ck_assert_int_eq(dlca__memo_tunable(ctx, "selftest.cl", "NOPE", &v), DLCA_EINVAL);
  ck_assert_int_eq(dlca__memo_tunable(ctx, "selftest.cl", "NOPE", &v), DLCA_EINVAL);
  ck_assert_int_eq(dlca__memo_program(ctx, "no_such_file.cl", NULL, &p2), DLCA_ENOKERNEL);
  dlca_context_free(ctx);
  /* the next context reads the edited file */
  ctx = tcl_context();
  ck_assert(dlca__memo_program(ctx, "selftest.cl", NULL, &p2) == DLCA_OK);
  ck_assert(holds_source(ctx, "// memo edit"));
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_memo_kernel_pool) {
  if (!tcl_platform()) return;
  tcl_fresh_env("memo-pool");
  dlca_context *ctx = tcl_context();
  cl_program p;
  cl_kernel k[6];
  ck_assert(dlca__memo_program(ctx, "selftest.cl", NULL, &p) == DLCA_OK);
  /* a kernel in use is never handed out twice */
  for (int i = 0; i < 6; i++) {
    ck_assert_msg(dlca__memo_kernel(ctx, p, "dlca_selftest_params", &k[i]) == DLCA_OK, "%s", dlca_last_error());
    for (int j = 0; j < i; j++) ck_assert(k[i] != k[j]);
  }
  cl_kernel first = k[0];
  for (int i = 0; i < 6; i++) dlca__memo_kernel_put(ctx, k[i]);
  cl_kernel again;
  ck_assert(dlca__memo_kernel(ctx, p, "dlca_selftest_params", &again) == DLCA_OK);
  ck_assert(again == first);
  dlca__memo_kernel_put(ctx, again);
  ck_assert_int_eq(dlca__memo_kernel(ctx, p, "no_such_kernel", &again), DLCA_ECL);
  ck_assert_int_eq(dlca__memo_kernel(ctx, p, "no_such_kernel", &again), DLCA_ECL);
  dlca_context_free(ctx);
}
END_TEST

typedef struct job {
  dlca_context *ctx;
  int id, rc;
  float bad;
} job;

/* 40 launches of neg on this thread's own tensors, then the result checked. */
static void *neg_many(void *arg) {
  job *j = arg;
  size_t shape[2] = {8, 33}, n = 8 * 33;
  float x[8 * 33], y[8 * 33];
  for (size_t i = 0; i < n; i++) x[i] = (float)(j->id * 1000 + (int)i) * 0.5f + 0.25f;
  dlca_tensor *tx = NULL, *ty = NULL;
  j->rc = dlca_tensor_new(j->ctx, 2, shape, &tx);
  if (!j->rc) j->rc = dlca_tensor_new(j->ctx, 2, shape, &ty);
  if (!j->rc) j->rc = dlca_tensor_upload(tx, x, n);
  for (int r = 0; !j->rc && r < 40; r++) j->rc = dlca_unary(DLCA_UNARY_NEG, tx, ty);
  if (!j->rc) j->rc = dlca_tensor_download(ty, y, n);
  for (size_t i = 0; !j->rc && i < n; i++)
    if (y[i] != -x[i]) j->bad = y[i];
  dlca_tensor_free(tx), dlca_tensor_free(ty);
  return NULL;
}

START_TEST(test_memo_threads) {
  if (!tcl_platform()) return;
  tcl_fresh_env("memo-threads");
  dlca_context *ctx = tcl_context();
  pthread_t t[4];
  job j[4];
  for (int i = 0; i < 4; i++) j[i] = (job){ctx, i, 0, 0}, pthread_create(&t[i], NULL, neg_many, &j[i]);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < 4; i++) {
    ck_assert_msg(j[i].rc == DLCA_OK, "thread %d: %s", i, dlca_last_error());
    ck_assert_msg(j[i].bad == 0, "thread %d: y holds %g, not -x", i, j[i].bad);
  }
  dlca_context_free(ctx);
}
END_TEST

void tm_add_memo(TCase *tc) {
  tcase_add_test(tc, test_memo_programs_and_values);
  tcase_add_test(tc, test_memo_kernel_pool);
  tcase_add_test(tc, test_memo_threads);
}
