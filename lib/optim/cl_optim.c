/* The optimizer on the device (dlca_cl/optim.h): its object, the program
 * kernels-cl/optim.cl, the lr and the checkpoints, which reuse the CPU
 * twin's byte format through the twin's own object. */
#include <stdlib.h>
#include <string.h>

#include "optim/cl_internal.h"

#define OPTIM_FILE "optim.cl"
/* The twin's bits: OpenCL's float division and sqrt may be off by ulps. */
#define OPTIM_OPTIONS "-cl-fp32-correctly-rounded-divide-sqrt"

int dlca__optim_cl_no_fp64;

static int has_fp64(dlca_context *ctx) {
  char ext[8192] = "";
  if (dlca__optim_cl_no_fp64) return 0;
  if (clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL) != CL_SUCCESS) return 0;
  return strstr(ext, "cl_khr_fp64") != NULL;
}

static int kernels(dlca_optim_cl *o) {
  cl_program prog;
  const char *opts = o->fp64 ? OPTIM_OPTIONS : OPTIM_OPTIONS " -DOPTIM_FLOAT_SUMS=1";
  int v, rc = dlca__memo_program(o->ctx, OPTIM_FILE, opts, &prog);
  if (rc || (rc = dlca__memo_tunable(o->ctx, OPTIM_FILE, "OPTIM_WG", &v))) return rc;
  if ((size_t)v > o->ctx->info.max_work_group)
    return dlca__fail(DLCA_ECONFIG, "%s: OPTIM_WG %d is over the device's largest work-group, %zu", OPTIM_FILE, v,
                      o->ctx->info.max_work_group);
  o->wg = (size_t)v;
  if ((rc = dlca__kernel_create(o->ctx, prog, dlca__optim_cl_step_name(o->host->cfg.kind), &o->k_step)) ||
      (rc = dlca__kernel_create(o->ctx, prog, "dlca_optim_sumsq", &o->k_sumsq)) ||
      (rc = dlca__kernel_create(o->ctx, prog, "dlca_optim_norm", &o->k_norm)) ||
      (rc = dlca__kernel_create(o->ctx, prog, "dlca_optim_scale", &o->k_scale)) ||
      (rc = dlca__kernel_create(o->ctx, prog, dlca__optim_cl_flat_name(o->host->cfg.kind), &o->k_flat)))
    return rc;
  return dlca__kernel_create(o->ctx, prog, "dlca_optim_clamp", &o->k_clamp);
}

/* The state's value before any step: adagrad's initial_accumulator_value, else 0. */
static float state_init(const dlca_optim_cl *o) {
  const dlca_optim_config *c = &o->host->cfg;
  return c->kind == DLCA_OPTIM_ADAGRAD ? (float)c->initial_accumulator_value : 0.0f;
}

/* The state on the device in its layout (cl_internal.h), gaps included,
 * at its initial value, and the norm's buffer. */
static int state_new(dlca_optim_cl *o) {
  size_t floats = o->host->n_slots * o->ss, bytes = sizeof(float) * (floats ? floats : 1);
  int rc = dlca__buffer(o->ctx, bytes, "optimizer state", &o->state);
  if (!rc) rc = dlca__buffer(o->ctx, 2 * sizeof(double), "optimizer norm", &o->norm);
  if (rc) return rc;
  float init = state_init(o);
  cl_int err = clEnqueueFillBuffer(o->ctx->queue, o->state, &init, sizeof init, 0, bytes, 0, NULL, NULL);
  if (err != CL_SUCCESS) return dlca__fail_cl(err, "optimizer state: filling: %s", dlca__cl_error_name(err));
  return DLCA_OK;
}

static int setup(dlca_optim_cl *o, const dlca_optim_config *cfg, dlca_tensor *const *params) {
  size_t *sizes = malloc(sizeof *sizes * o->n);
  if (!sizes) return dlca__fail(DLCA_ENOMEM, "device optimizer: out of host memory");
  for (size_t i = 0; i < o->n; i++) sizes[i] = params[i]->n;
  int rc = dlca_optim_new(cfg, o->n, sizes, &o->host);
  free(sizes);
  o->cache_p = calloc(o->n + 1, sizeof *o->cache_p);
  o->cache_g = calloc(o->n + 1, sizeof *o->cache_g);
  if (!rc && (!o->cache_p || !o->cache_g)) rc = dlca__fail(DLCA_ENOMEM, "device optimizer: out of host memory");
  o->fp64 = has_fp64(o->ctx);
  if (!rc) rc = kernels(o);
  if (!rc) rc = dlca__optim_cl_plans(o, params);
  if (!rc) rc = state_new(o);
  if (!rc) rc = dlca__optim_cl_fixed_args(o);
  return rc;
}

