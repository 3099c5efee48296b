/* Devices and contexts on the real ICD loader (PoCL in CI): enumeration,
 * every kind of device spec, the no-platform message, buffers, launches
 * and profiling. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cl_util.h"

static dlca_device_info *list(size_t *n) {
  dlca_device_info *d;
  ck_assert_msg(dlca_device_list(&d, n) == DLCA_OK, "%s", dlca_last_error());
  ck_assert(*n >= 1);
  return d;
}

/* The spec of the device that a context on `spec` gets, or "" on failure. */
static const char *selected(const char *spec, int *rc) {
  static char buf[16];
  dlca_context *ctx;
  buf[0] = 0;
  *rc = dlca_context_new(spec, &ctx);
  if (*rc) return buf;
  dlca_device_info d;
  dlca_context_device(ctx, &d);
  snprintf(buf, sizeof buf, "%s", d.spec);
  dlca_context_free(ctx);
  return buf;
}

START_TEST(test_list) {
  if (!tcl_platform()) return;
  size_t n;
  dlca_device_info *d = list(&n);
  int defaults = 0;
  for (size_t i = 0; i < n; i++) {
    int p, q;
    ck_assert_msg(sscanf(d[i].spec, "%d:%d", &p, &q) == 2, "spec %s", d[i].spec);
    ck_assert_int_eq(p, d[i].platform_index);
    ck_assert_int_eq(q, d[i].device_index);
    ck_assert(d[i].name[0] && d[i].platform[0]);
    ck_assert(d[i].compute_units > 0 && d[i].max_work_group > 0);
    ck_assert(d[i].global_mem > 0 && d[i].max_alloc > 0 && d[i].max_alloc <= d[i].global_mem);
    defaults += d[i].is_default;
    fprintf(stderr, "device %zu: %s %s [%s] driver %s\n", i, d[i].spec, d[i].name, d[i].platform,
            d[i].driver);
  }
  ck_assert_int_eq(defaults, 1);
  free(d);
}
END_TEST

START_TEST(test_select_index) {
  if (!tcl_platform()) return;
  tcl_fresh_env("dev-index");
  size_t n;
  dlca_device_info *d = list(&n);
  int rc;
  for (size_t i = 0; i < n && i < 4; i++) {
    char spec[16];
    snprintf(spec, sizeof spec, "%zu", i);
    ck_assert_str_eq(selected(spec, &rc), d[i].spec);
    ck_assert_str_eq(selected(d[i].spec, &rc), d[i].spec); /* platform:device */
  }
  ck_assert_str_eq(selected(" 0 ", &rc), d[0].spec);
  /* NULL and "" mean $DLCA_CL_DEVICE, else the default. */
  unsetenv("DLCA_CL_DEVICE");
  for (size_t i = 0; i < n; i++)
    if (d[i].is_default) ck_assert_str_eq(selected(NULL, &rc), d[i].spec);
  setenv("DLCA_CL_DEVICE", d[n - 1].spec, 1);
  ck_assert_str_eq(selected("", &rc), d[n - 1].spec);
  ck_assert_str_eq(selected("0", &rc), d[0].spec); /* the argument wins over the variable */
  unsetenv("DLCA_CL_DEVICE");
  free(d);
}
END_TEST

START_TEST(test_select_type_and_name) {
  if (!tcl_platform()) return;
  tcl_fresh_env("dev-type");
  size_t n;
  dlca_device_info *d = list(&n);
  int have[9] = {0}, rc;
  for (size_t i = 0; i < n; i++) have[d[i].type] = 1;
  static const char *types[] = {"", "cpu", "gpu", "", "accelerator"};
  for (int t = 1; t <= 4; t *= 2) {
    char upper[16];
    snprintf(upper, sizeof upper, "%s", types[t]);
    for (char *c = upper; *c; c++) *c = (char)(*c - 32);
    const char *s = selected(upper, &rc);
    if (!have[t]) {
      ck_assert_int_eq(rc, DLCA_ENODEVICE);
      ck_assert_msg(strstr(dlca_last_error(), "Available") != NULL, "%s", dlca_last_error());
      continue;
    }
    ck_assert_msg(rc == DLCA_OK, "%s: %s", upper, dlca_last_error());
    int found = 0;
    for (size_t i = 0; i < n; i++)
      if (!strcmp(d[i].spec, s)) found = (int)d[i].type == t;
    ck_assert_msg(found, "\"%s\" selected %s", upper, s);
  }
  /* "pocl" names PoCL through its platform; elsewhere use a piece of a name. */
  size_t pocl = n;
  for (size_t i = 0; i < n && pocl == n; i++)
    if (strstr(d[i].platform, "Portable Computing Language")) pocl = i;
  if (pocl < n) {
    const char *s = selected("PoCL", &rc);
    ck_assert_msg(rc == DLCA_OK, "%s", dlca_last_error());
    int ok = 0;
    for (size_t i = 0; i < n; i++)
      if (!strcmp(d[i].spec, s)) ok = strstr(d[i].platform, "Portable Computing Language") != NULL;
    ck_assert_msg(ok, "\"PoCL\" selected %s", s);
  } else {
    fprintf(stderr, "note: no PoCL device; testing a name substring instead\n");
  }
  char part[8];
  size_t len = strlen(d[n - 1].name);
  snprintf(part, sizeof part, "%.4s", d[n - 1].name + (len > 8 ? len / 2 - 2 : 0));
  const char *s = selected(part, &rc);
  ck_assert_msg(rc == DLCA_OK, "\"%s\": %s", part, dlca_last_error());
  int ok = 0;
  for (size_t i = 0; i < n; i++)
    if (!strcmp(d[i].spec, s)) ok = strstr(d[i].name, part) || strstr(d[i].vendor, part) ||
                                     strstr(d[i].platform, part);
  ck_assert_msg(ok, "\"%s\" selected %s", part, s);
  free(d);
}
END_TEST

