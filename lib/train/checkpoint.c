/* Checkpoints (doc/checkpoint-format.md): the parameters, the optimizer's
 * state (the Adam moments by default), the epoch and the seed, behind a
 * header with a checksum; the model hash covers the shape, the
 * parametrisation (IWP) and the wires. Written
 * atomically, so a kill during a save leaves the previous file in place. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include "train/trainer_impl.h"

#define CKPT_MAGIC "DLCACKP1"
/* Version 1: the default AdamW's logits, m and v (every checkpoint before
 * issue 32, and the default's still). Version 2: a suite optimizer's, with
 * its kind and slot count after the metadata. */
#define CKPT_VERSION 1u
#define CKPT_VERSION_SUITE 2u

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

/* Version 2's: the optimizer (1 + dlca_optim_kind) and its state slots. */
typedef struct ckpt_optim {
  uint64_t optimizer, n_slots;
} ckpt_optim;

/* The version a trainer writes, and the size of its payload. */
static uint32_t version_of(const dlca_trainer *t) { return t->cfg.use_suite ? CKPT_VERSION_SUITE : CKPT_VERSION; }

static size_t payload_of(uint32_t version, size_t P, size_t n_slots) {
  size_t opt = version == CKPT_VERSION_SUITE ? sizeof(ckpt_optim) : 0;
  return sizeof(ckpt_meta) + opt + (1 + n_slots) * P * sizeof(float);
}

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

/* The logits and the optimizer's state p ((1 + n_slots) P floats) must be
 * finite, and the slots that are sums of squares (Adam's second moments)
 * not negative. A checksum-valid file can still break this (a file made by
 * hand); resuming from it would train on garbage. A diverged run breaks it
 * too: its state is not saved, so that the last good checkpoint at that
 * path is kept. `why` ends the message. */
static int check_finite(const dlca_trainer *t, const char *path, const float *p, const char *why) {
  const size_t P = t->model->n_params;
  for (size_t k = 0; k <= t->n_slots; k++) {
    int nonneg = 0;
    const char *what = k ? dlca__train_slot_name(&t->cfg, k - 1, &nonneg) : "logit";
    for (size_t i = 0; i < P; i++) {
      const float x = p[k * P + i];
      if (!isfinite(x) || (nonneg && x < 0.0f))
        return dlca__fail(DLCA_ECHECKPOINT, "%s: %s %zu is %g: %s", path, what, i, (double)x, why);
    }
  }
  return DLCA_OK;
}

int dlca_trainer_save_checkpoint(dlca_trainer *t, const char *path) {
  if (!t || !path) return dlca__fail(DLCA_EINVAL, "dlca_trainer_save_checkpoint: NULL argument");
  const uint32_t version = version_of(t);
  size_t P = t->model->n_params, payload = payload_of(version, P, t->n_slots);
  char *buf = malloc(sizeof(ckpt_header) + payload);
  if (!buf) return dlca__fail(DLCA_ENOMEM, "%s: out of memory", path);
  ckpt_header *h = (ckpt_header *)buf;
  ckpt_meta *meta = (ckpt_meta *)(buf + sizeof *h);
  ckpt_optim *opt = (ckpt_optim *)(meta + 1);
  float *p = version == CKPT_VERSION_SUITE ? (float *)(opt + 1) : (float *)(meta + 1);
  int rc = t->ops->get_params(t, p);
  if (!rc) rc = t->ops->get_slots(t, p + P);
  if (!rc) rc = check_finite(t, path, p, "the run has diverged; not written, and the file there is kept");
  if (rc) {
    free(buf);
    return rc;
  }
  memset(h, 0, sizeof *h);
  memcpy(h->magic, CKPT_MAGIC, 8);
  h->version = version;
  h->payload_bytes = payload;
  meta->epoch = t->epoch, meta->seed = t->cfg.seed, meta->n_params = P;
  meta->model_hash = model_hash(t->model);
  if (version == CKPT_VERSION_SUITE) opt->optimizer = 1 + (uint64_t)t->cfg.suite.kind, opt->n_slots = t->n_slots;
  h->checksum = XXH64(meta, payload, 0);
  rc = dlca__write_file_atomic(path, buf, sizeof *h + payload);
  free(buf);
  return rc;
}

/* The header's checks, in order: magic, version, reserved field, payload
 * size, checksum, room for the metadata. */
