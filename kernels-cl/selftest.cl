// Self-test kernels of the runtime (tests/test_cache.c, test_tuning.c,
// dlca-info --build): the rng.cl parity check and a probe of the tuned
// parameters a program was built with.
#include "rng.cl"

// @tunable WG_SIZE 64 32 128 256 | 1..1024 pow2
#ifndef WG_SIZE
#define WG_SIZE 64
#endif

// out[i] = dlca_rng_u32(key, a, i) for i < n; the host checks every value.
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
void dlca_selftest_rng(__global uint *out, ulong key, uint a, uint n) {
  uint i = (uint)get_global_id(0);
  if (i < n) out[i] = dlca_rng_u32(key, a, i);
}

// out[0] = the WG_SIZE this program was built with, out[1] = the local size
// it runs with.
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
void dlca_selftest_params(__global int *out) {
  if (get_global_id(0) == 0) {
    out[0] = WG_SIZE;
    out[1] = (int)get_local_size(0);
  }
}
