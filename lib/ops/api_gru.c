/* The public GRU and randomized SVD (include/dlca_cl/ops.h): thin wrappers
 * over the device launchers of lib/ops/cl_gru.h (twins lib/ops/ref_gru.h),
 * for the Python binding and other callers outside the library. */
#include <stdio.h>
#include <stdlib.h>

#include "core/internal.h"
#include "ops/cl_gru.h"

struct dlca_gru {
  dlca_context *ctx;
  dlca__gru_cfg c;
  dlca__gru_tape *tape;
  int forward_done; /* a backward needs the forward's gates */
};

int dlca_gru_new(dlca_context *ctx, size_t B, size_t T, size_t D, size_t H, dlca_gru **out) {
  if (!out) return dlca__fail(DLCA_EINVAL, "dlca_gru_new: out is NULL");
  *out = NULL;
  if (!ctx) return dlca__fail(DLCA_EINVAL, "dlca_gru_new: no context (NULL)");
  dlca_gru *g = calloc(1, sizeof *g);
  if (!g) return dlca__fail(DLCA_ENOMEM, "dlca_gru_new: out of host memory");
  g->ctx = ctx, g->c = (dlca__gru_cfg){1, 1, {B, T, D, H}};
  int rc = dlca__gru_tape_new(ctx, &g->c, &g->tape);
  if (rc) return free(g), rc;
  *out = g;
  return DLCA_OK;
}

void dlca_gru_free(dlca_gru *g) {
  if (!g) return;
  dlca__gru_tape_free(g->tape);
  free(g);
}

/* Each of the n tensors, where given (bit i of optional: may be NULL), belongs to g's context. */
static int same_ctx(const dlca_gru *g, const char *fn, int n, const dlca_tensor *const *t, const char *const *names,
                    unsigned optional) {
  char what[96];
  for (int i = 0; i < n; i++) {
    if (!t[i] && (optional >> i & 1u)) continue;
    snprintf(what, sizeof what, "%s: %s", fn, names[i]);
    int rc = dlca__tensor_check(g->ctx, t[i], what);
    if (rc) return rc;
  }
  return DLCA_OK;
}

int dlca_gru_forward(dlca_gru *g, const dlca_tensor *x, const dlca_tensor *h0, const dlca_tensor *w_ih,
                     const dlca_tensor *w_hh, const dlca_tensor *b_ih, const dlca_tensor *b_hh, dlca_tensor *y,
                     dlca_tensor *h_n) {
  static const char *const names[] = {"x", "h0", "w_ih", "w_hh", "b_ih", "b_hh", "y", "h_n"};
  const dlca_tensor *t[] = {x, h0, w_ih, w_hh, b_ih, b_hh, y, h_n};
  if (!g) return dlca__fail(DLCA_EINVAL, "dlca_gru_forward: no GRU (NULL)");
  if (!b_ih != !b_hh) return dlca__fail(DLCA_EINVAL, "dlca_gru_forward: b_ih and b_hh are both given or both NULL");
  int rc = same_ctx(g, "dlca_gru_forward", 8, t, names, 0xb0u);
  dlca__gru_cl_w w = {w_ih, w_hh, b_ih, b_hh};
  g->forward_done = 0;
  if (!rc) rc = dlca__ops_cl_gru_forward(g->ctx, &g->c, &w, x, h0, y, h_n, g->tape);
  g->forward_done = !rc;
  return rc;
}

int dlca_gru_backward(dlca_gru *g, const dlca_tensor *x, const dlca_tensor *w_ih, const dlca_tensor *w_hh,
                      const dlca_tensor *b_ih, const dlca_tensor *b_hh, const dlca_tensor *dy, const dlca_tensor *dh_n,
                      dlca_tensor *dx, dlca_tensor *dh0, dlca_tensor *dw_ih, dlca_tensor *dw_hh, dlca_tensor *db_ih,
                      dlca_tensor *db_hh) {
  static const char *const names[] = {"x",  "w_ih", "w_hh",  "b_ih",  "b_hh",  "dy",    "dh_n",
                                      "dx", "dh0",  "dw_ih", "dw_hh", "db_ih", "db_hh"};
  const dlca_tensor *t[] = {x, w_ih, w_hh, b_ih, b_hh, dy, dh_n, dx, dh0, dw_ih, dw_hh, db_ih, db_hh};
  if (!g) return dlca__fail(DLCA_EINVAL, "dlca_gru_backward: no GRU (NULL)");
  if (!g->forward_done) return dlca__fail(DLCA_EINVAL, "dlca_gru_backward: no forward ran on this GRU before");
  if (!b_ih != !b_hh) return dlca__fail(DLCA_EINVAL, "dlca_gru_backward: b_ih and b_hh are both given or both NULL");
  int rc = same_ctx(g, "dlca_gru_backward", 13, t, names, 0x1fe0u | 0x18u);
  dlca__gru_cl_w w = {w_ih, w_hh, b_ih, b_hh};
  dlca__gru_cl_dw dw = {dw_ih, dw_hh, db_ih, db_hh};
  if (!rc) rc = dlca__ops_cl_gru_backward(g->ctx, &g->c, &w, x, g->tape, dy, dh_n, dx, dh0, &dw);
  return rc;
}

int dlca_rsvd(const dlca_tensor *a, size_t rank, size_t oversample, size_t power_iters, uint64_t seed, dlca_tensor *u,
              dlca_tensor *s, dlca_tensor *v) {
  if (!a) return dlca__fail(DLCA_EINVAL, "dlca_rsvd: no tensor A (NULL)");
  dlca__rsvd p = {rank, oversample, power_iters, seed};
  return dlca__ops_cl_rsvd(a->ctx, &p, a, u, s, v, NULL);
}
