/* The optimizer suite's refusals (bad hyperparameters named with their
 * allowed range), clipping by value and the norm's fixed order, and the
 * schedules that have no public vector (onecycle, linear, chains), checked
 * against values worked out by hand from torch's formulas. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

/* kind, the field set directly in the struct (bypassing config_set), its
 * value, and the message expected from dlca_optim_new. */
static const struct {
  int kind;
  const char *field;
  double value;
  const char *msg;
} bad[] = {
    {DLCA_OPTIM_SGD, "lr", -0.1, "sgd: lr = -0.1 is outside [0, inf)"},
    {DLCA_OPTIM_ADAM, "lr", NAN, "adam: lr = nan is outside [0, inf)"},
    {DLCA_OPTIM_ADAM, "beta1", 1.0, "adam: beta1 = 1 is outside [0, 1)"},
    {DLCA_OPTIM_ADAMW, "beta2", -0.5, "adamw: beta2 = -0.5 is outside [0, 1)"},
    {DLCA_OPTIM_ADAM, "eps", -1e-8, "adam: eps = -1e-08 is outside [0, inf)"},
    {DLCA_OPTIM_RMSPROP, "weight_decay", -0.01, "rmsprop: weight_decay = -0.01 is outside [0, inf)"},
    {DLCA_OPTIM_RMSPROP, "alpha", 1.5, "rmsprop: alpha = 1.5 is outside [0, 1]"},
    {DLCA_OPTIM_RMSPROP, "momentum", -0.9, "rmsprop: momentum = -0.9 is outside [0, inf)"},
    {DLCA_OPTIM_ADAGRAD, "lr_decay", -1, "adagrad: lr_decay = -1 is outside [0, inf)"},
    {DLCA_OPTIM_ADAGRAD, "initial_accumulator_value", -1, "initial_accumulator_value = -1 is outside [0, inf)"},
    {DLCA_OPTIM_SGD, "nesterov", 1, "sgd: nesterov needs momentum > 0 and dampening = 0 (momentum = 0, "},
    {DLCA_OPTIM_SGD, "amsgrad", 1, "sgd: amsgrad = 1 is not an option of sgd (it belongs to adam, adamw)"},
    {DLCA_OPTIM_ADAM, "momentum", 0.9, "adam: momentum = 0.9 is not an option of adam (it belongs to sgd, rmsprop)"},
    {DLCA_OPTIM_SGD, "eps", 1e-8, "sgd: eps = 1e-08 is not an option of sgd"},
    {DLCA_OPTIM_ADAMW, "centered", 1, "adamw: centered = 1 is not an option of adamw (it belongs to rmsprop)"},
    {DLCA_OPTIM_RMSPROP, "centered", 2, "rmsprop: centered = 2 must be 0 or 1"},
};

static void set_raw(dlca_optim_config *c, const char *f, double v) {
  if (!strcmp(f, "nesterov")) c->nesterov = (int)v;
  else if (!strcmp(f, "amsgrad")) c->amsgrad = (int)v;
  else if (!strcmp(f, "centered")) c->centered = (int)v;
  else if (!strcmp(f, "lr")) c->lr = v;
  else if (!strcmp(f, "beta1")) c->beta1 = v;
  else if (!strcmp(f, "beta2")) c->beta2 = v;
  else if (!strcmp(f, "eps")) c->eps = v;
  else if (!strcmp(f, "weight_decay")) c->weight_decay = v;
  else if (!strcmp(f, "alpha")) c->alpha = v;
  else if (!strcmp(f, "momentum")) c->momentum = v;
  else if (!strcmp(f, "lr_decay")) c->lr_decay = v;
  else if (!strcmp(f, "initial_accumulator_value")) c->initial_accumulator_value = v;
  else ck_abort_msg("no field %s", f);
}

