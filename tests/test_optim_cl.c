/* The optimizer suite on the device (issue 32; kernels-cl/optim/) against
 * its CPU twin (lib/optim/) on PoCL: every optimizer and option over fresh
 * random data, in plain tensors (more than a launch's chunk of 8) and in
 * tensor groups, with clipping by norm and by value between the steps; the
 * same bits are expected, and the worst difference goes to stderr. Also
 * the public vectors on both backends, checkpoints that resume bit-exactly
 * in either direction, and bad hyperparameters named. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_util.h"
#include "ops/tensor.h"
#include "optim/cl_internal.h"
#include "optim/vector.h"
#include "ops_util.h"

/* Every optimizer with each option it has. */
static const struct {
  int kind;
  const char *k[3];
  double v[3];
} cases[] = {
    {DLCA_OPTIM_SGD, {"lr", NULL, NULL}, {0.1, 0, 0}},
    {DLCA_OPTIM_SGD, {"momentum", "weight_decay", "dampening"}, {0.9, 0.01, 0.2}},
    {DLCA_OPTIM_SGD, {"momentum", "nesterov", "weight_decay"}, {0.9, 1, 0.05}},
    {DLCA_OPTIM_ADAM, {"lr", NULL, NULL}, {0.01, 0, 0}},
    {DLCA_OPTIM_ADAM, {"amsgrad", "weight_decay", "lr"}, {1, 0.1, 0.01}},
    {DLCA_OPTIM_ADAMW, {"lr", "beta1", "beta2"}, {0.05, 0.3, 0.99}},
    {DLCA_OPTIM_ADAMW, {"amsgrad", "weight_decay", "eps"}, {1, 0.2, 1e-6}},
    {DLCA_OPTIM_ADAM, {"eps", "lr", NULL}, {0, 0.01, 0}}, /* eps 0: a group steps by blocks, not flat */
    {DLCA_OPTIM_RMSPROP, {"lr", NULL, NULL}, {0.01, 0, 0}},
    {DLCA_OPTIM_RMSPROP, {"centered", "momentum", "weight_decay"}, {1, 0.9, 0.01}},
    {DLCA_OPTIM_RMSPROP, {"momentum", "alpha", NULL}, {0.5, 0.9, 0}},
    {DLCA_OPTIM_RMSPROP, {"centered", "eps", NULL}, {1, 1e-6, 0}},
    {DLCA_OPTIM_ADAGRAD, {"lr", NULL, NULL}, {0.1, 0, 0}},
    {DLCA_OPTIM_ADAGRAD, {"lr_decay", "initial_accumulator_value", "weight_decay"}, {0.1, 0.5, 0.01}},
};
#define N_CASES (int)(sizeof cases / sizeof cases[0])

static dlca_optim_config case_config(int i) {
  dlca_optim_config c;
  ck_assert_int_eq(dlca_optim_config_default(cases[i].kind, &c), DLCA_OK);
  for (int j = 0; j < 3 && cases[i].k[j]; j++)
    ck_assert_msg(dlca_optim_config_set(&c, cases[i].k[j], cases[i].v[j]) == DLCA_OK, "%s", dlca_last_error());
  return c;
}

/* The tensors of a run: the first, or all NT (11: more than a chunk of 8; one empty; blocks of 2048 split;
 * the first not a multiple of 4, so that the flat step has a tail). */
enum { NT = 11, STEPS = 6 };
static const size_t sizes[NT] = {5003, 300, 1, 2048, 7, 0, 33, 129, 4, 2049, 64};

typedef struct run {
  size_t n, total, off[NT];
  float *p, *g; /* total floats, tensor i at off[i] */
} run;

static void run_init(run *r, size_t n, uint64_t seed) {
  r->n = n, r->total = 0;
  for (size_t i = 0; i < n; i++) r->off[i] = r->total, r->total += sizes[i];
  r->p = malloc(sizeof(float) * (r->total + 1)), r->g = malloc(sizeof(float) * (r->total + 1));
  tu_random(r->p, r->total, -1.0f, 1.0f, seed);
}

