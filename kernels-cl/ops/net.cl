// The network trainer's own kernels (lib/net/cl_train.c): the seeded
// permutation of an epoch (the twin of dlca_net_perm in lib/net/init.c, bit
// for bit), the batch gather by it, and the loss and accuracy sums that stay
// on the device until the host asks. Sums run in one work-item, in order:
// reproducible.
#include "rng.cl"

// @tunable NET_WG 64 32 128 256 | 1..1024 pow2
#ifndef NET_WG
#define NET_WG 64
#endif

#define NET_PERM_SALT 0x7065726d7065726dUL

// Sample i of the permutation of 0..n-1 of (seed, epoch): 4 Feistel rounds
// on 2h-bit values, cycle walking past n.
uint dlca_net_perm(ulong seed, uint epoch, uint n, uint i) {
  uint h = 1;
  while (h < 16 && ((ulong)1 << (2 * h)) < (ulong)n) h++;
  uint m = (1u << h) - 1u;
  ulong x = i;
  do {
    uint L = (uint)(x >> h), R = (uint)x & m;
    for (uint r = 0; r < 4; r++) {
      uint f = dlca_rng_u32(seed ^ NET_PERM_SALT, epoch, r * 65536u + R) & m;
      uint nl = R;
      R = L ^ f;
      L = nl;
    }
    x = ((ulong)L << h) | R;
  } while (x >= (ulong)n && n > 0);
  return (uint)x;
}

// perm[i] = dlca_net_perm(seed, epoch, n, i) for i < n: an epoch's order,
// drawn once, read by every batch's gather.
__kernel __attribute__((reqd_work_group_size(NET_WG, 1, 1)))
void dlca_net_perm_fill(__global uint *perm, uint n, ulong seed, uint epoch) {
  uint i = (uint)get_global_id(0);
  if (i < n) perm[i] = dlca_net_perm(seed, epoch, n, i);
}

// dst row j (of `row` floats, j < N) = src row perm[first + j] (permute)
// or first + j; one work-item per float.
__kernel __attribute__((reqd_work_group_size(NET_WG, 1, 1)))
void dlca_net_gather(__global const float *src, __global float *dst, uint row, uint N, __global const uint *perm,
                     uint first, int permute) {
  uint g = (uint)get_global_id(0);
  if (g >= N * row) return;
  uint j = g / row, e = g - j * row;
  uint s = permute ? perm[first + j] : first + j;
  dst[g] = src[(ulong)s * row + e];
}

// acc[0] += loss[0] * w, acc[1] += w: the epoch's loss sum and step count.
__kernel void dlca_net_accum(__global const float *loss, __global float *acc, float w) {
  if (get_global_id(0) != 0) return;
  acc[0] += loss[0] * w;
  acc[1] += w;
}

// acc[2] += the rows of logits [N, K] whose first maximum is the target class.
__kernel void dlca_net_correct(__global const float *logits, __global const float *target, __global float *acc,
                               uint N, uint K) {
  if (get_global_id(0) != 0) return;
  uint ok = 0;
  for (uint n = 0; n < N; n++) {
    uint best = 0;
    for (uint k = 1; k < K; k++)
      if (logits[n * K + k] > logits[n * K + best]) best = k;
    ok += (float)best == target[n];
  }
  acc[2] += (float)ok;
}
