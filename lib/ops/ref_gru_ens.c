/* The CPU twin of an ensemble of M independent GRUs (lib/ops/ref_gru.h):
 * member after member, weights and states stacked on a leading axis. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "ops/ref_gru.h"

/* Member m's weights. */
static dlca__ref_gru_w member_w(const dlca__gru_dims *d, const dlca__ref_gru_w *w, size_t m) {
  size_t G = 3 * d->H;
  dlca__ref_gru_w o = {w->w_ih + m * G * d->D, w->w_hh + m * G * d->H, w->b_ih ? w->b_ih + m * G : NULL,
                       w->b_hh ? w->b_hh + m * G : NULL};
  return o;
}

static dlca__ref_gru_dw member_dw(const dlca__gru_dims *d, const dlca__ref_gru_dw *dw, size_t m) {
  size_t G = 3 * d->H;
  dlca__ref_gru_dw o = {dw->w_ih ? dw->w_ih + m * G * d->D : NULL, dw->w_hh ? dw->w_hh + m * G * d->H : NULL,
                        dw->b_ih ? dw->b_ih + m * G : NULL, dw->b_hh ? dw->b_hh + m * G : NULL};
  return o;
}

int dlca__ref_gru_ensemble(size_t M, int x_shared, const dlca__gru_dims *d, const dlca__ref_gru_w *w,
                           const double *x, const double *h0, double *y, double *h_n) {
  size_t nx = d->B * d->T * d->D, nh = d->B * d->H, ny = d->B * d->T * d->H;
  for (size_t m = 0; m < M; m++) {
    dlca__ref_gru_w wm = member_w(d, w, m);
    int rc = dlca__ref_gru_sequence(d, &wm, x + (x_shared ? 0 : m * nx), h0 + m * nh, y + m * ny,
                                    h_n ? h_n + m * nh : NULL);
    if (rc) return rc;
  }
  return DLCA_OK;
}

int dlca__ref_gru_ensemble_backward(size_t M, int x_shared, const dlca__gru_dims *d, const dlca__ref_gru_w *w,
                                    const double *x, const double *h0, const double *y, const double *dy,
                                    const double *dh_n, double *dx, double *dh0, const dlca__ref_gru_dw *dw) {
  size_t nx = d->B * d->T * d->D, nh = d->B * d->H, ny = d->B * d->T * d->H;
  double *tmp = dx && x_shared ? malloc(sizeof(double) * nx) : NULL;
  if (dx && x_shared && !tmp) return dlca__fail(DLCA_ENOMEM, "gru ensemble backward: out of host memory");
  int rc = DLCA_OK;
  for (size_t m = 0; !rc && m < M; m++) {
    dlca__ref_gru_w wm = member_w(d, w, m);
    dlca__ref_gru_dw dwm = member_dw(d, dw, m);
    double *dxm = !dx ? NULL : x_shared ? tmp : dx + m * nx;
    rc = dlca__ref_gru_sequence_backward(d, &wm, x + (x_shared ? 0 : m * nx), h0 + m * nh, y + m * ny,
                                         dy ? dy + m * ny : NULL, dh_n ? dh_n + m * nh : NULL, dxm,
                                         dh0 ? dh0 + m * nh : NULL, &dwm);
    if (rc || !tmp) continue;
    if (!m) memcpy(dx, tmp, sizeof(double) * nx);
    else
      for (size_t i = 0; i < nx; i++) dx[i] += tmp[i];
  }
  free(tmp);
  return rc;
}