/* The gradient of step s: fresh random values, large ones in some steps so that clipping bites. */
static void grads_of(run *r, int s) {
  float scale = s % 3 == 1 ? 40.0f : 2.0f;
  tu_random(r->g, r->total, -scale, scale, 7000 + (uint64_t)s);
}

/* The CPU twin: STEPS steps, clip_grad_norm before step 2, clip_grad_value before step 4. */
static void twin_run(const dlca_optim_config *c, run *r, double *norm, unsigned char **state, size_t *len) {
  dlca_optimizer *o;
  ck_assert_int_eq(dlca_optim_new(c, r->n, sizes, &o), DLCA_OK);
  float *pp[NT], *gg[NT];
  for (size_t i = 0; i < r->n; i++) pp[i] = r->p + r->off[i], gg[i] = r->g + r->off[i];
  for (int s = 0; s < STEPS; s++) {
    grads_of(r, s);
    if (s == 2) ck_assert_int_eq(dlca_clip_grad_norm(r->n, gg, sizes, 5.0, norm), DLCA_OK);
    if (s == 4) ck_assert_int_eq(dlca_clip_grad_value(r->n, gg, sizes, 0.5), DLCA_OK);
    ck_assert_int_eq(dlca_optim_step(o, pp, (const float *const *)gg), DLCA_OK);
  }
  *len = dlca_optim_state_size(o);
  *state = malloc(*len);
  ck_assert_int_eq(dlca_optim_state_save(o, *state, *len), DLCA_OK);
  dlca_optim_free(o);
}

/* n tensors of the run's sizes: plain ones, or the members of *grp. */
static void tensors_new(dlca_context *ctx, size_t n, int grouped, dlca_tensor **t, dlca_tensor_group **grp) {
  int ranks[NT] = {0};
  const size_t *shapes[NT] = {NULL};
  for (size_t i = 0; i < n; i++) ranks[i] = 1, shapes[i] = &sizes[i];
  *grp = NULL;
  if (grouped) {
    ck_assert_msg(dlca_tensor_group_new(ctx, n, ranks, shapes, grp) == DLCA_OK, "%s", dlca_last_error());
    for (size_t i = 0; i < n; i++) t[i] = dlca_tensor_group_member(*grp, i);
  } else {
    for (size_t i = 0; i < n; i++) ck_assert_int_eq(dlca_tensor_new(ctx, 1, &sizes[i], &t[i]), DLCA_OK);
  }
}

static void tensors_free(size_t n, dlca_tensor **t, dlca_tensor_group *grp) {
  if (grp) dlca_tensor_group_free(grp);
  else
    for (size_t i = 0; i < n; i++) dlca_tensor_free(t[i]);
}

static void upload(run *r, dlca_tensor **t, const float *src) {
  for (size_t i = 0; i < r->n; i++)
    ck_assert_msg(dlca_tensor_upload(t[i], src + r->off[i], sizes[i]) == DLCA_OK, "%s", dlca_last_error());
}

static void download(run *r, dlca_tensor **t, float *dst) {
  for (size_t i = 0; i < r->n; i++)
    ck_assert_msg(dlca_tensor_download(t[i], dst + r->off[i], sizes[i]) == DLCA_OK, "%s", dlca_last_error());
}

