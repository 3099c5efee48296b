/* The CPU twin of conv2d (lib/ops/ref_conv.h): direct loops in double. The
 * forward sums over (c, kh, kw) in that order; the backward walks the
 * outputs in row-major order, so each gradient element sums its terms in
 * that order. */
#include "ops/ref_conv.h"

#include <stdio.h>
#include <string.h>

#include "core/internal.h"

static void text(const dlca__shape *s, char *buf, size_t len) {
  int p = snprintf(buf, len, "[");
  for (int k = 0; k < s->rank && p > 0 && (size_t)p < len; k++)
    p += snprintf(buf + p, len - (size_t)p, k ? ", %zu" : "%zu", s->d[k]);
  if (p > 0 && (size_t)p < len) snprintf(buf + p, len - (size_t)p, "]");
}

static int rank4(const dlca__shape *s, const char *what, const char *axes) {
  if (s->rank == 4) return DLCA_OK;
  char t[96];
  text(s, t, sizeof t);
  return dlca__fail(DLCA_EINVAL, "conv2d: %s has shape %s, expected rank 4 %s", what, t, axes);
}

int dlca__conv2d_dims(const dlca__shape *xs, const dlca__shape *ws, const dlca__shape *bs, const dlca__conv2d *p,
                      dlca__conv_dims *d) {
  int rc;
  char a[96], b[96];
  memset(d, 0, sizeof *d);
  if ((rc = rank4(xs, "x", "[N, C, H, W]")) || (rc = rank4(ws, "w", "[O, C, KH, KW]"))) return rc;
  text(xs, a, sizeof a), text(ws, b, sizeof b);
  if (p->sh < 1 || p->sw < 1 || p->ph < 0 || p->pw < 0)
    return dlca__fail(DLCA_EINVAL, "conv2d: stride (%d, %d) must be >= 1 and padding (%d, %d) >= 0", p->sh, p->sw,
                      p->ph, p->pw);
  if (ws->d[1] != xs->d[1])
    return dlca__fail(DLCA_EINVAL, "conv2d: w %s has %zu input channels, x %s has %zu", b, ws->d[1], a, xs->d[1]);
  size_t hp = xs->d[2] + 2 * (size_t)p->ph, wp = xs->d[3] + 2 * (size_t)p->pw;
  if (ws->d[2] > hp || ws->d[3] > wp || !ws->d[2] || !ws->d[3])
    return dlca__fail(DLCA_EINVAL, "conv2d: the kernel %zux%zu of w %s does not fit x %s padded by (%d, %d): %zux%zu",
                      ws->d[2], ws->d[3], b, a, p->ph, p->pw, hp, wp);
  if (bs && (bs->rank != 1 || bs->d[0] != ws->d[0])) {
    char c[96];
    text(bs, c, sizeof c);
    return dlca__fail(DLCA_EINVAL, "conv2d: b has shape %s, expected [%zu] (w %s)", c, ws->d[0], b);
  }
  *d = (dlca__conv_dims){.N = xs->d[0], .C = xs->d[1], .H = xs->d[2], .W = xs->d[3], .O = ws->d[0]};
  d->KH = ws->d[2], d->KW = ws->d[3], d->sh = p->sh, d->sw = p->sw, d->ph = p->ph, d->pw = p->pw;
  d->OH = (hp - d->KH) / (size_t)p->sh + 1, d->OW = (wp - d->KW) / (size_t)p->sw + 1;
  return DLCA_OK;
}

/* The taps [*lo, *hi) of a kernel of extent K that output row (column) o reads inside the input; the
 * others fall in the padding. Tap t reads input row o s - pad + t. */
static void taps(size_t o, int s, int pad, size_t K, size_t extent, size_t *lo, size_t *hi) {
  long first = (long)(o * (size_t)s) - pad, end = (long)extent - first;
  *lo = first < 0 ? (size_t)-first : 0;
  *hi = end <= 0 ? 0 : (size_t)end < K ? (size_t)end : K;
  if (*lo > *hi) *lo = *hi;
}