int dlca_optim_cl_new(dlca_context *ctx, const dlca_optim_config *cfg, size_t n, dlca_tensor *const *params,
                      dlca_optim_cl **out) {
  *out = NULL;
  if (!ctx || !cfg) return dlca__fail(DLCA_EINVAL, "dlca_optim_cl_new: NULL context or configuration");
  if (!n || !params) return dlca__fail(DLCA_EINVAL, "dlca_optim_cl_new: no parameter tensors");
  int rc = dlca_optim_config_check(cfg);
  if (rc) return rc;
  dlca_optim_cl *o = calloc(1, sizeof *o);
  if (!o) return dlca__fail(DLCA_ENOMEM, "dlca_optim_cl_new: out of host memory");
  o->ctx = ctx, o->n = n, o->last_max_norm = -1;
  for (size_t i = 0; i < n && !rc; i++) {
    if (!params[i]) rc = dlca__fail(DLCA_EINVAL, "dlca_optim_cl_new: parameter %zu is NULL", i);
    else if (params[i]->ctx != ctx)
      rc = dlca__fail(DLCA_EINVAL, "dlca_optim_cl_new: parameter %zu belongs to another context", i);
  }
  if (!rc) rc = setup(o, cfg, params);
  if (rc) dlca_optim_cl_free(o);
  else *out = o;
  return rc;
}

void dlca_optim_cl_free(dlca_optim_cl *o) {
  if (!o) return;
  cl_kernel ks[] = {o->k_step, o->k_sumsq, o->k_norm, o->k_scale, o->k_clamp, o->k_flat};
  for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
    if (ks[i]) clReleaseKernel(ks[i]);
  if (o->state) clReleaseMemObject(o->state);
  if (o->norm) clReleaseMemObject(o->norm);
  dlca__optim_cl_plans_free(o);
  dlca_optim_free(o->host);
  free(o->cache_p), free(o->cache_g), free(o);
}

int dlca_optim_cl_set_lr(dlca_optim_cl *o, double lr) {
  if (!o) return dlca__fail(DLCA_EINVAL, "dlca_optim_cl_set_lr: no optimizer (NULL)");
  return dlca_optim_set_lr(o->host, lr);
}

uint64_t dlca_optim_cl_steps(const dlca_optim_cl *o) { return o ? o->host->steps : 0; }

size_t dlca_optim_cl_state_size(const dlca_optim_cl *o) { return o ? dlca_optim_state_size(o->host) : 0; }

static size_t state_bytes(const dlca_optim_cl *o) { return sizeof(float) * o->host->n_slots * o->ss; }

/* The device's state layout (dev) to the twin's (to_host), or back. */
static void state_map(dlca_optim_cl *o, float *dev, int to_host) {
  const dlca_optimizer *h = o->host;
  for (size_t j = 0; j < h->n_slots; j++)
    for (size_t i = 0; i < o->n; i++) {
      float *hs = h->state + j * h->total + h->offsets[i], *ds = dev + j * o->ss + o->dev_off[i];
      if (h->sizes[i]) memcpy(to_host ? hs : ds, to_host ? ds : hs, sizeof(float) * h->sizes[i]);
    }
}

int dlca_optim_cl_state_save(dlca_optim_cl *o, void *buf, size_t cap) {
  if (!o) return dlca__fail(DLCA_EINVAL, "dlca_optim_cl_state_save: no optimizer (NULL)");
  size_t need = dlca_optim_state_size(o->host), bytes = state_bytes(o);
  if (!buf || cap < need)
    return dlca__fail(DLCA_EINVAL, "optimizer state: buffer of %zu bytes, %zu needed", cap, need);
  if (!bytes) {
    int rc = dlca__finish(o->ctx, "optimizer state");
    return rc ? rc : dlca_optim_state_save(o->host, buf, cap);
  }
  float *dev = malloc(bytes);
  if (!dev) return dlca__fail(DLCA_ENOMEM, "optimizer state: out of host memory for %zu bytes", bytes);
  int rc = dlca__download(o->ctx, o->state, 0, bytes, dev, "optimizer state");
  if (!rc) state_map(o, dev, 1);
  free(dev);
  return rc ? rc : dlca_optim_state_save(o->host, buf, cap);
}

int dlca_optim_cl_state_load(dlca_optim_cl *o, const void *buf, size_t len) {
  if (!o) return dlca__fail(DLCA_EINVAL, "dlca_optim_cl_state_load: no optimizer (NULL)");
  int rc = dlca_optim_state_load(o->host, buf, len);
  size_t bytes = state_bytes(o);
  if (rc || !bytes) return rc;
  float *dev = malloc(bytes), init = state_init(o);
  if (!dev) return dlca__fail(DLCA_ENOMEM, "optimizer state: out of host memory for %zu bytes", bytes);
  for (size_t i = 0; i < bytes / sizeof(float); i++) dev[i] = init;
  state_map(o, dev, 0);
  rc = dlca__upload(o->ctx, o->state, 0, bytes, dev, "optimizer state");
  free(dev);
  return rc;
}
