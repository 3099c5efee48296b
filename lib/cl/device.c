/* Devices: enumerate every platform's devices, pick the default, and resolve
 * a device spec ("0", "1:0", "gpu", "cpu", "accelerator", a name substring). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cl/runtime.h"

/* ocl-icd's answer when no ICD is installed (cl_khr_icd). */
#define CL_PLATFORM_NOT_FOUND_KHR_VALUE (-1001)

#define NO_PLATFORM_MSG                                                                          \
  "no OpenCL platform was found: the OpenCL ICD loader lists no driver (see /etc/OpenCL/vendors). " \
  "Install a GPU driver's OpenCL ICD, or PoCL as the CPU fallback (Debian/Ubuntu: apt-get install " \
  "pocl-opencl-icd)"

static void info_str(cl_device_id d, cl_device_info what, char *buf, size_t n) {
  buf[0] = 0;
  if (clGetDeviceInfo(d, what, n, buf, NULL) != CL_SUCCESS) buf[0] = 0;
  buf[n - 1] = 0;
}

static void platform_str(cl_platform_id p, cl_platform_info what, char *buf, size_t n) {
  buf[0] = 0;
  if (clGetPlatformInfo(p, what, n, buf, NULL) != CL_SUCCESS) buf[0] = 0;
  buf[n - 1] = 0;
}

/* One scalar device property; 0 where the driver does not answer. */
static cl_uint dev_uint(cl_device_id d, cl_device_info what) {
  cl_uint u = 0;
  clGetDeviceInfo(d, what, sizeof u, &u, NULL);
  return u;
}

static cl_ulong dev_ulong(cl_device_id d, cl_device_info what) {
  cl_ulong v = 0;
  clGetDeviceInfo(d, what, sizeof v, &v, NULL);
  return v;
}

static void fill(dlca__device *dv, cl_platform_id p, cl_device_id d, int pi, int di) {
  dlca_device_info *o = &dv->info;
  memset(dv, 0, sizeof *dv);
  dv->platform = p;
  dv->device = d;
  o->platform_index = pi;
  o->device_index = di;
  snprintf(o->spec, sizeof o->spec, "%d:%d", pi, di);
  platform_str(p, CL_PLATFORM_NAME, o->platform, sizeof o->platform);
  platform_str(p, CL_PLATFORM_VERSION, o->platform_version, sizeof o->platform_version);
  platform_str(p, CL_PLATFORM_VENDOR, dv->platform_vendor, sizeof dv->platform_vendor);
  info_str(d, CL_DEVICE_NAME, o->name, sizeof o->name);
  info_str(d, CL_DEVICE_VENDOR, o->vendor, sizeof o->vendor);
  info_str(d, CL_DRIVER_VERSION, o->driver, sizeof o->driver);
  info_str(d, CL_DEVICE_VERSION, o->version, sizeof o->version);
  cl_device_type t = 0;
  clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, NULL);
  o->type = (t & CL_DEVICE_TYPE_GPU)           ? DLCA_DEVICE_GPU
            : (t & CL_DEVICE_TYPE_ACCELERATOR) ? DLCA_DEVICE_ACCELERATOR
            : (t & CL_DEVICE_TYPE_CPU)         ? DLCA_DEVICE_CPU
                                               : DLCA_DEVICE_OTHER;
  o->compute_units = dev_uint(d, CL_DEVICE_MAX_COMPUTE_UNITS);
  dv->clock_mhz = dev_uint(d, CL_DEVICE_MAX_CLOCK_FREQUENCY);
  o->global_mem = dev_ulong(d, CL_DEVICE_GLOBAL_MEM_SIZE);
  o->local_mem = dev_ulong(d, CL_DEVICE_LOCAL_MEM_SIZE);
  o->max_alloc = dev_ulong(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  size_t s = 0;
  clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof s, &s, NULL);
  o->max_work_group = s;
}

/* Within a kind, the most compute throughput wins; memory breaks ties (and
 * decides alone where a driver reports no clock). */
static int better(const dlca__device *a, const dlca__device *b) {
  double sa = (double)a->info.compute_units * (a->clock_mhz ? a->clock_mhz : 1);
  double sb = (double)b->info.compute_units * (b->clock_mhz ? b->clock_mhz : 1);
  if (sa != sb) return sa > sb;
  return a->info.global_mem > b->info.global_mem;
}

