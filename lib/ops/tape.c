/* The reverse-mode tape (include/dlca_cl/ops.h): the public forward ops
 * append a record while a tape is begun on the thread; dlca_tape_backward
 * walks the records in reverse, running each op's backward launcher and
 * summing gradients per tensor in that fixed order (no atomics). */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "ops/api.h"
#include "ops/cl_conv.h"

/* A tensor's gradient, owned by the tape. Its buffer outlives a backward:
 * the next one writes into it again (no allocation a step), and frees those
 * it did not use. */
typedef struct tape_grad {
  const dlca_tensor *t;
  dlca_tensor *g;
  int live; /* written by the current (or last) backward */
} tape_grad;

struct dlca_tape {
  dlca_context *ctx;
  dlca__tape_rec *rec;
  size_t n, cap;
  tape_grad *grad;
  size_t ng, gcap;
};

/* The tape begun on this thread, if any. */
static _Thread_local dlca_tape *active;

int dlca_tape_new(dlca_context *ctx, dlca_tape **out) {
  if (!out) return dlca__fail(DLCA_EINVAL, "dlca_tape_new: NULL out");
  *out = NULL;
  if (!ctx) return dlca__fail(DLCA_EINVAL, "dlca_tape_new: no context (NULL)");
  if (!(*out = calloc(1, sizeof **out))) return dlca__fail(DLCA_ENOMEM, "dlca_tape_new: out of host memory");
  (*out)->ctx = ctx;
  return DLCA_OK;
}

static void drop_grads(dlca_tape *tape) {
  for (size_t i = 0; i < tape->ng; i++) dlca_tensor_free(tape->grad[i].g);
  tape->ng = 0;
}

/* Frees the gradients that are not live, keeping the others in order. */
static void drop_dead(dlca_tape *tape) {
  size_t k = 0;
  for (size_t i = 0; i < tape->ng; i++)
    if (tape->grad[i].live)
      tape->grad[k++] = tape->grad[i];
    else
      dlca_tensor_free(tape->grad[i].g);
  tape->ng = k;
}

static void mark_dead(dlca_tape *tape) {
  for (size_t i = 0; i < tape->ng; i++) tape->grad[i].live = 0;
}

void dlca_tape_clear(dlca_tape *tape) {
  if (!tape) return;
  mark_dead(tape);
  tape->n = 0;
}

void dlca_tape_free(dlca_tape *tape) {
  if (!tape) return;
  dlca_tape_end(tape);
  drop_grads(tape);
  free(tape->rec), free(tape->grad), free(tape);
}

int dlca_tape_begin(dlca_tape *tape) {
  if (!tape) return dlca__fail(DLCA_EINVAL, "dlca_tape_begin: no tape (NULL)");
  if (active && active != tape)
    return dlca__fail(DLCA_EINVAL, "dlca_tape_begin: another tape is begun on this thread (end it first)");
  active = tape;
  return DLCA_OK;
}

void dlca_tape_end(dlca_tape *tape) {
  if (tape && active == tape) active = NULL;
}

size_t dlca_tape_size(const dlca_tape *tape) { return tape ? tape->n : 0; }

int dlca__tape_record(dlca_context *ctx, const dlca__tape_rec *r) {
  dlca_tape *tp = active;
  if (!tp || tp->ctx != ctx) return DLCA_OK;
  dlca__tape_rec *p = dlca__grow(tp->rec, &tp->cap, tp->n + 1, sizeof *p, 16);
  if (!p) return dlca__fail(DLCA_ENOMEM, "tape: out of host memory for %zu records", tp->n + 1);
  tp->rec = p;
  tp->rec[tp->n++] = *r;
  return DLCA_OK;
}

/* 1 where t is an input or the output of a record of tape. */
static int held(const dlca_tape *tape, const dlca_tensor *t) {
  for (size_t i = 0; i < tape->n; i++) {
    const dlca__tape_rec *r = &tape->rec[i];
    if (r->out == t || r->in[0] == t || r->in[1] == t || r->in[2] == t) return 1;
  }
  return 0;
}

