/* trainer.cl: dlca_start, the start grids of an epoch (doc/rng.md). */

/* Start grids of one epoch (doc/rng.md): kind 0 random bits, 1 seed cell, 2 zeros. */
__kernel void dlca_start(__global float *x, int kind, ulong key, int B, int H, int W POP_DECL_G) {
#if POP
  if (pop_on) {
    POP_BEGIN(key);
    POP_MOVE(x, __global float *, pop_gs);
  }
#endif
  size_t i = get_global_id(0), n = (size_t)B * H * W * C;
  if (i >= n) return;
  float v = 0.0f;
  if (kind == 0) {
    v = (float)(dlca_rng_u32(key, 0u, (uint)i) >> 31);
  } else if (kind == 1) {
    size_t cell = i / C, in_grid = cell % ((size_t)H * W);
    v = in_grid == (size_t)(H / 2) * W + W / 2 ? 1.0f : 0.0f;
  }
  x[i] = v;
}
