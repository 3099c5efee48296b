/* The block tables of the device optimizer (lib/optim/cl_internal.h): the
 * plain plan (a launch per chunk of DLCA__OPTIM_CHUNK tensors, blocks
 * relative to each tensor) and the group plan (one launch, blocks at the
 * members' offsets in the group's buffer), and the membership test that
 * picks one a call. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "optim/cl_internal.h"

/* Blocks of tensor i at pair `slot`, its elements from `off` in the pair's buffer. */
static size_t add_blocks(const dlca_optim_cl *o, size_t i, size_t slot, size_t off, dlca__optim_block *t) {
  const dlca_optimizer *h = o->host;
  size_t nb = 0;
  for (size_t at = 0; at < h->sizes[i]; at += DLCA__OPTIM_BLOCK, nb++) {
    size_t c = h->sizes[i] - at;
    if (t) {
      t[nb].slot = slot, t[nb].off = off + at, t[nb].soff = o->dev_off[i] + at;
      t[nb].count = c < DLCA__OPTIM_BLOCK ? c : DLCA__OPTIM_BLOCK;
    }
  }
  return nb;
}

static int plan_alloc(dlca__optim_plan *p, size_t launches) {
  p->first = calloc(launches + 1, sizeof *p->first);
  p->tensor0 = calloc(launches + 1, sizeof *p->tensor0);
  if (!p->first || !p->tensor0) return dlca__fail(DLCA_ENOMEM, "device optimizer: out of host memory");
  return DLCA_OK;
}

/* The plain plan's blocks into t (NULL: counts them) from table index at. */
static size_t plain(dlca_optim_cl *o, dlca__optim_block *t, size_t at) {
  size_t nb = at, j = 0;
  for (size_t t0 = 0; t0 < o->n; t0 += DLCA__OPTIM_CHUNK) {
    size_t before = nb;
    for (size_t c = 0; c < DLCA__OPTIM_CHUNK && t0 + c < o->n; c++)
      nb += add_blocks(o, t0 + c, c, 0, t ? t + nb : NULL);
    if (t && nb > before) o->plain.first[j] = before, o->plain.tensor0[j] = t0, j++;
  }
  if (t) o->plain.n_launches = j, o->plain.first[j] = nb;
  return nb - at;
}

static size_t grouped(dlca_optim_cl *o, dlca__optim_block *t, size_t at) {
  size_t nb = at;
  for (size_t i = 0; i < o->n; i++) nb += add_blocks(o, i, 0, o->group_off[i], t ? t + nb : NULL);
  if (t) o->group.n_launches = 1, o->group.first[0] = at, o->group.first[1] = nb;
  return nb - at;
}

/* The buffer that m is a sub-buffer of (NULL: none), and m's offset in floats. */
static int parent_of(cl_mem m, cl_mem *parent, size_t *off) {
  size_t bytes = 0;
  *parent = NULL;
  if (clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof *parent, parent, NULL) != CL_SUCCESS ||
      clGetMemObjectInfo(m, CL_MEM_OFFSET, sizeof bytes, &bytes, NULL) != CL_SUCCESS || bytes % sizeof(float))
    *parent = NULL;
  *off = bytes / sizeof(float);
  return *parent != NULL;
}

/* Whether the params are one group's members; their offsets into o->group_off. */
static int params_group(dlca_optim_cl *o, dlca_tensor *const *params) {
  if (!(o->group_off = calloc(o->n, sizeof *o->group_off))) return 0;
  for (size_t i = 0; i < o->n; i++) {
    cl_mem par;
    if (!parent_of(params[i]->buf, &par, &o->group_off[i]) || (i && par != o->group_parent)) return 0;
    o->group_parent = par;
  }
  return 1;
}

/* Whether the group lies as dlca_tensor_group_new lays it out: members in
 * order, each at the first aligned offset after the one before. No other
 * buffer can begin in such a gap (sub-buffers begin aligned), so a flat
 * step over first..last touches only the members and the gaps. */
static int tiled(const dlca_optim_cl *o) {
  cl_uint bits = 0;
  if (!o->has_group || o->group_off[0] % 4 ||
      clGetDeviceInfo(o->ctx->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL) != CL_SUCCESS ||
      bits < 32)
    return 0;
  size_t a = bits / 32; /* in floats */
  for (size_t i = 0; i + 1 < o->n; i++) {
    size_t len = o->host->sizes[i] ? o->host->sizes[i] : 1;
    if (o->group_off[i + 1] != (o->group_off[i] + len + a - 1) / a * a) return 0;
  }
  return 1;
}