/* The device: the twin_run's steps, clipping on the device. */
static void device_run(dlca_context *ctx, const dlca_optim_config *c, run *r, int grouped, double *norm,
                       unsigned char **state, size_t *len) {
  dlca_tensor *p[NT], *g[NT];
  dlca_tensor_group *gp, *gg;
  tensors_new(ctx, r->n, grouped, p, &gp), tensors_new(ctx, r->n, grouped, g, &gg);
  upload(r, p, r->p);
  dlca_optim_cl *o;
  ck_assert_msg(dlca_optim_cl_new(ctx, c, r->n, p, &o) == DLCA_OK, "%s", dlca_last_error());
  for (int s = 0; s < STEPS; s++) {
    grads_of(r, s);
    upload(r, g, r->g);
    if (s == 2) ck_assert_msg(dlca_optim_cl_clip_grad_norm(o, g, 5.0) == DLCA_OK, "%s", dlca_last_error());
    if (s == 4) ck_assert_msg(dlca_optim_cl_clip_grad_value(o, g, 0.5) == DLCA_OK, "%s", dlca_last_error());
    ck_assert_msg(dlca_optim_cl_step(o, p, (const dlca_tensor *const *)g) == DLCA_OK, "%s", dlca_last_error());
  }
  ck_assert_int_eq(dlca_optim_cl_last_norm(o, norm), DLCA_OK);
  download(r, p, r->p);
  *len = dlca_optim_cl_state_size(o);
  *state = malloc(*len);
  ck_assert_msg(dlca_optim_cl_state_save(o, *state, *len) == DLCA_OK, "%s", dlca_last_error());
  ck_assert(dlca_optim_cl_steps(o) == STEPS);
  dlca_optim_cl_free(o);
  tensors_free(r->n, p, gp), tensors_free(r->n, g, gg);
}

static double max_diff(const float *a, const float *b, size_t n) {
  double w = 0;
  for (size_t i = 0; i < n; i++) w = fmax(w, fabs((double)a[i] - (double)b[i]));
  return w;
}

/* Case _i / 4 on 1 tensor or NT, plain or grouped (_i % 4): the twin's bits. */
START_TEST(test_optim_cl_twin) {
  if (!tcl_platform()) return;
  tcl_fresh_env("optim-cl-twin");
  dlca_context *ctx = tcl_context();
  int ci = _i / 4, grouped = _i % 2, n = (_i / 2) % 2 ? NT : 1;
  dlca_optim_config c = case_config(ci);
  run a, b;
  run_init(&a, (size_t)n, 11 + (uint64_t)_i), run_init(&b, (size_t)n, 11 + (uint64_t)_i);
  double na = 0, nb = 0;
  unsigned char *sa, *sb;
  size_t la, lb;
  twin_run(&c, &a, &na, &sa, &la);
  device_run(ctx, &c, &b, grouped, &nb, &sb, &lb);
  double dp = max_diff(a.p, b.p, a.total), dn = fabs(na - nb) / na;
  fprintf(stderr, "optim cl %-8s case %2d %2d tensors %s: params max |device - twin| %.3g, norm rel %.3g, state %s\n",
          dlca_optim_kind_name(c.kind), ci, n, grouped ? "group" : "plain", dp, dn,
          la == lb && !memcmp(sa, sb, la) ? "same bytes" : "DIFFERS");
  ck_assert_msg(dn < 1e-12, "norm %.17g, twin %.17g", nb, na);
  ck_assert_msg(dp == 0, "params differ by %.3g", dp);
  ck_assert_msg(la == lb && !memcmp(sa, sb, la), "state bytes differ");
  free(sa), free(sb), free(a.p), free(a.g), free(b.p), free(b.g);
  dlca_context_free(ctx);
}
END_TEST

/* Steps [first, last) of the device optimizer o over p with fresh gradients into g. */
static void device_steps(dlca_optim_cl *o, run *r, dlca_tensor **p, dlca_tensor **g, int first, int last) {
  for (int s = first; s < last; s++) {
    grads_of(r, s);
    upload(r, g, r->g);
    ck_assert_msg(dlca_optim_cl_step(o, p, (const dlca_tensor *const *)g) == DLCA_OK, "%s", dlca_last_error());
  }
}

/* 10 steps straight against 4, a checkpoint, a fresh device optimizer and 6
 * more; and the CPU twin resumed from the device's bytes: the same bits. */
