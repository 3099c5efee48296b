/* The reference backward pass: backpropagation through all T steps with
 * recomputation (only the T+1 grids are kept; each cell's circuit is re-run
 * from its patch), and the 4-sum gate gradient of doc/semantics.md section 1.
 *
 * Determinism: cells are split into a fixed number of chunks, independent of
 * the thread count; each chunk owns its double accumulators, and the chunks
 * are summed in order at the end. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ref/ref_impl.h"

#define REF_CHUNKS 64

/* Backward through one layer: dout -> din, and the 4 sums of every gate. */
static void layer_backward(const dlca_layer *L, const float *cf, const float *in, const float *dout,
                           float *din, double *acc) {
  for (int g = 0; g < L->n_gates; g++) {
    float d = dout[g];
    if (d == 0.0f) continue;
    float a = in[L->wa[g]], b = in[L->wb[g]];
    const float *c = cf + 4 * g;
    double *s = acc + 4 * g;
    s[0] += d;
    s[1] += (double)d * a;
    s[2] += (double)d * b;
    s[3] += (double)d * a * b;
    din[L->wa[g]] += d * (c[1] + c[3] * b);
    din[L->wb[g]] += d * (c[2] + c[3] * a);
  }
}

/* One cell: given dL/d(outputs)[C] and the activations of a forward pass,
 * writes dL/dpatch[9][C] and adds to the chunk's gate sums. */
static void cell_backward(const dlca_model *m, const dlca_ref_layout *lay, const float *coef,
                          const float *act, float *dact, const float *dy, float *dpatch, double *acc) {
  const int C = lay->C, K = lay->K, S = lay->S;
  memset(dact, 0, sizeof(float) * lay->total);
  const float *uin = act + lay->ubase;
  float *duin = dact + lay->ubase;
  memcpy(duin + lay->uoff[lay->nU], dy, sizeof(float) * C);
  for (int l = lay->nU - 1; l >= 0; l--) {
    const dlca_layer *L = &m->update[l];
    size_t g0 = L->gate0;
    layer_backward(L, coef + 4 * g0, uin + lay->uoff[l], duin + lay->uoff[l + 1], duin + lay->uoff[l],
                   acc + 4 * g0);
  }
  memset(dpatch, 0, sizeof(float) * 9 * C);
  for (int c = 0; c < C; c++) dpatch[4 * C + c] += duin[c];
  for (int c = 0; c < C; c++)
    for (int k = 0; k < K; k++) {
      const float *x = act + (size_t)(c * K + k) * lay->pstride;
      float *dx = dact + (size_t)(c * K + k) * lay->pstride;
      for (int s = 0; s < S; s++) dx[lay->poff[lay->nP] + s] = duin[C + c * S * K + s * K + k];
      for (int l = lay->nP - 1; l >= 0; l--) {
        const dlca_layer *L = &m->perceive[l];
        size_t g0 = L->gate0 + (size_t)k * L->n_gates;
        layer_backward(L, coef + 4 * g0, x + lay->poff[l], dx + lay->poff[l + 1], dx + lay->poff[l],
                       acc + 4 * g0);
      }
      for (int f = 0; f < 9; f++) dpatch[f * C + c] += dx[f];
    }
}

int dlca_ref_gradient(const dlca_model *m, const dlca_run *run, const float *x, const float *target,
                      double *loss, float *grad, float *out_state) {
  if (!x || !target || !grad) return dlca__fail(DLCA_EINVAL, "dlca_ref_gradient: NULL argument");
  int rc = dlca_run_validate(m, run);
  if (rc) return rc;
  const size_t n_gates = dlca__model_n_gates(m);
  float *coef = malloc(sizeof(float) * 4 * n_gates);
  double *dc = malloc(sizeof(double) * 4 * n_gates);
  if (!coef || !dc) {
    free(coef), free(dc);
    return dlca__fail(DLCA_ENOMEM, "reference gradient: out of memory for %zu gates", n_gates);
  }
  dlca__gate_coefficients(m, 0, coef);
  rc = dlca__ref_gradient_sums(m, run, x, target, coef, coef, loss, dc, out_state);
  if (!rc) dlca__logit_grad(m, dc, grad);
  free(coef), free(dc);
  return rc;
}

/* dL/ds_T = 2 (s_T - y) on the loss channels, 0 elsewhere (doc/semantics.md section 4.3). */
static void loss_gradient(const dlca_run *run, int C, size_t cells, const float *sT, const float *target, float *g) {
  memset(g, 0, sizeof(float) * cells * C);
  for (size_t i = 0; i < cells; i++)
    for (int j = 0; j < run->n_loss_channels; j++) {
      int c = run->loss_channels[j];
      g[i * C + c] = 2.0f * (sT[i * C + c] - target[i * C + c]);
    }
}

/* The backward pass of step t: every cell's dL/dpatch into dP and its gate
 * sums into its chunk's acc, from g = dL/d(state at t+1). A worksharing
 * loop of the enclosing parallel region; act is the thread's scratch. */
