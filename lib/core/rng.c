/* Random numbers, doc/rng.md. dlca_rng_u32 is counter-based so that the host
 * and every device draw the same start grids and fire masks in any order;
 * kernels-cl/rng.cl is its twin. splitmix64 drives the wiring shuffles. */
#include "core/internal.h"

static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint32_t dlca_rng_u32(uint64_t key, uint32_t a, uint32_t b) {
  uint64_t z = mix64(key + 0x9e3779b97f4a7c15ULL * ((uint64_t)a + 1));
  z = mix64(z ^ ((uint64_t)b * 0xd1b54a32d192ed03ULL + 0x8cb92ba72f3d8dd7ULL));
  return (uint32_t)(z >> 32);
}

uint64_t dlca__splitmix64(uint64_t *state) {
  *state += 0x9e3779b97f4a7c15ULL;
  return mix64(*state);
}

uint32_t dlca__rand_below(uint64_t *state, uint32_t n) {
  /* Lemire's multiply-shift with rejection: unbiased. */
  uint64_t m = (uint64_t)(uint32_t)(dlca__splitmix64(state) >> 32) * n;
  uint32_t lo = (uint32_t)m;
  if (lo < n) {
    uint32_t t = (uint32_t)(-n) % n;
    while (lo < t) {
      m = (uint64_t)(uint32_t)(dlca__splitmix64(state) >> 32) * n;
      lo = (uint32_t)m;
    }
  }
  return (uint32_t)(m >> 32);
}
