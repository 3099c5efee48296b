/* The optimizer suite's vector cases (lib/optim/vector.h): optimizer,
 * clip_grad_norm and lr_schedule, on the CPU twin or on a device. */
#include <stdlib.h>
#include <string.h>

#include "ops/ref_ops.h"
#include "ops/tensor.h"
#include "optim/vector.h"

static int hyper_set(const dlca__ops_vector *v, dlca_optim_config *cfg, const char *key, json_t *val) {
  if (!strcmp(key, "betas")) {
    if (!json_is_array(val) || json_array_size(val) != 2)
      return dlca__fail(DLCA_EPARSE, "%s: attrs.hyper.betas: not a pair of numbers", v->path);
    int rc = dlca_optim_config_set(cfg, "beta1", json_number_value(json_array_get(val, 0)));
    return rc ? rc : dlca_optim_config_set(cfg, "beta2", json_number_value(json_array_get(val, 1)));
  }
  if (!json_is_number(val) && !json_is_boolean(val))
    return dlca__fail(DLCA_EPARSE, "%s: attrs.hyper.%s: not a number or a boolean", v->path, key);
  return dlca_optim_config_set(cfg, key, json_is_boolean(val) ? json_is_true(val) : json_number_value(val));
}

int dlca__optim_vector_config(const dlca__ops_vector *v, dlca_optim_config *cfg) {
  const char *name, *key;
  int kind, rc = dlca__ops_vector_attr_string(v, "name", &name);
  if (rc) return rc;
  if ((rc = dlca_optim_kind_from_name(name, &kind)) || (rc = dlca_optim_config_default(kind, cfg)))
    return dlca__ops_as_parse(v, rc);
  json_t *val, *hyper = json_object_get(v->attrs, "hyper");
  json_object_foreach(hyper, key, val) {
    if ((rc = hyper_set(v, cfg, key, val))) return dlca__ops_as_parse(v, rc);
  }
  return dlca__ops_as_parse(v, dlca_optim_config_check(cfg));
}

/* steps of the device optimizer over one tensor of n params; row s of grads in, the params after it out. */
static int optimizer_cl(dlca_context *ctx, const dlca_optim_config *cfg, size_t n, size_t steps, float *p,
                        float *g) {
  dlca_tensor *tp = NULL, *tg = NULL;
  dlca_optim_cl *o = NULL;
  int rc = dlca_tensor_new(ctx, 1, &n, &tp);
  if (!rc) rc = dlca_tensor_new(ctx, 1, &n, &tg);
  if (!rc) rc = dlca_tensor_upload(tp, p, n);
  if (!rc) rc = dlca_optim_cl_new(ctx, cfg, 1, &tp, &o);
  for (size_t s = 0; s < steps && !rc; s++) {
    const dlca_tensor *gg = tg;
    rc = dlca_tensor_upload(tg, g + s * n, n);
    if (!rc) rc = dlca_optim_cl_step(o, &tp, &gg);
    if (!rc) rc = dlca_tensor_download(tp, g + s * n, n); /* the row's gradient is spent: the result goes there */
  }
  dlca_optim_cl_free(o), dlca_tensor_free(tp), dlca_tensor_free(tg);
  return rc;
}

static int optimizer_ref(const dlca_optim_config *cfg, size_t n, size_t steps, float *p, float *g) {
  dlca_optimizer *o;
  int rc = dlca_optim_new(cfg, 1, &n, &o);
  for (size_t s = 0; s < steps && !rc; s++) {
    float *row = g + s * n;
    rc = dlca_optim_step(o, &p, (const float *const *)&row);
    if (!rc) memcpy(row, p, sizeof(float) * n);
  }
  dlca_optim_free(o); /* NULL where dlca_optim_new failed */
  return rc;
}

