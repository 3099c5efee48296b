/* Checkpoints of the optimizer state: a little-endian byte string that a
 * restored optimizer continues from bit for bit (optim.h gives the layout). */
#include <string.h>
#include "optim/internal.h"

static const char magic[8] = {'D', 'L', 'C', 'A', 'O', 'P', 'T', '1'};

static unsigned char *put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) *p++ = (unsigned char)(v >> (8 * i));
  return p;
}

static const unsigned char *get_u64(const unsigned char *p, uint64_t *v) {
  *v = 0;
  for (int i = 0; i < 8; i++) *v |= (uint64_t)p[i] << (8 * i);
  return p + 8;
}

static size_t header_size(const dlca_optimizer *o) { return 8 + 8 * (4 + o->n_tensors); }

size_t dlca_optim_state_size(const dlca_optimizer *o) { return header_size(o) + 4 * o->n_slots * o->total; }

int dlca_optim_state_save(const dlca_optimizer *o, void *buf, size_t cap) {
  size_t need = dlca_optim_state_size(o);
  if (!buf || cap < need)
    return dlca__fail(DLCA_EINVAL, "optimizer state: buffer of %zu bytes, %zu needed", cap, need);
  unsigned char *p = buf;
  memcpy(p, magic, 8), p += 8;
  p = put_u64(p, (uint64_t)o->cfg.kind), p = put_u64(p, o->n_slots);
  p = put_u64(p, o->steps), p = put_u64(p, o->n_tensors);
  for (size_t i = 0; i < o->n_tensors; i++) p = put_u64(p, o->sizes[i]);
  for (size_t i = 0; i < o->n_slots * o->total; i++) {
    uint32_t u;
    memcpy(&u, &o->state[i], 4);
    for (int b = 0; b < 4; b++) *p++ = (unsigned char)(u >> (8 * b));
  }
  return DLCA_OK;
}

/* Checks the header against o; the step count goes to *steps. */
static int check_header(const dlca_optimizer *o, const unsigned char *p, uint64_t *steps) {
  uint64_t kind, slots, n, size;
  if (memcmp(p, magic, 8)) return dlca__fail(DLCA_ECHECKPOINT, "optimizer state: no DLCAOPT1 magic");
  p = get_u64(p + 8, &kind), p = get_u64(p, &slots), p = get_u64(p, steps), p = get_u64(p, &n);
  if (kind != (uint64_t)o->cfg.kind || slots != o->n_slots)
    return dlca__fail(DLCA_ECHECKPOINT, "optimizer state: saved from %s with %llu state slots, restored into "
                      "%s with %zu", dlca_optim_kind_name((int)(kind > 99 ? 99 : kind)), (unsigned long long)slots,
                      dlca_optim_kind_name(o->cfg.kind), o->n_slots);
  if (n != o->n_tensors)
    return dlca__fail(DLCA_ECHECKPOINT, "optimizer state: %llu tensors saved, %zu in the optimizer",
                      (unsigned long long)n, o->n_tensors);
  for (size_t i = 0; i < o->n_tensors; i++) {
    p = get_u64(p, &size);
    if (size != o->sizes[i])
      return dlca__fail(DLCA_ECHECKPOINT, "optimizer state: tensor %zu has %llu floats saved, %zu in the "
                        "optimizer", i, (unsigned long long)size, o->sizes[i]);
  }
  return DLCA_OK;
}

int dlca_optim_state_load(dlca_optimizer *o, const void *buf, size_t len) {
  if (!buf || len < 40 || len < header_size(o) || len != dlca_optim_state_size(o))
    return dlca__fail(DLCA_ECHECKPOINT, "optimizer state: %zu bytes, %zu expected for this optimizer", len,
                      dlca_optim_state_size(o));
  uint64_t steps = 0;
  int st = check_header(o, buf, &steps);
  if (st) return st;
  const unsigned char *p = (const unsigned char *)buf + header_size(o);
  for (size_t i = 0; i < o->n_slots * o->total; i++, p += 4) {
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    memcpy(&o->state[i], &u, 4);
  }
  o->steps = steps;
  return DLCA_OK;
}
