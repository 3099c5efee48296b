/* The device's order of the gates (BWD_BANKS, bank_order.c) and the logits
 * between the model's order and the device's. */
#include <stdlib.h>
#include <string.h>
#include "cl/trainer/cl_trainer.h"

/* The model the device runs: the trainer's, or its bank-aware order. */
const dlca_model *dlca__clt_device_model(const dlca_trainer *t) {
  const cl_state *st = t->impl;
  return st && st->pm ? st->pm : t->model;
}

/* BWD_BANKS: pm (the wires in the device's order; its logits stay zero,
 * upload_params maps the model's through pmap) and pmap, from t->model and
 * st->row. */
int dlca__clt_reorder_model(dlca_trainer *t, cl_state *st) {
  const dlca_model *m = t->model;
  const size_t npg = (size_t)dlca__model_npg(m);
  int rc = dlca__model_alloc(&m->shape, &st->pm);
  if (rc) return rc;
  if (!(st->pmap = malloc(sizeof(size_t) * (m->n_params ? m->n_params : 1))))
    return dlca__fail(DLCA_ENOMEM, "OpenCL trainer: out of host memory");
  dlca_model *pm = st->pm;
  for (size_t i = 0; i < m->n_params; i++) st->pmap[i] = i;
  for (int l = 0; l < m->n_perceive; l++) {
    memcpy(pm->perceive[l].wa, m->perceive[l].wa, sizeof(int32_t) * (size_t)m->perceive[l].n_gates);
    memcpy(pm->perceive[l].wb, m->perceive[l].wb, sizeof(int32_t) * (size_t)m->perceive[l].n_gates);
  }
  for (int l = 0; l < m->n_update; l++) {
    const dlca_layer *L = &m->update[l];
    dlca_layer *P = &pm->update[l];
    for (int e = 0; e < L->n_gates; e++) {
      const int r = st->row[l + 1][e];
      P->wa[r] = st->row[l][L->wa[e]], P->wb[r] = st->row[l][L->wb[e]];
      for (size_t j = 0; j < npg; j++) st->pmap[P->offset + (size_t)r * npg + j] = L->offset + (size_t)e * npg + j;
    }
  }
  return DLCA_OK;
}

/* Logits (and their gradients and moments) between the model's order (ext)
 * and the device's (dev), through a host buffer. */
int dlca__clt_upload_params(dlca_trainer *t, cl_mem buf, const float *ext, const char *what) {
  return dlca__clt_upload_params_at(t, buf, 0, ext, what);
}

int dlca__clt_download_params(dlca_trainer *t, cl_mem buf, float *ext, const char *what) {
  return dlca__clt_download_params_at(t, buf, 0, ext, what);
}

int dlca__clt_upload_params_at(dlca_trainer *t, cl_mem buf, size_t at, const float *ext, const char *what) {
  const cl_state *st = t->impl;
  const size_t P = t->model->n_params;
  if (!st->pmap) return dlca__upload(t->ctx, buf, at * 4, P * 4, ext, what);
  float *dev = malloc(sizeof(float) * (P ? P : 1));
  if (!dev) return dlca__fail(DLCA_ENOMEM, "OpenCL trainer: out of host memory");
  for (size_t i = 0; i < P; i++) dev[i] = ext[st->pmap[i]];
  int rc = dlca__upload(t->ctx, buf, at * 4, P * 4, dev, what);
  free(dev);
  return rc;
}

int dlca__clt_download_params_at(dlca_trainer *t, cl_mem buf, size_t at, float *ext, const char *what) {
  const cl_state *st = t->impl;
  const size_t P = t->model->n_params;
  if (!st->pmap) return dlca__download(t->ctx, buf, at * 4, P * 4, ext, what);
  float *dev = malloc(sizeof(float) * (P ? P : 1));
  if (!dev) return dlca__fail(DLCA_ENOMEM, "OpenCL trainer: out of host memory");
  int rc = dlca__download(t->ctx, buf, at * 4, P * 4, dev, what);
  if (!rc)
    for (size_t i = 0; i < P; i++) ext[st->pmap[i]] = dev[i];
  free(dev);
  return rc;
}
