/* Reader for the JAX reference vectors (shared/testdata/reference/README.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "train/vector.h"

#define BAD(...) dlca__fail(DLCA_EPARSE, __VA_ARGS__)

/* Reads a nested array of numbers of exactly the given dims into dst (float or double). */
static int read_nd(json_t *j, const size_t *dims, int nd, const char *path, const char *where, double *dd,
                   float *df, size_t *pos) {
  if (nd == 0) {
    if (!json_is_number(j)) return BAD("%s: %s: expected a number", where, path);
    double x = json_number_value(j);
    if (dd) dd[*pos] = x;
    if (df) df[*pos] = (float)x;
    (*pos)++;
    return DLCA_OK;
  }
  if (!json_is_array(j) || json_array_size(j) != dims[0])
    return BAD("%s: %s: expected an array of %zu entries", where, path, dims[0]);
  for (size_t i = 0; i < dims[0]; i++) {
    int rc = read_nd(json_array_get(j, i), dims + 1, nd - 1, path, where, dd, df, pos);
    if (rc) return rc;
  }
  return DLCA_OK;
}

/* grad-shaped: {"perceive": [layer][kernel][gate][NPG], "update": [layer][gate][NPG]}, NPG = 16 (or 4: IWP) */
static int read_params(json_t *j, const dlca_model *m, const char *path, const char *where, double *dst) {
  json_t *P = json_object_get(j, "perceive"), *U = json_object_get(j, "update");
  if (!json_is_array(P) || !json_is_array(U) || json_array_size(P) != (size_t)m->n_perceive ||
      json_array_size(U) != (size_t)m->n_update)
    return BAD("%s: %s: expected {perceive, update} with the model's layer counts", where, path);
  size_t pos = 0;
  for (int l = 0; l < m->n_perceive; l++) {
    size_t dims[3] = {(size_t)m->shape.n_kernels, (size_t)m->perceive[l].n_gates, (size_t)dlca__model_npg(m)};
    pos = m->perceive[l].offset;
    int rc = read_nd(json_array_get(P, l), dims, 3, path, where, dst, NULL, &pos);
    if (rc) return rc;
  }
  for (int l = 0; l < m->n_update; l++) {
    size_t dims[2] = {(size_t)m->update[l].n_gates, (size_t)dlca__model_npg(m)};
    pos = m->update[l].offset;
    int rc = read_nd(json_array_get(U, l), dims, 2, path, where, dst, NULL, &pos);
    if (rc) return rc;
  }
  return DLCA_OK;
}

static double num(json_t *o, const char *k, double dflt) {
  json_t *j = json_object_get(o, k);
  return json_is_number(j) ? json_number_value(j) : dflt;
}

/* run's sizes and loss channels, checked against the model, and its fire
 * masks where it has them (an async run). */
static int read_run(json_t *run, const char *path, dlca_vector *v) {
  const dlca_model *m = v->model;
  v->run = dlca_run_default((int)num(run, "batch", 0), (int)num(run, "height", 0), (int)num(run, "width", 0),
                            (int)num(run, "steps", 0));
  json_t *lc = json_object_get(run, "loss_channels");
  if (!json_is_array(lc) || json_array_size(lc) < 1 || json_array_size(lc) > DLCA_MAX_LOSS_CHANNELS)
    return BAD("%s: run.loss_channels: expected 1 to %d channels", path, DLCA_MAX_LOSS_CHANNELS);
  v->run.n_loss_channels = (int)json_array_size(lc);
  for (int i = 0; i < v->run.n_loss_channels; i++) v->run.loss_channels[i] = (int)json_integer_value(json_array_get(lc, i));
  int rc = dlca_run_validate(m, &v->run);
  json_t *fm = json_object_get(run, "fire_masks");
  if (rc || !fm || json_is_null(fm)) return rc;
  const size_t T = (size_t)v->run.steps, B = (size_t)v->run.batch, H = (size_t)v->run.height, W = (size_t)v->run.width;
  size_t dims[4] = {T, B, H, W}, pos = 0;
  double *tmp = malloc(sizeof(double) * T * B * H * W);
  v->masks = malloc(T * B * H * W);
  if (!tmp || !v->masks) {
    free(tmp);
    return dlca__fail(DLCA_ENOMEM, "%s: out of memory", path);
  }
  rc = read_nd(fm, dims, 4, "run.fire_masks", path, tmp, NULL, &pos);
  for (size_t i = 0; !rc && i < T * B * H * W; i++) v->masks[i] = tmp[i] != 0;
  free(tmp);
  if (rc) return rc;
  v->run.async = 1;
  v->run.fire_masks = v->masks;
  return DLCA_OK;
}