static int check_header(const char *path, const char *buf, size_t len) {
  const ckpt_header *h = (const ckpt_header *)buf;
  const ckpt_meta *meta = (const ckpt_meta *)(buf + sizeof *h);
  if (len < sizeof *h && len >= 8 && memcmp(buf, CKPT_MAGIC, 8) == 0)
    return dlca__fail(DLCA_ECHECKPOINT, "%s: truncated: %zu bytes, less than the %zu-byte header", path, len,
                      sizeof *h);
  if (len < sizeof *h || memcmp(h->magic, CKPT_MAGIC, 8) != 0)
    return dlca__fail(DLCA_ECHECKPOINT, "%s: not a dlca checkpoint (bad magic)", path);
  if (h->version != CKPT_VERSION && h->version != CKPT_VERSION_SUITE)
    return dlca__fail(DLCA_ECHECKPOINT, "%s: checkpoint format version %u, this library reads %u and %u", path,
                      h->version, CKPT_VERSION, CKPT_VERSION_SUITE);
  if (h->reserved != 0)
    return dlca__fail(DLCA_ECHECKPOINT, "%s: reserved header field is %u, not 0: the file is corrupt", path,
                      h->reserved);
  if (len - sizeof *h != h->payload_bytes)
    return dlca__fail(DLCA_ECHECKPOINT, "%s: truncated or padded: %zu payload bytes, header says %llu", path,
                      len - sizeof *h, (unsigned long long)h->payload_bytes);
  if (XXH64(meta, h->payload_bytes, 0) != h->checksum)
    return dlca__fail(DLCA_ECHECKPOINT, "%s: checksum mismatch: the file is corrupt", path);
  size_t need = sizeof *meta + (h->version == CKPT_VERSION_SUITE ? sizeof(ckpt_optim) : 0);
  if (h->payload_bytes < need)
    return dlca__fail(DLCA_ECHECKPOINT, "%s: payload of %llu bytes has no room for its %zu-byte metadata", path,
                      (unsigned long long)h->payload_bytes, need);
  return DLCA_OK;
}

/* The checked file's model and optimizer against the trainer's. */
static int check_fits(const dlca_trainer *t, const char *path, const char *buf) {
  const ckpt_header *h = (const ckpt_header *)buf;
  const ckpt_meta *meta = (const ckpt_meta *)(buf + sizeof *h);
  const ckpt_optim *opt = (const ckpt_optim *)(meta + 1);
  const size_t P = t->model->n_params;
  const uint64_t mine = t->cfg.use_suite ? 1 + (uint64_t)t->cfg.suite.kind : 0;
  const uint64_t file = h->version == CKPT_VERSION_SUITE ? opt->optimizer : 0;
  const uint64_t slots = h->version == CKPT_VERSION_SUITE ? opt->n_slots : 2;
  const char *fname = file == 0 ? "adamw" : file <= 5 ? dlca_optim_kind_name((int)file - 1) : "an unknown optimizer";
  if (meta->n_params != P || meta->model_hash != model_hash(t->model))
    return dlca__fail(DLCA_ECHECKPOINT, "%s: written for another model (%llu logits; this one has %zu, or other wires)",
                      path, (unsigned long long)meta->n_params, P);
  if (file != mine || slots != t->n_slots)
    return dlca__fail(DLCA_ECHECKPOINT, "%s: written by the %s optimizer with %llu state slots; this trainer's %s "
                      "keeps %zu (give the run's --optimizer and its options)", path, fname,
                      (unsigned long long)slots, dlca__train_optim_name(&t->cfg), t->n_slots);
  if (h->payload_bytes != payload_of(h->version, P, t->n_slots))
    return dlca__fail(DLCA_ECHECKPOINT, "%s: %llu payload bytes, %zu for this model and optimizer", path,
                      (unsigned long long)h->payload_bytes, payload_of(h->version, P, t->n_slots));
  return DLCA_OK;
}

int dlca_trainer_load_checkpoint(dlca_trainer *t, const char *path) {
  if (!t || !path) return dlca__fail(DLCA_EINVAL, "dlca_trainer_load_checkpoint: NULL argument");
  char *buf;
  size_t len, P = t->model->n_params, v1 = payload_of(CKPT_VERSION, P, 2);
  size_t mine = payload_of(version_of(t), P, t->n_slots);
  /* This model's checkpoint has at most this size: a larger file (or
   * /dev/zero, a FIFO, a directory) is refused before anything is read. */
  const dlca__read_limits lim = {sizeof(ckpt_header) + (mine > v1 ? mine : v1), DLCA_ECHECKPOINT,
                                 "a checkpoint of this model (padded, or written for another model)", 0};
  int rc = dlca__read_file_limited(path, &lim, &buf, &len);
  if (rc) return rc;
  const ckpt_header *h = (const ckpt_header *)buf;
  const ckpt_meta *meta = (const ckpt_meta *)(buf + sizeof *h);
  const float *p = (const float *)(buf + sizeof *h + sizeof *meta +
                                   (len >= sizeof *h && h->version == CKPT_VERSION_SUITE ? sizeof(ckpt_optim) : 0));
  if (!(rc = check_header(path, buf, len)) && !(rc = check_fits(t, path, buf)))
    rc = check_finite(t, path, p, "the checkpoint holds no usable state");
  if (!rc && !(rc = t->ops->set_params(t, p)) && !(rc = t->ops->set_slots(t, p + P))) {
    t->epoch = meta->epoch;
    t->cfg.seed = meta->seed;
    t->stepped = t->evaluated = 0;
  }
  free(buf);
  return rc;
}