static int run_optimizer(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r) {
  const dlca__ops_tensor *p0, *g;
  dlca__shape gs;
  double *out;
  dlca_optim_config cfg;
  int rc;
  if ((rc = dlca__ops_input(v, "params", &p0, NULL)) || (rc = dlca__ops_input(v, "grads", &g, &gs)) ||
      (rc = dlca__ops_out(v, r, "params_after_each_step", &gs, &out)) || (rc = dlca__optim_vector_config(v, &cfg)))
    return rc;
  size_t n = p0->n, steps = n ? g->n / n : 0;
  if (p0->rank != 1 || !n || gs.rank != 2 || gs.d[1] != n)
    return dlca__fail(DLCA_EPARSE, "%s: inputs.grads.shape: not [steps, %zu] for params [%zu]", v->path, n, n);
  float *p = malloc(sizeof(float) * n), *gf = malloc(sizeof(float) * g->n);
  if (!p || !gf) rc = dlca__fail(DLCA_ENOMEM, "%s: out of memory", v->path);
  for (size_t i = 0; !rc && i < n; i++) p[i] = (float)p0->data[i];
  for (size_t i = 0; !rc && i < g->n; i++) gf[i] = (float)g->data[i];
  if (!rc) rc = ctx ? optimizer_cl(ctx, &cfg, n, steps, p, gf) : optimizer_ref(&cfg, n, steps, p, gf);
  for (size_t i = 0; !rc && i < g->n; i++) out[i] = gf[i];
  free(p), free(gf);
  return rc;
}

/* clip_grad_norm_ on the device: the grads as the tensors of an optimizer (SGD, never stepped). */
static int clip_cl(dlca_context *ctx, size_t n, float **g, const size_t *sizes, double max_norm, double *norm) {
  dlca_tensor **t = calloc(n, sizeof *t);
  dlca_optim_cl *o = NULL;
  dlca_optim_config cfg;
  int rc = t ? dlca_optim_config_default(DLCA_OPTIM_SGD, &cfg) : dlca__fail(DLCA_ENOMEM, "clip: out of memory");
  for (size_t i = 0; i < n && !rc; i++) {
    rc = dlca_tensor_new(ctx, 1, &sizes[i], &t[i]);
    if (!rc) rc = dlca_tensor_upload(t[i], g[i], sizes[i]);
  }
  if (!rc) rc = dlca_optim_cl_new(ctx, &cfg, n, t, &o);
  if (!rc) rc = dlca_optim_cl_clip_grad_norm(o, t, max_norm);
  if (!rc) rc = dlca_optim_cl_last_norm(o, norm);
  for (size_t i = 0; i < n && !rc; i++) rc = dlca_tensor_download(t[i], g[i], sizes[i]);
  dlca_optim_cl_free(o);
  for (size_t i = 0; t && i < n; i++) dlca_tensor_free(t[i]);
  free(t);
  return rc;
}

/* The file's gradients as float arrays (g[i] of sizes[i]). */
static int clip_inputs(const dlca__ops_vector *v, float **g, size_t *sizes) {
  for (size_t i = 0; i < v->inputs.n; i++) {
    const dlca__ops_tensor *t = &v->inputs.t[i];
    sizes[i] = t->n;
    if (!(g[i] = malloc(sizeof(float) * (t->n ? t->n : 1)))) return dlca__fail(DLCA_ENOMEM, "%s: out of memory", v->path);
    for (size_t j = 0; j < t->n; j++) g[i][j] = (float)t->data[j];
  }
  return DLCA_OK;
}

static int run_clip(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r) {
  double max_norm, norm_type, norm = 0, *out;
  int rc = dlca__ops_vector_attr_double(v, "max_norm", &max_norm);
  if (!rc) rc = dlca__ops_vector_attr_double(v, "norm_type", &norm_type);
  if (!rc && norm_type != 2)
    rc = dlca__fail(DLCA_EUNSUPPORTED, "%s: attrs.norm_type: %g (only 2 is implemented)", v->path, norm_type);
  size_t n = v->inputs.n, *sizes = calloc(n + 1, sizeof *sizes);
  float **g = calloc(n + 1, sizeof *g);
  if (!rc && (!sizes || !g)) rc = dlca__fail(DLCA_ENOMEM, "%s: out of memory", v->path);
  if (!rc) rc = clip_inputs(v, g, sizes);
  if (!rc) rc = ctx ? clip_cl(ctx, n, g, sizes, max_norm, &norm) : dlca_clip_grad_norm(n, g, sizes, max_norm, &norm);
  for (size_t i = 0; i < n && !rc; i++) {
    dlca__shape s = dlca__ops_shape(&v->inputs.t[i]);
    if (!(rc = dlca__ops_out(v, r, v->inputs.t[i].name, &s, &out)))
      for (size_t j = 0; j < sizes[i]; j++) out[j] = g[i][j];
  }
  dlca__shape one = {1, {1}};
  if (!rc && !(rc = dlca__ops_out(v, r, "total_norm", &one, &out))) out[0] = norm;
  for (size_t i = 0; g && i < n; i++) free(g[i]);
  free(g), free(sizes);
  return dlca__ops_as_parse(v, rc);
}

