/* dlca-opsbench's hybrid suite (bench/opsbench_suites.h): issue 33's
 * hybrid-trainer pipeline at batch 32, each stage alone and the whole end to
 * end, on the device and on the CPU twin (rows *_twin, in double): encode
 * (dense 64 -> 128 + ReLU over 10 steps' states), a 5-GRU ensemble (input
 * 128, hidden 256, 10 steps, sharing the encoding), the rSVD of a 1024 x 1024
 * residual at rank 32 (p 10, q 2), and the correction add on the ensemble's
 * output. */
#include <stdio.h>
#include <stdlib.h>

#include "ops/cl_blas.h"
#include "ops/cl_elementwise.h"
#include "ops/cl_gru.h"
#include "opsbench_suites.h"

#define HB 32
#define HT 10
#define HD 64
#define HE 128
#define HH 256
#define HM 5
#define HR 1024
#define HK 32

enum { X, W, BI, E, WI, WH, BIH, BHH, H0, Y, C, A, U, S, V, NT };

typedef struct hybrid {
  dlca_context *ctx;
  dlca_tensor *t[NT];
  dlca__gru_tape *tape;
  double *d[NT]; /* the twin's copies */
} hybrid;

static const size_t hn[NT] = {HB * HT * HD,    HE *HD,      HE,          HB *HT *HE, HM * 3 * HH *HE,
                              HM * 3 * HH *HH, HM * 3 * HH, HM * 3 * HH, HM *HB *HH, HM *HB *HT *HH,
                              HM *HB *HT *HH,  HR *HR,      HR *HK,      HK,         HR *HK};

static const dlca__gru_cfg hcfg = {HM, 1, {HB, HT, HE, HH}};

static int setup(hybrid *h, dlca_context *ctx) {
  h->ctx = ctx, h->tape = NULL;
  int rc = DLCA_OK;
  uint64_t seed = 99;
  for (int i = 0; i < NT; i++) h->t[i] = NULL, h->d[i] = NULL;
  for (int i = 0; !rc && i < NT; i++) {
    size_t n = hn[i], sh[2] = {HR, HR};
    float *f = malloc(sizeof(float) * n);
    h->d[i] = malloc(sizeof(double) * n);
    if (!f || !h->d[i]) rc = dlca__fail(DLCA_ENOMEM, "hybrid: out of host memory");
    for (size_t j = 0; !rc && j < n; j++) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      f[j] = (float)(((double)(seed >> 40) / (double)(1ULL << 23) - 1.0) * (i == WI || i == WH ? 0.06 : 1.0));
      h->d[i][j] = f[j];
    }
    if (!rc) rc = i == A ? dlca_tensor_new(ctx, 2, sh, &h->t[i]) : dlca_tensor_new(ctx, 1, &n, &h->t[i]);
    if (!rc) rc = dlca_tensor_upload(h->t[i], f, n);
    free(f);
  }
  return rc ? rc : dlca__gru_tape_new(ctx, &hcfg, &h->tape);
}

static void teardown(hybrid *h) {
  for (int i = 0; i < NT; i++) dlca_tensor_free(h->t[i]), free(h->d[i]);
  dlca__gru_tape_free(h->tape);
}

static int encode(void *p) {
  hybrid *h = p;
  dlca_tensor x2, e2; /* the same buffers seen as [B T, 64] and [B T, 128] */
  x2 = *h->t[X], e2 = *h->t[E];
  x2.rank = e2.rank = 2, x2.shape[0] = e2.shape[0] = HB * HT, x2.shape[1] = HD, e2.shape[1] = HE;
  dlca_tensor w2 = *h->t[W];
  w2.rank = 2, w2.shape[0] = HE, w2.shape[1] = HD;
  return dlca__ops_cl_dense(h->ctx, DLCA__ACT_relu, &x2, &w2, h->t[BI], &e2);
}