START_TEST(test_optim_cl_resume) {
  if (!tcl_platform()) return;
  tcl_fresh_env("optim-cl-resume");
  dlca_context *ctx = tcl_context();
  dlca_optim_config c = case_config(_i);
  run r;
  run_init(&r, NT, 5);
  float *p0 = malloc(sizeof(float) * r.total), *want = malloc(sizeof(float) * r.total);
  memcpy(p0, r.p, sizeof(float) * r.total);
  dlca_tensor *p[NT], *g[NT];
  dlca_tensor_group *gp, *gg;
  tensors_new(ctx, NT, 1, p, &gp), tensors_new(ctx, NT, 0, g, &gg);
  dlca_optim_cl *o, *o2;
  upload(&r, p, p0);
  ck_assert_int_eq(dlca_optim_cl_new(ctx, &c, NT, p, &o), DLCA_OK);
  device_steps(o, &r, p, g, 0, 10);
  download(&r, p, want);
  dlca_optim_cl_free(o);
  upload(&r, p, p0);
  ck_assert_int_eq(dlca_optim_cl_new(ctx, &c, NT, p, &o), DLCA_OK);
  ck_assert_int_eq(dlca_optim_cl_new(ctx, &c, NT, p, &o2), DLCA_OK);
  device_steps(o, &r, p, g, 0, 4);
  size_t len = dlca_optim_cl_state_size(o);
  unsigned char *buf = malloc(len);
  ck_assert_int_eq(dlca_optim_cl_state_save(o, buf, len - 1), DLCA_EINVAL);
  ck_assert_int_eq(dlca_optim_cl_state_save(o, buf, len), DLCA_OK);
  ck_assert_int_eq(dlca_optim_cl_state_load(o2, buf, len - 1), DLCA_ECHECKPOINT);
  ck_assert_msg(dlca_optim_cl_state_load(o2, buf, len) == DLCA_OK, "%s", dlca_last_error());
  ck_assert(dlca_optim_cl_steps(o2) == 4);
  /* the twin resumes from the device's bytes */
  dlca_optimizer *h;
  ck_assert_int_eq(dlca_optim_new(&c, NT, sizes, &h), DLCA_OK);
  ck_assert_msg(dlca_optim_state_load(h, buf, len) == DLCA_OK, "%s", dlca_last_error());
  download(&r, p, r.p);
  float *pp[NT], *gh[NT];
  for (size_t i = 0; i < NT; i++) pp[i] = r.p + r.off[i], gh[i] = r.g + r.off[i];
  for (int s = 4; s < 10; s++) {
    grads_of(&r, s);
    ck_assert_int_eq(dlca_optim_step(h, pp, (const float *const *)gh), DLCA_OK);
  }
  ck_assert_msg(max_diff(r.p, want, r.total) == 0, "the twin resumed from the device's state differs");
  device_steps(o2, &r, p, g, 4, 10);
  download(&r, p, r.p);
  ck_assert_msg(max_diff(r.p, want, r.total) == 0, "%s: the resumed device run differs by %.3g",
                dlca_optim_kind_name(c.kind), max_diff(r.p, want, r.total));
  free(buf), free(p0), free(want), free(r.p), free(r.g);
  dlca_optim_free(h), dlca_optim_cl_free(o), dlca_optim_cl_free(o2);
  tensors_free(NT, p, gp), tensors_free(NT, g, gg);
  dlca_context_free(ctx);
}
END_TEST

