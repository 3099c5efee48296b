/* PyTorch's default initialisation of the parameters, seeded, and the
 * seeded permutation of the training set that orders each epoch. Both are
 * pure functions of their counters (dlca_rng_u32, doc/rng.md), so that any
 * backend draws the same values. */
#include <math.h>
#include "net/net_impl.h"

void dlca__net_tensor_sizes(const dlca_net *net, size_t *sizes) {
  size_t j = 0;
  for (size_t i = 0; i < net->n_layers; i++)
    if (dlca__net_has_params(&net->layers[i])) sizes[j++] = net->wsize[i], sizes[j++] = dlca__net_bsize(net, i);
}

void dlca__net_tensor_shape(const dlca_net *net, size_t j, int *rank, size_t shape[4]) {
  size_t t = 0;
  for (size_t i = 0; i < net->n_layers; i++) {
    const dlca_net_layer *l = &net->layers[i];
    if (!dlca__net_has_params(l)) continue;
    if (t == j) { /* the weight: dense [out, in], conv2d [O, C, k, k] */
      shape[0] = l->units, shape[1] = net->shape[i].d[0];
      shape[2] = shape[3] = (size_t)l->k;
      *rank = l->kind == DLCA_NET_DENSE ? 2 : 4;
      return;
    }
    if (t + 1 == j) {
      shape[0] = l->units, *rank = 1;
      return;
    }
    t += 2;
  }
  *rank = 0;
}

/* torch.nn.Linear and Conv2d's reset_parameters: kaiming_uniform_ with
 * a = sqrt(5) makes the weight's bound sqrt(6 / ((1 + 5) fan_in)) =
 * 1/sqrt(fan_in), the bias's is 1/sqrt(fan_in) too. Element e of tensor t is
 * (2u - 1) bound with u = (dlca_rng_u32(seed, t, e) >> 8) / 2^24. */
void dlca__net_init(dlca_net *net, uint64_t seed) {
  uint32_t t = 0;
  for (size_t i = 0; i < net->n_layers; i++) {
    const dlca_net_layer *l = &net->layers[i];
    if (!dlca__net_has_params(l)) continue;
    size_t fan_in = net->wsize[i] / l->units, nb = dlca__net_bsize(net, i);
    double bound = 1.0 / sqrt((double)fan_in);
    float *w = net->params + net->poff[i], *b = w + net->wsize[i];
    for (size_t e = 0; e < net->wsize[i]; e++)
      w[e] = (float)((2.0 * (double)(dlca_rng_u32(seed, t, (uint32_t)e) >> 8) / 16777216.0 - 1.0) * bound);
    for (size_t e = 0; e < nb; e++)
      b[e] = (float)((2.0 * (double)(dlca_rng_u32(seed, t + 1, (uint32_t)e) >> 8) / 16777216.0 - 1.0) * bound);
    t += 2;
  }
}

/* The permutation's key: the seed, apart from the initialisation's draws. */
#define PERM_SALT 0x7065726d7065726dULL

/* A 4-round Feistel network on 2h-bit values, rounds keyed by
 * dlca_rng_u32(seed ^ salt, epoch, r * 65536 + right half); values at or
 * over n walk the cycle on (kernels-cl/ops/net.cl is its twin). */
uint32_t dlca_net_perm(uint64_t seed, uint64_t epoch, uint32_t n, uint32_t i) {
  uint32_t h = 1;
  while (h < 16 && ((uint64_t)1 << (2 * h)) < n) h++;
  uint32_t m = (1u << h) - 1u;
  uint64_t x = i;
  do {
    uint32_t L = (uint32_t)(x >> h), R = (uint32_t)x & m;
    for (uint32_t r = 0; r < 4; r++) {
      uint32_t f = dlca_rng_u32(seed ^ PERM_SALT, (uint32_t)epoch, r * 65536u + R) & m;
      uint32_t nl = R;
      R = L ^ f, L = nl;
    }
    x = ((uint64_t)L << h) | R;
  } while (x >= n && n > 0);
  return (uint32_t)x;
}
