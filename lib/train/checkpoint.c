/* Checkpoints (doc/checkpoint-format.md): the parameters, the Adam moments,
 * the epoch and the seed, behind a header with a checksum; the model hash
 * covers the shape, the parametrisation (IWP) and the wires. Written
 * atomically, so a kill during a save leaves the previous file in place. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include "train/trainer_impl.h"

#define CKPT_MAGIC "DLCACKP1"
#define CKPT_VERSION 1u

typedef struct ckpt_header {
  char magic[8];
  uint32_t version, reserved;
  uint64_t payload_bytes;
  uint64_t checksum;    /* XXH64 of the payload */
} ckpt_header;

typedef struct ckpt_meta {
  uint64_t epoch, seed, n_params;
  uint64_t model_hash;  /* shape and wires: a checkpoint only fits its own model */
} ckpt_meta;

static uint64_t model_hash(const dlca_model *m) {
  XXH64_state_t *s = XXH64_createState();
  XXH64_reset(s, 0);
  XXH64_update(s, &m->shape.channels, sizeof(int));
  XXH64_update(s, &m->shape.periodic, sizeof(int));
  XXH64_update(s, &m->shape.n_kernels, sizeof(int));
  /* only when not the default, so that softmax-16 checkpoints written before
   * IWP existed still load */
  if (m->shape.parametrisation != DLCA_PARAM_SOFTMAX16) {
    int par = (int)m->shape.parametrisation;
    XXH64_update(s, &par, sizeof par);
  }
  XXH64_update(s, m->shape.perceive_layers, sizeof(int) * (size_t)m->shape.n_perceive_layers);
  XXH64_update(s, m->shape.update_layers, sizeof(int) * (size_t)m->shape.n_update_layers);
  for (int l = 0; l < m->n_perceive; l++) {
    XXH64_update(s, m->perceive[l].wa, sizeof(int32_t) * (size_t)m->perceive[l].n_gates);
    XXH64_update(s, m->perceive[l].wb, sizeof(int32_t) * (size_t)m->perceive[l].n_gates);
  }
  for (int l = 0; l < m->n_update; l++) {
    XXH64_update(s, m->update[l].wa, sizeof(int32_t) * (size_t)m->update[l].n_gates);
    XXH64_update(s, m->update[l].wb, sizeof(int32_t) * (size_t)m->update[l].n_gates);
  }
  uint64_t h = XXH64_digest(s);
  XXH64_freeState(s);
  return h;
}

/* The logits and moments p (3 P floats) must be finite, and the second
 * moments not negative. A checksum-valid file can still break this (a file
 * made by hand); resuming from it would train on garbage. A diverged run
 * breaks it too: its state is not saved, so that the last good checkpoint
 * at that path is kept. `why` ends the message. */
static int check_finite(const char *path, const float *p, size_t P, const char *why) {
  static const char *what[3] = {"logit", "Adam first moment", "Adam second moment"};
  for (size_t i = 0; i < 3 * P; i++)
    if (!isfinite(p[i]) || (i >= 2 * P && p[i] < 0.0f))
      return dlca__fail(DLCA_ECHECKPOINT, "%s: %s %zu is %g: %s", path, what[i / P], i % P, (double)p[i], why);
  return DLCA_OK;
}

int dlca_trainer_save_checkpoint(dlca_trainer *t, const char *path) {
  if (!t || !path) return dlca__fail(DLCA_EINVAL, "dlca_trainer_save_checkpoint: NULL argument");
  size_t P = t->model->n_params, payload = sizeof(ckpt_meta) + 3 * P * sizeof(float);
  char *buf = malloc(sizeof(ckpt_header) + payload);
  if (!buf) return dlca__fail(DLCA_ENOMEM, "%s: out of memory", path);
  ckpt_header *h = (ckpt_header *)buf;
  ckpt_meta *meta = (ckpt_meta *)(buf + sizeof *h);
  float *p = (float *)(meta + 1), *m = p + P, *v = m + P;
  int rc = t->ops->get_params(t, p);
  if (!rc) rc = t->ops->get_moments(t, m, v);
  if (!rc) rc = check_finite(path, p, P, "the run has diverged; not written, and the file there is kept");
  if (rc) {
    free(buf);
    return rc;
  }
  memset(h, 0, sizeof *h);
  memcpy(h->magic, CKPT_MAGIC, 8);
  h->version = CKPT_VERSION;
  h->payload_bytes = payload;
  meta->epoch = t->epoch, meta->seed = t->cfg.seed, meta->n_params = P;
  meta->model_hash = model_hash(t->model);
  h->checksum = XXH64(meta, payload, 0);
  rc = dlca__write_file_atomic(path, buf, sizeof *h + payload);
  free(buf);
  return rc;
}