/* The grids (input, target, expected states) and the expected losses,
 * gradient and parameters after the step. */
static int read_expected(json_t *root, json_t *exp, const char *path, dlca_vector *v) {
  const dlca_model *m = v->model;
  const dlca_run *r = &v->run;
  size_t dims[4] = {(size_t)r->batch, (size_t)r->height, (size_t)r->width, (size_t)m->shape.channels};
  const size_t n = dims[0] * dims[1] * dims[2] * dims[3];
  v->input = malloc(sizeof(float) * n);
  v->target = malloc(sizeof(float) * n);
  v->soft_state = malloc(sizeof(double) * n);
  v->hard_state = malloc(sizeof(double) * n);
  v->grad = malloc(sizeof(double) * m->n_params);
  v->params_after = malloc(sizeof(double) * m->n_params);
  if (!v->input || !v->target || !v->soft_state || !v->hard_state || !v->grad || !v->params_after)
    return dlca__fail(DLCA_ENOMEM, "%s: out of memory", path);
  size_t pos;
  int rc;
  if ((pos = 0, rc = read_nd(json_object_get(root, "input"), dims, 4, "input", path, NULL, v->input, &pos))) return rc;
  if ((pos = 0, rc = read_nd(json_object_get(root, "target"), dims, 4, "target", path, NULL, v->target, &pos))) return rc;
  if ((pos = 0, rc = read_nd(json_object_get(exp, "soft_state"), dims, 4, "expected.soft_state", path, v->soft_state, NULL, &pos))) return rc;
  if ((pos = 0, rc = read_nd(json_object_get(exp, "hard_state"), dims, 4, "expected.hard_state", path, v->hard_state, NULL, &pos))) return rc;
  v->soft_loss = num(exp, "soft_loss", NAN);
  v->hard_loss = num(exp, "hard_loss", NAN);
  if ((rc = read_params(json_object_get(exp, "grad"), m, "expected.grad", path, v->grad))) return rc;
  return read_params(json_object_get(exp, "params_after_step"), m, "expected.params_after_step", path, v->params_after);
}

/* The vector of the file's parsed root. */
static int vector_from_json(json_t *root, const char *path, dlca_vector *v) {
  json_t *name = json_object_get(root, "name"), *run = json_object_get(root, "run"),
         *opt = json_object_get(root, "optimizer"), *exp = json_object_get(root, "expected");
  if (!json_is_object(run) || !json_is_object(opt) || !json_is_object(exp))
    return BAD("%s: expected the objects run, optimizer and expected", path);
  snprintf(v->name, sizeof v->name, "%s", json_is_string(name) ? json_string_value(name) : path);
  char where[1024];
  snprintf(where, sizeof where, "%s: model", path);
  int rc = dlca__model_from_json(json_object_get(root, "model"), where, &v->model);
  if (!rc) rc = read_run(run, path, v);
  if (rc) return rc;
  v->optim.clip = (float)num(opt, "clip", 100), v->optim.lr = (float)num(opt, "lr", 0.05);
  v->optim.beta1 = (float)num(opt, "beta1", 0.9), v->optim.beta2 = (float)num(opt, "beta2", 0.99);
  v->optim.eps = (float)num(opt, "eps", 1e-8), v->optim.weight_decay = (float)num(opt, "weight_decay", 0.01);
  v->t = (int)num(opt, "t", 1);
  return read_expected(root, exp, path, v);
}

int dlca__vector_load(const char *path, dlca_vector *v) {
  memset(v, 0, sizeof *v);
  json_error_t err;
  const dlca__read_limits lim = {(size_t)64 << 20, DLCA_EPARSE, "a test vector", 0};
  char *text;
  size_t len;
  int rc = dlca__read_file_limited(path, &lim, &text, &len);
  if (rc) return rc;
  json_t *root = json_loadb(text, len, 0, &err);
  free(text);
  if (!root) return BAD("%s:%d:%d: not valid JSON: %s", path, err.line, err.column, err.text);
  rc = vector_from_json(root, path, v);
  json_decref(root);
  if (rc) dlca__vector_free(v);
  return rc;
}

void dlca__vector_free(dlca_vector *v) {
  dlca_model_free(v->model);
  free(v->masks);
  free(v->input);
  free(v->target);
  free(v->soft_state);
  free(v->hard_state);
  free(v->grad);
  free(v->params_after);
  memset(v, 0, sizeof *v);
}