static int ensemble(void *p) {
  hybrid *h = p;
  dlca__gru_cl_w w = {h->t[WI], h->t[WH], h->t[BIH], h->t[BHH]};
  return dlca__ops_cl_gru_forward(h->ctx, &hcfg, &w, h->t[E], h->t[H0], h->t[Y], NULL, h->tape);
}

static int svd(void *p) {
  hybrid *h = p;
  dlca__rsvd r = {HK, 10, 2, 1};
  return dlca__ops_cl_rsvd(h->ctx, &r, h->t[A], h->t[U], h->t[S], h->t[V], NULL);
}

static int correct(void *p) {
  hybrid *h = p;
  return dlca__ops_cl_binary(h->ctx, DLCA__B_add, h->t[Y], h->t[C], h->t[Y]);
}

static int whole(void *p) {
  int rc;
  if ((rc = encode(p)) || (rc = ensemble(p)) || (rc = svd(p))) return rc;
  return correct(p);
}

/* The twin's stages, in double on the host. */
static int twin_encode(void *p) {
  hybrid *h = p;
  dlca__ref_dense(DLCA__ACT_relu, HB * HT, HD, HE, h->d[X], h->d[W], h->d[BI], h->d[E]);
  return DLCA_OK;
}

static int twin_ensemble(void *p) {
  hybrid *h = p;
  dlca__ref_gru_w w = {h->d[WI], h->d[WH], h->d[BIH], h->d[BHH]};
  return dlca__ref_gru_ensemble(HM, 1, &hcfg.d, &w, h->d[E], h->d[H0], h->d[Y], NULL);
}

static int twin_svd(void *p) {
  hybrid *h = p;
  dlca__rsvd r = {HK, 10, 2, 1};
  return dlca__ref_rsvd(&r, HR, HR, h->d[A], h->d[U], h->d[S], h->d[V]);
}

static int twin_correct(void *p) {
  hybrid *h = p;
  for (size_t i = 0; i < hn[Y]; i++) h->d[Y][i] += h->d[C][i];
  return DLCA_OK;
}

static int twin_whole(void *p) {
  int rc;
  if ((rc = twin_encode(p)) || (rc = twin_ensemble(p)) || (rc = twin_svd(p))) return rc;
  return twin_correct(p);
}

int ob_suite_hybrid(ob_bench *b) {
  static const char *const names[5] = {"encode", "ensemble", "rsvd", "correct", "pipeline"};
  int (*dev[5])(void *) = {encode, ensemble, svd, correct, whole};
  int (*twin[5])(void *) = {twin_encode, twin_ensemble, twin_svd, twin_correct, twin_whole};
  double fl[5] = {2.0 * HB * HT * HD * HE, HM * (2.0 * HB * HT * HE * 3 * HH + HT * 2.0 * HB * HH * 3 * HH),
                  12.0 * HR * HR * (HK + 10), (double)hn[Y], 0};
  double by[5] = {4.0 * (hn[X] + hn[W] + hn[E]), 4.0 * (hn[E] + hn[WI] + hn[WH] + hn[Y]), 24.0 * HR * HR, 12.0 * hn[Y],
                  0};
  for (int i = 0; i < 4; i++) fl[4] += fl[i], by[4] += by[i];
  hybrid h;
  int rc = setup(&h, b->ctx);
  long keep = b->repeats, keep_w = b->warmup;
  for (int i = 0; !rc && i < 10; i++) {
    double med, min;
    char name[64];
    int tw = i >= 5;
    if (tw) b->repeats = keep < 3 ? keep : 3, b->warmup = 0; /* the twin's rSVD takes seconds */
    snprintf(name, sizeof name, "hybrid_%s%s", names[i % 5], tw ? "_twin" : "");
    if (!(rc = ob_time(b, tw ? twin[i % 5] : dev[i % 5], &h, &med, &min)))
      ob_add(b, "hybrid", name, med, min, fl[i % 5], by[i % 5]);
  }
  b->repeats = keep, b->warmup = keep_w;
  teardown(&h);
  return rc;
}
