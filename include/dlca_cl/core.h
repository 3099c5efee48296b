/* Core of the public API: visibility, status codes, the last-error message,
 * the version query and the counter-based RNG shared by host and device. */
#ifndef DLCA_CL_CORE_H
#define DLCA_CL_CORE_H

#include <stddef.h>
#include <stdint.h>
#include "dlca_cl/version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(DLCA_BUILDING_LIB) && defined(__GNUC__)
#define DLCA_API __attribute__((visibility("default")))
#else
#define DLCA_API
#endif

#if defined(__GNUC__)
#define DLCA_WUR __attribute__((warn_unused_result))
#else
#define DLCA_WUR
#endif

/* The one status list: X(name, value, message). DLCA_OK is 0, failures are
 * negative. dlca_strerror() and dlca_strerror_name() come from this list. */
#define DLCA_STATUS_MAP(X)                                                    \
  X(OK, 0, "success")                                                         \
  X(EINVAL, -1, "invalid argument")                                           \
  X(ENOMEM, -2, "out of host memory")                                         \
  X(EIO, -3, "file input/output error")                                       \
  X(EPARSE, -4, "malformed file")                                             \
  X(EMODEL, -5, "invalid model")                                              \
  X(ECONFIG, -6, "impossible configuration")                                  \
  X(ENOPLATFORM, -7, "no OpenCL platform")                                    \
  X(ENODEVICE, -8, "no matching OpenCL device")                               \
  X(ECL, -9, "OpenCL call failed")                                            \
  X(EBUILD, -10, "OpenCL kernel build failed")                                \
  X(ENOKERNEL, -11, "kernel source not found")                                \
  X(EDEVMEM, -12, "out of device memory")                                     \
  X(ETUNING, -13, "invalid tuning table")                                     \
  X(ECHECKPOINT, -14, "invalid checkpoint")                                   \
  X(EUNSUPPORTED, -15, "not supported")                                       \
  X(EPARITY, -16, "device disagrees with the CPU reference")

typedef enum dlca_status {
#define DLCA__ENUM(name, value, msg) DLCA_##name = value,
  DLCA_STATUS_MAP(DLCA__ENUM)
#undef DLCA__ENUM
} dlca_status;

/* A short, static description of a status ("invalid model"). */
DLCA_API const char *dlca_strerror(int status);
/* The enum's name without prefix ("EMODEL"). */
DLCA_API const char *dlca_strerror_name(int status);

/* The detailed message of the last failure on this thread: it names the file,
 * the JSON path, the device or the OpenCL build log. Never NULL; "" when the
 * last call succeeded without leaving a message. Valid until the next failing
 * call on this thread. */
DLCA_API const char *dlca_last_error(void);
/* The cl_int of the last failing OpenCL call on this thread (0 if none), so
 * that CL_OUT_OF_RESOURCES can be told from a library error. */
DLCA_API int dlca_last_cl_error(void);

/* The run-time version ("0.1.0"), and its parts. */
DLCA_API const char *dlca_version_string(void);
DLCA_API void dlca_version(int *major, int *minor, int *patch);

/* The counter-based RNG that host and device share (doc/rng.md): a uniform
 * 32-bit value from a 64-bit key and two 32-bit counters. The kernels in
 * kernels-cl/rng.cl compute the same function bit for bit. */
DLCA_API uint32_t dlca_rng_u32(uint64_t key, uint32_t a, uint32_t b);

#ifdef __cplusplus
}
#endif
#endif
