/* The tuning table: name normalisation, the device > vendor > default
 * lookup, tables that change what a kernel is built with, malformed tables,
 * tables tuned on another device, and the tuner's overrides. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cl_util.h"

START_TEST(test_normalise) {
  char out[128];
  dlca__normalise_name("Intel(R) Core(TM) i7-8700K  CPU @ 3.70GHz", out, sizeof out);
  ck_assert_str_eq(out, "intel core i7-8700k cpu @ 3.70ghz");
  dlca__normalise_name("  NVIDIA \t H200  ", out, sizeof out);
  ck_assert_str_eq(out, "nvidia h200");
  dlca__normalise_name("AMD Radeon(tm) Pro (r)", out, sizeof out);
  ck_assert_str_eq(out, "amd radeon pro");
  dlca__normalise_name("", out, sizeof out);
  ck_assert_str_eq(out, "");
  char small[4];
  dlca__normalise_name("ABCDEFG", small, sizeof small);
  ck_assert_str_eq(small, "abc");
}
END_TEST

static const char *levels_table =
    "{\"format\": \"dlca-tuning\", \"version\": 1, \"entries\": [\n"
    " {\"device\": \"default\", \"params\": {\"selftest\": {\"WG_SIZE\": 64}, \"other\": {\"A\": 1}}},\n"
    " {\"vendor\": \"NVIDIA Corporation\", \"params\": {\"selftest.cl\": {\"WG_SIZE\": 128}}},\n"
    " {\"type\": \"CPU\", \"params\": {\"selftest\": {\"WG_SIZE\": 16}}},\n"
    " {\"device\": \"NVIDIA H200\", \"params\": {\"selftest\": {\"WG_SIZE\": 256}}},\n"
    " {\"device\": \"NVIDIA  H200\", \"driver\": \"550.54\", \"params\": {\"selftest\": {\"WG_SIZE\": 32}}},\n"
    " {\"device\": \"NVIDIA H100\", \"params\": {\"other\": {\"A\": 5}}}\n"
    "]}\n";

START_TEST(test_lookup_levels) {
  const char *dir = tu_tmpdir("tune-levels");
  const char *path = tu_write(dir, "t.json", levels_table);
  dlca__tuning_table t;
  ck_assert_msg(dlca__tuning_load(path, &t) == DLCA_OK, "%s", dlca_last_error());
  int v = 0;
  const char *nv = "NVIDIA Corporation";
  ck_assert(dlca__tuning_lookup(&t, "NVIDIA H200", "550.54", nv, "selftest", "WG_SIZE", &v));
  ck_assert_int_eq(v, 32); /* device and driver */
  ck_assert(dlca__tuning_lookup(&t, "nvidia h200", "560.35", nv, "selftest.cl", "WG_SIZE", &v));
  ck_assert_int_eq(v, 256); /* device, any driver */
  ck_assert(dlca__tuning_lookup(&t, "NVIDIA H100 80GB HBM3", "550.54", nv, "selftest", "WG_SIZE", &v));
  ck_assert_int_eq(v, 128); /* vendor */
  ck_assert(dlca__tuning_lookup(&t, "pthread-skylake", "3.1", "AuthenticAMD", "selftest", "WG_SIZE", &v));
  ck_assert_int_eq(v, 64); /* default */
  /* device type, between vendor and default */
  ck_assert(dlca__tuning_lookup_typed(&t, "pthread-skylake", "3.1", "AuthenticAMD", "cpu", "selftest", "WG_SIZE", &v));
  ck_assert_int_eq(v, 16);
  ck_assert(dlca__tuning_lookup_typed(&t, "NVIDIA H100 80GB HBM3", "1", nv, "gpu", "selftest", "WG_SIZE", &v));
  ck_assert_int_eq(v, 128); /* vendor beats type */
  ck_assert(dlca__tuning_lookup_typed(&t, "Some GPU", "1", "Acme", "gpu", "selftest", "WG_SIZE", &v));
  ck_assert_int_eq(v, 64);
  /* The most specific entry with the file decides: H100 has "other" only. */
  ck_assert(dlca__tuning_lookup(&t, "NVIDIA H100", "1", nv, "other", "A", &v));
  ck_assert_int_eq(v, 5);
  ck_assert(dlca__tuning_lookup(&t, "NVIDIA H100", "1", nv, "selftest", "WG_SIZE", &v));
  ck_assert_int_eq(v, 128);
  ck_assert(!dlca__tuning_lookup(&t, "NVIDIA H200", "1", nv, "selftest", "NOT_THERE", &v));
  ck_assert(!dlca__tuning_lookup(&t, "NVIDIA H200", "1", nv, "trainer", "WG", &v));
  ck_assert(dlca__tuning_matches(&t, "anything", "any")); /* no header */
  dlca__tuning_free(&t);
}
END_TEST

