/* The reference forward pass: one cell's circuit (doc/semantics.md section 3), T sync or
 * async steps over a batch of grids, the loss, and run validation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ref/ref_impl.h"

dlca_optim dlca_optim_default(void) {
  dlca_optim o = {100.0f, 0.05f, 0.9f, 0.99f, 1e-8f, 0.01f};
  return o;
}

dlca_run dlca_run_default(int batch, int height, int width, int steps) {
  dlca_run r;
  memset(&r, 0, sizeof r);
  r.batch = batch, r.height = height, r.width = width, r.steps = steps;
  r.fire_rate = 0.6f;
  r.n_loss_channels = 1;
  return r;
}

int dlca_run_validate(const dlca_model *m, const dlca_run *run) {
  if (!m || !run) return dlca__fail(DLCA_EINVAL, "run: NULL model or run");
  if (run->batch < 1) return dlca__fail(DLCA_ECONFIG, "batch: %d must be at least 1", run->batch);
  if (run->height < 1 || run->width < 1)
    return dlca__fail(DLCA_ECONFIG, "grid: %dx%d must be at least 1x1", run->height, run->width);
  if (run->steps < 1) return dlca__fail(DLCA_ECONFIG, "steps: %d must be at least 1", run->steps);
  if ((double)run->batch * run->height * run->width * m->shape.channels > 2e9)
    return dlca__fail(DLCA_ECONFIG, "batch x grid x channels = %d x %dx%d x %d is too large",
                      run->batch, run->height, run->width, m->shape.channels);
  if (run->async && !(run->fire_rate >= 0 && run->fire_rate <= 1))
    return dlca__fail(DLCA_ECONFIG, "fire_rate: %g is not in [0, 1]", run->fire_rate);
  if (run->n_loss_channels < 1 || run->n_loss_channels > DLCA_MAX_LOSS_CHANNELS)
    return dlca__fail(DLCA_ECONFIG, "loss_channels: %d channels, need 1 to %d", run->n_loss_channels,
                      DLCA_MAX_LOSS_CHANNELS);
  for (int i = 0; i < run->n_loss_channels; i++)
    if (run->loss_channels[i] < 0 || run->loss_channels[i] >= m->shape.channels)
      return dlca__fail(DLCA_ECONFIG, "loss_channels[%d]: channel %d, but the model has %d channels", i,
                        run->loss_channels[i], m->shape.channels);
  return DLCA_OK;
}

int dlca_fire_mask(const dlca_run *run, int t, int b, int r, int q) {
  size_t cell = ((size_t)b * run->height + r) * run->width + q;
  if (run->fire_masks)
    return run->fire_masks[(size_t)t * run->batch * run->height * run->width + cell] != 0;
  /* doc/rng.md: stream 1 + t, counter = cell; 24-bit uniform in [0, 1) */
  uint32_t u = dlca_rng_u32(run->mask_key, 1u + (uint32_t)t, (uint32_t)cell) >> 8;
  return (float)u * (1.0f / 16777216.0f) < run->fire_rate;
}

void dlca__ref_layout(const dlca_model *m, dlca_ref_layout *lay) {
  memset(lay, 0, sizeof *lay);
  lay->C = m->shape.channels, lay->K = m->shape.n_kernels, lay->S = dlca__model_S(m);
  lay->nP = m->n_perceive, lay->nU = m->n_update;
  int o = 0;
  for (int l = 0; l <= lay->nP; l++) {
    lay->poff[l] = o;
    o += m->shape.perceive_layers[l];
  }
  lay->pstride = o;
  lay->ubase = (size_t)lay->C * lay->K * o;
  o = 0;
  for (int l = 0; l <= lay->nU; l++) {
    lay->uoff[l] = o;
    o += m->shape.update_layers[l];
  }
  lay->total = lay->ubase + (size_t)o;
}

void dlca__ref_patch(const float *grid, int H, int W, int C, int periodic, int r, int q, float *patch) {
  /* doc/semantics.md section 3.1: element f = 3*dr + dq is cell (r + dr - 1, q + dq - 1) */
  for (int dr = 0; dr < 3; dr++)
    for (int dq = 0; dq < 3; dq++) {
      int rr = r + dr - 1, qq = q + dq - 1;
      float *dst = patch + (3 * dr + dq) * C;
      if (periodic) {
        rr = (rr + H) % H;
        qq = (qq + W) % W;
      } else if (rr < 0 || rr >= H || qq < 0 || qq >= W) {
        memset(dst, 0, sizeof(float) * (size_t)C);
        continue;
      }
      memcpy(dst, grid + ((size_t)rr * W + qq) * C, sizeof(float) * (size_t)C);
    }
}

/* One layer: out[g] = c0 + c1 a + c2 b + c3 ab with a = in[wa[g]], b = in[wb[g]]. */
static void layer_forward(const dlca_layer *L, const float *cf, const float *in, float *out) {
  for (int g = 0; g < L->n_gates; g++) {
    float a = in[L->wa[g]], b = in[L->wb[g]];
    const float *c = cf + 4 * g;
    out[g] = c[0] + c[1] * a + c[2] * b + c[3] * a * b;
  }
}

