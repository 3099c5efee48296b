// The counter-based RNG of doc/rng.md, bit for bit the twin of
// dlca_rng_u32() in lib/core/rng.c: host and device draw the same start
// grids and fire masks. ulong arithmetic wraps modulo 2^64, as uint64_t does.
#ifndef DLCA_RNG_CL
#define DLCA_RNG_CL

ulong dlca_rng_mix64(ulong z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9UL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebUL;
  return z ^ (z >> 31);
}

// A uniform 32-bit value from a 64-bit key and two 32-bit counters.
uint dlca_rng_u32(ulong key, uint a, uint b) {
  ulong z = dlca_rng_mix64(key + 0x9e3779b97f4a7c15UL * ((ulong)a + 1UL));
  z = dlca_rng_mix64(z ^ ((ulong)b * 0xd1b54a32d192ed03UL + 0x8cb92ba72f3d8dd7UL));
  return (uint)(z >> 32);
}

#endif
