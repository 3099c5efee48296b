/* The CPU twin of the GRU cell and sequence, forward and BPTT (lib/ops/ref_gru.h;
 * torch.nn.GRUCell / torch.nn.GRU, gate order r, z, n). One batch row at a
 * time: the gates of a row are recomputed in the backward from x and h. */
#include "ops/ref_gru.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

/* The largest extent accepted: the device indexes with 32-bit integers. */
#define GRU_MAX_DIM ((size_t)1 << 24)

int dlca__gru_dims_check(const dlca__gru_dims *d, const char *fn) {
  const size_t v[4] = {d->B, d->T, d->D, d->H};
  static const char *const name[4] = {"batch", "steps", "input size", "hidden size"};
  for (int k = 0; k < 4; k++)
    if (!v[k] || v[k] > GRU_MAX_DIM)
      return dlca__fail(DLCA_EINVAL, "%s: %s %zu, expected 1 to %zu", fn, name[k], v[k], GRU_MAX_DIM);
  return DLCA_OK;
}

static double sigm(double a) { return 1.0 / (1.0 + exp(-a)); }

/* out[g] = sum_i w[g, i] v[i] + b[g] for g < rows. */
static void matvec(size_t rows, size_t cols, const double *w, const double *b, const double *v, double *out) {
  for (size_t g = 0; g < rows; g++) {
    double s = b ? b[g] : 0.0;
    for (size_t i = 0; i < cols; i++) s += w[g * cols + i] * v[i];
    out[g] = s;
  }
}

/* One row's gates into q: r [0,H), z [H,2H), n [2H,3H), W_hn h + b_hn [3H,4H); gi, gh are 3H scratch. */
static void gates(const dlca__gru_dims *d, const dlca__ref_gru_w *w, const double *x, const double *h, double *gi,
                  double *gh, double *q) {
  size_t H = d->H;
  matvec(3 * H, d->D, w->w_ih, w->b_ih, x, gi);
  matvec(3 * H, H, w->w_hh, w->b_hh, h, gh);
  for (size_t j = 0; j < H; j++) {
    double r = sigm(gi[j] + gh[j]), z = sigm(gi[H + j] + gh[H + j]);
    q[j] = r, q[H + j] = z, q[3 * H + j] = gh[2 * H + j];
    q[2 * H + j] = tanh(gi[2 * H + j] + r * gh[2 * H + j]);
  }
}

/* Scratch of one row: gi, gh, q (4H), g (H). */
static double *scratch(const dlca__gru_dims *d, const char *fn) {
  double *s = malloc(sizeof(double) * 11 * d->H);
  if (!s) dlca__fail(DLCA_ENOMEM, "%s: out of host memory (hidden size %zu)", fn, d->H);
  return s;
}

/* h' of one row. */
static void cell_row(const dlca__gru_dims *d, const dlca__ref_gru_w *w, const double *x, const double *h, double *s,
                     double *h_next) {
  size_t H = d->H;
  double *q = s + 6 * H;
  gates(d, w, x, h, s, s + 3 * H, q);
  for (size_t j = 0; j < H; j++) h_next[j] = (1.0 - q[H + j]) * q[2 * H + j] + q[H + j] * h[j];
}

int dlca__ref_gru_cell(const dlca__gru_dims *d, const dlca__ref_gru_w *w, const double *x, const double *h,
                       double *h_next) {
  double *s = scratch(d, "gru_cell");
  if (!s) return DLCA_ENOMEM;
  for (size_t b = 0; b < d->B; b++) cell_row(d, w, x + b * d->D, h + b * d->H, s, h_next + b * d->H);
  free(s);
  return DLCA_OK;
}

/* dw += the outer products of one row; dx = dgi W_ih; dh = dh' z + dgh W_hh (dh may alias dh_next). */
static void row_grads(const dlca__gru_dims *d, const dlca__ref_gru_w *w, const double *x, const double *h,
                      const double *dgi, const double *dgh, const double *q, const double *dh_next, double *dx,
                      double *dh, const dlca__ref_gru_dw *dw) {
  size_t H = d->H, D = d->D, G = 3 * H;
  for (size_t g = 0; g < G; g++) {
    if (dw->w_ih)
      for (size_t i = 0; i < D; i++) dw->w_ih[g * D + i] += dgi[g] * x[i];
    if (dw->w_hh)
      for (size_t j = 0; j < H; j++) dw->w_hh[g * H + j] += dgh[g] * h[j];
    if (dw->b_ih) dw->b_ih[g] += dgi[g];
    if (dw->b_hh) dw->b_hh[g] += dgh[g];
  }
  for (size_t i = 0; dx && i < D; i++) {
    double s = 0;
    for (size_t g = 0; g < G; g++) s += dgi[g] * w->w_ih[g * D + i];
    dx[i] = s;
  }
  for (size_t j = 0; dh && j < H; j++) {
    double s = dh_next[j] * q[H + j];
    for (size_t g = 0; g < G; g++) s += dgh[g] * w->w_hh[g * H + j];
    dh[j] = s;
  }
}