static int kind_rank(dlca_device_type t) {
  switch (t) {
  case DLCA_DEVICE_GPU: return 3;
  case DLCA_DEVICE_ACCELERATOR: return 2;
  case DLCA_DEVICE_CPU: return 1;
  default: return 0;
  }
}

/* The best device of `type` (0: any, by GPU > accelerator > CPU > other)
 * among those with mask[i] set; n if none. */
static size_t best_of(const dlca__device *devs, size_t n, const unsigned char *mask, int type) {
  size_t best = n;
  for (size_t i = 0; i < n; i++) {
    if (mask && !mask[i]) continue;
    if (type && (int)devs[i].info.type != type) continue;
    if (best == n) {
      best = i;
      continue;
    }
    int ri = kind_rank(devs[i].info.type), rb = kind_rank(devs[best].info.type);
    if (ri > rb || (ri == rb && better(&devs[i], &devs[best]))) best = i;
  }
  return best;
}

int dlca__device_enum(dlca__device **out, size_t *n) {
  *out = NULL;
  *n = 0;
  cl_uint np = 0;
  cl_int err = clGetPlatformIDs(0, NULL, &np);
  if (err == CL_PLATFORM_NOT_FOUND_KHR_VALUE || (err == CL_SUCCESS && np == 0))
    return dlca__fail(DLCA_ENOPLATFORM, NO_PLATFORM_MSG);
  if (err != CL_SUCCESS) {
    dlca__fail_cl(err, "clGetPlatformIDs failed: %s; " NO_PLATFORM_MSG, dlca__cl_error_name(err));
    return DLCA_ENOPLATFORM;
  }
  cl_platform_id *ps = calloc(np, sizeof *ps);
  if (!ps) return dlca__fail(DLCA_ENOMEM, "out of memory listing OpenCL platforms");
  err = clGetPlatformIDs(np, ps, NULL);
  if (err != CL_SUCCESS) {
    free(ps);
    return dlca__fail_cl(err, "clGetPlatformIDs failed: %s", dlca__cl_error_name(err));
  }
  dlca__device *devs = NULL;
  size_t nd = 0;
  for (cl_uint p = 0; p < np; p++) {
    cl_uint k = 0;
    /* A platform without devices (CL_DEVICE_NOT_FOUND) is simply skipped. */
    if (clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, 0, NULL, &k) != CL_SUCCESS || k == 0) continue;
    cl_device_id *ds = calloc(k, sizeof *ds);
    dlca__device *nd2 = realloc(devs, (nd + k) * sizeof *devs);
    if (!ds || !nd2) {
      free(ds);
      free(nd2 ? nd2 : devs);
      free(ps);
      return dlca__fail(DLCA_ENOMEM, "out of memory listing OpenCL devices");
    }
    devs = nd2;
    if (clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, k, ds, NULL) == CL_SUCCESS)
      for (cl_uint d = 0; d < k; d++) fill(&devs[nd++], ps[p], ds[d], (int)p, (int)d);
    free(ds);
  }
  free(ps);
  if (nd == 0) {
    free(devs);
    return dlca__fail(DLCA_ENOPLATFORM, "the OpenCL platforms list no device; " NO_PLATFORM_MSG);
  }
  size_t def = best_of(devs, nd, NULL, 0);
  devs[def].info.is_default = 1;
  *out = devs;
  *n = nd;
  return DLCA_OK;
}

static int all_digits(const char *s, size_t len) {
  if (len == 0) return 0;
  for (size_t i = 0; i < len; i++)
    if (!isdigit((unsigned char)s[i])) return 0;
  return 1;
}

static int contains_ci(const char *hay, const char *needle) {
  size_t nl = strlen(needle);
  for (const char *h = hay; *h; h++)
    if (strncasecmp(h, needle, nl) == 0) return 1;
  return nl == 0;
}

/* var: the environment variable that gave the spec, named first so that a
 * stale export is found ("DLCA_CL_DEVICE=7: no OpenCL device matches ..."). */
