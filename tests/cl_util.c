/* Helpers for the OpenCL suites: see cl_util.h. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cl_util.h"

/* The runner's DLCA_CL_KERNEL_PATH, saved before any test changes it
 * (under CK_FORK=no every test shares one process, and the library knows no
 * kernels but the installed ones without it). */
static char *saved_kpath;

void tcl_save_env(void) {
  const char *k = getenv("DLCA_CL_KERNEL_PATH");
  free(saved_kpath);
  saved_kpath = k ? strdup(k) : NULL;
}

static void restore_kpath(void) {
  if (saved_kpath) setenv("DLCA_CL_KERNEL_PATH", saved_kpath, 1);
  else unsetenv("DLCA_CL_KERNEL_PATH");
}

int tcl_platform(void) {
  restore_kpath(); /* whatever the test before this one set */
  dlca_device_info *d;
  size_t n;
  int rc = dlca_device_list(&d, &n);
  if (rc == DLCA_ENOPLATFORM) {
    fprintf(stderr, "SKIP: no OpenCL platform: %s\n", dlca_last_error());
    return 0;
  }
  ck_assert_msg(rc == DLCA_OK, "dlca_device_list: %s", dlca_last_error());
  free(d);
  return 1;
}

const char *tcl_fresh_env(const char *tag) {
  restore_kpath();
  unsetenv("DLCA_CL_TUNING");
  unsetenv("DLCA_CL_CACHE");
  const char *dir = tu_tmpdir(tag);
  setenv("DLCA_CL_CACHE_DIR", dir, 1);
  return dir;
}

static void copy_file(const char *from, const char *to) {
  char *text;
  size_t len;
  ck_assert_msg(dlca__read_file(from, &text, &len) == DLCA_OK, "%s", dlca_last_error());
  FILE *f = fopen(to, "wb");
  ck_assert_msg(f != NULL, "cannot write %s", to);
  ck_assert(fwrite(text, 1, len, f) == len);
  fclose(f);
  free(text);
}

const char *tcl_kernel_copy(const char *tag) {
  const char *dir = tu_tmpdir(tag);
  static const char *files[] = {"selftest.cl", "rng.cl"};
  for (int i = 0; i < 2; i++) {
    char from[1024], to[1100];
    ck_assert_msg(dlca__kernel_find(files[i], from, sizeof from) == DLCA_OK, "%s", dlca_last_error());
    snprintf(to, sizeof to, "%s/%s", dir, files[i]);
    copy_file(from, to);
  }
  setenv("DLCA_CL_KERNEL_PATH", dir, 1);
  return dir;
}

dlca_context *tcl_context(void) {
  dlca_context *ctx = NULL;
  int rc = dlca_context_new(NULL, &ctx);
  ck_assert_msg(rc == DLCA_OK, "dlca_context_new: %s", dlca_last_error());
  return ctx;
}

void tcl_selftest_params(dlca_context *ctx, const char *options, int *wg, size_t *reqd,
                         dlca_build_info *info) {
  cl_program prog;
  int rc = dlca__program_get(ctx, "selftest.cl", options, &prog, info);
  ck_assert_msg(rc == DLCA_OK, "build: %s", dlca_last_error());
  cl_kernel k;
  ck_assert_msg(dlca__kernel_create(ctx, prog, "dlca_selftest_params", &k) == DLCA_OK, "%s",
                dlca_last_error());
  size_t r[3] = {0, 0, 0};
  ck_assert_int_eq(clGetKernelWorkGroupInfo(k, ctx->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                            sizeof r, r, NULL), CL_SUCCESS);
  cl_mem out;
  ck_assert_msg(dlca__buffer(ctx, 2 * sizeof(int), "params probe", &out) == DLCA_OK, "%s",
                dlca_last_error());
  ck_assert_int_eq(clSetKernelArg(k, 0, sizeof out, &out), CL_SUCCESS);
  size_t g = r[0], l = r[0];
  ck_assert_msg(dlca__launch(ctx, k, "params", 1, &g, &l) == DLCA_OK, "%s", dlca_last_error());
  int v[2] = {0, 0};
  ck_assert_msg(dlca__download(ctx, out, 0, sizeof v, v, "params probe") == DLCA_OK, "%s",
                dlca_last_error());
  ck_assert_int_eq(v[1], (int)r[0]);
  *wg = v[0];
  *reqd = r[0];
  clReleaseMemObject(out);
  clReleaseKernel(k);
}

