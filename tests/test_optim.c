/* The optimizer suite's CPU twin (issue 32) against every optimizer,
 * clip_grad_norm and lr_schedule vector of shared/testdata/ops (the worst
 * error of each case goes to stderr), and checkpoints that resume bit-exactly.
 * The hyperparameter checks and hand-computed schedules: test_optim_checks.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/vector.h"
#include "ops_util.h"
#include "util.h"

void optim_add_checks(TCase *tc);
void optim_add_ref(TCase *tc, int n_cases);
dlca_optim_config optim_case_config(int i);

static void report(const dlca__ops_vector *v, const char *what, dlca__ops_cmp c) {
  fprintf(stderr, "optim: %-20s %-16s worst |err| %.3g (%.3g of its tolerance)\n", v->name, what, c.worst,
          c.worst_ratio);
  ck_assert_msg(c.pass, "%s: %s at %zu is %.3g, %.3g of the tolerance", v->path, what, c.worst_index, c.worst,
                c.worst_ratio);
}

/* The file's hyper (torch's names; betas is beta1, beta2) into cfg. */
static void optim_config(const dlca__ops_vector *v, dlca_optim_config *cfg) {
  const char *name;
  int kind;
  ck_assert_int_eq(dlca__ops_vector_attr_string(v, "name", &name), DLCA_OK);
  ck_assert_msg(dlca_optim_kind_from_name(name, &kind) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_int_eq(dlca_optim_config_default(kind, cfg), DLCA_OK);
  const char *key;
  json_t *val, *hyper = json_object_get(v->attrs, "hyper");
  json_object_foreach(hyper, key, val) {
    int st;
    if (!strcmp(key, "betas")) {
      st = dlca_optim_config_set(cfg, "beta1", json_number_value(json_array_get(val, 0)));
      if (!st) st = dlca_optim_config_set(cfg, "beta2", json_number_value(json_array_get(val, 1)));
    } else {
      ck_assert_msg(json_is_number(val) || json_is_boolean(val), "%s: hyper.%s", v->path, key);
      st = dlca_optim_config_set(cfg, key, json_is_boolean(val) ? json_is_true(val) : json_number_value(val));
    }
    ck_assert_msg(st == DLCA_OK, "%s: %s", v->path, dlca_last_error());
  }
}

/* Runs the case with the parameters split into n_split tensors; the params
 * after every step go to out [steps * n]. */
static void optim_run(const dlca__ops_vector *v, size_t n_split, float *out) {
  const dlca__ops_tensor *p0, *g;
  ck_assert_int_eq(dlca__ops_vector_tensor(v, "inputs", "params", &p0), DLCA_OK);
  ck_assert_int_eq(dlca__ops_vector_tensor(v, "inputs", "grads", &g), DLCA_OK);
  size_t n = p0->n, steps = g->n / n, sizes[2] = {n, 0};
  if (n_split == 2) sizes[0] = n / 2, sizes[1] = n - n / 2;
  dlca_optim_config cfg;
  optim_config(v, &cfg);
  dlca_optimizer *o;
  ck_assert_msg(dlca_optim_new(&cfg, n_split, sizes, &o) == DLCA_OK, "%s", dlca_last_error());
  float *p = malloc(sizeof(float) * n), *gf = malloc(sizeof(float) * n);
  for (size_t i = 0; i < n; i++) p[i] = (float)p0->data[i];
  float *pp[2] = {p, p + sizes[0]};
  const float *gg[2] = {gf, gf + sizes[0]};
  for (size_t s = 0; s < steps; s++) {
    for (size_t i = 0; i < n; i++) gf[i] = (float)g->data[s * n + i];
    ck_assert_msg(dlca_optim_step(o, pp, gg) == DLCA_OK, "%s", dlca_last_error());
    memcpy(out + s * n, p, sizeof(float) * n);
  }
  ck_assert(dlca_optim_steps(o) == steps);
  dlca_optim_free(o);
  free(p), free(gf);
}

static void check_optimizer(const dlca__ops_vector *v) {
  const dlca__ops_tensor *want;
  ck_assert_int_eq(dlca__ops_vector_tensor(v, "outputs", "params_after_each_step", &want), DLCA_OK);
  float *one = malloc(sizeof(float) * want->n), *two = malloc(sizeof(float) * want->n);
  optim_run(v, 1, one);
  optim_run(v, 2, two);
  ck_assert_msg(!memcmp(one, two, sizeof(float) * want->n), "%s: two tensors differ from one", v->path);
  report(v, "params", dlca__ops_compare_f(one, want, v->tol_abs, v->tol_rel));
  free(one), free(two);
}

static void check_clip(const dlca__ops_vector *v) {
  double max_norm, norm_type, norm;
  ck_assert_int_eq(dlca__ops_vector_attr_double(v, "max_norm", &max_norm), DLCA_OK);
  ck_assert_int_eq(dlca__ops_vector_attr_double(v, "norm_type", &norm_type), DLCA_OK);
  ck_assert_msg(norm_type == 2, "%s: norm_type %g (only 2 is implemented)", v->path, norm_type);
  size_t n = v->inputs.n, sizes[16];
  float *g[16];
  ck_assert(n <= 16);
  for (size_t i = 0; i < n; i++) {
    sizes[i] = v->inputs.t[i].n, g[i] = malloc(sizeof(float) * (sizes[i] + 1));
    for (size_t j = 0; j < sizes[i]; j++) g[i][j] = (float)v->inputs.t[i].data[j];
  }
  ck_assert_msg(dlca_clip_grad_norm(n, g, sizes, max_norm, &norm) == DLCA_OK, "%s", dlca_last_error());
  for (size_t i = 0; i < n; i++) {
    const dlca__ops_tensor *want;
    ck_assert_int_eq(dlca__ops_vector_tensor(v, "outputs", v->inputs.t[i].name, &want), DLCA_OK);
    report(v, want->name, dlca__ops_compare_f(g[i], want, v->tol_abs, v->tol_rel));
    free(g[i]);
  }
  const dlca__ops_tensor *tn;
  ck_assert_int_eq(dlca__ops_vector_tensor(v, "outputs", "total_norm", &tn), DLCA_OK);
  report(v, "total_norm", dlca__ops_compare(&norm, tn, v->tol_abs, v->tol_rel));
}

/* torch's arguments that this implementation has fixed (OneCycleLR's). */
static int fixed_arg(const char *key, json_t *val) {
  if (!strcmp(key, "anneal_strategy")) return json_is_string(val) && !strcmp(json_string_value(val), "cos");
  return (!strcmp(key, "three_phase") || !strcmp(key, "cycle_momentum")) && json_is_false(val);
}

static void check_schedule(const dlca__ops_vector *v) {
  const char *name;
  int kind;
  double base_lr;
  ck_assert_int_eq(dlca__ops_vector_attr_string(v, "name", &name), DLCA_OK);
  ck_assert_int_eq(dlca__ops_vector_attr_double(v, "base_lr", &base_lr), DLCA_OK);
  ck_assert_msg(dlca_lrs_kind_from_name(name, &kind) == DLCA_OK, "%s", dlca_last_error());
  dlca_lr_spec s;
  ck_assert_int_eq(dlca_lr_spec_default(kind, base_lr, &s), DLCA_OK);
  const char *key;
  json_t *val;
  json_object_foreach(json_object_get(v->attrs, "hyper"), key, val) {
    if (fixed_arg(key, val)) continue;
    ck_assert_msg(json_is_number(val), "%s: hyper.%s is not a number", v->path, key);
    ck_assert_msg(dlca_lr_spec_set(&s, key, json_number_value(val)) == DLCA_OK, "%s", dlca_last_error());
  }
  const dlca__ops_tensor *want;
  ck_assert_int_eq(dlca__ops_vector_tensor(v, "outputs", "lr", &want), DLCA_OK);
  double *lr = malloc(sizeof(double) * want->n);
  for (size_t t = 0; t < want->n; t++)
    ck_assert_msg(dlca_lr_at(&s, t, &lr[t]) == DLCA_OK, "%s: %s", v->path, dlca_last_error());
  report(v, "lr", dlca__ops_compare(lr, want, v->tol_abs, v->tol_rel));
  free(lr);
}

START_TEST(test_optim_vectors) {
  const char *dir = to_dir();
  if (!dir) return;
  to_list list;
  to_list_files(dir, "", &list);
  int counts[3] = {0, 0, 0};
  for (size_t i = 0; i < list.n; i++) {
    dlca__ops_vector v;
    ck_assert_msg(dlca__ops_vector_load(list.path[i], &v) == DLCA_OK, "%s", dlca_last_error());
    if (!strcmp(v.op, "optimizer")) check_optimizer(&v), counts[0]++;
    else if (!strcmp(v.op, "clip_grad_norm")) check_clip(&v), counts[1]++;
    else if (!strcmp(v.op, "lr_schedule")) check_schedule(&v), counts[2]++;
    dlca__ops_vector_free(&v);
  }
  to_list_free(&list);
  ck_assert_msg(counts[0] >= 6 && counts[1] >= 1 && counts[2] >= 3, "%s: %d optimizer, %d clip, %d schedule cases",
                dir, counts[0], counts[1], counts[2]);
}
END_TEST

/* Every optimizer with every state slot it can have (shared with
 * test_optim_ref.c). */
dlca_optim_config optim_case_config(int i) {
  static const struct {
    int kind;
    const char *k1;
    double v1;
    const char *k2;
    double v2;
    const char *k3;
    double v3;
  } c[] = {
      {DLCA_OPTIM_SGD, "momentum", 0.9, "nesterov", 1, "weight_decay", 0.01},
      {DLCA_OPTIM_SGD, "momentum", 0.5, "dampening", 0.3, "lr", 0.1},
      {DLCA_OPTIM_ADAM, "amsgrad", 1, "weight_decay", 0.1, "lr", 0.01},
      {DLCA_OPTIM_ADAMW, "lr", 0.05, "beta1", 0.3, "beta2", 0.99},
      {DLCA_OPTIM_RMSPROP, "centered", 1, "momentum", 0.9, "weight_decay", 0.01},
      {DLCA_OPTIM_RMSPROP, "alpha", 0.9, "lr", 0.001, "eps", 1e-6},
      {DLCA_OPTIM_ADAGRAD, "lr_decay", 0.1, "initial_accumulator_value", 0.5, "weight_decay", 0.01},
  };
  dlca_optim_config cfg;
  ck_assert_int_eq(dlca_optim_config_default(c[i].kind, &cfg), DLCA_OK);
  ck_assert_int_eq(dlca_optim_config_set(&cfg, c[i].k1, c[i].v1), DLCA_OK);
  ck_assert_int_eq(dlca_optim_config_set(&cfg, c[i].k2, c[i].v2), DLCA_OK);
  ck_assert_int_eq(dlca_optim_config_set(&cfg, c[i].k3, c[i].v3), DLCA_OK);
  return cfg;
}
#define N_RESUME 7

enum { N_T = 3, TOTAL = 7 + 300 + 1 };
static const size_t resume_sizes[N_T] = {7, 300, 1};

/* Steps first..last-1 of o over p (TOTAL floats in N_T tensors), gradients
 * drawn from the step number. */
static void run_steps(dlca_optimizer *o, float *p, int first, int last) {
  float g[TOTAL];
  float *pp[N_T] = {p, p + 7, p + 307};
  const float *gg[N_T] = {g, g + 7, g + 307};
  for (int s = first; s < last; s++) {
    tu_random(g, TOTAL, -2.0f, 2.0f, 1000 + (uint64_t)s);
    ck_assert_msg(dlca_optim_step(o, pp, gg) == DLCA_OK, "%s", dlca_last_error());
  }
}

/* 12 steps straight, against 5 steps, a checkpoint into a fresh optimizer,
 * and 7 more: the same bits, parameters and state. */
START_TEST(test_optim_resume) {
  dlca_optim_config cfg = optim_case_config(_i);
  float a[TOTAL], b[TOTAL];
  tu_random(a, TOTAL, -1.0f, 1.0f, 99);
  memcpy(b, a, sizeof a);
  dlca_optimizer *straight, *first, *resumed;
  ck_assert_int_eq(dlca_optim_new(&cfg, N_T, resume_sizes, &straight), DLCA_OK);
  ck_assert_int_eq(dlca_optim_new(&cfg, N_T, resume_sizes, &first), DLCA_OK);
  ck_assert_int_eq(dlca_optim_new(&cfg, N_T, resume_sizes, &resumed), DLCA_OK);
  run_steps(straight, a, 0, 12);
  run_steps(first, b, 0, 5);
  size_t len = dlca_optim_state_size(first);
  unsigned char *buf = malloc(len);
  ck_assert_int_eq(dlca_optim_state_save(first, buf, len - 1), DLCA_EINVAL);
  ck_assert_int_eq(dlca_optim_state_save(first, buf, len), DLCA_OK);
  dlca_optim_free(first);
  ck_assert_int_eq(dlca_optim_state_load(resumed, buf, len - 1), DLCA_ECHECKPOINT);
  ck_assert_msg(dlca_optim_state_load(resumed, buf, len) == DLCA_OK, "%s", dlca_last_error());
  ck_assert(dlca_optim_steps(resumed) == 5);
  run_steps(resumed, b, 5, 12);
  ck_assert_msg(!memcmp(a, b, sizeof a), "%s: resumed parameters differ", dlca_optim_kind_name(cfg.kind));
  size_t slots = dlca_optim_state_slots(straight);
  ck_assert(slots >= 1 && slots == dlca_optim_state_slots(resumed));
  for (size_t s = 0; s < slots; s++)
    ck_assert(!memcmp(dlca_optim_state_slot(straight, s), dlca_optim_state_slot(resumed, s), sizeof a));
  free(buf);
  dlca_optim_free(straight), dlca_optim_free(resumed);
}
END_TEST

/* A checkpoint of another kind, slot count or tensor shape is refused by name. */
START_TEST(test_optim_resume_mismatch) {
  dlca_optim_config adam = optim_case_config(2), rms = optim_case_config(4);
  dlca_optimizer *a, *r, *other;
  size_t sizes2[N_T] = {7, 299, 2};
  ck_assert_int_eq(dlca_optim_new(&adam, N_T, resume_sizes, &a), DLCA_OK);
  ck_assert_int_eq(dlca_optim_new(&rms, N_T, resume_sizes, &r), DLCA_OK);
  ck_assert_int_eq(dlca_optim_new(&adam, N_T, sizes2, &other), DLCA_OK);
  size_t len = dlca_optim_state_size(a);
  unsigned char *buf = malloc(len);
  ck_assert_int_eq(dlca_optim_state_save(a, buf, len), DLCA_OK);
  ck_assert_int_eq(dlca_optim_state_load(r, buf, len), DLCA_ECHECKPOINT);
  ck_assert_msg(strstr(dlca_last_error(), "saved from adam with 3 state slots, restored into rmsprop with 3"),
                "%s", dlca_last_error());
  ck_assert_int_eq(dlca_optim_state_load(other, buf, len), DLCA_ECHECKPOINT);
  ck_assert_msg(strstr(dlca_last_error(), "tensor 1 has 300 floats saved, 299"), "%s", dlca_last_error());
  buf[0] = 'X';
  ck_assert_int_eq(dlca_optim_state_load(a, buf, len), DLCA_ECHECKPOINT);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "magic"));
  free(buf);
  dlca_optim_free(a), dlca_optim_free(r), dlca_optim_free(other);
}
END_TEST

Suite *suite_optim(void) {
  Suite *s = suite_create("optim");
  TCase *tc = tcase_create("optim");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_optim_vectors);
  tcase_add_loop_test(tc, test_optim_resume, 0, N_RESUME);
  tcase_add_test(tc, test_optim_resume_mismatch);
  optim_add_checks(tc);
  optim_add_ref(tc, N_RESUME);
  suite_add_tcase(s, tc);
  return s;
}
