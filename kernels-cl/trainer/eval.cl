/* trainer.cl: dlca_eval, the hard evaluation's loss and errors. */

/* Hard evaluation: loss and errors over the loss channels, one work-group,
 * fixed-tree reduction. out = (loss, errors). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void dlca_eval(__global const float *s,
                                                                      __global const float *y, int cells,
                                                                      __global float *out, __local float *red POP_DECL_G) {
#if POP
  if (pop_on) {
    ulong key;
    POP_BEGIN(key);
    (void)key;
    POP_MOVE(s, __global const float *, pop_gs), POP_AT(y, __global const float *, target);
    POP_AT(out, __global float *, eval_out);
  }
#endif
  const int tid = get_local_id(0);
  float loss = 0.0f, err = 0.0f;
  for (int i = tid; i < cells; i += WG)
    for (int j = 0; j < NLOSS; j++) {
      size_t k = (size_t)i * C + LOSS[j];
      float d = s[k] - y[k];
      loss += d * d;
      err += fabs(d) >= 0.5f ? 1.0f : 0.0f;
    }
  for (int pass = 0; pass < 2; pass++) {
    red[tid] = pass ? err : loss;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = WG / 2; h > 0; h >>= 1) {
      if (tid < h) red[tid] += red[tid + h];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0) out[pass] = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