int dlca_trainer_load_checkpoint(dlca_trainer *t, const char *path) {
  if (!t || !path) return dlca__fail(DLCA_EINVAL, "dlca_trainer_load_checkpoint: NULL argument");
  char *buf;
  size_t len, P = t->model->n_params, payload = sizeof(ckpt_meta) + 3 * P * sizeof(float);
  /* This model's checkpoint has exactly this size: a larger file (or
   * /dev/zero, a FIFO, a directory) is refused before anything is read. */
  const dlca__read_limits lim = {sizeof(ckpt_header) + payload, DLCA_ECHECKPOINT,
                                 "a checkpoint of this model (padded, or written for another model)", 0};
  int rc = dlca__read_file_limited(path, &lim, &buf, &len);
  if (rc) return rc;
  const ckpt_header *h = (const ckpt_header *)buf;
  const ckpt_meta *meta = (const ckpt_meta *)(buf + sizeof *h);
  if (len < sizeof *h && len >= 8 && memcmp(buf, CKPT_MAGIC, 8) == 0)
    rc = dlca__fail(DLCA_ECHECKPOINT, "%s: truncated: %zu bytes, less than the %zu-byte header", path, len,
                    sizeof *h);
  else if (len < sizeof *h || memcmp(h->magic, CKPT_MAGIC, 8) != 0)
    rc = dlca__fail(DLCA_ECHECKPOINT, "%s: not a dlca checkpoint (bad magic)", path);
  else if (h->version != CKPT_VERSION)
    rc = dlca__fail(DLCA_ECHECKPOINT, "%s: checkpoint format version %u, this library reads %u", path, h->version,
                    CKPT_VERSION);
  else if (h->reserved != 0)
    rc = dlca__fail(DLCA_ECHECKPOINT, "%s: reserved header field is %u, not 0: the file is corrupt", path,
                    h->reserved);
  else if (len - sizeof *h != h->payload_bytes)
    rc = dlca__fail(DLCA_ECHECKPOINT, "%s: truncated or padded: %zu payload bytes, header says %llu", path,
                    len - sizeof *h, (unsigned long long)h->payload_bytes);
  else if (XXH64(meta, h->payload_bytes, 0) != h->checksum)
    rc = dlca__fail(DLCA_ECHECKPOINT, "%s: checksum mismatch: the file is corrupt", path);
  else if (h->payload_bytes < sizeof *meta)
    rc = dlca__fail(DLCA_ECHECKPOINT, "%s: payload of %llu bytes has no room for its %zu-byte metadata", path,
                    (unsigned long long)h->payload_bytes, sizeof *meta);
  else if (meta->n_params != P || h->payload_bytes != payload || meta->model_hash != model_hash(t->model))
    rc = dlca__fail(DLCA_ECHECKPOINT, "%s: written for another model (%llu logits; this one has %zu, or other wires)",
                    path, (unsigned long long)meta->n_params, P);
  else
    rc = check_finite(path, (const float *)(meta + 1), P, "the checkpoint holds no usable state");
  if (!rc) {
    const float *p = (const float *)(meta + 1);
    if (!(rc = t->ops->set_params(t, p)) && !(rc = t->ops->set_moments(t, p + P, p + 2 * P))) {
      t->epoch = meta->epoch;
      t->cfg.seed = meta->seed;
      t->stepped = t->evaluated = 0;
    }
  }
  free(buf);
  return rc;
}
