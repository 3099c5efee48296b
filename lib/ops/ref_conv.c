/* The CPU twin of conv2d (lib/ops/ref_conv.h): direct loops in double. The
 * forward sums over (c, kh, kw) in that order; each gradient element sums
 * its terms in the row-major order of the other operands. */
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

/* The input row (column) that kernel row i of output row oh reads: -1 when in the padding. */
static long in_at(size_t o, size_t i, int s, int pad, size_t extent) {
  long r = (long)(o * (size_t)s + i) - pad;
  return r >= 0 && (size_t)r < extent ? r : -1;
}

/* x[n, c, ih, iw] for a valid (ih, iw). */
#define XAT(d, n, c, ih, iw) ((((n) * (d)->C + (c)) * (d)->H + (size_t)(ih)) * (d)->W + (size_t)(iw))
#define WAT(d, o, c, i, j) ((((o) * (d)->C + (c)) * (d)->KH + (i)) * (d)->KW + (j))
#define YAT(d, n, o, oh, ow) ((((n) * (d)->O + (o)) * (d)->OH + (oh)) * (d)->OW + (ow))

/* One output element: sum over c, i, j of x * w, without the bias. */
static double dot(const dlca__conv_dims *d, const double *x, const double *w, size_t n, size_t o, size_t oh,
                  size_t ow) {
  double acc = 0;
  for (size_t c = 0; c < d->C; c++)
    for (size_t i = 0; i < d->KH; i++) {
      long ih = in_at(oh, i, d->sh, d->ph, d->H);
      if (ih < 0) continue;
      for (size_t j = 0; j < d->KW; j++) {
        long iw = in_at(ow, j, d->sw, d->pw, d->W);
        if (iw >= 0) acc += x[XAT(d, n, c, ih, iw)] * w[WAT(d, o, c, i, j)];
      }
    }
  return acc;
}

void dlca__ref_conv2d(const dlca__conv_dims *d, const double *x, const double *w, const double *b, double *y) {
  for (size_t n = 0; n < d->N; n++)
    for (size_t o = 0; o < d->O; o++)
      for (size_t oh = 0; oh < d->OH; oh++)
        for (size_t ow = 0; ow < d->OW; ow++) y[YAT(d, n, o, oh, ow)] = dot(d, x, w, n, o, oh, ow) + (b ? b[o] : 0);
}

/* dw[o, c, i, j] = sum over n, oh, ow of dy[n, o, oh, ow] x[n, c, ih, iw]. */
static double dw_at(const dlca__conv_dims *d, const double *x, const double *dy, size_t o, size_t c, size_t i,
                    size_t j) {
  double acc = 0;
  for (size_t n = 0; n < d->N; n++)
    for (size_t oh = 0; oh < d->OH; oh++) {
      long ih = in_at(oh, i, d->sh, d->ph, d->H);
      if (ih < 0) continue;
      for (size_t ow = 0; ow < d->OW; ow++) {
        long iw = in_at(ow, j, d->sw, d->pw, d->W);
        if (iw >= 0) acc += dy[YAT(d, n, o, oh, ow)] * x[XAT(d, n, c, ih, iw)];
      }
    }
  return acc;
}

/* dx[n, c, ih, iw] = sum over o, i, j (row-major) of dy at the output that reads it times w. */
static double dx_at(const dlca__conv_dims *d, const double *w, const double *dy, size_t n, size_t c, size_t ih,
                    size_t iw) {
  double acc = 0;
  for (size_t o = 0; o < d->O; o++)
    for (size_t i = 0; i < d->KH; i++) {
      long th = (long)ih + d->ph - (long)i; /* oh * sh */
      if (th < 0 || th % d->sh || (size_t)(th / d->sh) >= d->OH) continue;
      for (size_t j = 0; j < d->KW; j++) {
        long tw = (long)iw + d->pw - (long)j;
        if (tw < 0 || tw % d->sw || (size_t)(tw / d->sw) >= d->OW) continue;
        acc += dy[YAT(d, n, o, (size_t)(th / d->sh), (size_t)(tw / d->sw))] * w[WAT(d, o, c, i, j)];
      }
    }
  return acc;
}

void dlca__ref_conv2d_backward(const dlca__conv_dims *d, const double *x, const double *w, const double *dy, double *dx,
                               double *dw, double *db) {
  for (size_t n = 0; dx && n < d->N; n++)
    for (size_t c = 0; c < d->C; c++)
      for (size_t ih = 0; ih < d->H; ih++)
        for (size_t iw = 0; iw < d->W; iw++) dx[XAT(d, n, c, ih, iw)] = dx_at(d, w, dy, n, c, ih, iw);
  for (size_t o = 0; dw && o < d->O; o++)
    for (size_t c = 0; c < d->C; c++)
      for (size_t i = 0; i < d->KH; i++)
        for (size_t j = 0; j < d->KW; j++) dw[WAT(d, o, c, i, j)] = dw_at(d, x, dy, o, c, i, j);
  for (size_t o = 0; db && o < d->O; o++) {
    double acc = 0;
    for (size_t n = 0; n < d->N; n++)
      for (size_t k = 0; k < d->OH * d->OW; k++) acc += dy[YAT(d, n, o, 0, 0) + k];
    db[o] = acc;
  }
}
