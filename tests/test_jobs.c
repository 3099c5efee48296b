/* tools/jobs.c, the ordered child processes of dlca-train --jobs: whatever
 * order the children end in, done() sees the tasks in the order of k with
 * their output replayed whole and their values, the chain stops where done() says, and the
 * tasks started after that are killed and dropped. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../tools/jobs.h"

typedef struct log_ctx {
  long right;    /* the task that "succeeds" (exit 10); -1: none */
  long seen[64], dropped[64];
  int n_seen, n_dropped, codes[64];
  long values[64];
  FILE *out;     /* the parent's stdout while jobs_run replays */
} log_ctx;

/* Later tasks end sooner, so that the children finish out of order. */
static int task(void *ctx, long k, long *value) {
  log_ctx *c = ctx;
  *value = 100 * k + 7;
  usleep((useconds_t)(20000 * (8 - k % 8)));
  printf("task %ld out\n", k);
  fprintf(stderr, "task %ld err\n", k);
  return k == c->right ? 10 : 11;
}

static int done(void *ctx, long k, int code, long value) {
  log_ctx *c = ctx;
  c->codes[c->n_seen] = code;
  c->values[c->n_seen] = value;
  c->seen[c->n_seen++] = k;
  fflush(stdout);
  fprintf(stdout, "done %ld\n", k);
  return code == 10;
}

static void drop(void *ctx, long k) {
  log_ctx *c = ctx;
  c->dropped[c->n_dropped++] = k;
}

/* Runs jobs_run with the parent's stdout in a temporary file; returns what it printed. */
static char *run_logged(log_ctx *c, long n, long first, long last, int *rc, long *next) {
  FILE *f = tmpfile();
  ck_assert_ptr_nonnull(f);
  fflush(stdout);
  int saved = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
  dup2(fileno(f), STDOUT_FILENO);
  FILE *devnull = fopen("/dev/null", "w");
  dup2(fileno(devnull), STDERR_FILENO);
  jobs_spec s = {n, first, last, task, done, drop, c, NULL};
  *rc = jobs_run(&s, next);
  fflush(stdout);
  fflush(stderr);
  dup2(saved, STDOUT_FILENO);
  dup2(saved_err, STDERR_FILENO);
  close(saved), close(saved_err), fclose(devnull);
  static char buf[4096];
  rewind(f);
  size_t got = fread(buf, 1, sizeof buf - 1, f);
  buf[got] = 0;
  fclose(f);
  return buf;
}

START_TEST(test_jobs_order_and_stop) {
  for (long n = 1; n <= 4; n++) {
    log_ctx c;
    memset(&c, 0, sizeof c);
    c.right = 5;
    int rc;
    long next;
    const char *out = run_logged(&c, n, 2, 9, &rc, &next);
    ck_assert_int_eq(rc, JOBS_DONE);
    ck_assert_int_eq(next, 6);
    ck_assert_int_eq(c.n_seen, 4); /* tasks 2, 3, 4, 5 in that order */
    for (int i = 0; i < 4; i++) {
      ck_assert_int_eq(c.seen[i], 2 + i);
      ck_assert_int_eq(c.codes[i], i == 3 ? 10 : 11);
      ck_assert_int_eq(c.values[i], 100 * (2 + i) + 7);
    }
    ck_assert_str_eq(out, "task 2 out\ndone 2\ntask 3 out\ndone 3\ntask 4 out\ndone 4\ntask 5 out\ndone 5\n");
    /* with n at once, tasks 6 .. 5 + n - 1 had started: killed and dropped, in order */
    ck_assert_int_eq(c.n_dropped, (int)(n - 1));
    for (int i = 0; i < c.n_dropped; i++) ck_assert_int_eq(c.dropped[i], 6 + i);
  }
}
END_TEST

START_TEST(test_jobs_to_the_last) {
  log_ctx c;
  memset(&c, 0, sizeof c);
  c.right = -1;
  int rc;
  long next;
  run_logged(&c, 3, 0, 4, &rc, &next);
  ck_assert_int_eq(rc, JOBS_DONE);
  ck_assert_int_eq(next, 5);
  ck_assert_int_eq(c.n_seen, 5);
  ck_assert_int_eq(c.n_dropped, 0);
  for (int i = 0; i < 5; i++) ck_assert_int_eq(c.seen[i], i);
}
END_TEST

Suite *suite_jobs(void) {
  Suite *s = suite_create("jobs");
  TCase *tc = tcase_create("order");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_jobs_order_and_stop);
  tcase_add_test(tc, test_jobs_to_the_last);
  suite_add_tcase(s, tc);
  return s;
}