int dlca__tape_check(dlca_context *ctx, const char *fn, int n, const dlca_tensor *const *t) {
  dlca_tape *tp = active;
  const dlca_tensor *out = t[n - 1];
  if (!tp || tp->ctx != ctx) return DLCA_OK;
  for (int i = 0; i < n - 1; i++)
    if (t[i] == out)
      return dlca__fail(DLCA_EINVAL, "%s: the output is also an input, which the tape's backward needs unchanged", fn);
  if (held(tp, out))
    return dlca__fail(DLCA_EINVAL,
                      "%s: the output is a tensor the tape already holds; writing it would make its "
                      "gradients wrong (use a new tensor, or end or clear the tape)",
                      fn);
  return DLCA_OK;
}

static tape_grad *find(const dlca_tape *tape, const dlca_tensor *t) {
  for (size_t i = 0; i < tape->ng; i++)
    if (tape->grad[i].t == t) return &tape->grad[i];
  return NULL;
}

const dlca_tensor *dlca_tape_grad(const dlca_tape *tape, const dlca_tensor *t) {
  const tape_grad *g = tape && t ? find(tape, t) : NULL;
  return g && g->live ? g->g : NULL;
}

/* A new tensor of t's shape (NULL where t is). */
static int like(const dlca_tensor *t, dlca_tensor **out) {
  *out = NULL;
  return t ? dlca_tensor_new(t->ctx, t->rank, t->shape, out) : DLCA_OK;
}

static int same_shape(const dlca_tensor *a, const dlca_tensor *b) {
  int same = a->rank == b->rank;
  for (int k = 0; same && k < a->rank; k++) same = a->shape[k] == b->shape[k];
  return same;
}

/* Where the gradient of t goes: t's own buffer where none is live yet (kept
 * from an earlier backward where the shape fits, else new), made live;
 * else a new scratch *d, to be summed into it (*sum set). */
static int target(dlca_tape *tape, const dlca_tensor *t, dlca_tensor **d, int *sum) {
  *d = NULL, *sum = 0;
  if (!t) return DLCA_OK;
  tape_grad *e = find(tape, t);
  if (e && e->live) return *sum = 1, like(t, d);
  if (!e) {
    tape_grad *p = dlca__grow(tape->grad, &tape->gcap, tape->ng + 1, sizeof *p, 16);
    if (!p) return dlca__fail(DLCA_ENOMEM, "dlca_tape_backward: out of host memory for %zu gradients", tape->ng + 1);
    tape->grad = p;
    e = &tape->grad[tape->ng++];
    *e = (tape_grad){t, NULL, 0};
  }
  if (e->g && !same_shape(e->g, t)) dlca_tensor_free(e->g), e->g = NULL;
  int rc = e->g ? DLCA_OK : like(t, &e->g);
  if (!rc) e->live = 1, *d = e->g;
  return rc;
}

/* The backward of one record, given g, its output's gradient, into d[i] (of in[i]'s shape, NULL for none). */
static int run_backward(dlca_context *ctx, const dlca__tape_rec *r, const dlca_tensor *g, dlca_tensor *const *d) {
  const dlca_tensor *const *in = r->in;
  dlca__gemm_plan p;
  dlca__shape ys;
  int rc;
  switch (r->kind) {
    case DLCA__T_unary: return dlca__ops_cl_unary_backward(ctx, (dlca__unary_fn)r->fn, in[0], r->out, g, d[0]);
    case DLCA__T_binary: return dlca__ops_cl_binary_backward(ctx, (dlca__binary_fn)r->fn, in[0], in[1], g, d[0], d[1]);
    case DLCA__T_reduce: return dlca__ops_cl_reduce_backward(ctx, (dlca__reduce_fn)r->fn, in[0], r->mask, g, d[0]);
    case DLCA__T_move: return dlca__ops_cl_move_backward(ctx, &r->move, g, d[0]);
    case DLCA__T_mse: return dlca__ops_cl_mse_backward(ctx, in[0], in[1], g, d[0], d[1]);
    case DLCA__T_xent: return dlca__ops_cl_softmax_xent_backward(ctx, in[0], in[1], g, d[0]);
    case DLCA__T_gemm:
      if ((rc = dlca__api_gemm_plan("dlca_tape_backward", r->ta, r->tb, in[0], in[1], &p, &ys))) return rc;
      return dlca__api_gemm_grads(ctx, &p, r->ta, r->tb, r->alpha, r->beta, in[0], in[1], g, d[0], d[1], d[2]);
    case DLCA__T_conv: return dlca__ops_cl_conv2d_backward(ctx, &r->conv, in[0], in[1], g, d[0], d[1], d[2], NULL);
    case DLCA__T_reshape: return dlca__api_reshape_grad(ctx, g, d[0]);
    case DLCA__T_pool: return dlca__ops_cl_pool2d_backward(ctx, (dlca__pool_fn)r->fn, r->k, r->s, in[0], g, d[0]);
    default: return dlca__api_dense_grads(ctx, r->fn, in[0], in[1], r->out, g, d[0], d[1], d[2]);
  }
}