/* Every parameter of the shipped table is one its kernel declares. */
START_TEST(test_shipped_table) {
  dlca__tuning_table t;
  const char *path = DLCA_SRCDIR "/tuning/default.json";
  ck_assert_msg(dlca__tuning_load(path, &t) == DLCA_OK, "%s", dlca_last_error());
  int defaults = 0;
  for (size_t i = 0; i < t.n_entries; i++) {
    defaults += t.entries[i].is_default;
    for (size_t j = 0; j < t.entries[i].n_params; j++) {
      const dlca__tuning_param *p = &t.entries[i].params[j];
      char file[80];
      snprintf(file, sizeof file, "%s.cl", p->stem);
      dlca_tunable *ts;
      size_t n;
      ck_assert_msg(dlca__kernel_tunables(NULL, file, &ts, &n) == DLCA_OK, "%s", dlca_last_error());
      int found = 0;
      for (size_t k = 0; k < n; k++) found |= !strcmp(ts[k].name, p->name);
      ck_assert_msg(found, "%s: entries[%zu]: %s declares no tunable %s", path, i, file, p->name);
      free(ts);
    }
  }
  ck_assert_int_eq(defaults, 1);
  /* ... and every value is one its @tunable line allows */
  ck_assert_msg(dlca__tuning_validate(&t) == DLCA_OK, "%s", dlca_last_error());
  dlca__tuning_free(&t);
}
END_TEST

/* The program files of the shipped kernels (their pieces are included). */
static const char *const kernel_files[] = {"selftest.cl", "trainer.cl", "trainer_cpu.cl", "trainer_tile.cl",
                                            "ops.cl"};

/* A value outside t's allowed values: past the last term, else before the first. */
static int outside(const dlca_tunable *t) {
  const dlca_tunable_range *last = &t->allowed[t->n_allowed - 1];
  int v = last->hi < 2147483647 ? last->hi + 1 : t->allowed[0].lo - 1;
  ck_assert_msg(!dlca__tunable_allowed(t, v), "%s: found no value outside", t->name);
  return v;
}

static const char *table_of(const char *dir, const char *stem, const char *name, long long v) {
  char text[512];
  snprintf(text, sizeof text,
           "{\"format\":\"dlca-tuning\",\"version\":1,\"entries\":[{\"device\":\"default\",\"params\":"
           "{\"%s\":{\"%s\":%lld}}}]}",
           stem, name, v);
  return tu_write(dir, "table.json", text);
}

/* Every declared tunable of every kernel file declares its allowed values,
 * and a table that sets one outside them is refused by name: the tunable,
 * the value, the table's path and the allowed values (issue 35, defect 10). */
