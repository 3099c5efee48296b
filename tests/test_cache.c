/* The kernel loader and the binary cache: rng.cl against its CPU twin,
 * memory and disk hits, misses on changed source or options, corrupt
 * entries, two processes at once, build errors and include handling. */
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cl_util.h"

static int build(const char *file, const char *options, dlca_build_info *bi) {
  dlca_context *ctx = tcl_context();
  int rc = dlca_context_build(ctx, file, options, bi);
  dlca_context_free(ctx);
  return rc;
}

static void must_build(const char *file, const char *options, dlca_build_info *bi) {
  int rc = build(file, options, bi);
  ck_assert_msg(rc == DLCA_OK, "%s: %s", file, dlca_last_error());
}

static void append(const char *path, const char *text) {
  FILE *f = fopen(path, "ab");
  ck_assert(f != NULL);
  fputs(text, f);
  fclose(f);
}

static off_t file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? st.st_size : -1;
}

/* spec: kernels-cl/rng.cl computes dlca_rng_u32 bit for bit. */
START_TEST(test_rng_parity) {
  if (!tcl_platform()) return;
  tcl_fresh_env("cache-rng");
  dlca_context *ctx = tcl_context();
  static const uint64_t keys[] = {0, 1, 0xdeadbeefcafebabeULL, ~0ULL};
  static const uint32_t as[] = {0, 7, 0xffffffffu};
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++)
      ck_assert_uint_eq(tcl_rng_mismatches(ctx, NULL, keys[i], as[j], 4099), 0);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_memory_and_disk_hits) {
  if (!tcl_platform()) return;
  const char *dir = tcl_fresh_env("cache-hit");
  dlca_context *ctx = tcl_context();
  dlca_build_info a, b, c;
  cl_program p1, p2;
  ck_assert_msg(dlca__program_get(ctx, "selftest.cl", NULL, &p1, &a) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_int_eq(a.from_cache, DLCA_BUILD_COMPILED);
  ck_assert(strstr(a.source_file, "selftest.cl") != NULL);
  ck_assert(strncmp(a.cache_file, dir, strlen(dir)) == 0);
  ck_assert(file_size(a.cache_file) > 0);
  ck_assert(dlca__program_get(ctx, "selftest.cl", NULL, &p2, &b) == DLCA_OK);
  ck_assert_int_eq(b.from_cache, DLCA_BUILD_MEMORY);
  ck_assert_ptr_eq(p1, p2);
  ck_assert_str_eq(a.cache_file, b.cache_file);
  dlca_context_free(ctx);
  /* A new context in the same process reads the disk entry, and it runs. */
  ctx = tcl_context();
  ck_assert(dlca__program_get(ctx, "selftest.cl", NULL, &p1, &c) == DLCA_OK);
  ck_assert_int_eq(c.from_cache, DLCA_BUILD_DISK);
  ck_assert_str_eq(c.cache_file, a.cache_file);
  ck_assert_uint_eq(tcl_rng_mismatches(ctx, NULL, 42, 3, 1000), 0);
  fprintf(stderr, "selftest.cl on %s: compiled %.1f ms, from disk %.1f ms, in memory %.3f ms\n",
          ctx->info.name, a.build_ms, c.build_ms, b.build_ms);
  ck_assert_int_eq(tcl_count_files(dir, ".clbin"), 0); /* entries live under programs/ */
  char progs[1100];
  snprintf(progs, sizeof progs, "%s/programs", dir);
  ck_assert_int_eq(tcl_count_files(progs, ".clbin"), 1);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_options_miss) {
  if (!tcl_platform()) return;
  tcl_fresh_env("cache-opts");
  dlca_build_info a, b, c, d;
  must_build("selftest.cl", NULL, &a);
  must_build("selftest.cl", "-DDLCA_TEST_OPTION=1", &b);
  must_build("selftest.cl", "-DDLCA_TEST_OPTION=2", &c);
  must_build("selftest.cl", "-DDLCA_TEST_OPTION=1", &d);
  ck_assert_int_eq(b.from_cache, DLCA_BUILD_COMPILED);
  ck_assert_int_eq(c.from_cache, DLCA_BUILD_COMPILED);
  ck_assert_int_eq(d.from_cache, DLCA_BUILD_DISK);
  ck_assert_str_ne(a.cache_file, b.cache_file);
  ck_assert_str_ne(b.cache_file, c.cache_file);
  ck_assert_str_eq(b.cache_file, d.cache_file);
}
END_TEST

START_TEST(test_source_miss) {
  if (!tcl_platform()) return;
  tcl_fresh_env("cache-src");
  const char *kdir = tcl_kernel_copy("cache-src-k");
  char sel[1100], rng[1100];
  snprintf(sel, sizeof sel, "%s/selftest.cl", kdir);
  snprintf(rng, sizeof rng, "%s/rng.cl", kdir);
  dlca_build_info a, b, c, d, e;
  must_build("selftest.cl", NULL, &a);
  ck_assert_str_eq(a.source_file, sel);
  must_build("selftest.cl", NULL, &b);
  ck_assert_int_eq(b.from_cache, DLCA_BUILD_DISK);
  append(sel, "// edited\n");
  must_build("selftest.cl", NULL, &c);
  ck_assert_int_eq(c.from_cache, DLCA_BUILD_COMPILED);
  ck_assert_str_ne(c.cache_file, a.cache_file);
  /* An included file is part of the key too. */
  append(rng, "// edited\n");
  must_build("selftest.cl", NULL, &d);
  ck_assert_int_eq(d.from_cache, DLCA_BUILD_COMPILED);
  ck_assert_str_ne(d.cache_file, c.cache_file);
  must_build("selftest.cl", NULL, &e);
  ck_assert_int_eq(e.from_cache, DLCA_BUILD_DISK);
}
END_TEST

/* The kernels' pieces live in a subfolder (kernels-cl/trainer/): an
 * #include "dir/x.cl" resolves against the including file's folder, an
 * include from there against its own, and an edit of either piece changes
 * the key. */
START_TEST(test_subfolder_include_key) {
  if (!tcl_platform()) return;
  tcl_fresh_env("cache-subdir");
  const char *kdir = tu_tmpdir("cache-subdir-k");
  setenv("DLCA_CL_KERNEL_PATH", kdir, 1);
  char sub[1100], piece[1200], inner[1200];
  snprintf(sub, sizeof sub, "%s/part", kdir);
  ck_assert(mkdir(sub, 0755) == 0);
  tu_write(kdir, "top.cl", "#include \"part/piece.cl\"\n__kernel void k(__global int *o) { o[0] = V + W; }\n");
  snprintf(piece, sizeof piece, "%s", tu_write(sub, "piece.cl", "#include \"inner.cl\"\n#define V 1\n"));
  snprintf(inner, sizeof inner, "%s", tu_write(sub, "inner.cl", "#define W 2\n"));
  char *src;
  ck_assert_msg(dlca__kernel_resolve("top.cl", &src, NULL, NULL, 0) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(strstr(src, "#line 1 \"part/piece.cl\"") && strstr(src, "#define W 2"), "%s", src);
  free(src);
  dlca_build_info a, b, c, d;
  must_build("top.cl", NULL, &a);
  must_build("top.cl", NULL, &b);
  ck_assert_int_eq(b.from_cache, DLCA_BUILD_DISK);
  append(piece, "// edited\n");
  must_build("top.cl", NULL, &c);
  ck_assert_int_eq(c.from_cache, DLCA_BUILD_COMPILED);
  ck_assert_str_ne(c.cache_file, a.cache_file);
  append(inner, "// edited\n");
  must_build("top.cl", NULL, &d);
  ck_assert_int_eq(d.from_cache, DLCA_BUILD_COMPILED);
  ck_assert_str_ne(d.cache_file, c.cache_file);
  unsetenv("DLCA_CL_KERNEL_PATH");
}
END_TEST

/* A damaged entry is rebuilt with no error, then served again. */
static void damage_and_rebuild(const char *how) {
  dlca_build_info a, b, c;
  must_build("selftest.cl", NULL, &a);
  off_t size = file_size(a.cache_file);
  ck_assert(size > 64);
  if (!strcmp(how, "truncate")) {
    ck_assert(truncate(a.cache_file, size / 2) == 0);
  } else if (!strcmp(how, "short")) {
    ck_assert(truncate(a.cache_file, 10) == 0);
  } else if (!strcmp(how, "empty")) {
    ck_assert(truncate(a.cache_file, 0) == 0);
  } else {
    tcl_flip_byte(a.cache_file, !strcmp(how, "flip-header") ? 2 : (long)(size / 2));
  }
  dlca_context *ctx = tcl_context();
  int rc = dlca_context_build(ctx, "selftest.cl", NULL, &b);
  ck_assert_msg(rc == DLCA_OK, "%s: %s", how, dlca_last_error());
  ck_assert_int_eq(b.from_cache, DLCA_BUILD_COMPILED);
  ck_assert_str_eq(dlca_context_warnings(ctx), "");
  ck_assert_uint_eq(tcl_rng_mismatches(ctx, NULL, 9, 9, 500), 0);
  dlca_context_free(ctx);
  ck_assert_int_eq(file_size(a.cache_file), size);
  must_build("selftest.cl", NULL, &c);
  ck_assert_int_eq(c.from_cache, DLCA_BUILD_DISK);
}

START_TEST(test_corrupt_entries) {
  if (!tcl_platform()) return;
  static const char *hows[] = {"truncate", "short", "empty", "flip-payload", "flip-header"};
  for (int i = 0; i < 5; i++) {
    char tag[32];
    snprintf(tag, sizeof tag, "cache-bad%d", i);
    tcl_fresh_env(tag);
    damage_and_rebuild(hows[i]);
  }
}
END_TEST

/* A well-formed entry whose payload the driver refuses: rebuilt too. */
START_TEST(test_refused_binary) {
  if (!tcl_platform()) return;
  tcl_fresh_env("cache-refused");
  dlca_build_info a, b;
  must_build("selftest.cl", NULL, &a);
  char *src;
  size_t len;
  dlca_context *ctx = tcl_context();
  ck_assert(dlca__kernel_source(ctx, "selftest.cl", &src, &len, NULL, 0) == DLCA_OK);
  dlca__cache_id key;
  dlca__cache_key_program(&key, &ctx->info, src, len, "");
  char path[1100];
  dlca__cache_entry_path(ctx->cache_dir, key.hash, path, sizeof path);
  ck_assert_str_eq(path, a.cache_file);
  static const unsigned char junk[] = "this is not a program binary, whatever the driver";
  ck_assert(dlca__cache_store(path, &key, junk, sizeof junk) == DLCA_OK);
  free(src);
  ck_assert(dlca_context_build(ctx, "selftest.cl", NULL, &b) == DLCA_OK);
  ck_assert_int_eq(b.from_cache, DLCA_BUILD_COMPILED);
  ck_assert(file_size(path) > (off_t)sizeof junk + 64);
  dlca_context_free(ctx);
}
END_TEST

/* An entry is bound to its whole key: one with the right name and header
 * hash but another program's key text (a hash collision, or a forgery) is
 * a miss, and is deleted. */
START_TEST(test_entry_bound_to_key) {
  if (!tcl_platform()) return;
  tcl_fresh_env("cache-bound");
  dlca_build_info a;
  must_build("selftest.cl", "-DDLCA_TEST_A=1", &a);
  dlca_context *ctx = tcl_context();
  char *src;
  size_t len;
  ck_assert(dlca__kernel_source(ctx, "selftest.cl", &src, &len, NULL, 0) == DLCA_OK);
  dlca__cache_id ka, kb;
  dlca__cache_key_program(&ka, &ctx->info, src, len, "-DDLCA_TEST_A=1");
  dlca__cache_key_program(&kb, &ctx->info, src, len, "-DDLCA_TEST_B=1");
  unsigned char *bin, *got;
  size_t blen, glen;
  ck_assert_int_eq(dlca__cache_load(a.cache_file, &ka, &bin, &blen), 0);
  char pb[1100];
  dlca__cache_entry_path(ctx->cache_dir, kb.hash, pb, sizeof pb);
  dlca__cache_id forged = ka;
  forged.hash = kb.hash;
  ck_assert(dlca__cache_store(pb, &forged, bin, blen) == DLCA_OK);
  ck_assert_int_eq(dlca__cache_load(pb, &kb, &got, &glen), 1);
  ck_assert(access(pb, F_OK) != 0);
  /* stored under its own key, it loads */
  ck_assert(dlca__cache_store(pb, &kb, bin, blen) == DLCA_OK);
  ck_assert_int_eq(dlca__cache_load(pb, &kb, &got, &glen), 0);
  ck_assert(glen == blen && memcmp(got, bin, blen) == 0);
  free(got);
  free(bin);
  free(src);
  dlca_context_free(ctx);
}
END_TEST

/* Two processes building one program at once: both succeed and leave one
 * valid entry (atomic rename, no lock file). */
START_TEST(test_two_processes) {
  const char *env = getenv("CK_FORK");
  if (env && !strcmp(env, "no")) {
    fprintf(stderr, "SKIP: the fork test needs CK_FORK unset (OpenCL is already running here)\n");
    return;
  }
  /* Before any OpenCL call in this process: a child must not inherit a
   * running OpenCL runtime. */
  const char *dir = tcl_fresh_env("cache-fork");
  int go[2];
  ck_assert(pipe(go) == 0);
  pid_t pid[2];
  for (int i = 0; i < 2; i++) {
    pid[i] = fork();
    ck_assert(pid[i] >= 0);
    if (pid[i] == 0) {
      close(go[1]);
      char c;
      if (read(go[0], &c, 1) != 0) _exit(3); /* wait for the parent's start signal (EOF) */
      dlca_context *ctx;
      int rc = dlca_context_new(NULL, &ctx);
      if (rc) _exit(rc == DLCA_ENOPLATFORM ? 77 : 1);
      dlca_build_info bi;
      rc = dlca_context_build(ctx, "selftest.cl", "-DDLCA_TEST_FORK=1", &bi);
      if (rc) fprintf(stderr, "child %d: %s\n", i, dlca_last_error());
      dlca_context_free(ctx);
      _exit(rc ? 2 : 0);
    }
  }
  close(go[0]);
  close(go[1]); /* both start now */
  int status[2];
  for (int i = 0; i < 2; i++) {
    ck_assert(waitpid(pid[i], &status[i], 0) == pid[i]);
    ck_assert(WIFEXITED(status[i]));
  }
  if (WEXITSTATUS(status[0]) == 77 && WEXITSTATUS(status[1]) == 77) {
    fprintf(stderr, "SKIP: no OpenCL platform\n");
    return;
  }
  for (int i = 0; i < 2; i++)
    ck_assert_msg(WEXITSTATUS(status[i]) == 0, "child %d failed (%d)", i, WEXITSTATUS(status[i]));
  char progs[1100];
  snprintf(progs, sizeof progs, "%s/programs", dir);
  ck_assert_int_eq(tcl_count_files(progs, ".clbin"), 1);
  ck_assert_int_eq(tcl_count_files(progs, ".tmp."), 0);
  dlca_build_info bi;
  must_build("selftest.cl", "-DDLCA_TEST_FORK=1", &bi);
  ck_assert_int_eq(bi.from_cache, DLCA_BUILD_DISK);
}
END_TEST

START_TEST(test_build_error) {
  if (!tcl_platform()) return;
  tcl_fresh_env("cache-err");
  const char *kdir = tu_tmpdir("cache-err-k");
  tu_write(kdir, "broken.cl",
           "// a kernel with a syntax error\n"
           "__kernel void broken(__global int *x) {\n"
           "  x[0] = ;\n"
           "}\n");
  char kpath[2100]; /* selftest.cl below comes from the source tree */
  snprintf(kpath, sizeof kpath, "%s:%s", kdir, DLCA_SRCDIR "/kernels-cl");
  setenv("DLCA_CL_KERNEL_PATH", kpath, 1);
  dlca_context *ctx = tcl_context();
  dlca_build_info bi;
  int rc = dlca_context_build(ctx, "broken.cl", "-DDLCA_SOME_OPTION=3", &bi);
  ck_assert_int_eq(rc, DLCA_EBUILD);
  const char *m = dlca_last_error();
  fprintf(stderr, "build error message:\n%s\n", m);
  ck_assert_msg(strstr(m, kdir) && strstr(m, "broken.cl") && strstr(m, ctx->info.name) &&
                    strstr(m, "-DDLCA_SOME_OPTION=3") && strstr(m, "Build log") &&
                    strstr(m, "error"),
                "%s", m);
  ck_assert_int_eq(dlca_last_cl_error(), CL_BUILD_PROGRAM_FAILURE);
  /* A failed build is not cached: the same call fails the same way. */
  ck_assert_int_eq(dlca_context_build(ctx, "broken.cl", "-DDLCA_SOME_OPTION=3", &bi), DLCA_EBUILD);
  /* Bad options are a build failure too. */
  rc = dlca_context_build(ctx, "selftest.cl", "-not-an-option", &bi);
  ck_assert_msg(rc == DLCA_EBUILD || rc == DLCA_ECL, "%d", rc);
  ck_assert(strstr(dlca_last_error(), "-not-an-option") != NULL);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_loader) {
  if (!tcl_platform()) return;
  tcl_fresh_env("cache-loader");
  char *src;
  size_t len;
  char path[1024];
  ck_assert(dlca__kernel_resolve("selftest.cl", &src, &len, path, sizeof path) == DLCA_OK);
  ck_assert(strstr(src, "dlca_rng_mix64") && strstr(src, "#line 1 \"rng.cl\"") &&
            !strstr(src, "#include \"rng.cl\""));
  ck_assert_uint_eq(strlen(src), len);
  free(src);
  dlca_tunable *ts;
  size_t n;
  ck_assert(dlca__kernel_tunables(NULL, "selftest.cl", &ts, &n) == DLCA_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_str_eq(ts[0].name, "WG_SIZE");
  ck_assert_int_eq(ts[0].n_values, 4);
  ck_assert_int_eq(ts[0].values[0], 64);
  ck_assert_int_eq(ts[0].values[3], 256);
  free(ts);

  const char *kdir = tu_tmpdir("cache-loader-k");
  setenv("DLCA_CL_KERNEL_PATH", kdir, 1);
  tu_write(kdir, "a.cl", "#include \"b.cl\"\n");
  tu_write(kdir, "b.cl", "  #  include \"a.cl\"\n");
  ck_assert_int_eq(dlca__kernel_resolve("a.cl", &src, &len, path, sizeof path), DLCA_EBUILD);
  ck_assert_msg(strstr(dlca_last_error(), "cycle: a.cl -> b.cl -> a.cl") != NULL, "%s", dlca_last_error());
  tu_write(kdir, "c.cl", "#include \"missing.cl\"\n");
  ck_assert_int_eq(dlca__kernel_resolve("c.cl", &src, &len, path, sizeof path), DLCA_ENOKERNEL);
  ck_assert_msg(strstr(dlca_last_error(), "c.cl includes missing.cl") != NULL, "%s", dlca_last_error());
  dlca_context *ctx = tcl_context();
  ck_assert_int_eq(dlca_context_build(ctx, "no_such_kernel.cl", NULL, NULL), DLCA_ENOKERNEL);
  ck_assert_msg(strstr(dlca_last_error(), "no_such_kernel.cl") &&
                    strstr(dlca_last_error(), "DLCA_CL_KERNEL_PATH") && strstr(dlca_last_error(), kdir),
                "%s", dlca_last_error());
  static const char *bad[] = {"// @tunable 9X 1\n", "// @tunable X\n", "// @tunable X 1 a\n",
                              "// @tunable X 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"};
  for (int i = 0; i < 4; i++) {
    tu_write(kdir, "t.cl", bad[i]);
    ck_assert_int_eq(dlca__kernel_tunables(ctx, "t.cl", &ts, &n), DLCA_EBUILD);
    ck_assert_msg(strstr(dlca_last_error(), "t.cl") && strstr(dlca_last_error(), "@tunable"), "%s",
                  dlca_last_error());
  }
  dlca_context_free(ctx);
}
END_TEST

/* The convention every kernel keeps (STYLE.md): each @tunable has an
 * #ifndef fallback with its first value, so the file builds untuned. */
START_TEST(test_kernels_have_fallbacks) {
  char dir[] = DLCA_SRCDIR "/kernels-cl";
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "ls '%s'", dir);
  FILE *ls = popen(cmd, "r");
  ck_assert(ls != NULL);
  char name[256];
  int files = 0;
  while (fgets(name, sizeof name, ls)) {
    name[strcspn(name, "\n")] = 0;
    size_t l = strlen(name);
    if (l < 4 || strcmp(name + l - 3, ".cl") != 0) continue;
    char path[1400], *src;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ck_assert(dlca__read_file(path, &src, NULL) == DLCA_OK);
    dlca_tunable *ts;
    size_t n;
    ck_assert_msg(dlca__tunables_parse(path, src, &ts, &n) == DLCA_OK, "%s", dlca_last_error());
    for (size_t i = 0; i < n; i++) {
      char want[200];
      snprintf(want, sizeof want, "#ifndef %s\n#define %s %d\n#endif", ts[i].name, ts[i].name,
               ts[i].values[0]);
      ck_assert_msg(strstr(src, want) != NULL, "%s: @tunable %s lacks \"%s\"", path, ts[i].name, want);
    }
    free(ts);
    free(src);
    files++;
  }
  pclose(ls);
  ck_assert(files >= 2);
}
END_TEST

START_TEST(test_cache_off_and_clear) {
  if (!tcl_platform()) return;
  const char *dir = tcl_fresh_env("cache-off");
  char got[1024];
  ck_assert(dlca_cache_dir(got, sizeof got) == DLCA_OK);
  ck_assert_str_eq(got, dir);
  setenv("DLCA_CL_CACHE", "0", 1);
  dlca_build_info a, b;
  must_build("selftest.cl", NULL, &a);
  must_build("selftest.cl", NULL, &b);
  ck_assert_int_eq(b.from_cache, DLCA_BUILD_COMPILED);
  ck_assert_str_eq(b.cache_file, "");
  char progs[1100];
  snprintf(progs, sizeof progs, "%s/programs", dir);
  ck_assert(access(progs, F_OK) != 0);
  unsetenv("DLCA_CL_CACHE");
  must_build("selftest.cl", NULL, &a);
  must_build("selftest.cl", "-DX=1", &b);
  ck_assert_int_eq(tcl_count_files(progs, ".clbin"), 2);
  tu_write(dir, "tuning.json", "{\"format\":\"dlca-tuning\",\"version\":1,\"entries\":[]}");
  ck_assert(dlca_cache_clear() == DLCA_OK);
  ck_assert_int_eq(tcl_count_files(progs, ".clbin"), 0);
  ck_assert_int_eq(tcl_count_files(dir, "tuning.json"), 1);
  ck_assert(dlca_cache_clear() == DLCA_OK); /* twice is fine */
  must_build("selftest.cl", NULL, &a);
  ck_assert_int_eq(a.from_cache, DLCA_BUILD_COMPILED);
}
END_TEST

START_TEST(test_cache_dir_order) {
  char got[1024], *home = getenv("HOME"), *xdg = getenv("XDG_CACHE_HOME");
  home = home ? strdup(home) : NULL; /* restored below, for CK_FORK=no */
  xdg = xdg ? strdup(xdg) : NULL;
  tcl_fresh_env("cache-order");
  unsetenv("DLCA_CL_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg/cache", 1);
  ck_assert(dlca_cache_dir(got, sizeof got) == DLCA_OK);
  ck_assert_str_eq(got, "/xdg/cache/dlca_cl");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/someone", 1);
  ck_assert(dlca_cache_dir(got, sizeof got) == DLCA_OK);
  ck_assert_str_eq(got, "/home/someone/.cache/dlca_cl");
  /* without HOME: the password database's home, never a predictable /tmp path */
  unsetenv("HOME");
  struct passwd *pw = getpwuid(geteuid());
  int rc = dlca_cache_dir(got, sizeof got);
  if (pw && pw->pw_dir && pw->pw_dir[0] == '/' && strcmp(pw->pw_dir, "/") != 0) {
    char want[1100];
    snprintf(want, sizeof want, "%s/.cache/dlca_cl", pw->pw_dir);
    ck_assert_int_eq(rc, DLCA_OK);
    ck_assert_str_eq(got, want);
  } else {
    ck_assert_int_eq(rc, DLCA_EINVAL);
    ck_assert_msg(strstr(dlca_last_error(), "DLCA_CL_CACHE_DIR") != NULL, "%s", dlca_last_error());
  }
  char small[4];
  ck_assert_int_eq(dlca_cache_dir(small, sizeof small), DLCA_EINVAL);
  if (home) setenv("HOME", home, 1);
  if (xdg) setenv("XDG_CACHE_HOME", xdg, 1);
  free(home);
  free(xdg);
  tcl_fresh_env("cache-order");
}
END_TEST

/* A cache that cannot be written costs the next run a compile, nothing more. */
START_TEST(test_unwritable_cache) {
  if (!tcl_platform()) return;
  const char *dir = tcl_fresh_env("cache-unwritable");
  setenv("DLCA_CL_CACHE_DIR", tu_write(dir, "not-a-directory", "x"), 1);
  dlca_context *ctx = tcl_context();
  dlca_build_info bi;
  ck_assert_msg(dlca_context_build(ctx, "selftest.cl", NULL, &bi) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_int_eq(bi.from_cache, DLCA_BUILD_COMPILED);
  ck_assert_msg(strstr(dlca_context_warnings(ctx), "binary cache") != NULL, "%s",
                dlca_context_warnings(ctx));
  ck_assert_uint_eq(tcl_rng_mismatches(ctx, NULL, 1, 1, 100), 0);
  dlca_context_free(ctx);
}
END_TEST

typedef struct build_job {
  dlca_context *ctx;
  cl_program prog;
  dlca_build_info bi;
  int rc;
} build_job;

static void *build_thread(void *arg) {
  build_job *j = arg;
  j->rc = dlca__program_get(j->ctx, "selftest.cl", "-DDLCA_TEST_THREADS=1", &j->prog, &j->bi);
  return NULL;
}

/* Threads asking one context for one program get it compiled once. */
START_TEST(test_threads) {
  if (!tcl_platform()) return;
  tcl_fresh_env("cache-threads");
  dlca_context *ctx = tcl_context();
  build_job jobs[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    jobs[i].ctx = ctx;
    ck_assert(pthread_create(&th[i], NULL, build_thread, &jobs[i]) == 0);
  }
  int compiled = 0;
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    ck_assert_int_eq(jobs[i].rc, DLCA_OK);
    ck_assert_ptr_eq(jobs[i].prog, jobs[0].prog);
    compiled += jobs[i].bi.from_cache == DLCA_BUILD_COMPILED;
  }
  ck_assert_int_eq(compiled, 1);
  dlca_context_free(ctx);
}
END_TEST

/* lib/cl/ptx.c: the @ptx-maxnreg annotations, the PTX patch (an entry
 * whose name begins another's, a cap written twice), and a file with caps
 * built on a device whose binaries are not PTX. */
static const char ptx_two[] =
    "//\n// Generated by NVIDIA NVVM Compiler\n.version 8.5\n.target sm_90\n.address_size 64\n\n"
    "\t// .globl\tdlca_backward_perc\n.entry dlca_backward_perc(\n\t.param .u32 p0\n)\n{\n\tret;\n}\n"
    "\t// .globl\tdlca_backward\n.visible .entry dlca_backward (\n\t.param .u32 dlca_backward_param_0,\n"
    "\t.param .u64 .ptr .global .align 4 dlca_backward_param_1\n)\n.reqntid 128, 1, 1\n{\n\tret;\n}\n";

START_TEST(test_ptx_caps) {
  ck_assert(dlca__ptx_is((const unsigned char *)ptx_two, sizeof ptx_two));
  char ptx_nuls[sizeof ptx_two + 1] = {0}; /* as the NVIDIA driver gives it: two NULs at the end */
  memcpy(ptx_nuls, ptx_two, sizeof ptx_two);
  ck_assert(dlca__ptx_is((const unsigned char *)ptx_nuls, sizeof ptx_nuls));
  ptx_nuls[20] = 0;
  ck_assert(!dlca__ptx_is((const unsigned char *)ptx_nuls, sizeof ptx_nuls));
  ck_assert(!dlca__ptx_is((const unsigned char *)"\x7f" "ELF binary .version 1\n", 22));
  char *o, *o2;
  size_t ol, ol2;
  ck_assert_int_eq(dlca__ptx_maxnreg(ptx_two, sizeof ptx_two, "dlca_backward", 128, &o, &ol), 0);
  ck_assert_uint_eq(ol, sizeof ptx_two + strlen("\n.maxnreg 128"));
  ck_assert_msg(strstr(o, "dlca_backward_param_1\n)\n.maxnreg 128\n.reqntid 128, 1, 1\n{") != NULL, "%s", o);
  ck_assert_msg(strstr(o, "p0\n)\n{") != NULL, "dlca_backward_perc was capped:\n%s", o);
  ck_assert_int_eq(dlca__ptx_maxnreg(o, ol, "dlca_backward", 96, &o2, &ol2), 0);
  ck_assert_msg(strstr(o2, ")\n.maxnreg 96\n.reqntid") && !strstr(o2, ".maxnreg 128"), "%s", o2);
  free(o2);
  ck_assert_int_eq(dlca__ptx_maxnreg(o, ol, "dlca_backward_perc", 64, &o2, &ol2), 0);
  ck_assert_msg(strstr(o2, "p0\n)\n.maxnreg 64\n{") && strstr(o2, ".maxnreg 128"), "%s", o2);
  free(o2);
  free(o);
  ck_assert_int_eq(dlca__ptx_maxnreg(ptx_two, sizeof ptx_two, "dlca_back", 64, &o, &ol), 1);
  /* the parameter list on the entry's next line; no body: not well formed */
  static const char ptx_nl[] = ".version 8.5\n.target sm_90\n.entry k\n(\n.param .u32 p\n)\n{\nret;\n}\n";
  ck_assert_int_eq(dlca__ptx_maxnreg(ptx_nl, sizeof ptx_nl - 1, "k", 32, &o, &ol), 0);
  ck_assert_msg(strstr(o, "p\n)\n.maxnreg 32\n{") != NULL, "%s", o);
  free(o);
  ck_assert_int_eq(dlca__ptx_maxnreg(ptx_nl, 40, "k", 32, &o, &ol), 2);
  ck_assert_int_eq(dlca__ptx_maxnreg(ptx_two, sizeof ptx_two, "dlca_forward", 64, &o, &ol), 1);

  dlca__ptx_cap caps[2];
  int n;
  ck_assert_int_eq(dlca__ptx_caps("x.cl", "#define A 128\n#define B 0\n#line 1 \"x.cl\"\n"
                                          "// @ptx-maxnreg k1 A\n  //  @ptx-maxnreg k2 B\n", NULL, caps, 2, &n),
                   DLCA_OK);
  ck_assert_int_eq(n, 2);
  ck_assert_str_eq(caps[0].kernel, "k1");
  ck_assert_int_eq(caps[0].maxnreg, 128);
  ck_assert_int_eq(caps[1].maxnreg, 0);
  /* a -D option wins over the tuned #define, the last one over earlier ones */
  ck_assert_int_eq(dlca__ptx_caps("x.cl", "#define A 128\n#line 1\n// @ptx-maxnreg k1 A\n// @ptx-maxnreg k2 N\n",
                                  "-DAB=3 -DA=96 -DN=1 -DN=80 -DX=1", caps, 2, &n),
                   DLCA_OK);
  ck_assert_int_eq(n, 2);
  ck_assert_int_eq(caps[0].maxnreg, 96);
  ck_assert_int_eq(caps[1].maxnreg, 80);
  static const char *bad[] = {"#define A 1\n#line 1\n// @ptx-maxnreg k\n",
                              "#define A 1\n#line 1\n// @ptx-maxnreg k A B\n",
                              "#define A 1\n#line 1\n// @ptx-maxnreg k AB\n",
                              "#define A 16\n#line 1\n// @ptx-maxnreg k A\n// @ptx-maxnreg k B\n",
                              "#define A 256\n#line 1\n// @ptx-maxnreg k A\n"};
  for (int i = 0; i < 5; i++) {
    ck_assert_int_eq(dlca__ptx_caps("bad.cl", bad[i], "-DAB=x -DB=1", caps, 2, &n), DLCA_EBUILD);
    ck_assert_msg(strstr(dlca_last_error(), "bad.cl") && strstr(dlca_last_error(), "@ptx-maxnreg"), "%s",
                  dlca_last_error());
  }

  if (!tcl_platform()) return;
  tcl_fresh_env("cache-ptx");
  const char *kdir = tu_tmpdir("cache-ptx-k");
  setenv("DLCA_CL_KERNEL_PATH", kdir, 1);
  tu_write(kdir, "capped.cl",
           "// @tunable CAP 64 0\n// @ptx-maxnreg k CAP\n#ifndef CAP\n#define CAP 64\n#endif\n"
           "__kernel void k(__global int *x) { x[get_global_id(0)] = CAP; }\n");
  tu_write(kdir, "badcap.cl", "// @ptx-maxnreg k NOPE\n__kernel void k(__global int *x) { x[0] = 1; }\n");
  dlca_context *ctx = tcl_context();
  dlca_build_info bi;
  ck_assert_msg(dlca_context_build(ctx, "capped.cl", NULL, &bi) == DLCA_OK, "%s", dlca_last_error());
  /* PoCL's binaries are not PTX: the cap is ignored, with a warning */
  const char *w = dlca_context_warnings(ctx);
  if (!strstr(ctx->info.vendor, "NVIDIA"))
    ck_assert_msg(w && strstr(w, "capped.cl") && strstr(w, "not PTX"), "%s", w ? w : "(no warnings)");
  /* a cap of 0 asks for nothing: no warning */
  tu_write(kdir, "uncapped.cl", "// @ptx-maxnreg k N\n__kernel void k(__global int *x) { x[0] = 2; }\n");
  ck_assert_msg(dlca_context_build(ctx, "uncapped.cl", "-DN=0", &bi) == DLCA_OK, "%s", dlca_last_error());
  w = dlca_context_warnings(ctx);
  ck_assert_msg(!w || !strstr(w, "uncapped.cl"), "%s", w);
  ck_assert_int_eq(dlca_context_build(ctx, "badcap.cl", NULL, &bi), DLCA_EBUILD);
  ck_assert_msg(strstr(dlca_last_error(), "badcap.cl") && strstr(dlca_last_error(), "NOPE"), "%s",
                dlca_last_error());
  dlca_context_free(ctx);
}
END_TEST

void tm_add_memo(TCase *tc); /* tests/test_memo.c */

Suite *suite_cache(void) {
  Suite *s = suite_create("cache");
  TCase *tc = tcase_create("cache");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_rng_parity);
  tcase_add_test(tc, test_memory_and_disk_hits);
  tcase_add_test(tc, test_options_miss);
  tcase_add_test(tc, test_source_miss);
  tcase_add_test(tc, test_subfolder_include_key);
  tcase_add_test(tc, test_corrupt_entries);
  tcase_add_test(tc, test_refused_binary);
  tcase_add_test(tc, test_entry_bound_to_key);
  tcase_add_test(tc, test_two_processes);
  tcase_add_test(tc, test_build_error);
  tcase_add_test(tc, test_loader);
  tcase_add_test(tc, test_kernels_have_fallbacks);
  tcase_add_test(tc, test_cache_off_and_clear);
  tcase_add_test(tc, test_cache_dir_order);
  tcase_add_test(tc, test_unwritable_cache);
  tcase_add_test(tc, test_threads);
  tcase_add_test(tc, test_ptx_caps);
  tm_add_memo(tc);
  suite_add_tcase(s, tc);
  return s;
}