size_t tcl_rng_mismatches(dlca_context *ctx, const char *options, uint64_t key, uint32_t a, size_t n) {
  cl_program prog;
  ck_assert_msg(dlca__program_get(ctx, "selftest.cl", options, &prog, NULL) == DLCA_OK, "%s",
                dlca_last_error());
  cl_kernel k;
  ck_assert_msg(dlca__kernel_create(ctx, prog, "dlca_selftest_rng", &k) == DLCA_OK, "%s",
                dlca_last_error());
  size_t r[3] = {0, 0, 0};
  clGetKernelWorkGroupInfo(k, ctx->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof r, r, NULL);
  ck_assert(r[0] > 0);
  cl_mem out;
  ck_assert_msg(dlca__buffer(ctx, n * sizeof(uint32_t), "rng values", &out) == DLCA_OK, "%s",
                dlca_last_error());
  cl_ulong ck = key;
  cl_uint ca = a, cn = (cl_uint)n;
  ck_assert_int_eq(clSetKernelArg(k, 0, sizeof out, &out), CL_SUCCESS);
  ck_assert_int_eq(clSetKernelArg(k, 1, sizeof ck, &ck), CL_SUCCESS);
  ck_assert_int_eq(clSetKernelArg(k, 2, sizeof ca, &ca), CL_SUCCESS);
  ck_assert_int_eq(clSetKernelArg(k, 3, sizeof cn, &cn), CL_SUCCESS);
  size_t g = (n + r[0] - 1) / r[0] * r[0], l = r[0];
  ck_assert_msg(dlca__launch(ctx, k, "rng", 1, &g, &l) == DLCA_OK, "%s", dlca_last_error());
  uint32_t *v = malloc(n * sizeof *v);
  ck_assert_msg(dlca__download(ctx, out, 0, n * sizeof *v, v, "rng values") == DLCA_OK, "%s",
                dlca_last_error());
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t want = dlca_rng_u32(key, a, (uint32_t)i);
    if (v[i] != want && bad++ < 3)
      fprintf(stderr, "rng.cl: key %llx a %u b %zu: device %08x, host %08x\n",
              (unsigned long long)key, a, i, v[i], want);
  }
  free(v);
  clReleaseMemObject(out);
  clReleaseKernel(k);
  return bad;
}

void tcl_step_kernels(dlca_context *ctx, int kernels, int vec, int groups) {
  ck_assert_msg(dlca__tuning_override(ctx, "trainer.cl", "KERNELS", kernels) == DLCA_OK, "%s", dlca_last_error());
  if (kernels == 2) {
    /* trainer_tile.cl: rolled loops (PoCL builds them in seconds); vec and
     * groups are its TL and TWG */
    ck_assert_msg(dlca__tuning_override(ctx, "trainer_tile.cl", "TUNROLL", 0) == DLCA_OK, "%s", dlca_last_error());
    if (vec > 0)
      ck_assert_msg(dlca__tuning_override(ctx, "trainer_tile.cl", "TL", vec) == DLCA_OK, "%s", dlca_last_error());
    if (groups > 0)
      ck_assert_msg(dlca__tuning_override(ctx, "trainer_tile.cl", "TWG", groups) == DLCA_OK, "%s", dlca_last_error());
    return;
  }
  if (vec > 0)
    ck_assert_msg(dlca__tuning_override(ctx, "trainer_cpu.cl", "VEC", vec) == DLCA_OK, "%s", dlca_last_error());
  if (groups > 0)
    ck_assert_msg(dlca__tuning_override(ctx, "trainer_cpu.cl", "CPU_GROUPS_PER_CU", groups) == DLCA_OK, "%s",
                  dlca_last_error());
}

int tcl_count_files(const char *dir, const char *part) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.' && strstr(e->d_name, part)) n++;
  closedir(d);
  return n;
}

void tcl_flip_byte(const char *path, long at) {
  int fd = open(path, O_RDWR);
  ck_assert_msg(fd >= 0, "%s", path);
  unsigned char byte;
  ck_assert(pread(fd, &byte, 1, (off_t)at) == 1);
  byte ^= 0x10;
  ck_assert(pwrite(fd, &byte, 1, (off_t)at) == 1);
  close(fd);
}
