// The Gaussian test matrix of the randomized SVD (issue 33), float32: entry
// (i, j) of z [rows, l] is Box-Muller on dlca_rng_u32(seed, i, 2j) and
// (seed, i, 2j + 1), the twin of dlca__rsvd_gauss (lib/ops/ref_rsvd.c).
#include "rng.cl"

// @tunable RSVD_WG 64 128 256 | 1..1024 pow2
#ifndef RSVD_WG
#define RSVD_WG 64
#endif

__kernel __attribute__((reqd_work_group_size(RSVD_WG, 1, 1)))
void dlca_rsvd_gauss(__global float *z, uint rows, uint l, ulong seed) {
  uint i = (uint)get_global_id(0);
  if (i >= rows * l) return;
  uint r = i / l, j = i % l;
  float u1 = ((float)dlca_rng_u32(seed, r, 2 * j) + 0.5f) * 2.3283064365386963e-10f;
  float u2 = ((float)dlca_rng_u32(seed, r, 2 * j + 1) + 0.5f) * 2.3283064365386963e-10f;
  z[i] = sqrt(-2.0f * log(fmax(u1, 1e-38f))) * cos(6.2831853071795865f * u2);
}
