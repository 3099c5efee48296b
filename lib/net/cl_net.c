/* Launchers of kernels-cl/ops/net.cl: the batch gather and the device-side
 * sums of the network trainer (lib/net/cl_net.h). */
#include "net/cl_net.h"
#include "ops/cl_elementwise.h"

/* Launches name over items work-items (one: a single work-item, the sums). */
static int run(dlca_context *ctx, const char *name, size_t items, int one, int nargs, const size_t *sizes,
               const void *const *args) {
  cl_kernel k;
  size_t wg;
  int rc = dlca__ops_cl_kernel(ctx, "NET_WG", name, &k, &wg);
  if (rc) return rc;
  if (one) wg = items = 1; /* no reqd_work_group_size */
  return dlca__ops_cl_launch(ctx, k, name, wg, items, nargs, sizes, args);
}

int dlca__net_cl_perm(dlca_context *ctx, cl_mem perm, size_t n, uint64_t seed, uint64_t epoch) {
  cl_uint cn = (cl_uint)n, cep = (cl_uint)epoch;
  cl_ulong cs = seed;
  size_t sizes[] = {sizeof(cl_mem), sizeof cn, sizeof cs, sizeof cep};
  const void *args[] = {&perm, &cn, &cs, &cep};
  return run(ctx, "dlca_net_perm_fill", n, 0, 4, sizes, args);
}

int dlca__net_cl_gather(dlca_context *ctx, const dlca_tensor *src, dlca_tensor *dst, size_t n, cl_mem perm,
                        size_t first) {
  int rc;
  if ((rc = dlca__tensor_check(ctx, src, "net gather: source")) ||
      (rc = dlca__tensor_check(ctx, dst, "net gather: batch")))
    return rc;
  size_t N = dst->rank ? dst->shape[0] : 1, row = N ? dst->n / N : 0;
  if (!N || src->n != n * row || first + N > n)
    return dlca__fail(DLCA_EINVAL, "net gather: %zu rows of %zu floats from row %zu of %zu (a %zu-float source)", N,
                      row, first, n, src->n);
  cl_uint crow = (cl_uint)row, cN = (cl_uint)N, cf = (cl_uint)first;
  cl_int permute = perm != NULL;
  cl_mem p = perm ? perm : src->buf; /* not read without perm */
  size_t m = sizeof(cl_mem), u = sizeof(cl_uint);
  size_t sizes[] = {m, m, u, u, m, u, sizeof permute};
  const void *args[] = {&src->buf, &dst->buf, &crow, &cN, &p, &cf, &permute};
  return run(ctx, "dlca_net_gather", N * row, 0, 7, sizes, args);
}

int dlca__net_cl_accum(dlca_context *ctx, const dlca_tensor *loss, dlca_tensor *acc, float w) {
  size_t m = sizeof(cl_mem), sizes[] = {m, m, sizeof w};
  const void *args[] = {&loss->buf, &acc->buf, &w};
  return run(ctx, "dlca_net_accum", 1, 1, 3, sizes, args);
}

int dlca__net_cl_correct(dlca_context *ctx, const dlca_tensor *logits, const dlca_tensor *target, dlca_tensor *acc) {
  cl_uint N = (cl_uint)logits->shape[0], K = (cl_uint)logits->shape[1];
  size_t m = sizeof(cl_mem), sizes[] = {m, m, m, sizeof N, sizeof K};
  const void *args[] = {&logits->buf, &target->buf, &acc->buf, &N, &K};
  return run(ctx, "dlca_net_correct", 1, 1, 5, sizes, args);
}