START_TEST(test_optim_bad_hyper) {
  dlca_optim_config c;
  ck_assert_int_eq(dlca_optim_config_default(bad[_i].kind, &c), DLCA_OK);
  set_raw(&c, bad[_i].field, bad[_i].value);
  dlca_optimizer *o = (dlca_optimizer *)&c;
  size_t n = 4;
  ck_assert_int_eq(dlca_optim_new(&c, 1, &n, &o), DLCA_EINVAL);
  ck_assert_ptr_null(o);
  const char *e = dlca_last_error();
  ck_assert_msg(strstr(e, bad[_i].msg), "case %d: \"%s\" lacks \"%s\"", _i, e, bad[_i].msg);
  fprintf(stderr, "optim: refused: %s\n", e);
}
END_TEST

/* config_set refuses a foreign or unknown name before any range check;
 * nesterov with dampening, set_lr below 0. */
START_TEST(test_optim_bad_set) {
  dlca_optim_config c;
  ck_assert_int_eq(dlca_optim_config_default(DLCA_OPTIM_SGD, &c), DLCA_OK);
  ck_assert_int_eq(dlca_optim_config_set(&c, "amsgrad", 1), DLCA_EINVAL);
  ck_assert_str_eq(dlca_last_error(), "sgd: amsgrad is not an option of sgd (it belongs to adam, adamw)");
  ck_assert_int_eq(dlca_optim_config_set(&c, "betas", 0.9), DLCA_EINVAL);
  ck_assert_str_eq(dlca_last_error(), "sgd: unknown hyperparameter 'betas'");
  int k;
  ck_assert_int_eq(dlca_optim_kind_from_name("lamb", &k), DLCA_EINVAL);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "unknown optimizer 'lamb' (sgd, adam, adamw, rmsprop, adagrad)"));
  c.momentum = 0.9, c.nesterov = 1, c.dampening = 0.1;
  ck_assert_int_eq(dlca_optim_config_check(&c), DLCA_EINVAL);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "dampening = 0.1"));
  c.dampening = 0;
  dlca_optimizer *o;
  size_t n = 3;
  ck_assert_int_eq(dlca_optim_new(&c, 1, &n, &o), DLCA_OK);
  ck_assert_int_eq(dlca_optim_set_lr(o, -1e-3), DLCA_EINVAL);
  ck_assert_str_eq(dlca_last_error(), "sgd: lr = -0.001 is outside [0, inf)");
  ck_assert_int_eq(dlca_optim_set_lr(o, 0.25), DLCA_OK);
  ck_assert(dlca_optim_lr(o) == 0.25 && dlca_optim_get_config(o)->lr == 0.25);
  dlca_optim_free(o);
  ck_assert_int_eq(dlca_optim_new(&c, 0, &n, &o), DLCA_EINVAL);
}
END_TEST

START_TEST(test_optim_clip) {
  float a[4] = {-3.0f, 0.5f, 2.0f, -0.25f}, b[1000];
  float *g[2] = {a, b};
  size_t sizes[2] = {4, 1000};
  ck_assert_int_eq(dlca_clip_grad_value(1, g, sizes, 1.0), DLCA_OK);
  ck_assert(a[0] == -1.0f && a[1] == 0.5f && a[2] == 1.0f && a[3] == -0.25f);
  ck_assert_int_eq(dlca_clip_grad_value(1, g, sizes, -1.0), DLCA_EINVAL);
  ck_assert_str_eq(dlca_last_error(), "clip_grad_value: clip = -1 is outside [0, inf]");
  for (int i = 0; i < 1000; i++) b[i] = 1.0f;
  double norm, want = sqrt(1000.0 + 1 + 0.25 + 1 + 0.0625);
  /* Below max_norm: the norm comes back and no gradient changes. */
  ck_assert_int_eq(dlca_clip_grad_norm(2, g, sizes, 100.0, &norm), DLCA_OK);
  ck_assert_double_eq_tol(norm, want, 1e-12);
  ck_assert(a[0] == -1.0f && b[999] == 1.0f);
  ck_assert_int_eq(dlca_clip_grad_norm(2, g, sizes, 1.0, &norm), DLCA_OK);
  ck_assert_float_eq(b[0], (float)(1.0 / (want + 1e-6)));
  ck_assert_int_eq(dlca_grad_norm(2, (const float *const *)g, sizes, &norm), DLCA_OK);
  ck_assert_double_eq_tol(norm, 1.0, 1e-6);
  ck_assert_int_eq(dlca_clip_grad_norm(2, g, sizes, -1.0, NULL), DLCA_EINVAL);
  ck_assert_str_eq(dlca_last_error(), "clip_grad_norm: max_norm = -1 is outside [0, inf)");
}
END_TEST

