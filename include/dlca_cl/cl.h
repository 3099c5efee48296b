/* OpenCL: devices, the context, the run-time kernel loader with its on-disk
 * binary cache, and the tuned-parameter table. Environment variables:
 *   DLCA_CL_DEVICE       device spec: "0", "1:0", "gpu", "cpu", "accelerator", or a name substring
 *   DLCA_CL_KERNEL_PATH  colon-separated directories searched for .cl files before the installed ones
 *   DLCA_CL_CACHE_DIR    binary cache directory (else $XDG_CACHE_HOME/dlca_cl, ~/.cache/dlca_cl, none)
 *   DLCA_CL_CACHE        0 turns the binary cache off
 *   DLCA_CL_TUNING       a tuning table that overrides the shipped and cached ones
 *                        (doc/tuning-table.md); a malformed one fails dlca_context_new
 *   DLCA_CL_BUILD_OPTIONS extra compiler options for every build (part of the cache key); with
 *                        it set, successful build logs go to dlca_context_warnings()
 * The cache is described in doc/kernel-cache.md. */
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

/* How dlca_context_build got a program. from_cache is one of these: 0 means
 * it was compiled from source in this call. */
#define DLCA_BUILD_COMPILED 0
#define DLCA_BUILD_DISK 1   /* loaded from the on-disk binary cache */
#define DLCA_BUILD_MEMORY 2 /* already built in this context */

typedef struct dlca_build_info {
  int from_cache;            /* DLCA_BUILD_* */
  double build_ms;           /* wall time of this call: compile, or load from disk */
  char source_file[1024];    /* the .cl file found on the kernel search path */
  char cache_file[1024];     /* its binary cache entry; "" with the cache off */
} dlca_build_info;

/* Builds kernels-cl/`file` ("selftest.cl") with extra `options` (NULL for
 * none) on ctx, through the in-memory and on-disk caches. The program stays
 * in ctx. DLCA_ENOKERNEL if the file is not on the search path; DLCA_EBUILD
 * with the full build log, the file, the device and the options in
 * dlca_last_error(). info may be NULL. */
DLCA_API DLCA_WUR int dlca_context_build(dlca_context *ctx, const char *file, const char *options,
                                         dlca_build_info *info);

/* The binary cache directory now in effect (DLCA_CL_CACHE_DIR, else
 * $XDG_CACHE_HOME/dlca_cl, else ~/.cache/dlca_cl with HOME or the password
 * database's home), whether or not DLCA_CL_CACHE=0 turns the cache off;
 * DLCA_EINVAL if there is none (never a shared temp dir). A context reads
 * it when created, and uses it only if this user owns it and no one else
 * can write it (doc/kernel-cache.md). */
DLCA_API DLCA_WUR int dlca_cache_dir(char *buf, size_t n);
/* Deletes every cached program binary and bank-aware gate order under
 * dlca_cache_dir(). The user tuning table (tuning.json) there is kept. */
DLCA_API DLCA_WUR int dlca_cache_clear(void);

/* Warnings recorded by ctx, one per line ("" if none): a user tuning table
 * tuned on another device and therefore ignored, an unusable cache
 * directory, a kernel's register cap (@ptx-maxnreg) that could not be
 * applied. The library never prints them. Valid until ctx next warns. */
DLCA_API const char *dlca_context_warnings(const dlca_context *ctx);

/* Per-kernel device time. With profiling on, every launch keeps its event;
 * dlca_context_profile waits for the queue and sums device time by kernel
 * name since the last reset. Free *out with free(). */
typedef struct dlca_kernel_profile {
  char name[64];
  double total_ms;
  uint64_t count;
} dlca_kernel_profile;

DLCA_API void dlca_context_set_profiling(dlca_context *ctx, int on);
DLCA_API DLCA_WUR int dlca_context_profile(dlca_context *ctx, dlca_kernel_profile **out, size_t *n);
DLCA_API void dlca_context_profile_reset(dlca_context *ctx);

#ifdef __cplusplus
}
#endif
#endif