/* torch's arguments that this implementation has fixed (OneCycleLR's). */
static int fixed_arg(const char *key, json_t *val) {
  if (!strcmp(key, "anneal_strategy")) return json_is_string(val) && !strcmp(json_string_value(val), "cos");
  return (!strcmp(key, "three_phase") || !strcmp(key, "cycle_momentum")) && json_is_false(val);
}

static int schedule_spec(const dlca__ops_vector *v, dlca_lr_spec *s) {
  const char *name, *key;
  double base_lr;
  int kind, rc;
  if ((rc = dlca__ops_vector_attr_string(v, "name", &name)) || (rc = dlca__ops_vector_attr_double(v, "base_lr", &base_lr)))
    return rc;
  if ((rc = dlca_lrs_kind_from_name(name, &kind)) || (rc = dlca_lr_spec_default(kind, base_lr, s))) return rc;
  json_t *val;
  json_object_foreach(json_object_get(v->attrs, "hyper"), key, val) {
    if (fixed_arg(key, val)) continue;
    if (!json_is_number(val)) return dlca__fail(DLCA_EPARSE, "%s: attrs.hyper.%s: not a number", v->path, key);
    if ((rc = dlca_lr_spec_set(s, key, json_number_value(val)))) return rc;
  }
  return dlca_lr_spec_check(s);
}

static int run_schedule(const dlca__ops_vector *v, dlca__ops_result *r) {
  dlca_lr_spec s;
  double *out;
  const dlca__ops_tensor *want;
  int rc = schedule_spec(v, &s);
  if (!rc) rc = dlca__ops_vector_tensor(v, "outputs", "lr", &want);
  dlca__shape ws = rc ? (dlca__shape){0, {0}} : dlca__ops_shape(want);
  if (!rc) rc = dlca__ops_out(v, r, "lr", &ws, &out);
  for (size_t t = 0; !rc && t < want->n; t++) rc = dlca_lr_at(&s, t, &out[t]);
  return dlca__ops_as_parse(v, rc);
}

static int run_case(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r) {
  if (!strcmp(v->op, "optimizer")) return run_optimizer(ctx, v, r);
  if (!strcmp(v->op, "clip_grad_norm")) return run_clip(ctx, v, r);
  if (!strcmp(v->op, "lr_schedule")) return run_schedule(v, r);
  return dlca__fail(DLCA_EUNSUPPORTED, "%s: op %s is not an optimizer case", v->path, v->op);
}

int dlca__optim_ref_case(const dlca__ops_vector *v, dlca__ops_result *r) { return run_case(NULL, v, r); }

static double **alloc_set(const dlca__ops_set *s) {
  double **p = calloc(s->n + 1, sizeof(double *));
  for (size_t i = 0; p && i < s->n; i++)
    if (!(p[i] = calloc(s->t[i].n ? s->t[i].n : 1, sizeof(double)))) return p;
  return p;
}

int dlca__optim_run_vector(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r) {
  memset(r, 0, sizeof *r);
  r->n_out = v->outputs.n, r->n_grad = v->grads.n;
  r->out = alloc_set(&v->outputs), r->grad = alloc_set(&v->grads);
  int bad = !r->out || !r->grad;
  for (size_t k = 0; !bad && k < r->n_out; k++) bad = !r->out[k];
  for (size_t k = 0; !bad && k < r->n_grad; k++) bad = !r->grad[k];
  int rc = bad ? dlca__fail(DLCA_ENOMEM, "%s: out of memory for the results", v->path) : run_case(ctx, v, r);
  if (rc) dlca__ops_result_free(r);
  return rc;
}