/* The window of output (oh, ow): its taps and the input position of tap (0, 0). */
typedef struct window {
  size_t i0, i1, j0, j1;
  long ih, iw;
} window;

static window window_at(const dlca__conv_dims *d, size_t oh, size_t ow) {
  window v;
  taps(oh, d->sh, d->ph, d->KH, d->H, &v.i0, &v.i1);
  taps(ow, d->sw, d->pw, d->KW, d->W, &v.j0, &v.j1);
  v.ih = (long)(oh * (size_t)d->sh) - d->ph, v.iw = (long)(ow * (size_t)d->sw) - d->pw;
  return v;
}

/* x[n, c] at the window's tap (i, j), a valid one. */
#define XAT(d, n, c, v, i, j) \
  ((((n) * (d)->C + (c)) * (d)->H + (size_t)((v)->ih + (long)(i))) * (d)->W + (size_t)((v)->iw + (long)(j)))
#define WAT(d, o, c, i, j) ((((o) * (d)->C + (c)) * (d)->KH + (i)) * (d)->KW + (j))
#define YAT(d, n, o, oh, ow) ((((n) * (d)->O + (o)) * (d)->OH + (oh)) * (d)->OW + (ow))

/* One output element: sum over c, i, j (the taps inside the input) of x * w, without the bias. */
static double dot(const dlca__conv_dims *d, const double *x, const double *w, size_t n, size_t o, const window *v) {
  double acc = 0;
  for (size_t c = 0; c < d->C; c++)
    for (size_t i = v->i0; i < v->i1; i++) {
      const double *xr = x + XAT(d, n, c, v, i, v->j0), *wr = w + WAT(d, o, c, i, v->j0);
      for (size_t j = 0; j < v->j1 - v->j0; j++) acc += xr[j] * wr[j];
    }
  return acc;
}

void dlca__ref_conv2d(const dlca__conv_dims *d, const double *x, const double *w, const double *b, double *y) {
  for (size_t n = 0; n < d->N; n++)
    for (size_t o = 0; o < d->O; o++)
      for (size_t oh = 0; oh < d->OH; oh++)
        for (size_t ow = 0; ow < d->OW; ow++) {
          window v = window_at(d, oh, ow);
          y[YAT(d, n, o, oh, ow)] = dot(d, x, w, n, o, &v) + (b ? b[o] : 0);
        }
}

/* The terms of output (n, o) at window v with upstream g: into dx and dw (either may be NULL). */
static void scatter(const dlca__conv_dims *d, const double *x, const double *w, double g, size_t n, size_t o,
                    const window *v, double *dx, double *dw) {
  for (size_t c = 0; c < d->C; c++)
    for (size_t i = v->i0; i < v->i1; i++) {
      size_t xa = XAT(d, n, c, v, i, v->j0), wa = WAT(d, o, c, i, v->j0);
      for (size_t j = 0; j < v->j1 - v->j0; j++) {
        if (dx) dx[xa + j] += g * w[wa + j];
        if (dw) dw[wa + j] += g * x[xa + j];
      }
    }
}

/* One pass over the outputs in row-major order (n, o, oh, ow), each scattering its terms: every gradient
 * element sums in that order. */
void dlca__ref_conv2d_backward(const dlca__conv_dims *d, const double *x, const double *w, const double *dy, double *dx,
                               double *dw, double *db) {
  if (dx) memset(dx, 0, sizeof(double) * d->N * d->C * d->H * d->W);
  if (dw) memset(dw, 0, sizeof(double) * d->O * d->C * d->KH * d->KW);
  if (db) memset(db, 0, sizeof(double) * d->O);
  for (size_t n = 0; n < d->N; n++)
    for (size_t o = 0; o < d->O; o++)
      for (size_t oh = 0; oh < d->OH; oh++)
        for (size_t ow = 0; ow < d->OW; ow++) {
          double g = dy[YAT(d, n, o, oh, ow)];
          window v = window_at(d, oh, ow);
          if (db) db[o] += g;
          if (dx || dw) scatter(d, x, w, g, n, o, &v, dx, dw);
        }
}