/* Bad hyperparameters are refused by name before anything reaches the device. */
START_TEST(test_optim_cl_bad) {
  if (!tcl_platform()) return;
  tcl_fresh_env("optim-cl-bad");
  dlca_context *ctx = tcl_context();
  size_t n = 4;
  dlca_tensor *t, *u;
  ck_assert_int_eq(dlca_tensor_new(ctx, 1, &n, &t), DLCA_OK);
  static const struct {
    int kind;
    const char *field;
    double v;
    const char *msg;
  } bad[] = {{DLCA_OPTIM_SGD, "lr", -1, "lr = -1"},
             {DLCA_OPTIM_ADAM, "beta1", 1, "beta1 = 1 is outside [0, 1)"},
             {DLCA_OPTIM_ADAMW, "beta2", -0.5, "beta2 = -0.5"},
             {DLCA_OPTIM_RMSPROP, "eps", -1e-8, "eps = -1e-08"},
             {DLCA_OPTIM_SGD, "nesterov", 1, "nesterov"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    dlca_optim_config c;
    ck_assert_int_eq(dlca_optim_config_default(bad[i].kind, &c), DLCA_OK);
    ck_assert_int_eq(dlca_optim_config_set(&c, bad[i].field, bad[i].v), DLCA_OK);
    dlca_optim_cl *o = (dlca_optim_cl *)1;
    ck_assert_int_eq(dlca_optim_cl_new(ctx, &c, 1, &t, &o), DLCA_EINVAL);
    ck_assert_ptr_null(o);
    ck_assert_msg(strstr(dlca_last_error(), bad[i].msg), "%s: %s", bad[i].msg, dlca_last_error());
  }
  dlca_optim_config c;
  ck_assert_int_eq(dlca_optim_config_default(DLCA_OPTIM_SGD, &c), DLCA_OK);
  ck_assert_int_eq(dlca_optim_config_set(&c, "amsgrad", 1), DLCA_EINVAL);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "amsgrad"));
  /* a gradient of another size, a negative lr or max_norm */
  dlca_optim_cl *o;
  ck_assert_int_eq(dlca_optim_cl_new(ctx, &c, 1, &t, &o), DLCA_OK);
  n = 5;
  ck_assert_int_eq(dlca_tensor_new(ctx, 1, &n, &u), DLCA_OK);
  const dlca_tensor *gu = u;
  ck_assert_int_eq(dlca_optim_cl_step(o, &t, &gu), DLCA_EINVAL);
  ck_assert_msg(strstr(dlca_last_error(), "gradient 0 has 5 elements, the optimizer's tensor 4"), "%s",
                dlca_last_error());
  ck_assert_int_eq(dlca_optim_cl_set_lr(o, -0.1), DLCA_EINVAL);
  ck_assert_int_eq(dlca_optim_cl_clip_grad_norm(o, &t, -1), DLCA_EINVAL);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "max_norm = -1"));
  double norm;
  ck_assert_int_eq(dlca_optim_cl_last_norm(o, &norm), DLCA_EINVAL);
  dlca_optim_cl_free(o), dlca_tensor_free(t), dlca_tensor_free(u);
  dlca_context_free(ctx);
}
END_TEST

/* Every optimizer, clip_grad_norm and lr_schedule vector on the twin and on
 * the device, at the file's tolerance; the two backends' results agree bit
 * for bit (the norm to 1e-12). */
