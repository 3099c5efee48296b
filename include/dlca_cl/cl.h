/* OpenCL: devices, the context, the run-time kernel loader with its on-disk
 * binary cache, and the tuned-parameter table. Environment variables:
 *   DLCA_CL_DEVICE       device spec: "0", "1:0", "gpu", "cpu", "accelerator", or a name substring
 *   DLCA_CL_KERNEL_PATH  colon-separated directories searched for .cl files before the installed ones
 *   DLCA_CL_CACHE_DIR    binary cache directory (else $XDG_CACHE_HOME/dlca_cl, ~/.cache/dlca_cl, a temp dir)
 *   DLCA_CL_CACHE        0 turns the binary cache off
 *   DLCA_CL_TUNING       a tuning table that overrides the shipped and cached ones */
#ifndef DLCA_CL_CL_H
#define DLCA_CL_CL_H

#include "dlca_cl/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dlca_context dlca_context;

typedef enum dlca_device_type {
  DLCA_DEVICE_CPU = 1,
  DLCA_DEVICE_GPU = 2,
  DLCA_DEVICE_ACCELERATOR = 4,
  DLCA_DEVICE_OTHER = 8
} dlca_device_type;

typedef struct dlca_device_info {
  char spec[16];            /* "platform:device", accepted by dlca_context_new */
  int platform_index, device_index;
  char platform[128], platform_version[128];
  char name[256], vendor[128], driver[128], version[128];
  dlca_device_type type;
  unsigned compute_units;
  uint64_t global_mem, local_mem, max_alloc;
  size_t max_work_group;
  int is_default;
} dlca_device_info;

/* Every device of every platform. Free the list with free(). DLCA_ENOPLATFORM
 * (naming PoCL as the CPU fallback to install) if there is no platform. */
DLCA_API DLCA_WUR int dlca_device_list(dlca_device_info **out, size_t *n);

/* A context on the device that `spec` selects; spec NULL or "" means
 * $DLCA_CL_DEVICE, else the default: the best GPU, else an accelerator, else a CPU. */
DLCA_API DLCA_WUR int dlca_context_new(const char *spec, dlca_context **out);
DLCA_API void dlca_context_free(dlca_context *ctx);
DLCA_API void dlca_context_device(const dlca_context *ctx, dlca_device_info *out);

#ifdef __cplusplus
}
#endif
#endif