const float *dlca__ref_cell_forward(const dlca_model *m, const dlca_ref_layout *lay,
                                    const float *coef, const float *patch, float *act) {
  const int C = lay->C, K = lay->K, S = lay->S;
  float *uin = act + lay->ubase;
  for (int c = 0; c < C; c++) uin[c] = patch[4 * C + c];
  for (int c = 0; c < C; c++)
    for (int k = 0; k < K; k++) {
      float *x = act + (size_t)(c * K + k) * lay->pstride;
      for (int f = 0; f < 9; f++) x[f] = patch[f * C + c];
      for (int l = 0; l < lay->nP; l++) {
        const dlca_layer *L = &m->perceive[l];
        layer_forward(L, coef + 4 * (L->gate0 + (size_t)k * L->n_gates), x + lay->poff[l],
                      x + lay->poff[l + 1]);
      }
      /* doc/semantics.md section 3.2: output s of kernel k on channel c at c*(S*K) + s*K + k */
      for (int s = 0; s < S; s++) uin[C + c * S * K + s * K + k] = x[lay->poff[lay->nP] + s];
    }
  for (int l = 0; l < lay->nU; l++) {
    const dlca_layer *L = &m->update[l];
    layer_forward(L, coef + 4 * L->gate0, uin + lay->uoff[l], uin + lay->uoff[l + 1]);
  }
  return uin + lay->uoff[lay->nU];
}

int dlca__ref_rollout(const dlca_model *m, const dlca_run *run, const float *coef, const float *x,
                      float *states, int keep_all) {
  const int B = run->batch, H = run->height, W = run->width, C = m->shape.channels, T = run->steps;
  const size_t grid = (size_t)H * W * C, cells = (size_t)B * H * W;
  dlca_ref_layout lay;
  dlca__ref_layout(m, &lay);
  /* keep_all: states holds T+1 grids; else ping-pong between a copy and states */
  float *tmp = NULL;
  if (!keep_all && !(tmp = malloc(sizeof(float) * grid * B)))
    return dlca__fail(DLCA_ENOMEM, "reference rollout: out of memory");
  /* ping-pong: step t reads bufs[(T+t)%2]; the last step writes bufs[0] = states */
  float *bufs[2] = {states, tmp};
  memcpy(keep_all ? states : bufs[T % 2], x, sizeof(float) * grid * B);
  int failed = 0;
#pragma omp parallel
  {
    float *act = malloc(sizeof(float) * (lay.total + 9 * (size_t)C));
    if (!act) {
#pragma omp atomic write
      failed = 1;
    }
    for (int t = 0; t < T; t++) {
      const float *cur;
      float *nxt;
      if (keep_all) {
        cur = states + (size_t)t * grid * B;
        nxt = states + (size_t)(t + 1) * grid * B;
      } else {
        cur = bufs[(T + t) % 2];
        nxt = bufs[(T + t + 1) % 2];
      }
#pragma omp for schedule(static)
      for (size_t i = 0; i < cells; i++) {
        if (!act) continue;
        int b = (int)(i / ((size_t)H * W)), r = (int)(i / W % H), q = (int)(i % W);
        float *patch = act + lay.total;
        dlca__ref_patch(cur + b * grid, H, W, C, m->shape.periodic, r, q, patch);
        float *dst = nxt + i * C;
        if (run->async && !dlca_fire_mask(run, t, b, r, q)) {
          memcpy(dst, patch + 4 * C, sizeof(float) * C);
          continue;
        }
        const float *y = dlca__ref_cell_forward(m, &lay, coef, patch, act);
        memcpy(dst, y, sizeof(float) * C);
      }
    }
    free(act);
  }
  free(tmp);
  if (failed) return dlca__fail(DLCA_ENOMEM, "reference rollout: out of memory for scratch");
  return DLCA_OK;
}

double dlca__ref_loss(const dlca_run *run, int C, const float *s, const float *y) {
  size_t cells = (size_t)run->batch * run->height * run->width;
  double loss = 0;
  for (size_t i = 0; i < cells; i++)
    for (int j = 0; j < run->n_loss_channels; j++) {
      int c = run->loss_channels[j];
      double d = (double)s[i * C + c] - y[i * C + c];
      loss += d * d;
    }
  return loss;
}

int dlca_ref_forward(const dlca_model *m, const dlca_run *run, const float *x, int hard,
                     const float *target, float *out_state, double *loss) {
  if (!x || !out_state) return dlca__fail(DLCA_EINVAL, "dlca_ref_forward: NULL grid");
  int rc = dlca_run_validate(m, run);
  if (rc) return rc;
  float *coef = malloc(sizeof(float) * 4 * dlca__model_n_gates(m));
  if (!coef) return dlca__fail(DLCA_ENOMEM, "reference forward: out of memory");
  dlca__gate_coefficients(m, hard, coef);
  rc = dlca__ref_rollout(m, run, coef, x, out_state, 0);
  free(coef);
  if (!rc && target && loss) *loss = dlca__ref_loss(run, m->shape.channels, out_state, target);
  return rc;
}
