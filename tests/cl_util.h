/* Helpers for the OpenCL suites (device, cache, tuning): the no-platform
 * skip, fresh cache and kernel directories, and the selftest.cl probes. */
#ifndef DLCA_TESTS_CL_UTIL_H
#define DLCA_TESTS_CL_UTIL_H
#include "cl/runtime.h"
#include "util.h"

/* Saves the runner's DLCA_CL_KERNEL_PATH (tests/main.c, before any test),
 * which tcl_platform() and tcl_fresh_env() put back. */
void tcl_save_env(void);
/* 1 if an OpenCL platform exists; else prints a SKIP line and returns 0.
 * It first puts back the runner's DLCA_CL_KERNEL_PATH. */
int tcl_platform(void);
/* Resets the DLCA_CL_* environment to what the test runner was started
 * with, then points DLCA_CL_CACHE_DIR at a fresh directory (returned). */
const char *tcl_fresh_env(const char *tag);
/* A fresh directory holding copies of kernels-cl/selftest.cl and rng.cl,
 * put first on DLCA_CL_KERNEL_PATH. */
const char *tcl_kernel_copy(const char *tag);
/* A new context on $DLCA_CL_DEVICE or the default device; fails the test
 * on error. */
dlca_context *tcl_context(void);
/* Builds selftest.cl with options and runs dlca_selftest_params: *wg gets
 * the WG_SIZE the kernel reports, *reqd its CL_KERNEL_COMPILE_WORK_GROUP_SIZE. */
void tcl_selftest_params(dlca_context *ctx, const char *options, int *wg, size_t *reqd,
                         dlca_build_info *info);
/* Runs dlca_selftest_rng for n values and returns how many differ from
 * dlca_rng_u32 on the host. */
size_t tcl_rng_mismatches(dlca_context *ctx, const char *options, uint64_t key, uint32_t a, size_t n);
/* Which forward/backward steps the trainers of ctx run (trainer.cl's
 * KERNELS): 0 those of trainer.cl, shaped for GPUs (CI has no GPU, so PoCL
 * is where they are tested), 1 those of trainer_cpu.cl; vec > 0 also sets
 * trainer_cpu.cl's VEC and groups > 0 its CPU_GROUPS_PER_CU. */
/* trainer.cl's KERNELS; with 1, trainer_cpu.cl's VEC and CPU_GROUPS_PER_CU
 * (0: tuned), with 2, trainer_tile.cl's TL and TWG (0: tuned), rolled. */
void tcl_step_kernels(dlca_context *ctx, int kernels, int vec, int groups);
/* Number of files in dir whose name contains `part`. */
int tcl_count_files(const char *dir, const char *part);
/* Flips bit 4 of the byte at offset `at` of the file at path (a damaged
 * cache entry). */
void tcl_flip_byte(const char *path, long at);
#endif