/* The device state's layout (cl_internal.h): a tiled group's, gaps and
 * all, else the twin's; the slot stride rounded up to 64 floats. */
static int layout(dlca_optim_cl *o) {
  const dlca_optimizer *h = o->host;
  if (!(o->dev_off = calloc(o->n, sizeof *o->dev_off)))
    return dlca__fail(DLCA_ENOMEM, "device optimizer: out of host memory");
  o->tiled = tiled(o);
  for (size_t i = 0; i < o->n; i++) o->dev_off[i] = o->tiled ? o->group_off[i] - o->group_off[0] : h->offsets[i];
  o->flat_span = o->tiled ? o->dev_off[o->n - 1] + h->sizes[o->n - 1] : h->total;
  o->ss = (o->flat_span + 63) / 64 * 64;
  o->flat_n = o->flat_base = SIZE_MAX;
  return DLCA_OK;
}

int dlca__optim_cl_plans(dlca_optim_cl *o, dlca_tensor *const *params) {
  o->has_group = params_group(o, params);
  int rc = layout(o);
  if (rc) return rc;
  size_t np = plain(o, NULL, 0), ng = o->has_group ? grouped(o, NULL, np) : 0;
  rc = plan_alloc(&o->plain, (o->n + DLCA__OPTIM_CHUNK - 1) / DLCA__OPTIM_CHUNK);
  if (!rc) rc = plan_alloc(&o->group, 1);
  dlca__optim_block *t = rc ? NULL : calloc(np + ng + 1, sizeof *t);
  if (!rc && !t) rc = dlca__fail(DLCA_ENOMEM, "device optimizer: out of host memory");
  if (rc) return rc;
  plain(o, t, 0);
  if (o->has_group) grouped(o, t, np);
  size_t bytes = sizeof *t * (np + ng + 1);
  rc = dlca__buffer(o->ctx, bytes, "optimizer block table", &o->table);
  if (!rc) rc = dlca__upload(o->ctx, o->table, 0, bytes, t, "optimizer block table");
  free(t);
  if (!rc) rc = dlca__buffer(o->ctx, (o->fp64 ? 8 : 4) * (np + ng + 1), "optimizer norm partials", &o->partial);
  return rc;
}

void dlca__optim_cl_plans_free(dlca_optim_cl *o) {
  free(o->plain.first), free(o->plain.tensor0), free(o->group.first), free(o->group.tensor0);
  free(o->group_off), free(o->dev_off);
  if (o->table) clReleaseMemObject(o->table);
  if (o->partial) clReleaseMemObject(o->partial);
}

int dlca__optim_cl_check(dlca_optim_cl *o, const dlca_tensor *const *t, const char *what) {
  if (!t) return dlca__fail(DLCA_EINVAL, "device optimizer: no %s (NULL)", what);
  for (size_t i = 0; i < o->n; i++) {
    if (!t[i]) return dlca__fail(DLCA_EINVAL, "device optimizer: %s %zu is NULL", what, i);
    if (t[i]->ctx != o->ctx)
      return dlca__fail(DLCA_EINVAL, "device optimizer: %s %zu belongs to another context", what, i);
    if (t[i]->n != o->host->sizes[i])
      return dlca__fail(DLCA_EINVAL, "device optimizer: %s %zu has %zu elements, the optimizer's tensor %zu", what,
                        i, t[i]->n, o->host->sizes[i]);
  }
  return DLCA_OK;
}

int dlca__optim_cl_grouped(dlca_optim_cl *o, const dlca_tensor *const *t, cl_mem *cache, cl_mem *parent) {
  int same = 1;
  for (size_t i = 0; i < o->n && same; i++) same = cache[i] == t[i]->buf;
  if (same) return *parent = cache[o->n], *parent != NULL;
  cl_mem par = NULL;
  int ok = o->has_group;
  for (size_t i = 0; i < o->n; i++) {
    cl_mem pi;
    size_t off;
    cache[i] = t[i]->buf;
    if (ok) ok = parent_of(t[i]->buf, &pi, &off) && off == o->group_off[i] && (!i || pi == par);
    if (ok) par = pi;
  }
  cache[o->n] = ok ? par : NULL;
  return *parent = cache[o->n], ok;
}