START_TEST(test_every_tunable_range) {
  if (!tcl_platform()) return;
  const char *dir = tcl_fresh_env("tune-ranges");
  int checked = 0;
  for (size_t f = 0; f < sizeof kernel_files / sizeof *kernel_files; f++) {
    dlca_tunable *ts;
    size_t n;
    ck_assert_msg(dlca__kernel_tunables(NULL, kernel_files[f], &ts, &n) == DLCA_OK, "%s", dlca_last_error());
    char stem[64], *whole, fallback[200];
    dlca__kernel_stem(kernel_files[f], stem, sizeof stem);
    ck_assert(dlca__kernel_resolve(kernel_files[f], &whole, NULL, NULL, 0) == DLCA_OK);
    for (size_t i = 0; i < n; i++) {
      ck_assert_msg(ts[i].declared_allowed, "%s: @tunable %s declares no allowed values (| ...)", kernel_files[f],
                    ts[i].name);
      /* the #ifndef fallback, in whichever piece declares it (STYLE.md) */
      snprintf(fallback, sizeof fallback, "#ifndef %s\n#define %s %d\n#endif", ts[i].name, ts[i].name,
               ts[i].values[0]);
      ck_assert_msg(strstr(whole, fallback) != NULL, "%s: @tunable %s lacks \"%s\"", kernel_files[f], ts[i].name,
                    fallback);
      const int bad = outside(&ts[i]);
      const char *path = table_of(dir, stem, ts[i].name, bad);
      char allowed[256], value[80];
      dlca__tunable_allowed_text(&ts[i], allowed, sizeof allowed);
      snprintf(value, sizeof value, "%s = %d", ts[i].name, bad);
      /* the table as loaded */
      dlca__tuning_table t;
      ck_assert(dlca__tuning_load(path, &t) == DLCA_OK);
      ck_assert_int_eq(dlca__tuning_validate(&t), DLCA_ETUNING);
      dlca__tuning_free(&t);
      /* the table in use: the value never reaches a build */
      setenv("DLCA_CL_TUNING", path, 1);
      dlca_context *ctx = tcl_context();
      int v;
      ck_assert_int_eq(dlca__tunable(ctx, kernel_files[f], ts[i].name, &v), DLCA_ETUNING);
      const char *e = dlca_last_error();
      ck_assert_msg(strstr(e, value) && strstr(e, path) && strstr(e, allowed), "%s (want %s, %s, %s)", e, value,
                    path, allowed);
      char *src;
      ck_assert_int_eq(dlca__kernel_source(ctx, kernel_files[f], &src, NULL, NULL, 0), DLCA_ETUNING);
      ck_assert_msg(strstr(dlca_last_error(), value), "%s", dlca_last_error());
      /* nor does an override of the tuner */
      ck_assert_int_eq(dlca__tuning_override(ctx, kernel_files[f], ts[i].name, bad), DLCA_ETUNING);
      ck_assert_msg(strstr(dlca_last_error(), value) && strstr(dlca_last_error(), allowed), "%s",
                    dlca_last_error());
      dlca_context_free(ctx);
      checked++;
    }
    free(whole);
    free(ts);
  }
  unsetenv("DLCA_CL_TUNING");
  ck_assert_int_ge(checked, 30);
}
END_TEST

/* The values of issue 35 that were taken: each is refused with DLCA_ETUNING
 * before anything is built. _i: the case. */
START_TEST(test_issue35_values) {
  if (!tcl_platform()) return;
  static const struct {
    const char *file, *name;
    long long value;
    const char *allowed;
  } cases[] = {{"trainer.cl", "FWD_GROUPS_PER_CU", 2147483647LL, "1..64"},
               {"trainer.cl", "UNROLL", -7, "0, 1"},
               {"trainer_tile.cl", "TFWD_CHUNK", 3, "0, 1..64 pow2"},
               {"trainer_tile.cl", "TFWD_UNROLL", 9, "0..2"},
               {"selftest.cl", "WG_SIZE", 3, "1..1024 pow2"},
               {"selftest.cl", "WG_SIZE", 100000, "1..1024 pow2"}};
  const char *dir = tcl_fresh_env("tune-issue35");
  char stem[64], value[80];
  dlca__kernel_stem(cases[_i].file, stem, sizeof stem);
  snprintf(value, sizeof value, "%s = %lld", cases[_i].name, cases[_i].value);
  const char *path = table_of(dir, stem, cases[_i].name, cases[_i].value);
  setenv("DLCA_CL_TUNING", path, 1);
  dlca_context *ctx = tcl_context();
  ck_assert_int_eq(dlca_context_build(ctx, cases[_i].file, NULL, NULL), DLCA_ETUNING);
  const char *e = dlca_last_error();
  ck_assert_msg(strstr(e, value) && strstr(e, path) && strstr(e, cases[_i].allowed), "%s", e);
  if (strcmp(cases[_i].file, "selftest.cl") != 0) {
    /* the trainer refuses it too, whichever step set reads it */
    dlca_model *m;
    ck_assert_int_eq(dlca_model_new_preset("checkerboard", 1, &m), DLCA_OK);
    dlca_preset p;
    ck_assert_int_eq(dlca_preset_get("checkerboard", &p), DLCA_OK);
    dlca_train_config cfg;
    dlca_train_config_from_preset(&p, &cfg);
    cfg.batch = 1;
    tcl_step_kernels(ctx, strstr(cases[_i].file, "tile") ? 2 : 0, 0, 0);
    dlca_trainer *t = NULL;
    ck_assert_int_eq(dlca_trainer_new(ctx, m, &cfg, &t), DLCA_ETUNING);
    ck_assert_msg(strstr(dlca_last_error(), value), "%s", dlca_last_error());
    dlca_model_free(m);
  }
  dlca_context_free(ctx);
  unsetenv("DLCA_CL_TUNING");
}
END_TEST

