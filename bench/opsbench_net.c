/* dlca-opsbench's net suite (bench/opsbench_suites.h): one training step of
 * the digits MLP and CNN (lib/net: the batch gathered on the device,
 * forward, softmax cross-entropy, backward and AdamW), batch 64, on random
 * data of the digits' shape; bench/peer/torch_net.py is the same in PyTorch. */
#include <stdio.h>
#include <stdlib.h>

#include "net/net_impl.h"
#include "opsbench_suites.h"

#define NET_SAMPLES 1438 /* the digits' training set */
#define NET_BATCH 64

typedef struct net_call {
  dlca_net_trainer *t;
  size_t step, steps;
} net_call;

static int net_step(void *p) {
  net_call *c = p;
  size_t s = c->step++;
  return dlca_net_step(c->t, 1, s / c->steps, s % c->steps);
}

/* The floors of one step: 2 flops a multiply-add forward, 4 backward (2 for
 * the first layer, which needs no dx); every parameter read forward, its
 * gradient written, AdamW reading p, g, m, v and writing p, m, v; the batch read. */
static void floors(const dlca_net *net, double *flops, double *bytes) {
  double macs = 0, first = 0;
  for (size_t i = 0; i < net->n_layers; i++) {
    double m = (double)net->wsize[i] * (net->layers[i].kind == DLCA_NET_CONV2D
                                            ? (double)(net->shape[i + 1].d[1] * net->shape[i + 1].d[2]) : 1.0);
    if (m > 0 && first == 0) first = m;
    macs += m;
  }
  *flops = NET_BATCH * (6.0 * macs - 2.0 * first);
  *bytes = 4.0 * (9.0 * (double)net->n_params + NET_BATCH * (double)(dlca_net_in_size(net) + 1));
}

static int one_model(ob_bench *b, const char *model, const float *x, const float *y) {
  dlca_net_spec spec;
  dlca_net *net = NULL;
  net_call c = {NULL, 0, NET_SAMPLES / NET_BATCH};
  int rc = dlca_net_preset(model, &spec);
  if (!rc) rc = dlca_net_new(&spec, 1, &net);
  if (!rc) rc = dlca_net_trainer_new(net, b->ctx, NULL, NET_BATCH, &c.t);
  if (!rc) rc = dlca_net_trainer_data(c.t, NET_SAMPLES, x, y);
  double med = 0, min = 0, flops = 0, bytes = 0;
  if (!rc) rc = ob_time(b, net_step, &c, &med, &min);
  if (!rc) floors(net, &flops, &bytes);
  dlca_net_trainer_free(c.t);
  dlca_net_free(net);
  if (rc) return rc;
  char name[64];
  snprintf(name, sizeof name, "%s_digits_b%d_step", model, NET_BATCH);
  ob_add(b, "net", name, med, min, flops, bytes);
  return DLCA_OK;
}

int ob_suite_net(ob_bench *b) {
  float *x = malloc(NET_SAMPLES * 64 * sizeof(float)), *y = malloc(NET_SAMPLES * sizeof(float));
  if (!x || !y) {
    free(x), free(y);
    return dlca__fail(DLCA_ENOMEM, "net suite: out of host memory");
  }
  uint64_t s = 7;
  for (size_t i = 0; i < NET_SAMPLES * 64; i++) x[i] = (float)(dlca_rng_u32(s, 0, (uint32_t)i) >> 8) / 16777216.0f;
  for (size_t i = 0; i < NET_SAMPLES; i++) y[i] = (float)(dlca_rng_u32(s, 1, (uint32_t)i) % 10);
  int rc = one_model(b, "mlp", x, y);
  if (!rc) rc = one_model(b, "cnn", x, y);
  free(x), free(y);
  return rc;
}