/* The blocked pairwise sum over 100003 values meets a long double sum. */
START_TEST(test_optim_norm_order) {
  static float v[100003];
  tu_random(v, 100003, -1.0f, 1.0f, 5);
  const float *g[1] = {v};
  size_t n = 100003;
  double norm, again;
  long double s = 0;
  for (size_t i = 0; i < n; i++) s += (long double)v[i] * v[i];
  ck_assert_int_eq(dlca_grad_norm(1, g, &n, &norm), DLCA_OK);
  ck_assert_int_eq(dlca_grad_norm(1, g, &n, &again), DLCA_OK);
  ck_assert(norm == again);
  ck_assert_double_eq_tol(norm, (double)sqrtl(s), 1e-12 * norm);
}
END_TEST

static dlca_lr_spec spec(int kind, double base, const char *k1, double v1, const char *k2, double v2) {
  dlca_lr_spec s;
  ck_assert_int_eq(dlca_lr_spec_default(kind, base, &s), DLCA_OK);
  ck_assert_int_eq(dlca_lr_spec_set(&s, k1, v1), DLCA_OK);
  if (k2) ck_assert_int_eq(dlca_lr_spec_set(&s, k2, v2), DLCA_OK);
  return s;
}

static double lr_at(const dlca_lr_spec *s, uint64_t t) {
  double lr;
  ck_assert_msg(dlca_lr_at(s, t, &lr) == DLCA_OK, "%s", dlca_last_error());
  return lr;
}

START_TEST(test_optim_schedules) {
  /* OneCycleLR(max_lr 0.1, total_steps 10): 0.004 up to 0.1 at step 2, down to 4e-7 at step 9. */
  dlca_lr_spec oc = spec(DLCA_LRS_ONECYCLE, 0, "max_lr", 0.1, "total_steps", 10);
  ck_assert_double_eq_tol(lr_at(&oc, 0), 0.004, 1e-15);
  ck_assert_double_eq_tol(lr_at(&oc, 1), 0.052, 1e-15);
  ck_assert_double_eq_tol(lr_at(&oc, 2), 0.1, 1e-15);
  ck_assert_double_eq_tol(lr_at(&oc, 3), 4e-7 + (0.1 - 4e-7) / 2 * (cos(M_PI / 7) + 1), 1e-15);
  ck_assert_double_eq_tol(lr_at(&oc, 9), 4e-7, 1e-18);
  double lr;
  ck_assert_int_eq(dlca_lr_at(&oc, 10, &lr), DLCA_EINVAL);
  ck_assert_str_eq(dlca_last_error(), "lr schedule onecycle: step 10 is past total_steps = 10");
  /* LinearLR(start 0.25, end 1, total_iters 4) from 0.1. */
  dlca_lr_spec lin = spec(DLCA_LRS_LINEAR, 0.1, "start_factor", 0.25, "total_iters", 4);
  ck_assert_double_eq_tol(lr_at(&lin, 0), 0.025, 1e-16);
  ck_assert_double_eq_tol(lr_at(&lin, 1), 0.04375, 1e-16);
  ck_assert_double_eq_tol(lr_at(&lin, 4), 0.1, 1e-16);
  ck_assert_double_eq_tol(lr_at(&lin, 9), 0.1, 1e-16);
  /* Warm-up over 5 steps, then cosine over 10 to 0.01. */
  dlca_lr_spec parts[2] = {spec(DLCA_LRS_LINEAR, 0.2, "start_factor", 0.1, "total_iters", 5),
                           spec(DLCA_LRS_COSINE, 0.2, "T_max", 10, "eta_min", 0.01)};
  uint64_t ms[1] = {5};
  const double want[][2] = {{0, 0.02}, {4, 0.164}, {5, 0.2}, {10, 0.105}, {15, 0.01}};
  for (size_t i = 0; i < 5; i++) {
    ck_assert_int_eq(dlca_lr_chain_at(2, parts, ms, (uint64_t)want[i][0], &lr), DLCA_OK);
    ck_assert_double_eq_tol(lr, want[i][1], 1e-15);
  }
  dlca_lr_spec three[3] = {parts[0], parts[1], parts[1]};
  uint64_t ms2[2] = {5, 5};
  ck_assert_int_eq(dlca_lr_chain_at(3, three, ms2, 0, &lr), DLCA_EINVAL);
  ck_assert_str_eq(dlca_last_error(), "lr chain: milestone 1 = 5 is not above milestone 0 = 5");
  ck_assert_int_eq(dlca_lr_chain_at(2, parts, NULL, 0, &lr), DLCA_EINVAL);
  float fill[20];
  ck_assert_int_eq(dlca_lr_chain_fill(2, parts, ms, 0, 20, fill), DLCA_OK);
  for (uint64_t t = 0; t < 20; t++) {
    ck_assert_int_eq(dlca_lr_chain_at(2, parts, ms, t, &lr), DLCA_OK);
    ck_assert(fill[t] == (float)lr);
  }
}
END_TEST