/* The backward of one row given dh' (g, H values): dx, dh (may alias g) and dw. */
static void backward_row(const dlca__gru_dims *d, const dlca__ref_gru_w *w, const double *x, const double *h,
                         const double *g, double *s, double *dx, double *dh, const dlca__ref_gru_dw *dw) {
  size_t H = d->H;
  double *dgi = s, *dgh = s + 3 * H, *q = s + 6 * H;
  gates(d, w, x, h, dgi, dgh, q); /* gi and gh are spent once q holds the gates */
  for (size_t j = 0; j < H; j++) {
    double r = q[j], z = q[H + j], n = q[2 * H + j];
    double an = g[j] * (1.0 - z) * (1.0 - n * n);
    double ar = an * q[3 * H + j] * r * (1.0 - r), az = g[j] * (h[j] - n) * z * (1.0 - z);
    dgi[j] = dgh[j] = ar, dgi[H + j] = dgh[H + j] = az;
    dgi[2 * H + j] = an, dgh[2 * H + j] = an * r;
  }
  row_grads(d, w, x, h, dgi, dgh, q, g, dx, dh, dw);
}

static void zero_dw(const dlca__gru_dims *d, const dlca__ref_gru_dw *dw) {
  size_t G = 3 * d->H;
  if (dw->w_ih) memset(dw->w_ih, 0, sizeof(double) * G * d->D);
  if (dw->w_hh) memset(dw->w_hh, 0, sizeof(double) * G * d->H);
  if (dw->b_ih) memset(dw->b_ih, 0, sizeof(double) * G);
  if (dw->b_hh) memset(dw->b_hh, 0, sizeof(double) * G);
}

int dlca__ref_gru_cell_backward(const dlca__gru_dims *d, const dlca__ref_gru_w *w, const double *x, const double *h,
                                const double *dh_next, double *dx, double *dh, const dlca__ref_gru_dw *dw) {
  double *s = scratch(d, "gru_cell backward");
  if (!s) return DLCA_ENOMEM;
  size_t H = d->H, D = d->D;
  zero_dw(d, dw);
  for (size_t b = 0; b < d->B; b++) {
    double *g = s + 10 * H;
    memcpy(g, dh_next + b * H, sizeof(double) * H);
    backward_row(d, w, x + b * D, h + b * H, g, s, dx ? dx + b * D : NULL, dh ? dh + b * H : NULL, dw);
  }
  free(s);
  return DLCA_OK;
}

int dlca__ref_gru_sequence(const dlca__gru_dims *d, const dlca__ref_gru_w *w, const double *x, const double *h0,
                           double *y, double *h_n) {
  double *s = scratch(d, "gru_sequence");
  if (!s) return DLCA_ENOMEM;
  size_t T = d->T, H = d->H, D = d->D;
  for (size_t b = 0; b < d->B; b++)
    for (size_t t = 0; t < T; t++) {
      const double *h = t ? y + (b * T + t - 1) * H : h0 + b * H;
      cell_row(d, w, x + (b * T + t) * D, h, s, y + (b * T + t) * H);
    }
  for (size_t b = 0; h_n && b < d->B; b++) memcpy(h_n + b * H, y + (b * T + T - 1) * H, sizeof(double) * H);
  free(s);
  return DLCA_OK;
}

int dlca__ref_gru_sequence_backward(const dlca__gru_dims *d, const dlca__ref_gru_w *w, const double *x,
                                    const double *h0, const double *y, const double *dy, const double *dh_n,
                                    double *dx, double *dh0, const dlca__ref_gru_dw *dw) {
  size_t T = d->T, H = d->H, D = d->D, B = d->B;
  double *s = scratch(d, "gru_sequence backward"), *dh = calloc(B * H, sizeof(double));
  if (!s || !dh) {
    free(s), free(dh);
    return dlca__fail(DLCA_ENOMEM, "gru_sequence backward: out of host memory (batch %zu, hidden %zu)", B, H);
  }
  if (dh_n) memcpy(dh, dh_n, sizeof(double) * B * H);
  zero_dw(d, dw);
  for (size_t t = T; t-- > 0;)
    for (size_t b = 0; b < B; b++) {
      double *g = dh + b * H;
      for (size_t j = 0; dy && j < H; j++) g[j] += dy[(b * T + t) * H + j];
      const double *h = t ? y + (b * T + t - 1) * H : h0 + b * H;
      backward_row(d, w, x + (b * T + t) * D, h, g, s, dx ? dx + (b * T + t) * D : NULL, g, dw);
    }
  if (dh0) memcpy(dh0, dh, sizeof(double) * B * H);
  free(s), free(dh);
  return DLCA_OK;
}