static void check_vector(dlca_context *ctx, const dlca__ops_vector *v) {
  dlca__ops_result ref, dev;
  ck_assert_msg(dlca__optim_run_vector(NULL, v, &ref) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(dlca__optim_run_vector(ctx, v, &dev) == DLCA_OK, "%s", dlca_last_error());
  for (size_t i = 0; i < v->outputs.n; i++) {
    const dlca__ops_tensor *w = &v->outputs.t[i];
    dlca__ops_cmp cr = dlca__ops_compare(ref.out[i], w, v->tol_abs, v->tol_rel);
    dlca__ops_cmp cd = dlca__ops_compare(dev.out[i], w, v->tol_abs, v->tol_rel);
    double d = 0;
    for (size_t j = 0; j < w->n; j++) d = fmax(d, fabs(ref.out[i][j] - dev.out[i][j]) / fmax(1, fabs(w->data[j])));
    fprintf(stderr, "optim vector %-18s %-22s worst |err| ref %.3g, cl %.3g (tolerance %g + %g|want|); cl vs ref %.3g\n",
            v->name, w->name, cr.worst, cd.worst, v->tol_abs, v->tol_rel, d);
    ck_assert_msg(cr.pass && cd.pass, "%s: %s at %zu: ref %.3g, cl %.3g", v->path, w->name, cd.worst_index, cr.worst,
                  cd.worst);
    ck_assert_msg(d <= (strcmp(w->name, "total_norm") ? 0 : 1e-12), "%s: %s: cl and ref differ by %.3g", v->path,
                  w->name, d);
  }
  dlca__ops_result_free(&ref), dlca__ops_result_free(&dev);
}

START_TEST(test_optim_cl_vectors) {
  if (!tcl_platform()) return;
  const char *dir = to_dir();
  if (!dir) return;
  tcl_fresh_env("optim-cl-vectors");
  dlca_context *ctx = tcl_context();
  static const char *const prefix[] = {"optim_", "clip_norm_", "lr_"};
  int count = 0;
  for (int k = 0; k < 3; k++) {
    to_list list;
    to_list_files(dir, prefix[k], &list);
    ck_assert_msg(list.n > 0, "%s: no %s*.json", dir, prefix[k]);
    for (size_t i = 0; i < list.n; i++, count++) {
      dlca__ops_vector v;
      ck_assert_msg(dlca__ops_vector_load(list.path[i], &v) == DLCA_OK, "%s", dlca_last_error());
      check_vector(ctx, &v);
      dlca__ops_vector_free(&v);
    }
    to_list_free(&list);
  }
  ck_assert_int_ge(count, 10);
  dlca_context_free(ctx);
}
END_TEST

/* A group's members are aligned views of one buffer, zero between them. */
START_TEST(test_optim_cl_group) {
  if (!tcl_platform()) return;
  tcl_fresh_env("optim-cl-group");
  dlca_context *ctx = tcl_context();
  size_t s0[2] = {3, 5}, s1[1] = {0}, s2[1] = {77};
  const size_t *shapes[4] = {s0, s1, s2, NULL};
  int ranks[4] = {2, 1, 1, 0};
  dlca_tensor_group *g;
  ck_assert_msg(dlca_tensor_group_new(ctx, 4, ranks, shapes, &g) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_uint_eq(dlca_tensor_group_size(g), 4);
  ck_assert_ptr_null(dlca_tensor_group_member(g, 4));
  dlca_tensor *m = dlca_tensor_group_member(g, 0);
  ck_assert_int_eq(dlca_tensor_rank(m), 2);
  ck_assert_uint_eq(dlca_tensor_numel(m), 15);
  ck_assert_uint_eq(dlca_tensor_numel(dlca_tensor_group_member(g, 1)), 0);
  ck_assert_uint_eq(dlca_tensor_numel(dlca_tensor_group_member(g, 3)), 1);
  float a[77], b[77];
  tu_random(a, 77, -1, 1, 3);
  ck_assert_int_eq(dlca_tensor_upload(dlca_tensor_group_member(g, 2), a, 77), DLCA_OK);
  ck_assert_int_eq(dlca_tensor_download(dlca_tensor_group_member(g, 2), b, 77), DLCA_OK);
  ck_assert(!memcmp(a, b, sizeof a));
  ck_assert_int_eq(dlca_tensor_download(m, b, 15), DLCA_OK);
  for (int i = 0; i < 15; i++) ck_assert(b[i] == 0.0f);
  size_t big = (size_t)1 << 20, huge[3] = {big, big, big};
  const size_t *hs[1] = {huge};
  int r3 = 3, r5 = 5;
  dlca_tensor_group *bad;
  ck_assert_int_eq(dlca_tensor_group_new(ctx, 1, &r3, hs, &bad), DLCA_EINVAL);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "member 0 is over 2^31 elements"));
  ck_assert_int_eq(dlca_tensor_group_new(ctx, 1, &r5, hs, &bad), DLCA_EINVAL);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "member 0 has rank 5"));
  dlca_tensor_group_free(g);
  dlca_context_free(ctx);
}
END_TEST

/* A group stepped flat (params and grads groups of one layout) keeps the
 * gaps between its members at zero, whatever the optimizer. */