static const struct {
  int kind;
  const char *key;
  double value;
  const char *msg;
} bad_lr[] = {
    {DLCA_LRS_STEP, "step_size", 0, "lr schedule step: step_size = 0 must be >= 1"},
    {DLCA_LRS_COSINE, "eta_min", -1, "lr schedule cosine: eta_min = -1 is outside [0, inf)"},
    {DLCA_LRS_ONECYCLE, "pct_start", 1.5, "lr schedule onecycle: pct_start = 1.5 is outside [0, 1]"},
    {DLCA_LRS_LINEAR, "start_factor", 0, "lr schedule linear: start_factor = 0 is outside (0, 1]"},
    {DLCA_LRS_EXPONENTIAL, "base_lr", -0.1, "lr schedule exponential: base_lr = -0.1 is outside [0, inf)"},
};

START_TEST(test_optim_bad_schedule) {
  dlca_lr_spec s;
  ck_assert_int_eq(dlca_lr_spec_default(bad_lr[_i].kind, 0.1, &s), DLCA_OK);
  s.step_size = s.t_max = s.total_steps = 10;
  ck_assert_int_eq(dlca_lr_spec_set(&s, bad_lr[_i].key, bad_lr[_i].value), DLCA_OK);
  ck_assert_int_eq(dlca_lr_spec_check(&s), DLCA_EINVAL);
  ck_assert_str_eq(dlca_last_error(), bad_lr[_i].msg);
  ck_assert_int_eq(dlca_lr_spec_set(&s, "warmup", 3), DLCA_EINVAL);
  ck_assert_int_eq(dlca_lr_spec_set(&s, "total_iters", 2.5), DLCA_EINVAL);
  ck_assert_str_eq(dlca_last_error(), "lr schedule: total_iters = 2.5 is not a whole number >= 0");
}
END_TEST

void optim_add_checks(TCase *tc) {
  tcase_add_loop_test(tc, test_optim_bad_hyper, 0, (int)(sizeof bad / sizeof bad[0]));
  tcase_add_test(tc, test_optim_bad_set);
  tcase_add_test(tc, test_optim_clip);
  tcase_add_test(tc, test_optim_norm_order);
  tcase_add_test(tc, test_optim_schedules);
  tcase_add_loop_test(tc, test_optim_bad_schedule, 0, (int)(sizeof bad_lr / sizeof bad_lr[0]));
}
