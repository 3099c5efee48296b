/* The tuning table's CLBlast section (lib/cl/clblast_tuning.c) with crafted
 * tables: a good one is applied (a GEMM runs with its parameters and agrees
 * with the twin; an impossible work-group proves they reached CLBlast), bad
 * ones are DLCA_ETUNING naming the table and the key, or a warning for the
 * cache directory's table. The real tuner is not run here: too slow. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas_util.h"
#include "cl/clblast.h"
#include "cl_util.h"
#include "ops/cl_blas.h"

double tb_gemm_check(dlca_context *ctx, const dlca__gemm *g, uint64_t seed);

/* Xgemm's 16 parameters, with GemmRoutine's threshold at 32 (a 64^3 GEMM takes the indirect Xgemm).
 * MWG = 2 MDIMC, NWG = 2 NDIMC, KWG = 64: valid for MDIMC, NDIMC in {8, 16, 32, 64, 128}. */
static void section(char *buf, size_t n, int mdimc, int ndimc) {
  snprintf(buf, n,
           "\"Xgemm\": {\"GEMMK\": 0, \"KREG\": 1, \"KWG\": 64, \"KWI\": 2, \"MDIMA\": %d, \"MDIMC\": %d, "
           "\"MWG\": %d, \"NDIMB\": %d, \"NDIMC\": %d, \"NWG\": %d, \"SA\": 0, \"SB\": 0, \"STRM\": 0, "
           "\"STRN\": 0, \"VWM\": 2, \"VWN\": 2}, \"GemmRoutine\": {\"XGEMM_MIN_INDIRECT_SIZE\": 32}",
           mdimc, mdimc, 2 * mdimc, ndimc, ndimc, 2 * ndimc);
}

/* A table whose default entry has the given "clblast" section (its text). */
static const char *table(const char *dir, const char *name, const char *section) {
  char *text = malloc(strlen(section) + 256);
  sprintf(text,
          "{\"format\": \"dlca-tuning\", \"version\": 1, \"entries\": [{\"device\": \"default\", \"params\": {}, "
          "\"clblast\": {%s}}]}",
          section);
  const char *path = tu_write(dir, name, text);
  free(text);
  return path;
}

START_TEST(test_blas_tuning_applied) {
  if (!tcl_platform()) return;
  const char *dir = tcl_fresh_env("blas-tuning-good");
  char sec[640];
  section(sec, sizeof sec, 16, 8);
  const char *good = table(dir, "good.json", sec);
  setenv("DLCA_CL_TUNING", good, 1);
  dlca_context *ctx = tcl_context();
  dlca__gemm g = {0, 1, 96, 80, 72, 1.0f, 0.5f, 72, 72, 80, 0, 0, 0, 1, 0, 0, 0};
  double e = tb_gemm_check(ctx, &g, 77);
  /* 96 x 80 x 72 is no multiple of the tiles: CLBlast pads, in the context's scratch buffer (the memo is
   * keyed by the column-major call: B^T A^T, m and n swapped) */
  size_t key[11] = {1, 0, 80, 96, 72, 72, 72, 80, 0, 0, 0}, bytes = 0;
  ck_assert_int_eq(dlca__blas_temp_lookup(ctx, key, &bytes), 1);
  ck_assert_msg(bytes > 0, "no scratch for a padded GEMM");
  fprintf(stderr, "blas tuning: a GEMM with the table's Xgemm parameters (%zu bytes of scratch), worst error %.2e\n",
          bytes, e);
  dlca_context_free(ctx);
  /* 128 x 64 work-items a group: beyond the devices we know; CLBlast would fail every GEMM with them (and
   * print), so the context keeps CLBlast's own Xgemm values, with a warning, and the GEMM runs */
  section(sec, sizeof sec, 128, 64);
  setenv("DLCA_CL_TUNING", table(dir, "huge.json", sec), 1);
  ctx = tcl_context();
  const char *w = dlca_context_warnings(ctx);
  ck_assert_msg(w && strstr(w, "clblast.Xgemm ignored: MDIMC 128 x NDIMC 64 is over the largest work-group"), "%s",
                w ? w : "(none)");
  dlca__gemm big = {0, 0, 64, 64, 64, 1.0f, 0.0f, 64, 64, 64, 0, 0, 0, 1, 0, 0, 0};
  tb_gemm_check(ctx, &big, 78);
  dlca_context_free(ctx);
  /* CLBlast's overrides are process-wide: leave workable ones for the tests after this under CK_FORK=no */
  setenv("DLCA_CL_TUNING", good, 1);
  dlca_context_free(tcl_context());
  unsetenv("DLCA_CL_TUNING");
}
END_TEST

