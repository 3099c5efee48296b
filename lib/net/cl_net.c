/* Launchers of kernels-cl/ops/net.cl: the batch gather and the device-side
 * sums of the network trainer (lib/net/cl_net.h). */
#include "net/cl_net.h"
#include "ops/cl_elementwise.h"

static int run(dlca_context *ctx, const char *name, size_t items, int nargs, const size_t *sizes,
               const void *const *args) {
  cl_kernel k;
  size_t wg;
  int rc = dlca__ops_cl_kernel(ctx, "NET_WG", name, &k, &wg);
  if (rc) return rc;
  if (items == 1) wg = 1; /* the sums: one work-item, no reqd size */
  return dlca__ops_cl_launch(ctx, k, name, wg, items, nargs, sizes, args);
}

int dlca__net_cl_gather(dlca_context *ctx, const dlca_tensor *src, dlca_tensor *dst, size_t n, uint64_t seed,
                        uint64_t epoch, size_t first, int permute) {
  int rc;
  if ((rc = dlca__tensor_check(ctx, src, "net gather: source")) ||
      (rc = dlca__tensor_check(ctx, dst, "net gather: batch")))
    return rc;
  size_t N = dst->rank ? dst->shape[0] : 1, row = N ? dst->n / N : 0;
  if (!N || src->n != n * row || first + N > n)
    return dlca__fail(DLCA_EINVAL, "net gather: %zu rows of %zu floats from %zu of a %zu-float source", N, row, n,
                      src->n);
  cl_uint crow = (cl_uint)row, cN = (cl_uint)N, cn = (cl_uint)n, cep = (cl_uint)epoch, cf = (cl_uint)first;
  cl_ulong cs = seed;
  cl_int perm = permute != 0;
  size_t m = sizeof(cl_mem), u = sizeof(cl_uint);
  size_t sizes[] = {m, m, u, u, u, sizeof cs, u, u, sizeof perm};
  const void *args[] = {&src->buf, &dst->buf, &crow, &cN, &cn, &cs, &cep, &cf, &perm};
  return run(ctx, "dlca_net_gather", N * row, 9, sizes, args);
}

int dlca__net_cl_accum(dlca_context *ctx, const dlca_tensor *loss, dlca_tensor *acc, float w) {
  size_t m = sizeof(cl_mem), sizes[] = {m, m, sizeof w};
  const void *args[] = {&loss->buf, &acc->buf, &w};
  return run(ctx, "dlca_net_accum", 1, 3, sizes, args);
}

int dlca__net_cl_correct(dlca_context *ctx, const dlca_tensor *logits, const dlca_tensor *target, dlca_tensor *acc) {
  cl_uint N = (cl_uint)logits->shape[0], K = (cl_uint)logits->shape[1];
  size_t m = sizeof(cl_mem), sizes[] = {m, m, m, sizeof N, sizeof K};
  const void *args[] = {&logits->buf, &target->buf, &acc->buf, &N, &K};
  return run(ctx, "dlca_net_correct", 1, 5, sizes, args);
}