START_TEST(test_optim_cl_gaps) {
  if (!tcl_platform()) return;
  tcl_fresh_env("optim-cl-gaps");
  dlca_context *ctx = tcl_context();
  dlca_optim_config c = case_config(_i);
  run r;
  run_init(&r, NT, 9);
  dlca_tensor *p[NT], *g[NT];
  dlca_tensor_group *gp, *gg;
  tensors_new(ctx, NT, 1, p, &gp), tensors_new(ctx, NT, 1, g, &gg);
  upload(&r, p, r.p);
  dlca_optim_cl *o;
  ck_assert_msg(dlca_optim_cl_new(ctx, &c, NT, p, &o) == DLCA_OK, "%s", dlca_last_error());
  ck_assert(o->tiled);
  device_steps(o, &r, p, g, 0, 3);
  cl_mem parent;
  size_t bytes, at[NT];
  ck_assert_int_eq(clGetMemObjectInfo(p[0]->buf, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL),
                   CL_SUCCESS);
  ck_assert_int_eq(clGetMemObjectInfo(parent, CL_MEM_SIZE, sizeof bytes, &bytes, NULL), CL_SUCCESS);
  for (size_t i = 0; i < NT; i++)
    ck_assert_int_eq(clGetMemObjectInfo(p[i]->buf, CL_MEM_OFFSET, sizeof at[i], &at[i], NULL), CL_SUCCESS);
  float *all = malloc(bytes);
  ck_assert_int_eq(dlca__download(ctx, parent, 0, bytes, all, "group"), DLCA_OK);
  size_t gaps = 0, e = 0;
  for (size_t i = 0; i < NT; i++) {
    for (; e < at[i] / 4; e++, gaps++)
      ck_assert_msg(all[e] == 0.0f, "%s: gap float %zu is %g", dlca_optim_kind_name(c.kind), e, all[e]);
    e = at[i] / 4 + sizes[i];
  }
  ck_assert_uint_gt(gaps, 0);
  free(all), free(r.p), free(r.g);
  dlca_optim_cl_free(o);
  tensors_free(NT, p, gp), tensors_free(NT, g, gg);
  dlca_context_free(ctx);
}
END_TEST

/* A device without doubles sums the norm in Kahan float: within 1e-6 of the
 * twin's double norm, the clipped gradients within an ulp or two. */
START_TEST(test_optim_cl_float_sums) {
  if (!tcl_platform()) return;
  tcl_fresh_env("optim-cl-float");
  dlca_context *ctx = tcl_context();
  run r;
  run_init(&r, NT, 3);
  grads_of(&r, 1);
  float *want = malloc(sizeof(float) * r.total), *gh[NT];
  memcpy(want, r.g, sizeof(float) * r.total);
  for (size_t i = 0; i < NT; i++) gh[i] = want + r.off[i];
  double nt, nd;
  ck_assert_int_eq(dlca_clip_grad_norm(NT, gh, sizes, 1.0, &nt), DLCA_OK);
  dlca_tensor *g[NT];
  dlca_tensor_group *gg;
  tensors_new(ctx, NT, _i, g, &gg);
  upload(&r, g, r.g);
  dlca_optim_config c;
  ck_assert_int_eq(dlca_optim_config_default(DLCA_OPTIM_SGD, &c), DLCA_OK);
  dlca_optim_cl *o;
  dlca__optim_cl_no_fp64 = 1;
  int rc = dlca_optim_cl_new(ctx, &c, NT, g, &o);
  dlca__optim_cl_no_fp64 = 0;
  ck_assert_msg(rc == DLCA_OK, "%s", dlca_last_error());
  ck_assert_int_eq(dlca_optim_cl_clip_grad_norm(o, g, 1.0), DLCA_OK);
  ck_assert_int_eq(dlca_optim_cl_last_norm(o, &nd), DLCA_OK);
  download(&r, g, r.g);
  double worst = 0;
  for (size_t i = 0; i < r.total; i++) worst = fmax(worst, fabs((double)r.g[i] - want[i]) / fabs(want[i]));
  fprintf(stderr, "optim cl float sums (%s): norm %.9g, twin %.9g (rel %.2g); clipped grads rel %.2g\n",
          _i ? "group" : "plain", nd, nt, fabs(nd - nt) / nt, worst);
  ck_assert_msg(fabs(nd - nt) <= 1e-6 * nt, "float norm %.9g, twin %.9g", nd, nt);
  ck_assert_msg(worst <= 5e-7, "clipped grads differ by %.3g relative", worst);
  dlca_optim_cl_free(o), tensors_free(NT, g, gg);
  free(want), free(r.p), free(r.g);
  dlca_context_free(ctx);
}
END_TEST

