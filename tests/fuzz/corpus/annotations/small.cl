// @tunable WG 64 32 128 256
  //	@tunable UNROLL 1 2 4
// @tunable HEX 0x10 -1 010
#include "small.cl"
#include "rng.cl"
#ifndef WG
#define WG 64
#endif
__kernel void k(__global int *x) { x[get_global_id(0)] = WG; }
