/* A population's trainer group (cl/trainer_group.h): every buffer kind
 * made once for M models (M times an aligned stride), each slot's trainer
 * given sub-buffers at slot times stride, and the epoch and the hard
 * evaluation of every active slot launched at once on a batched view of
 * the state: the parent buffers, the kernels of any member (one program),
 * M in dimension 1, and each model's scalars in one small buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cl/trainer/cl_trainer.h"
#include "cl/trainer_group.h"

struct dlca__clt_group {
  dlca_context *ctx;
  int M, n;                     /* models; buffer kinds (0 until the first trainer) */
  size_t align;                 /* CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes */
  size_t bytes[CLT_MAX_BUFS], stride[CLT_MAX_BUFS], off[CLT_MAX_BUFS];
  const char *id[CLT_MAX_BUFS];
  cl_mem parent[CLT_MAX_BUFS];
  cl_mem psc;                   /* M records of POP_WORDS words */
  cl_uint *host_psc;
  unsigned char *active;        /* the slots of the launch being enqueued */
  dlca_trainer **member;        /* their trainers (NULL: inactive) */
  float *host_out;              /* a read of every slot's loss or evaluation */
};

int dlca__clt_group_new(dlca_context *ctx, int M, dlca__clt_group **out) {
  if (!ctx || M < 1 || !out) return dlca__fail(DLCA_EINVAL, "dlca__clt_group_new: no context, or M %d < 1", M);
  *out = NULL;
  cl_uint bits = 0;
  cl_int err = clGetDeviceInfo(ctx->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL);
  if (err) return dlca__fail_cl(err, "trainer group: CL_DEVICE_MEM_BASE_ADDR_ALIGN: %s", dlca__cl_error_name(err));
  dlca__clt_group *g = calloc(1, sizeof *g);
  if (!g) return dlca__fail(DLCA_ENOMEM, "trainer group: out of host memory");
  g->ctx = ctx, g->M = M, g->align = bits / 8 > 16 ? bits / 8 : 16;
  g->host_psc = calloc((size_t)M * POP_WORDS, sizeof(cl_uint));
  g->active = calloc((size_t)M, 1);
  g->member = calloc((size_t)M, sizeof *g->member);
  int rc = !g->host_psc || !g->active || !g->member ? dlca__fail(DLCA_ENOMEM, "trainer group: out of host memory")
                                      : dlca__buffer(ctx, (size_t)M * POP_WORDS * 4, "population scalars", &g->psc);
  if (rc) {
    dlca__clt_group_free(g);
    return rc;
  }
  *out = g;
  return DLCA_OK;
}

void dlca__clt_group_free(dlca__clt_group *g) {
  if (!g) return;
  for (int i = 0; i < g->n; i++)
    if (g->parent[i]) clReleaseMemObject(g->parent[i]);
  if (g->psc) clReleaseMemObject(g->psc);
  free(g->host_psc), free(g->active), free(g->member), free(g->host_out);
  free(g);
}

static int find(const dlca__clt_group *g, const char *id) {
  for (int i = 0; i < g->n; i++)
    if (!strcmp(g->id[i], id)) return i;
  return -1;
}

size_t dlca__clt_group_span(const dlca__clt_group *g, const char *id) {
  int i = find(g, id);
  return i < 0 ? 0 : (size_t)g->M * g->stride[i];
}

size_t dlca__clt_group_stride_of(const dlca__clt_group *g, cl_mem b) {
  for (int i = 0; i < g->n; i++)
    if (b && g->parent[i] == b) return g->stride[i];
  return 0;
}