/* A case whose hyperparameters are out of range, or whose shapes do not fit,
 * is the file's DLCA_EPARSE naming the file and the value, on both backends. */
START_TEST(test_optim_cl_vector_errors) {
  if (!tcl_platform()) return;
  tcl_fresh_env("optim-cl-verr");
  dlca_context *ctx = tcl_context();
  const char *tmp = tu_tmpdir("optim-verr");
  static const char *const files[][2] = {
      {"{\"format\": \"dlca-ops-vector\", \"version\": 1, \"op\": \"optimizer\", \"attrs\": {\"name\": \"adam\", "
       "\"hyper\": {\"betas\": [1.0, 0.999]}}, \"tolerance\": {\"abs\": 1e-5, \"rel\": 1e-5}, \"inputs\": "
       "{\"params\": {\"shape\": [2], \"data\": [1, 2]}, \"grads\": {\"shape\": [1, 2], \"data\": [1, 2]}}, "
       "\"outputs\": {\"params_after_each_step\": {\"shape\": [1, 2], \"data\": [1, 2]}}}",
       "beta1 = 1 is outside [0, 1)"},
      {"{\"format\": \"dlca-ops-vector\", \"version\": 1, \"op\": \"optimizer\", \"attrs\": {\"name\": \"sgd\", "
       "\"hyper\": {\"lr\": 0.1}}, \"tolerance\": {\"abs\": 1e-5, \"rel\": 1e-5}, \"inputs\": "
       "{\"params\": {\"shape\": [2], \"data\": [1, 2]}, \"grads\": {\"shape\": [1, 3], \"data\": [1, 2, 3]}}, "
       "\"outputs\": {\"params_after_each_step\": {\"shape\": [1, 3], \"data\": [1, 2, 3]}}}",
       "inputs.grads.shape: not [steps, 2]"}};
  for (size_t i = 0; i < 2; i++) {
    const char *path = tu_write(tmp, i ? "shape.json" : "beta.json", files[i][0]);
    dlca__ops_vector v;
    dlca__ops_result r;
    ck_assert_msg(dlca__ops_vector_load(path, &v) == DLCA_OK, "%s", dlca_last_error());
    for (int b = 0; b < 2; b++) {
      ck_assert_int_eq(dlca__optim_run_vector(b ? ctx : NULL, &v, &r), DLCA_EPARSE);
      ck_assert_msg(strstr(dlca_last_error(), files[i][1]) && strstr(dlca_last_error(), path), "%s",
                    dlca_last_error());
    }
    dlca__ops_vector_free(&v);
  }
  dlca_context_free(ctx);
}
END_TEST

Suite *suite_optim_cl(void) {
  Suite *s = suite_create("optim_cl");
  TCase *tc = tcase_create("optim_cl");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_optim_cl_group);
  tcase_add_test(tc, test_optim_cl_bad);
  tcase_add_test(tc, test_optim_cl_vectors);
  tcase_add_test(tc, test_optim_cl_vector_errors);
  tcase_add_loop_test(tc, test_optim_cl_float_sums, 0, 2);
  tcase_add_loop_test(tc, test_optim_cl_twin, 0, 4 * N_CASES);
  tcase_add_loop_test(tc, test_optim_cl_resume, 0, N_CASES);
  tcase_add_loop_test(tc, test_optim_cl_gaps, 0, N_CASES);
  suite_add_tcase(s, tc);
  return s;
}