static int no_device(const dlca__device *devs, size_t n, const char *var, const char *spec, const char *why) {
  dlca__fail(DLCA_ENODEVICE,
             "%s%s%s%sno OpenCL device matches \"%s\"%s. A spec is a flat index, \"platform:device\", "
             "\"gpu\", \"cpu\", \"accelerator\", or a substring of a device, vendor or platform "
             "name (\"pocl\", \"nvidia\", \"h200\"). Available:",
             var ? var : "", var ? "=" : "", var ? spec : "", var ? ": " : "", spec, why);
  static const char *kinds[] = {"", "cpu", "gpu", "", "accelerator", "", "", "", "other"};
  for (size_t i = 0; i < n; i++) {
    char line[700];
    snprintf(line, sizeof line, "\n  %zu  %s  %s  [%s, %s, %s]%s", i, devs[i].info.spec,
             devs[i].info.name, kinds[devs[i].info.type & 15], devs[i].info.vendor,
             devs[i].info.platform, devs[i].info.is_default ? " (default)" : "");
    dlca__append_error(line);
  }
  return DLCA_ENODEVICE;
}

int dlca__device_select(const dlca__device *devs, size_t n, const char *spec, size_t *index) {
  const char *var = NULL;
  if (!spec || !*spec) {
    spec = getenv("DLCA_CL_DEVICE");
    var = "DLCA_CL_DEVICE";
  }
  if (!spec || !*spec) {
    for (size_t i = 0; i < n; i++)
      if (devs[i].info.is_default) return *index = i, DLCA_OK;
    return no_device(devs, n, NULL, "(default)", "");
  }
  /* Leading and trailing blanks come easily from shell scripts. */
  char s[256];
  while (isspace((unsigned char)*spec)) spec++;
  snprintf(s, sizeof s, "%s", spec);
  for (size_t l = strlen(s); l > 0 && isspace((unsigned char)s[l - 1]); l--) s[l - 1] = 0;
  size_t len = strlen(s);
  const char *colon = strchr(s, ':');
  if (all_digits(s, len)) {
    unsigned long i = strtoul(s, NULL, 10);
    if (len > 6 || i >= n) return no_device(devs, n, var, s, " (index out of range)");
    return *index = (size_t)i, DLCA_OK;
  }
  if (colon && all_digits(s, (size_t)(colon - s)) && all_digits(colon + 1, strlen(colon + 1)) &&
      len < 16) {
    int p = atoi(s), d = atoi(colon + 1);
    for (size_t i = 0; i < n; i++)
      if (devs[i].info.platform_index == p && devs[i].info.device_index == d)
        return *index = i, DLCA_OK;
    return no_device(devs, n, var, s, " (no such platform:device)");
  }
  int type = 0;
  if (!strcasecmp(s, "gpu")) type = DLCA_DEVICE_GPU;
  else if (!strcasecmp(s, "cpu")) type = DLCA_DEVICE_CPU;
  else if (!strcasecmp(s, "accelerator") || !strcasecmp(s, "acc")) type = DLCA_DEVICE_ACCELERATOR;
  if (type) {
    size_t b = best_of(devs, n, NULL, type);
    if (b == n) return no_device(devs, n, var, s, " (no device of that type)");
    return *index = b, DLCA_OK;
  }
  unsigned char *mask = calloc(n, 1);
  if (!mask) return dlca__fail(DLCA_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++)
    mask[i] = contains_ci(devs[i].info.name, s) || contains_ci(devs[i].info.vendor, s) ||
              contains_ci(devs[i].info.platform, s) || contains_ci(devs[i].platform_vendor, s);
  size_t b = best_of(devs, n, mask, 0);
  free(mask);
  if (b == n) return no_device(devs, n, var, s, "");
  *index = b;
  return DLCA_OK;
}

int dlca_device_list(dlca_device_info **out, size_t *n) {
  if (!out || !n) return dlca__fail(DLCA_EINVAL, "dlca_device_list: NULL argument");
  *out = NULL;
  *n = 0;
  dlca__device *devs;
  size_t nd;
  int rc = dlca__device_enum(&devs, &nd);
  if (rc) return rc;
  dlca_device_info *o = malloc(nd * sizeof *o);
  if (!o) {
    free(devs);
    return dlca__fail(DLCA_ENOMEM, "out of memory listing OpenCL devices");
  }
  for (size_t i = 0; i < nd; i++) o[i] = devs[i].info;
  free(devs);
  *out = o;
  *n = nd;
  return DLCA_OK;
}
