// The movement ops (permute, expand, pad, shrink, stride) as strided views,
// float32 (shared/testdata/ops/README.md, op movement; CPU twin
// lib/ops/ref_movement.c). Element j (row-major over the extents d) of a
// view is base[off + sum_k j_k st_k]. Gathers and scatters move values
// exactly; expand's adjoint is a sum over its broadcast axes (reduce.cl).

// @tunable MOV_WG 64 32 128 256 | 1..1024 pow2
#ifndef MOV_WG
#define MOV_WG 64
#endif

uint dlca_mov_at(uint j, uint4 d, uint4 st, uint off) {
  uint p = off + (j % d.w) * st.w;
  j /= d.w;
  p += (j % d.z) * st.z;
  j /= d.z;
  p += (j % d.y) * st.y;
  return p + (j / d.y) * st.x;
}

// dst[j] = src[view(j)], j < n.
__kernel __attribute__((reqd_work_group_size(MOV_WG, 1, 1)))
void dlca_ops_gather(__global const float *src, __global float *dst, uint n, uint4 d, uint4 st, uint off) {
  uint j = (uint)get_global_id(0);
  if (j < n) dst[j] = src[dlca_mov_at(j, d, st, off)];
}

// dst[view(j)] = src[j], j < n; the view is one-to-one (no two j share a place).
__kernel __attribute__((reqd_work_group_size(MOV_WG, 1, 1)))
void dlca_ops_scatter(__global const float *src, __global float *dst, uint n, uint4 d, uint4 st, uint off) {
  uint j = (uint)get_global_id(0);
  if (j < n) dst[dlca_mov_at(j, d, st, off)] = src[j];
}

// dst[j] = value, j < n.
__kernel __attribute__((reqd_work_group_size(MOV_WG, 1, 1)))
void dlca_ops_fill(__global float *dst, uint n, float value) {
  uint j = (uint)get_global_id(0);
  if (j < n) dst[j] = value;
}