/* The first trainer's buffers fix the layout; every later one must match. */
static int layout(dlca__clt_group *g, const dlca_trainer *t, const cl_state *st, const buf_spec *b, int n) {
  if (g->n && g->n != n)
    return dlca__fail(DLCA_ECONFIG, "population: slot %d has %d buffers, the group %d", t->slot, n, g->n);
  for (int i = 0; i < n && g->n; i++)
    if (b[i].bytes != g->bytes[i])
      return dlca__fail(DLCA_ECONFIG,
                        "population: slot %d needs %zu bytes of %s, the group's models %zu (every model of a "
                        "population has one shape, configuration and plan)",
                        t->slot, b[i].bytes, b[i].what, g->bytes[i]);
  if (g->n) return DLCA_OK;
  for (int i = 0; i < n; i++) {
    g->bytes[i] = b[i].bytes, g->id[i] = b[i].id;
    g->stride[i] = (b[i].bytes + g->align - 1) / g->align * g->align;
    g->off[i] = (size_t)((const char *)b[i].mem - (const char *)st);
  }
  g->n = n;
  return DLCA_OK;
}

int dlca__clt_group_options(dlca_trainer *t, cl_state *st, char *opts, size_t cap) {
  buf_spec b[CLT_MAX_BUFS];
  const int n = dlca__clt_buf_specs(t, st, b);
  int rc = layout(st->grp, t, st, b, n);
  st->psc = st->grp->psc; /* the single launches of a member pass it with pop_on 0 */
  size_t len = strlen(opts);
  len += (size_t)snprintf(opts + len, cap - len, " -DPOP=1 -DPOP_WORDS=%d", POP_WORDS);
  for (int i = 0; i < n && len < cap; i++)
    len += (size_t)snprintf(opts + len, cap - len, " -DPS_%s=%zuUL", b[i].id, st->grp->stride[i]);
  return rc;
}