/* The @tunable line itself: a malformed one is an error naming the file and
 * the line (of an included file, its name); without `| ...` only the
 * candidates are allowed. */
START_TEST(test_tunable_lines) {
  const char *kdir = tu_tmpdir("tune-lines");
  setenv("DLCA_CL_KERNEL_PATH", kdir, 1);
  dlca_tunable *ts;
  size_t n;
  static const struct {
    const char *text, *want;
  } bad[] = {{"// one\n// @tunable X 1 | 2..1\n", "t.cl:2"},
             {"// @tunable X 1 | 0..4 pow3\n", "t.cl:1"},
             {"// @tunable X 1 | \n", "t.cl:1"},
             {"// @tunable X 1 | 0..4, x\n", "\"x\""},
             {"// @tunable X 1 | 4..64 step 0\n", "step"},
             {"// @tunable X 1 5 | 0..4\n", "candidate 5"},
             {"// @tunable X 2 | 4..64 step 4\n", "candidate 2"},
             {"\n\n#include \"sub/b.cl\"\n", "sub/b.cl:3"}};
  char sub[1100];
  snprintf(sub, sizeof sub, "%s/sub", kdir);
  ck_assert(mkdir(sub, 0755) == 0);
  tu_write(sub, "b.cl", "// b\n\n// @tunable Y 1 | 0\n");
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    tu_write(kdir, "t.cl", bad[i].text);
    ck_assert_int_eq(dlca__kernel_tunables(NULL, "t.cl", &ts, &n), DLCA_EBUILD);
    ck_assert_msg(strstr(dlca_last_error(), bad[i].want) && strstr(dlca_last_error(), "@tunable"), "%zu: %s", i,
                  dlca_last_error());
  }
  tu_write(kdir, "t.cl", "// @tunable X 1 2\n// @tunable Y 0 | 0, 8..64 step 8, 256..4096 pow2\n");
  ck_assert_msg(dlca__kernel_tunables(NULL, "t.cl", &ts, &n) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_uint_eq(n, 2);
  ck_assert(!ts[0].declared_allowed && dlca__tunable_allowed(&ts[0], 2) && !dlca__tunable_allowed(&ts[0], 3));
  static const int yes[] = {0, 8, 16, 64, 256, 1024, 4096}, no[] = {-8, 1, 12, 72, 128, 768, 8192};
  for (int i = 0; i < 7; i++) {
    ck_assert_msg(dlca__tunable_allowed(&ts[1], yes[i]), "%d", yes[i]);
    ck_assert_msg(!dlca__tunable_allowed(&ts[1], no[i]), "%d", no[i]);
  }
  char text[256];
  dlca__tunable_allowed_text(&ts[1], text, sizeof text);
  ck_assert_str_eq(text, "0, 8..64 step 8, 256..4096 pow2");
  dlca__tunable_allowed_text(&ts[0], text, sizeof text);
  ck_assert_str_eq(text, "1, 2");
  free(ts);
  unsetenv("DLCA_CL_KERNEL_PATH");
}
END_TEST

static void use_table(const char *dir, const char *text) {
  setenv("DLCA_CL_TUNING", tu_write(dir, "table.json", text), 1);
}