START_TEST(test_bad_spec) {
  if (!tcl_platform()) return;
  tcl_fresh_env("dev-bad");
  size_t n;
  dlca_device_info *d = list(&n);
  static const char *bad[] = {"no-such-device-xyz", "99", "7:7", "1:", ":1"};
  int rc;
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    selected(bad[i], &rc);
    ck_assert_msg(rc == DLCA_ENODEVICE, "\"%s\": %d", bad[i], rc);
    const char *m = dlca_last_error();
    ck_assert_msg(strstr(m, bad[i]) && strstr(m, "Available") && strstr(m, d[0].spec) &&
                      strstr(m, d[0].name) && strstr(m, "\"gpu\""),
                  "message: %s", m);
  }
  setenv("DLCA_CL_DEVICE", "bogus-device", 1);
  selected(NULL, &rc);
  ck_assert_int_eq(rc, DLCA_ENODEVICE);
  ck_assert(strstr(dlca_last_error(), "bogus-device") != NULL);
  unsetenv("DLCA_CL_DEVICE");
  dlca_context *ctx = (dlca_context *)&rc;
  ck_assert_int_eq(dlca_context_new(NULL, NULL), DLCA_EINVAL);
  ck_assert_int_eq(dlca_context_new("nothing-matches-this", &ctx), DLCA_ENODEVICE);
  ck_assert_ptr_null(ctx);
  dlca_context_free(NULL);
  free(d);
}
END_TEST

/* The real loader with an empty vendor directory: no platform at all. A
 * child process, because ocl-icd reads its vendors once per process. */
START_TEST(test_no_platform) {
  char dir[1100];
  snprintf(dir, sizeof dir, "%s", tu_tmpdir("dev-noplat"));
  pid_t pid = fork();
  ck_assert(pid >= 0);
  if (pid == 0) {
    setenv("OCL_ICD_VENDORS", dir, 1);
    setenv("OPENCL_VENDOR_PATH", dir, 1);
    dlca_device_info *d;
    size_t n;
    int rc = dlca_device_list(&d, &n);
    if (rc == DLCA_OK) _exit(77); /* the loader had already read its vendors */
    const char *m = dlca_last_error();
    fprintf(stderr, "no platform: %s\n", m);
    int ok = rc == DLCA_ENOPLATFORM && strstr(m, "no OpenCL platform") &&
             strstr(m, "apt-get install pocl-opencl-icd") && strstr(m, "PoCL");
    dlca_context *ctx;
    ok = ok && dlca_context_new(NULL, &ctx) == DLCA_ENOPLATFORM;
    _exit(ok ? 0 : 1);
  }
  int st;
  ck_assert(waitpid(pid, &st, 0) == pid);
  ck_assert(WIFEXITED(st));
  if (WEXITSTATUS(st) == 77) {
    fprintf(stderr, "SKIP: the ICD loader was initialised before the fork (CK_FORK=no?)\n");
    return;
  }
  ck_assert_msg(WEXITSTATUS(st) == 0, "no-platform child failed");
}
END_TEST