static const struct {
  const char *section, *msg;
} bad[] = {
    {"\"Xgem\": {}", "entries[0].clblast.Xgem: not a CLBlast kernel"},
    {"\"Copy\": {\"COPY_DIMX\": 8, \"COPY_DIMY\": 8, \"COPY_VW\": 1, \"COPY_WPT\": 1, \"COPY_X\": 2}",
     "entries[0].clblast.Copy.COPY_X: CLBlast's Copy has no such parameter"},
    {"\"Copy\": {\"COPY_DIMX\": \"8\", \"COPY_DIMY\": 8, \"COPY_VW\": 1, \"COPY_WPT\": 1}",
     "entries[0].clblast.Copy.COPY_DIMX: expected an integer, found a string"},
    {"\"Copy\": {\"COPY_DIMX\": 8.5, \"COPY_DIMY\": 8, \"COPY_VW\": 1, \"COPY_WPT\": 1}",
     "entries[0].clblast.Copy.COPY_DIMX: expected an integer, found a real"},
    {"\"Copy\": {\"COPY_DIMX\": 8, \"COPY_DIMY\": 8, \"COPY_VW\": 1}", "entries[0].clblast.Copy: COPY_WPT is missing"},
    {"\"Pad\": {\"PAD_DIMX\": -8, \"PAD_DIMY\": 8, \"PAD_WPTX\": 1, \"PAD_WPTY\": 1}",
     "entries[0].clblast.Pad.PAD_DIMX: -8 is not a parameter value"},
    {"\"Pad\": [1, 2]", "entries[0].clblast.Pad: expected an object"},
};

/* Named by DLCA_CL_TUNING, a bad section fails the context; in the cache directory it is a warning. */
START_TEST(test_blas_tuning_bad) {
  if (!tcl_platform()) return;
  const char *dir = tcl_fresh_env("blas-tuning-bad");
  const char *path = table(dir, "bad.json", bad[_i].section);
  setenv("DLCA_CL_TUNING", path, 1);
  dlca_context *ctx = NULL;
  ck_assert_int_eq(dlca_context_new(NULL, &ctx), DLCA_ETUNING);
  const char *e = dlca_last_error();
  ck_assert_msg(strstr(e, path) && strstr(e, bad[_i].msg) && strstr(e, "DLCA_CL_TUNING"), "\"%s\" lacks \"%s\"", e,
                bad[_i].msg);
  unsetenv("DLCA_CL_TUNING");
  char cached[1200];
  snprintf(cached, sizeof cached, "%s/tuning.json", getenv("DLCA_CL_CACHE_DIR"));
  dlca__mkdirs(getenv("DLCA_CL_CACHE_DIR"));
  char *text = tu_read(path, NULL);
  ck_assert_int_eq(dlca__write_file_atomic_mode(cached, text, strlen(text), 022), 0);
  free(text);
  ctx = tcl_context();
  ck_assert_msg(strstr(dlca_context_warnings(ctx), bad[_i].msg), "%s", dlca_context_warnings(ctx));
  dlca_context_free(ctx);
}
END_TEST

/* The parser alone: an empty section is nothing to apply; the kernels and values come back. */
START_TEST(test_blas_tuning_parse) {
  json_error_t je;
  json_t *j = json_loads("{\"GemmRoutine\": {\"XGEMM_MIN_INDIRECT_SIZE\": 384}, \"Transpose\": {\"TRA_DIM\": 8, "
                         "\"TRA_PAD\": 1, \"TRA_SHUFFLE\": 0, \"TRA_WPT\": 4}}",
                         0, &je);
  dlca__clblast_kernel *ks;
  size_t n;
  ck_assert_int_eq(dlca__clblast_section(j, "t.json", "entries[2].clblast", &ks, &n), DLCA_OK);
  ck_assert(n == 2 && !strcmp(ks[0].name, "GemmRoutine") && ks[0].n == 1 && ks[0].value[0] == 384);
  ck_assert(!strcmp(ks[1].name, "Transpose") && ks[1].n == 4 && !strcmp(ks[1].param[3], "TRA_WPT") &&
            ks[1].value[3] == 4);
  free(ks);
  json_decref(j);
  j = json_loads("{}", 0, &je);
  ck_assert_int_eq(dlca__clblast_section(j, "t.json", "x", &ks, &n), DLCA_OK);
  ck_assert_int_eq((int)n, 0);
  free(ks);
  json_decref(j);
  j = json_string("Xgemm");
  ck_assert_int_eq(dlca__clblast_section(j, "t.json", "entries[0].clblast", &ks, &n), DLCA_ETUNING);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "t.json: entries[0].clblast: expected an object"));
  json_decref(j);
}
END_TEST

/* Every "clblast" section of the shipped table loads. */
START_TEST(test_blas_tuning_shipped) {
  const char *path = DLCA_SRCDIR "/tuning/default.json";
  json_error_t je;
  json_t *root = json_load_file(path, 0, &je), *entries = json_object_get(root, "entries");
  ck_assert_msg(root, "%s: %s", path, je.text);
  int sections = 0;
  for (size_t i = 0; i < json_array_size(entries); i++) {
    json_t *sec = json_object_get(json_array_get(entries, i), "clblast");
    if (!sec) continue;
    dlca__clblast_kernel *ks;
    size_t n;
    ck_assert_msg(dlca__clblast_section(sec, path, "clblast", &ks, &n) == DLCA_OK, "%s", dlca_last_error());
    free(ks);
    sections++;
  }
  ck_assert_int_ge(sections, 1);
  json_decref(root);
}
END_TEST

TCase *tb_tcase_tuning(void) {
  TCase *tc = tcase_create("tuning");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_blas_tuning_parse);
  tcase_add_test(tc, test_blas_tuning_shipped);
  tcase_add_test(tc, test_blas_tuning_applied);
  tcase_add_loop_test(tc, test_blas_tuning_bad, 0, (int)(sizeof bad / sizeof bad[0]));
  return tc;
}