START_TEST(test_table_changes_build) {
  if (!tcl_platform()) return;
  const char *dir = tcl_fresh_env("tune-build");
  dlca_context *ctx = tcl_context();
  int wg, v;
  size_t reqd;
  dlca_build_info bi;
  ck_assert(dlca__tunable(ctx, "selftest.cl", "WG_SIZE", &v) == DLCA_OK);
  ck_assert_int_eq(v, 64);
  tcl_selftest_params(ctx, NULL, &wg, &reqd, &bi);
  ck_assert_int_eq(wg, 64);
  ck_assert_uint_eq(reqd, 64);
  dlca_context_free(ctx);

  use_table(dir, "{\"format\":\"dlca-tuning\",\"version\":1,\"entries\":["
                 "{\"device\":\"default\",\"params\":{\"selftest\":{\"WG_SIZE\":128}}}]}");
  ctx = tcl_context();
  ck_assert_str_eq(dlca_context_warnings(ctx), "");
  ck_assert(dlca__tunable(ctx, "selftest.cl", "WG_SIZE", &v) == DLCA_OK);
  ck_assert_int_eq(v, 128);
  tcl_selftest_params(ctx, NULL, &wg, &reqd, &bi);
  ck_assert_int_eq(bi.from_cache, DLCA_BUILD_COMPILED); /* another source, another key */
  ck_assert_int_eq(wg, 128);
  ck_assert_uint_eq(reqd, 128);
  dlca_context_free(ctx);

  /* An entry for this very device beats default; written as the tuner
   * would, with a header naming the device. */
  dlca_device_info d;
  ctx = tcl_context();
  dlca_context_device(ctx, &d);
  dlca_context_free(ctx);
  char text[2048];
  snprintf(text, sizeof text,
           "{\"format\":\"dlca-tuning\",\"version\":1,\"device\":\"%s\",\"driver\":\"%s\","
           "\"entries\":[{\"device\":\"default\",\"params\":{\"selftest\":{\"WG_SIZE\":128}}},"
           "{\"device\":\"%s\",\"driver\":\"%s\",\"params\":{\"selftest\":{\"WG_SIZE\":32}}}]}",
           d.name, d.driver, d.name, d.driver);
  use_table(dir, text);
  ctx = tcl_context();
  ck_assert_str_eq(dlca_context_warnings(ctx), "");
  tcl_selftest_params(ctx, NULL, &wg, &reqd, &bi);
  ck_assert_int_eq(wg, 32);
  ck_assert_uint_eq(tcl_rng_mismatches(ctx, NULL, 3, 4, 1000), 0);
  dlca_context_free(ctx);

  /* Without DLCA_CL_TUNING, <cache dir>/tuning.json is the user table. */
  unsetenv("DLCA_CL_TUNING");
  tu_write(dir, "tuning.json",
           "{\"format\":\"dlca-tuning\",\"version\":1,\"entries\":["
           "{\"device\":\"default\",\"params\":{\"selftest\":{\"WG_SIZE\":256}}}]}");
  ctx = tcl_context();
  ck_assert(dlca__tunable(ctx, "selftest.cl", "WG_SIZE", &v) == DLCA_OK);
  ck_assert_int_eq(v, 256);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_malformed_tables) {
  if (!tcl_platform()) return;
  const char *dir = tcl_fresh_env("tune-bad");
  static const char *cases[][2] = {
      {"{\"format\": \"dlca-tuning\",", "not valid JSON"},
      {"[1, 2]", "expected a JSON object"},
      {"{\"format\":\"other\",\"version\":1,\"entries\":[]}", "format: expected \"dlca-tuning\""},
      {"{\"format\":\"dlca-tuning\",\"version\":2,\"entries\":[]}", "version: 2 is not supported"},
      {"{\"format\":\"dlca-tuning\",\"version\":1}", "entries: missing"},
      {"{\"format\":\"dlca-tuning\",\"version\":1,\"entries\":{}}", "entries: expected an array"},
      {"{\"format\":\"dlca-tuning\",\"version\":1,\"entries\":[{\"params\":{}}]}",
       "entries[0]: needs \"device\""},
      {"{\"format\":\"dlca-tuning\",\"version\":1,\"entries\":[{\"device\":\"default\"}]}",
       "entries[0].params: missing"},
      {"{\"format\":\"dlca-tuning\",\"version\":1,\"entries\":[{\"device\":\"default\","
       "\"params\":{\"selftest\":{\"WG_SIZE\":\"big\"}}}]}",
       "entries[0].params.selftest.WG_SIZE: expected an integer, found a string"},
      {"{\"format\":\"dlca-tuning\",\"version\":1,\"entries\":[{\"device\":\"default\","
       "\"params\":{\"selftest\":{\"WG SIZE\":1}}}]}",
       "is not a macro name"},
      {"{\"format\":\"dlca-tuning\",\"version\":1,\"entries\":[{\"device\":7,\"params\":{}}]}",
       "entries[0].device: expected a string"},
      {"{\"format\":\"dlca-tuning\",\"version\":1,\"entries\":[{\"type\":\"fpga\",\"params\":{}}]}",
       "entries[0].type: \"fpga\" is not"},
      {"{\"format\":\"dlca-tuning\",\"version\":1,\"entries\":[{\"type\":\"cpu\",\"vendor\":\"x\",\"params\":{}}]}",
       "\"type\" selects an entry on its own"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    use_table(dir, cases[i][0]);
    dlca_context *ctx = (dlca_context *)dir;
    int rc = dlca_context_new(NULL, &ctx);
    ck_assert_msg(rc == DLCA_ETUNING, "case %zu: %d", i, rc);
    ck_assert_ptr_null(ctx);
    const char *m = dlca_last_error();
    ck_assert_msg(strstr(m, "table.json") && strstr(m, cases[i][1]) && strstr(m, "DLCA_CL_TUNING"),
                  "case %zu: %s", i, m);
    if (i == 0) fprintf(stderr, "malformed table: %s\n", m);
  }
  char missing[1100];
  snprintf(missing, sizeof missing, "%s/does-not-exist.json", dir);
  setenv("DLCA_CL_TUNING", missing, 1);
  dlca_context *ctx;
  ck_assert_int_eq(dlca_context_new(NULL, &ctx), DLCA_ETUNING);
  ck_assert(strstr(dlca_last_error(), "does-not-exist.json") != NULL);
  /* Found in the cache directory rather than named, a bad table is a warning. */
  unsetenv("DLCA_CL_TUNING");
  tu_write(dir, "tuning.json", "{oops");
  ck_assert_msg(dlca_context_new(NULL, &ctx) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(strstr(dlca_context_warnings(ctx), "tuning.json") &&
                    strstr(dlca_context_warnings(ctx), "ignored"),
                "%s", dlca_context_warnings(ctx));
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_other_device_table) {
  if (!tcl_platform()) return;
  const char *dir = tcl_fresh_env("tune-other");
  use_table(dir, "{\"format\":\"dlca-tuning\",\"version\":1,"
                 "\"device\":\"Some Other GPU(TM) 9000\",\"driver\":\"1.0\",\"entries\":["
                 "{\"device\":\"default\",\"params\":{\"selftest\":{\"WG_SIZE\":128}}}]}");
  dlca_context *ctx = tcl_context();
  const char *w = dlca_context_warnings(ctx);
  fprintf(stderr, "warning: %s", w);
  ck_assert_msg(strstr(w, "table.json") && strstr(w, "ignored") && strstr(w, "some other gpu 9000") &&
                    strstr(w, ctx->name_norm),
                "%s", w);
  int v;
  ck_assert(dlca__tunable(ctx, "selftest.cl", "WG_SIZE", &v) == DLCA_OK);
  ck_assert_int_eq(v, 64);
  dlca_context_free(ctx);

  /* The same device under another driver: also ignored. */
  dlca_device_info d;
  ctx = tcl_context();
  dlca_context_device(ctx, &d);
  dlca_context_free(ctx);
  char text[1024];
  snprintf(text, sizeof text,
           "{\"format\":\"dlca-tuning\",\"version\":1,\"device\":\"%s\",\"driver\":\"%s-old\","
           "\"entries\":[{\"device\":\"default\",\"params\":{\"selftest\":{\"WG_SIZE\":128}}}]}",
           d.name, d.driver);
  use_table(dir, text);
  ctx = tcl_context();
  ck_assert(strstr(dlca_context_warnings(ctx), "ignored") != NULL);
  ck_assert(dlca__tunable(ctx, "selftest.cl", "WG_SIZE", &v) == DLCA_OK);
  ck_assert_int_eq(v, 64);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_overrides) {
  if (!tcl_platform()) return;
  tcl_fresh_env("tune-override");
  dlca_context *ctx = tcl_context();
  int wg, v;
  size_t reqd;
  dlca_build_info a, b, c;
  tcl_selftest_params(ctx, NULL, &wg, &reqd, &a);
  ck_assert_int_eq(wg, 64);
  ck_assert(dlca__tuning_override(ctx, "selftest.cl", "WG_SIZE", 256) == DLCA_OK);
  ck_assert(dlca__tunable(ctx, "selftest", "WG_SIZE", &v) == DLCA_OK);
  ck_assert_int_eq(v, 256);
  tcl_selftest_params(ctx, NULL, &wg, &reqd, &b);
  ck_assert_int_eq(b.from_cache, DLCA_BUILD_COMPILED);
  ck_assert_int_eq(wg, 256);
  ck_assert_uint_eq(reqd, 256);
  ck_assert_uint_eq(tcl_rng_mismatches(ctx, NULL, 11, 12, 3000), 0);
  dlca__tuning_clear_overrides(ctx);
  tcl_selftest_params(ctx, NULL, &wg, &reqd, &c);
  ck_assert_int_eq(c.from_cache, DLCA_BUILD_MEMORY);
  ck_assert_int_eq(wg, 64);
  ck_assert_int_eq(dlca__tuning_override(ctx, "selftest.cl", "NOT_A_TUNABLE", 1), DLCA_EINVAL);
  ck_assert_msg(strstr(dlca_last_error(), "NOT_A_TUNABLE") && strstr(dlca_last_error(), "WG_SIZE"),
                "%s", dlca_last_error());
  ck_assert_int_eq(dlca__tunable(ctx, "selftest.cl", "NOPE", &v), DLCA_EINVAL);
  /* A tunable is not set by -D: that would fight the injected #define. */
  ck_assert_int_eq(dlca_context_build(ctx, "selftest.cl", "-DWG_SIZE=32", NULL), DLCA_EINVAL);
  ck_assert_msg(strstr(dlca_last_error(), "WG_SIZE") && strstr(dlca_last_error(), "tuning"), "%s",
                dlca_last_error());
  ck_assert_int_eq(dlca_context_build(ctx, "selftest.cl", "-D WG_SIZE", NULL), DLCA_EINVAL);
  ck_assert_int_eq(dlca_context_build(ctx, "selftest.cl", "-DWG_SIZE_X=1", NULL), DLCA_OK);
  ck_assert_int_eq(dlca__tunable(ctx, "no_such_file.cl", "WG_SIZE", &v), DLCA_ENOKERNEL);
  dlca_context_free(ctx);
}
END_TEST

/* A tuned trainer value out of range is a clear error naming it, never a
 * division by zero (CELLS_PER_GROUP_MIN 0) or a kernel built for a width it
 * cannot have (VEC 5). _i: the case. */
START_TEST(test_bad_trainer_value) {
  if (!tcl_platform()) return;
  static const char *const params[][3] = {
      {"{\"trainer\":{\"CELLS_PER_GROUP_MIN\":0}}", "CELLS_PER_GROUP_MIN = 0", "declared"},
      {"{\"trainer\":{\"KERNELS\":3}}", "KERNELS = 3", "declared"},
      {"{\"trainer\":{\"WG_NARROW\":3}}", "WG_NARROW = 3", "declared"},
      {"{\"trainer\":{\"BWD_PERSIST\":-1}}", "BWD_PERSIST = -1", "declared"},
      {"{\"trainer\":{\"KERNELS\":1},\"trainer_cpu\":{\"VEC\":5}}", "VEC = 5", "declared"},
      {"{\"trainer\":{\"KERNELS\":1},\"trainer_cpu\":{\"CPU_GROUPS_PER_CU\":0}}", "CPU_GROUPS_PER_CU = 0", "declared"},
      {"{\"trainer\":{\"KERNELS\":2},\"trainer_tile\":{\"TL\":6}}", "TL = 6", "declared"},
      {"{\"trainer\":{\"KERNELS\":2},\"trainer_tile\":{\"TL\":16,\"TWG\":8}}", "TWG = 8", "config"},
      {"{\"trainer\":{\"TILE_CELLS\":-1}}", "TILE_CELLS = -1", "declared"},
      {"{\"trainer\":{\"PERC_SPLIT_CELLS\":-1}}", "PERC_SPLIT_CELLS = -1", "declared"},
      {"{\"trainer\":{\"PERC_SPLIT_GROUPS_PER_CU\":-2}}", "PERC_SPLIT_GROUPS_PER_CU = -2", "declared"},
      {"{\"trainer\":{\"PERC_SPLIT_UNIT_CELLS\":65}}", "PERC_SPLIT_UNIT_CELLS = 65", "declared"},
      {"{\"trainer\":{\"BWD_PUSH\":2}}", "BWD_PUSH = 2", "declared"},
      {"{\"trainer\":{\"BWD_BANKS\":-1}}", "BWD_BANKS = -1", "declared"},
      {"{\"trainer\":{\"KERNELS\":2},\"trainer_tile\":{\"TFWD_STAGE\":2}}", "TFWD_STAGE = 2", "declared"},
      {"{\"trainer\":{\"BWD_TAIL\":2}}", "BWD_TAIL = 2", "declared"},
      {"{\"trainer\":{\"PERC_GROUPS_PER_CU\":-1}}", "PERC_GROUPS_PER_CU = -1", "declared"},
      {"{\"trainer\":{\"BWD_MAXNREG\":16}}", "BWD_MAXNREG = 16", "declared"},
      {"{\"trainer\":{\"BWD_BANKS_EFFORT\":0}}", "BWD_BANKS_EFFORT = 0", "declared"},
      {"{\"trainer\":{\"KERNELS\":2},\"trainer_tile\":{\"TV\":3}}", "TV = 3", "declared"}};
  const char *dir = tcl_fresh_env("tune-bad-value");
  char table[512];
  snprintf(table, sizeof table,
           "{\"format\":\"dlca-tuning\",\"version\":1,\"entries\":[{\"device\":\"default\",\"params\":%s}]}",
           params[_i][0]);
  use_table(dir, table);
  dlca_context *ctx = tcl_context();
  dlca_model *m;
  ck_assert_int_eq(dlca_model_new_preset("checkerboard", 1, &m), DLCA_OK);
  dlca_preset p;
  ck_assert_int_eq(dlca_preset_get("checkerboard", &p), DLCA_OK);
  dlca_train_config cfg;
  dlca_train_config_from_preset(&p, &cfg);
  dlca_trainer *t = NULL;
  /* a value outside the @tunable line's allowed values is the loader's
   * DLCA_ETUNING; one allowed there but not with the others, the host's */
  ck_assert_int_eq(dlca_trainer_new(ctx, m, &cfg, &t), params[_i][2][0] == 'd' ? DLCA_ETUNING : DLCA_ECONFIG);
  ck_assert_ptr_null(t);
  ck_assert_msg(strstr(dlca_last_error(), params[_i][1]), "%s", dlca_last_error());
  dlca_model_free(m);
  dlca_context_free(ctx);
  unsetenv("DLCA_CL_TUNING");
}
END_TEST

Suite *suite_tuning(void) {
  Suite *s = suite_create("tuning");
  TCase *tc = tcase_create("tuning");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_normalise);
  tcase_add_test(tc, test_lookup_levels);
  tcase_add_test(tc, test_shipped_table);
  tcase_add_test(tc, test_table_changes_build);
  tcase_add_test(tc, test_malformed_tables);
  tcase_add_test(tc, test_other_device_table);
  tcase_add_test(tc, test_overrides);
  tcase_add_loop_test(tc, test_bad_trainer_value, 0, 20);
  tcase_add_test(tc, test_every_tunable_range);
  tcase_add_loop_test(tc, test_issue35_values, 0, 6);
  tcase_add_test(tc, test_tunable_lines);
  suite_add_tcase(s, tc);
  return s;
}