START_TEST(test_error_names) {
  ck_assert_str_eq(dlca__cl_error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
  ck_assert_str_eq(dlca__cl_error_name(CL_BUILD_PROGRAM_FAILURE), "CL_BUILD_PROGRAM_FAILURE");
  ck_assert_str_eq(dlca__cl_error_name(CL_INVALID_WORK_GROUP_SIZE), "CL_INVALID_WORK_GROUP_SIZE");
  ck_assert_str_eq(dlca__cl_error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
  ck_assert_str_eq(dlca__cl_error_name(12345), "CL_UNKNOWN_ERROR");
}
END_TEST

START_TEST(test_buffers) {
  if (!tcl_platform()) return;
  tcl_fresh_env("dev-buf");
  dlca_context *ctx = tcl_context();
  cl_mem b;
  int rc = dlca__buffer(ctx, (size_t)ctx->info.max_alloc + 4096, "the grid states", &b);
  ck_assert_int_eq(rc, DLCA_EDEVMEM);
  const char *m = dlca_last_error();
  ck_assert_msg(strstr(m, "the grid states") && strstr(m, "MiB") &&
                    strstr(m, "CL_DEVICE_MAX_MEM_ALLOC_SIZE") && strstr(m, ctx->info.name),
                "%s", m);
  ck_assert_int_eq(dlca__buffer(ctx, 0, "nothing", &b), DLCA_EINVAL);
  ck_assert_msg(dlca__buffer(ctx, 1000 * sizeof(float), "values", &b) == DLCA_OK, "%s",
                dlca_last_error());
  float in[1000], out[1000];
  tu_random(in, 1000, -1, 1, 5);
  ck_assert(dlca__upload(ctx, b, 0, sizeof in, in, "values") == DLCA_OK);
  ck_assert(dlca__download(ctx, b, 0, sizeof out, out, "values") == DLCA_OK);
  ck_assert(!memcmp(in, out, sizeof in));
  /* Past the end: the error names the buffer and the OpenCL code. */
  rc = dlca__download(ctx, b, 4000, 4000, out, "values");
  ck_assert_int_ne(rc, DLCA_OK);
  ck_assert(strstr(dlca_last_error(), "values") && strstr(dlca_last_error(), "CL_INVALID_VALUE"));
  ck_assert_int_eq(dlca_last_cl_error(), CL_INVALID_VALUE);
  clReleaseMemObject(b);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_launch_and_profile) {
  if (!tcl_platform()) return;
  tcl_fresh_env("dev-launch");
  dlca_context *ctx = tcl_context();
  ck_assert_uint_eq(tcl_rng_mismatches(ctx, NULL, 1, 2, 100), 0); /* profiling off: not counted */
  dlca_context_set_profiling(ctx, 1);
  for (int i = 0; i < 3; i++) ck_assert_uint_eq(tcl_rng_mismatches(ctx, NULL, 7, (uint32_t)i, 5000), 0);
  int wg;
  size_t reqd;
  tcl_selftest_params(ctx, NULL, &wg, &reqd, NULL);
  dlca_kernel_profile *p;
  size_t n;
  ck_assert_msg(dlca_context_profile(ctx, &p, &n) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_uint_eq(n, 2);
  ck_assert_str_eq(p[0].name, "rng");
  ck_assert_uint_eq(p[0].count, 3);
  ck_assert_str_eq(p[1].name, "params");
  ck_assert_uint_eq(p[1].count, 1);
  ck_assert(p[0].total_ms >= 0 && p[0].total_ms < 10000);
  fprintf(stderr, "profile: rng %.3f ms x %llu, params %.3f ms\n", p[0].total_ms,
          (unsigned long long)p[0].count, p[1].total_ms);
  free(p);
  dlca_context_profile_reset(ctx);
  ck_assert(dlca_context_profile(ctx, &p, &n) == DLCA_OK);
  ck_assert_uint_eq(n, 0);
  free(p);

  /* A wrong local size names the kernel and the OpenCL error. */
  cl_program prog;
  cl_kernel k;
  ck_assert(dlca__program_get(ctx, "selftest.cl", NULL, &prog, NULL) == DLCA_OK);
  ck_assert(dlca__kernel_create(ctx, prog, "dlca_selftest_params", &k) == DLCA_OK);
  cl_mem b;
  ck_assert(dlca__buffer(ctx, 64, "probe", &b) == DLCA_OK);
  clSetKernelArg(k, 0, sizeof b, &b);
  size_t g = reqd * 2, l = reqd / 2;
  int rc = dlca__launch(ctx, k, "params-wrong-local", 1, &g, &l);
  ck_assert_int_eq(rc, DLCA_ECL);
  ck_assert_msg(strstr(dlca_last_error(), "params-wrong-local") &&
                    strstr(dlca_last_error(), "CL_INVALID_WORK_GROUP_SIZE"),
                "%s", dlca_last_error());
  ck_assert_int_eq(dlca_last_cl_error(), CL_INVALID_WORK_GROUP_SIZE);
  /* No such kernel. */
  cl_kernel k2;
  ck_assert_int_eq(dlca__kernel_create(ctx, prog, "no_such_kernel", &k2), DLCA_ECL);
  ck_assert(strstr(dlca_last_error(), "no_such_kernel") != NULL);
  clReleaseMemObject(b);
  clReleaseKernel(k);
  dlca_context_free(ctx);
}
END_TEST

Suite *suite_device(void) {
  Suite *s = suite_create("device");
  TCase *tc = tcase_create("device");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_list);
  tcase_add_test(tc, test_select_index);
  tcase_add_test(tc, test_select_type_and_name);
  tcase_add_test(tc, test_bad_spec);
  tcase_add_test(tc, test_no_platform);
  tcase_add_test(tc, test_error_names);
  tcase_add_test(tc, test_buffers);
  tcase_add_test(tc, test_launch_and_profile);
  suite_add_tcase(s, tc);
  return s;
}