static void backward_cells(const dlca_model *m, const dlca_ref_layout *lay, const dlca_run *run, const float *coef,
                           const float *coef_der, const float *cur, int t, const float *g, float *dP, double *acc,
                           int nchunks, float *act) {
  const int H = run->height, W = run->width, C = m->shape.channels;
  const size_t cells = (size_t)run->batch * H * W, n_gates = dlca__model_n_gates(m);
#pragma omp for schedule(static)
  for (int ch = 0; ch < nchunks; ch++) {
    if (!act) continue;
    size_t lo = cells * ch / nchunks, hi = cells * (ch + 1) / nchunks;
    double *a = acc + (size_t)ch * 4 * n_gates;
    float *dact = act + lay->total, *patch = dact + lay->total;
    for (size_t i = lo; i < hi; i++) {
      int b = (int)(i / ((size_t)H * W)), r = (int)(i / W % H), q = (int)(i % W);
      float *dpatch = dP + i * 9 * C;
      if (run->async && !dlca_fire_mask(run, t, b, r, q)) {
        memset(dpatch, 0, sizeof(float) * 9 * C);
        continue;
      }
      dlca__ref_patch(cur + (size_t)b * H * W * C, H, W, C, m->shape.periodic, r, q, patch);
      dlca__ref_cell_forward(m, lay, coef, patch, act);
      cell_backward(m, lay, coef_der, act, dact, g + i * C, dpatch, a);
    }
  }
}

/* g = dL/d(state at t): cell (r, q) is patch element f = 3*dr + dq of cell
 * (r - dr + 1, q - dq + 1); an async cell that did not fire also passes its
 * own gradient straight through. A worksharing loop, as backward_cells. */
static void gather_patches(const dlca_model *m, const dlca_run *run, int t, const float *dP, float *g) {
  const int H = run->height, W = run->width, C = m->shape.channels;
  const size_t cells = (size_t)run->batch * H * W;
#pragma omp for schedule(static)
  for (size_t i = 0; i < cells; i++) {
    int b = (int)(i / ((size_t)H * W)), r = (int)(i / W % H), q = (int)(i % W);
    float sum[64], *gi = g + i * C;
    for (int c0 = 0; c0 < C; c0 += 64) {
      int nc = C - c0 < 64 ? C - c0 : 64;
      for (int c = 0; c < nc; c++) sum[c] = 0;
      for (int dr = 0; dr < 3; dr++)
        for (int dq = 0; dq < 3; dq++) {
          int rr = r - dr + 1, qq = q - dq + 1;
          if (m->shape.periodic) {
            rr = (rr + H) % H;
            qq = (qq + W) % W;
          } else if (rr < 0 || rr >= H || qq < 0 || qq >= W) {
            continue;
          }
          const float *src = dP + (((size_t)b * H + rr) * W + qq) * 9 * C + (3 * dr + dq) * C + c0;
          for (int c = 0; c < nc; c++) sum[c] += src[c];
        }
      int keep = run->async && !dlca_fire_mask(run, t, b, r, q);
      for (int c = 0; c < nc; c++) gi[c0 + c] = sum[c] + (keep ? gi[c0 + c] : 0.0f);
    }
  }
}

int dlca__ref_gradient_sums(const dlca_model *m, const dlca_run *run, const float *x, const float *target,
                            const float *coef, const float *coef_der, double *loss, double *dc,
                            float *out_state) {
  int rc = DLCA_OK;
  const int B = run->batch, H = run->height, W = run->width, C = m->shape.channels, T = run->steps;
  const size_t grid = (size_t)B * H * W * C, cells = (size_t)B * H * W, n_gates = dlca__model_n_gates(m);
  const int nchunks = cells < REF_CHUNKS ? (int)cells : REF_CHUNKS;
  dlca_ref_layout lay;
  dlca__ref_layout(m, &lay);

  float *states = malloc(sizeof(float) * grid * (T + 1));
  float *g = malloc(sizeof(float) * grid);        /* dL/d(state at step t+1) */
  float *dP = malloc(sizeof(float) * 9 * grid);   /* dL/dpatch of every cell */
  double *acc = calloc((size_t)nchunks * 4 * n_gates, sizeof(double));
  if (!states || !g || !dP || !acc) {
    rc = dlca__fail(DLCA_ENOMEM, "reference gradient: out of memory (%zu grids of %zu floats)",
                    (size_t)T + 1, grid);
    goto out;
  }
  if ((rc = dlca__ref_rollout(m, run, coef, x, states, 1))) goto out;
  const float *sT = states + (size_t)T * grid;
  if (loss) *loss = dlca__ref_loss(run, C, sT, target);
  if (out_state) memcpy(out_state, sT, sizeof(float) * grid);
  loss_gradient(run, C, cells, sT, target, g);

  int failed = 0;
#pragma omp parallel
  {
    float *act = malloc(sizeof(float) * (2 * lay.total + 9 * (size_t)C));
    if (!act) {
#pragma omp atomic write
      failed = 1;
    }
    for (int t = T - 1; t >= 0; t--) {
      backward_cells(m, &lay, run, coef, coef_der, states + (size_t)t * grid, t, g, dP, acc, nchunks, act);
      gather_patches(m, run, t, dP, g);
    }
    free(act);
  }
  if (failed) {
    rc = dlca__fail(DLCA_ENOMEM, "reference gradient: out of memory for scratch");
    goto out;
  }
  for (int ch = 1; ch < nchunks; ch++) { /* the chunks' sums in a fixed order */
    const double *a = acc + (size_t)ch * 4 * n_gates;
    for (size_t j = 0; j < 4 * n_gates; j++) acc[j] += a[j];
  }
  memcpy(dc, acc, sizeof(double) * 4 * n_gates);
out:
  free(states);
  free(g);
  free(dP);
  free(acc);
  return rc;
}
