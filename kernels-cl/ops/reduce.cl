// sum, max and mean over a set of axes, forward and backward, float32
// (shared/testdata/ops/README.md, op reduce; CPU twin lib/ops/ref_reduce.c).
// One work-item per output element walks its reduced positions in x's
// row-major order, so every result has a fixed order and no atomics. In x's
// rank-4 axes: kd is the kept extent (1 on a reduced axis), rd the reduced
// extent (1 on a kept axis), xs x's strides. fn: 0 sum, 1 max, 2 mean.

// @tunable RED_WG 64 32 128 256 | 1..1024 pow2
#ifndef RED_WG
#define RED_WG 64
#endif

// x's index of reduced position r of output i.
uint dlca_red_at(uint i, uint r, uint4 kd, uint4 rd, uint4 xs) {
  uint4 p;
  p.w = i % kd.w + r % rd.w, i /= kd.w, r /= rd.w;
  p.z = i % kd.z + r % rd.z, i /= kd.z, r /= rd.z;
  p.y = i % kd.y + r % rd.y, i /= kd.y, r /= rd.y;
  p.x = i + r;
  return p.x * xs.x + p.y * xs.y + p.z * xs.z + p.w * xs.w;
}

__kernel __attribute__((reqd_work_group_size(RED_WG, 1, 1)))
void dlca_ops_reduce(__global const float *x, __global float *y, uint ny, int fn, uint4 kd, uint4 rd, uint4 xs) {
  uint i = (uint)get_global_id(0);
  if (i >= ny) return;
  uint nr = rd.x * rd.y * rd.z * rd.w;
  float acc = fn == 1 ? -INFINITY : 0.0f, comp = 0.0f;
  for (uint r = 0; r < nr; r++) {
    float v = x[dlca_red_at(i, r, kd, rd, xs)];
    if (fn == 1) {
      acc = v > acc ? v : acc;
    } else {
      float t = acc + (v - comp);  // Kahan
      comp = (t - acc) - (v - comp);
      acc = t;
    }
  }
  y[i] = fn == 2 ? acc / (float)nr : acc;
}

// dx over output i's positions: dy[i] (sum), dy[i] / count (mean), or dy[i]
// at the first maximum and 0 elsewhere (max). Each x element belongs to one output.
__kernel __attribute__((reqd_work_group_size(RED_WG, 1, 1)))
void dlca_ops_reduce_backward(__global const float *x, __global const float *dy, __global float *dx, uint ny, int fn,
                              uint4 kd, uint4 rd, uint4 xs) {
  uint i = (uint)get_global_id(0);
  if (i >= ny) return;
  uint nr = rd.x * rd.y * rd.z * rd.w, arg = 0;
  if (nr == 0) return;  // no positions: nothing to write
  if (fn == 1) {
    float best = x[dlca_red_at(i, 0, kd, rd, xs)];
    for (uint r = 1; r < nr; r++) {
      float v = x[dlca_red_at(i, r, kd, rd, xs)];
      if (v > best) best = v, arg = r;
    }
  }
  float g = fn == 2 ? dy[i] / (float)nr : dy[i];
  for (uint r = 0; r < nr; r++) dx[dlca_red_at(i, r, kd, rd, xs)] = fn != 1 || r == arg ? g : 0.0f;
}