/* How many of a record's inputs get a gradient (softmax's class targets get none). */
static int n_grads(const dlca__tape_rec *r) {
  switch (r->kind) {
    case DLCA__T_binary:
    case DLCA__T_mse: return 2;
    case DLCA__T_gemm:
    case DLCA__T_dense:
    case DLCA__T_conv: return 3;
    default: return 1;
  }
}

/* One record's backward: an input's first gradient written into its own
 * buffer, a later one into a scratch then summed in (in record order). */
static int step(dlca_tape *tape, const dlca__tape_rec *r) {
  const tape_grad *e = find(tape, r->out);
  if (!e || !e->live || (r->kind == DLCA__T_binary && r->fn == DLCA__B_cmplt)) return DLCA_OK; /* none flows */
  const dlca_tensor *g = e->g; /* target() may move the table */
  dlca_tensor *d[3] = {NULL, NULL, NULL};
  int rc = DLCA_OK, n = n_grads(r), sum[3] = {0, 0, 0};
  for (int i = 0; i < n && !rc; i++) rc = target(tape, r->in[i], &d[i], &sum[i]);
  if (!rc) rc = run_backward(tape->ctx, r, g, d);
  for (int i = 0; i < n && !rc; i++) {
    dlca_tensor *acc = sum[i] ? find(tape, r->in[i])->g : NULL;
    if (acc) rc = dlca__ops_cl_binary(tape->ctx, DLCA__B_add, acc, d[i], acc);
  }
  for (int i = 0; i < 3; i++)
    if (sum[i]) dlca_tensor_free(d[i]); /* released once the queued kernels are done */
  return rc;
}

static int fill_ones(dlca_context *ctx, dlca_tensor *t) {
  cl_kernel k;
  size_t wg;
  int rc = dlca__ops_cl_kernel(ctx, "MOV_WG", "dlca_ops_fill", &k, &wg);
  if (rc) return rc;
  cl_uint n = (cl_uint)t->n;
  float one = 1.0f;
  size_t sizes[] = {sizeof(cl_mem), sizeof n, sizeof one};
  const void *args[] = {&t->buf, &n, &one};
  return dlca__ops_cl_launch(ctx, k, "dlca_ops_fill", wg, t->n, 3, sizes, args);
}

int dlca_tape_backward(dlca_tape *tape, const dlca_tensor *loss) {
  if (!tape) return dlca__fail(DLCA_EINVAL, "dlca_tape_backward: no tape (NULL)");
  int rc = dlca__tensor_check(tape->ctx, loss, "dlca_tape_backward: loss");
  if (rc) return rc;
  size_t made = 0;
  for (size_t i = 0; i < tape->n && !made; i++) made = tape->rec[i].out == loss;
  if (!made) {
    char sh[96];
    dlca__tensor_shape_text(loss, sh, sizeof sh);
    return dlca__fail(DLCA_EINVAL, "dlca_tape_backward: no op on the tape (%zu records) made the loss %s", tape->n, sh);
  }
  mark_dead(tape);
  dlca_tensor *seed;
  int sum;
  if (!(rc = target(tape, loss, &seed, &sum)) && !(rc = fill_ones(tape->ctx, seed)))
    for (size_t i = tape->n; i-- > 0 && !rc;) rc = step(tape, &tape->rec[i]);
  drop_dead(tape); /* the buffers this backward did not use */
  return rc;
}