int dlca__clt_group_alloc(dlca_trainer *t, cl_state *st, const buf_spec *b, int n) {
  dlca__clt_group *g = st->grp;
  int rc = layout(g, t, st, b, n);
  for (int i = 0; i < n && !rc; i++) {
    if (!b[i].bytes) continue;
    if (!g->parent[i] && (rc = dlca__buffer(t->ctx, (size_t)g->M * g->stride[i], b[i].what, &g->parent[i]))) break;
    cl_buffer_region r = {(size_t)t->slot * g->stride[i], b[i].bytes};
    cl_int err;
    *b[i].mem = clCreateSubBuffer(g->parent[i], CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    if (err) rc = dlca__fail_cl(err, "population: slot %d of the %s: %s", t->slot, b[i].what, dlca__cl_error_name(err));
  }
  return rc;
}

/* The batched view of the group's members: st0's plan and kernels, the
 * parent buffers, M models. */
static void view_of(const dlca__clt_group *g, const cl_state *st0, cl_state *v) {
  *v = *st0;
  for (int i = 0; i < g->n; i++) memcpy((char *)v + g->off[i], &g->parent[i], sizeof(cl_mem));
  v->pop_m = g->M, v->psc = g->psc, v->grp = (dlca__clt_group *)g;
}

int dlca__clt_group_copy_start(dlca_trainer *t, cl_state *st, cl_mem dst) {
  const dlca__clt_group *g = st->grp;
  int in = find(g, "input"), to = -1;
  for (int i = 0; i < g->n; i++)
    if (g->parent[i] == dst) to = i;
  if (in < 0 || to < 0) return dlca__fail(DLCA_ECONFIG, "population: no start grids to copy");
  for (int j = 0; j < g->M; j++) {
    if (!g->active[j]) continue;
    cl_int err = clEnqueueCopyBuffer(t->ctx->queue, st->input, dst, (size_t)j * g->stride[in],
                                     (size_t)j * g->stride[to], t->grid * 4, 0, NULL, NULL);
    if (err) return dlca__fail_cl(err, "population: copying slot %d's start grids: %s", j, dlca__cl_error_name(err));
  }
  return DLCA_OK;
}

int dlca__clt_group_backward_each(dlca__clt_group *g) {
  int rc = DLCA_OK;
  for (int j = 0; j < g->M && !rc; j++)
    if (g->member[j]) rc = dlca__clt_enqueue_backward(g->member[j], g->member[j]->impl, g->member[j]->cfg.steps - 1);
  return rc;
}

/* The members to launch: each t[j] in slot j of g; their scalars written
 * (without waiting) and the first member returned in *first. */
static int members(dlca__clt_group *g, dlca_trainer *const *t, dlca_trainer **first) {
  *first = NULL;
  for (int j = 0; j < g->M; j++) {
    dlca_trainer *x = t[j];
    g->active[j] = x != NULL, g->member[j] = x;
    if (!x) {
      memset(g->host_psc + (size_t)j * POP_WORDS, 0, POP_WORDS * sizeof(cl_uint));
      continue;
    }
    dlca__clt_pop_scalars(x, 1, g->host_psc + (size_t)j * POP_WORDS);
    if (x->group != g || x->slot != j)
      return dlca__fail(DLCA_EINVAL, "population: the trainer given for slot %d is not that slot's", j);
    if (!x->target || (x->cfg.start == DLCA_START_UPLOAD && !x->input))
      return dlca__fail(DLCA_ECONFIG, "population: slot %d has no target or start grids", j);
    if (!*first) *first = x;
  }
  if (!*first) return DLCA_OK;
  cl_int err = clEnqueueWriteBuffer(g->ctx->queue, g->psc, CL_FALSE, 0, (size_t)g->M * POP_WORDS * 4, g->host_psc, 0,
                                    NULL, NULL);
  return err ? dlca__fail_cl(err, "population: writing the scalars: %s", dlca__cl_error_name(err)) : DLCA_OK;
}

int dlca__clt_group_step(dlca__clt_group *g, dlca_trainer *const *t) {
  dlca_trainer *t0;
  int rc = members(g, t, &t0);
  if (rc || !t0) return rc;
  cl_state v;
  view_of(g, t0->impl, &v);
  if ((rc = dlca__clt_enqueue_step(t0, &v))) return rc;
  for (int j = 0; j < g->M; j++)
    if (t[j]) t[j]->epoch++, t[j]->stepped = 1, t[j]->evaluated = 0;
  return DLCA_OK;
}

/* One read of every slot's two words of buffer `id` into g->host_out. */
static int read_all(dlca__clt_group *g, const char *id, const char *what, size_t *stride) {
  const int i = find(g, id);
  if (i < 0 || !g->parent[i]) return dlca__fail(DLCA_ECONFIG, "population: no %s buffers yet", what);
  const size_t bytes = (size_t)g->M * g->stride[i];
  if (!g->host_out && !(g->host_out = malloc(bytes)))
    return dlca__fail(DLCA_ENOMEM, "population: out of host memory for the %s", what);
  *stride = g->stride[i] / sizeof(float);
  return dlca__download(g->ctx, g->parent[i], 0, bytes, g->host_out, what);
}

int dlca__clt_group_losses(dlca__clt_group *g, dlca_trainer *const *t, double *loss) {
  size_t s;
  int rc = read_all(g, "loss", "losses", &s);
  for (int j = 0; j < g->M && !rc; j++)
    if (t[j]) rc = dlca__clt_loss_of(t[j], g->host_out + (size_t)j * s, &loss[j]);
  return rc;
}

int dlca__clt_group_eval_hard(dlca__clt_group *g, dlca_trainer *const *t, dlca_eval *out) {
  dlca_trainer *t0;
  int rc = members(g, t, &t0);
  if (rc || !t0) return rc;
  cl_state v;
  view_of(g, t0->impl, &v);
  size_t s;
  if ((rc = dlca__clt_enqueue_eval(t0, &v)) || (rc = read_all(g, "eval_out", "hard evaluations", &s))) return rc;
  for (int j = 0; j < g->M; j++) {
    if (!t[j]) continue;
    ((cl_state *)t[j]->impl)->hard_final = v.hard_final;
    t[j]->evaluated = 1;
    dlca__clt_eval_of(t[j], g->host_out + (size_t)j * s, &out[j]);
  }
  return DLCA_OK;
}
