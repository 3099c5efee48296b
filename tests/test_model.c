/* Models: the dlca-model JSON round trip (bit-exact logits), atomic saves,
 * the gate histogram, status strings and the version query. Malformed files
 * are in test_loader.c. */
#include <dirent.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "model/model_impl.h"
#include "train/vector.h"
#include "util.h"

/* Removes a test's temporary directory; called only once the test passed,
 * so that a failure leaves its files for inspection. */
static void rm_tmpdir(const char *dir) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* A small model of C channels, K kernels and the given perception, with
 * `wiring` for every layer after the first. Update [in, in, halving to C]. */
static dlca_model *small_model(int C, int K, int with_one, dlca_wiring wiring, int periodic, uint64_t seed) {
  dlca_model_shape s = tu_small_shape(C, K, with_one, periodic, 0, wiring);
  dlca_model *m;
  int rc = dlca_model_new(&s, seed, &m);
  ck_assert_msg(rc == DLCA_OK, "%s", dlca_last_error());
  return m;
}

/* Random float32 bit patterns that are finite: every exponent, both signs,
 * subnormals and zeros included. */
static void fill_any_finite(float *v, size_t n, uint64_t seed) {
  for (size_t i = 0; i < n; i++) {
    uint32_t u;
    float f;
    uint32_t k = 0;
    do {
      u = dlca_rng_u32(seed, 11 + k++, (uint32_t)i);
      memcpy(&f, &u, 4);
    } while (!isfinite(f));
    v[i] = f;
  }
  static const float special[] = {0.0f, -0.0f, 10.0f, FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN, 1e-45f /* FLT_TRUE_MIN */,
                                  0.1f, 1.0f / 3.0f, 16777217.0f, 3.4028234e38f, 1.17549421e-38f /* largest subnormal */};
  for (size_t i = 0; i < sizeof special / sizeof *special && i < n; i++) v[i] = special[i];
}

static void assert_same_model(const dlca_model *a, const dlca_model *b, const char *what) {
  ck_assert_msg(a->shape.channels == b->shape.channels && a->shape.periodic == b->shape.periodic &&
                    a->shape.n_kernels == b->shape.n_kernels,
                "%s: shapes differ", what);
  ck_assert_int_eq(a->shape.n_perceive_layers, b->shape.n_perceive_layers);
  ck_assert_int_eq(a->shape.n_update_layers, b->shape.n_update_layers);
  ck_assert(!memcmp(a->shape.perceive_layers, b->shape.perceive_layers, sizeof(int) * (size_t)a->shape.n_perceive_layers));
  ck_assert(!memcmp(a->shape.update_layers, b->shape.update_layers, sizeof(int) * (size_t)a->shape.n_update_layers));
  ck_assert_uint_eq(a->n_params, b->n_params);
  for (int l = 0; l < a->n_perceive; l++) {
    ck_assert_uint_eq(a->perceive[l].offset, b->perceive[l].offset);
    ck_assert_msg(!memcmp(a->perceive[l].wa, b->perceive[l].wa, sizeof(int32_t) * (size_t)a->perceive[l].n_gates) &&
                      !memcmp(a->perceive[l].wb, b->perceive[l].wb, sizeof(int32_t) * (size_t)a->perceive[l].n_gates),
                  "%s: perception layer %d wires differ", what, l);
  }
  for (int l = 0; l < a->n_update; l++) {
    ck_assert_uint_eq(a->update[l].offset, b->update[l].offset);
    ck_assert_msg(!memcmp(a->update[l].wa, b->update[l].wa, sizeof(int32_t) * (size_t)a->update[l].n_gates) &&
                      !memcmp(a->update[l].wb, b->update[l].wb, sizeof(int32_t) * (size_t)a->update[l].n_gates),
                  "%s: update layer %d wires differ", what, l);
  }
  for (size_t i = 0; i < a->n_params; i++) {
    uint32_t x, y;
    memcpy(&x, a->params + i, 4);
    memcpy(&y, b->params + i, 4);
    ck_assert_msg(x == y, "%s: logit %zu: %.9g (0x%08x) came back as %.9g (0x%08x)", what, i, a->params[i], x,
                  b->params[i], y);
  }
}

/* Names in dir, other than . and .., joined by spaces. */
static int list_dir(const char *dir, char *out, size_t n) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int count = 0;
  out[0] = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    count++;
    strncat(out, e->d_name, n - strlen(out) - 2);
    strcat(out, " ");
  }
  closedir(d);
  return count;
}

/* ---- round trips -------------------------------------------------------- */

START_TEST(test_round_trip) {
  const char *dir = tu_tmpdir("model-rt");
  for (int c = 0; c < 6; c++) {
    dlca_model *m = small_model(1 + c % 3, 1 + c, c & 1, c & 2 ? DLCA_WIRING_RANDOM : DLCA_WIRING_UNIQUE, c & 1, 500 + c);
    if (c == 0) {
      /* the pass-through initialisation survives too */
    } else if (c < 3) {
      /* typical trained logits */
      tu_random(m->params, m->n_params, -30.0f, 30.0f, 900 + c);
    } else {
      fill_any_finite(m->params, m->n_params, 700 + c);
    }
    char name[32];
    snprintf(name, sizeof name, "m%d.json", c);
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ck_assert_msg(dlca_model_save(m, path) == DLCA_OK, "%s", dlca_last_error());
    dlca_model *r;
    ck_assert_msg(dlca_model_load(path, &r) == DLCA_OK, "%s", dlca_last_error());
    assert_same_model(m, r, name);
    /* saving what was loaded writes the same bytes */
    char path2[1100];
    snprintf(path2, sizeof path2, "%s/again-%s", dir, name);
    ck_assert_int_eq(dlca_model_save(r, path2), DLCA_OK);
    char *t1 = tu_read(path, NULL), *t2 = tu_read(path2, NULL);
    ck_assert_msg(!strcmp(t1, t2), "%s: a second save differs", name);
    /* the file says what it is */
    ck_assert_ptr_nonnull(strstr(t1, "\"format\":\"dlca-model\""));
    ck_assert_ptr_nonnull(strstr(t1, "\"version\":1"));
    free(t1);
    free(t2);
    /* a clone is the same model in fresh memory */
    dlca_model *k;
    ck_assert_int_eq(dlca_model_clone(m, &k), DLCA_OK);
    assert_same_model(m, k, "clone");
    ck_assert_ptr_ne(k->params, m->params);
    dlca_model_free(k);
    dlca_model_free(m);
    dlca_model_free(r);
  }
  rm_tmpdir(dir);
}
END_TEST

START_TEST(test_round_trip_vectors) {
  static const char *const cases[] = {"tiny_sync.json", "tiny_periodic.json", "tiny_async.json", "checkerboard_mixed.json"};
  const char *dir = tu_tmpdir("model-vec");
  for (int i = 0; i < 4; i++) {
    const char *vp = tu_vector_path(cases[i]);
    if (!vp) continue;
    dlca_vector v;
    ck_assert_msg(dlca__vector_load(vp, &v) == DLCA_OK, "%s", dlca_last_error());
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", dir, cases[i]);
    ck_assert_int_eq(dlca_model_save(v.model, path), DLCA_OK);
    dlca_model *r;
    ck_assert_msg(dlca_model_load(path, &r) == DLCA_OK, "%s", dlca_last_error());
    assert_same_model(v.model, r, cases[i]);
    /* and the reloaded model computes the same thing, bit for bit */
    size_t n = (size_t)v.run.batch * v.run.height * v.run.width * r->shape.channels;
    float *s1 = malloc(sizeof(float) * n), *s2 = malloc(sizeof(float) * n);
    double l1, l2;
    v.run.steps = v.run.steps < 3 ? v.run.steps : 3;
    ck_assert_int_eq(dlca_ref_forward(v.model, &v.run, v.input, 0, v.target, s1, &l1), DLCA_OK);
    ck_assert_int_eq(dlca_ref_forward(r, &v.run, v.input, 0, v.target, s2, &l2), DLCA_OK);
    ck_assert(!memcmp(s1, s2, sizeof(float) * n));
    ck_assert(l1 == l2);
    free(s1);
    free(s2);
    dlca_model_free(r);
    dlca__vector_free(&v);
  }
  rm_tmpdir(dir);
}
END_TEST

/* ---- atomic saves ------------------------------------------------------- */

START_TEST(test_save_atomic) {
  const char *dir = tu_tmpdir("model-atomic");
  char names[4096], path[1100];
  snprintf(path, sizeof path, "%s/model.json", dir);
  dlca_model *m = small_model(2, 2, 0, DLCA_WIRING_UNIQUE, 0, 1);
  ck_assert_int_eq(dlca_model_save(m, path), DLCA_OK);
  ck_assert_msg(list_dir(dir, names, sizeof names) == 1, "left behind: %s", names);
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_msg((st.st_mode & 0777) == 0644, "mode %o", st.st_mode & 0777);
  /* overwrite: the new model replaces the old one by a rename, not by
   * writing into it: a hard link to the old file still reads the old model */
  char old_link[1100];
  snprintf(old_link, sizeof old_link, "%s/old-link.json", dir);
  ck_assert_int_eq(link(path, old_link), 0);
  char *old_text = tu_read(path, NULL);
  tu_random(m->params, m->n_params, -5, 5, 3);
  ck_assert_int_eq(dlca_model_save(m, path), DLCA_OK);
  ck_assert_msg(list_dir(dir, names, sizeof names) == 2, "left behind: %s", names);
  char *kept = tu_read(old_link, NULL), *now = tu_read(path, NULL);
  ck_assert_msg(!strcmp(kept, old_text), "the old file was written in place");
  ck_assert(strcmp(now, old_text) != 0);
  struct stat st_old, st_new;
  ck_assert_int_eq(stat(old_link, &st_old), 0);
  ck_assert_int_eq(stat(path, &st_new), 0);
  ck_assert(st_old.st_ino != st_new.st_ino);
  free(kept), free(now), free(old_text);
  ck_assert_int_eq(unlink(old_link), 0);
  dlca_model *r;
  ck_assert_int_eq(dlca_model_load(path, &r), DLCA_OK);
  assert_same_model(m, r, "overwrite");
  dlca_model_free(r);
  /* a failing rename (the target is a directory) leaves no temp file */
  char sub[1100];
  snprintf(sub, sizeof sub, "%s/adir", dir);
  ck_assert_int_eq(mkdir(sub, 0755), 0);
  ck_assert_int_eq(dlca_model_save(m, sub), DLCA_EIO);
  ck_assert_msg(strstr(dlca_last_error(), sub), "%s", dlca_last_error());
  ck_assert_msg(list_dir(dir, names, sizeof names) == 2, "left behind: %s", names);
  /* a missing directory: EIO naming the path */
  char missing[1100];
  snprintf(missing, sizeof missing, "%s/no/such/dir/m.json", dir);
  ck_assert_int_eq(dlca_model_save(m, missing), DLCA_EIO);
  ck_assert_msg(strstr(dlca_last_error(), missing), "%s", dlca_last_error());
  ck_assert_int_eq(dlca_model_save(NULL, path), DLCA_EINVAL);
  ck_assert_int_eq(dlca_model_save(m, NULL), DLCA_EINVAL);
  dlca_model_free(m);
  rm_tmpdir(dir);
}
END_TEST

START_TEST(test_save_not_finite) {
  /* A diverged model (NaN or infinite logit) cannot be written as JSON:
   * refused with EMODEL naming the logit, and the old file stays. */
  const char *dir = tu_tmpdir("model-nan");
  char path[1100], names[4096];
  snprintf(path, sizeof path, "%s/model.json", dir);
  dlca_model *m = small_model(2, 3, 0, DLCA_WIRING_UNIQUE, 0, 1);
  ck_assert_int_eq(dlca_model_save(m, path), DLCA_OK);
  char *before = tu_read(path, NULL);
  static const struct { int update, layer, kernel, gate, logit; float value; const char *where; } cases[] = {
      {1, 1, 0, 3, 7, NAN, "update.logits[1][3][7]"},
      {0, 2, 2, 1, 15, INFINITY, "perceive.logits[2][2][1][15]"},
      {0, 0, 0, 0, 0, -INFINITY, "perceive.logits[0][0][0][0]"},
  };
  for (int c = 0; c < 3; c++) {
    dlca_model *k;
    ck_assert_int_eq(dlca_model_clone(m, &k), DLCA_OK);
    size_t off = dlca_model_layer_offset(k, cases[c].update, cases[c].layer);
    int G = cases[c].update ? k->update[cases[c].layer].n_gates : k->perceive[cases[c].layer].n_gates;
    k->params[off + ((size_t)cases[c].kernel * G + cases[c].gate) * 16 + cases[c].logit] = cases[c].value;
    int rc = dlca_model_save(k, path);
    ck_assert_msg(rc == DLCA_EMODEL, "case %d: rc %d (%s)", c, rc, dlca_strerror_name(rc));
    ck_assert_msg(strstr(dlca_last_error(), path) && strstr(dlca_last_error(), cases[c].where), "case %d: %s", c,
                  dlca_last_error());
    char *after = tu_read(path, NULL);
    ck_assert_msg(!strcmp(before, after), "case %d: the old file changed", c);
    free(after);
    ck_assert_msg(list_dir(dir, names, sizeof names) == 1, "left behind: %s", names);
    dlca_model_free(k);
  }
  free(before);
  dlca_model_free(m);
  rm_tmpdir(dir);
}
END_TEST

/* ---- histogram, shape ---------------------------------------------------- */

/* dlca_model_wires gives every layer's wires as the model holds them, and
 * refuses a layer out of range with a message. */
START_TEST(test_wires) {
  dlca_model *m = small_model(2, 2, 1, DLCA_WIRING_RANDOM, 0, 9);
  int32_t wa[1024], wb[1024];
  for (int u = 0; u < 2; u++) {
    const int n = u ? m->n_update : m->n_perceive;
    for (int l = 0; l < n; l++) {
      const dlca_layer *L = u ? &m->update[l] : &m->perceive[l];
      ck_assert_int_le(L->n_gates, 1024);
      ck_assert_int_eq(dlca_model_wires(m, u, l, wa, wb), DLCA_OK);
      ck_assert_mem_eq(wa, L->wa, (size_t)L->n_gates * sizeof *wa);
      ck_assert_mem_eq(wb, L->wb, (size_t)L->n_gates * sizeof *wb);
    }
    ck_assert_int_eq(dlca_model_wires(m, u, n, wa, wb), DLCA_EINVAL);
    ck_assert_ptr_nonnull(strstr(dlca_last_error(), "layer"));
  }
  ck_assert_int_eq(dlca_model_wires(m, 0, -1, wa, wb), DLCA_EINVAL);
  ck_assert_int_eq(dlca_model_wires(m, 0, 0, NULL, wb), DLCA_EINVAL);
  dlca_model_free(m);
}
END_TEST

START_TEST(test_histogram) {
  dlca_model *m = small_model(2, 2, 1, DLCA_WIRING_UNIQUE, 0, 4);
  size_t counts[16], n = dlca_model_n_gates(m);
  /* the initialisation: every gate is pass-through A */
  ck_assert_uint_eq(dlca_model_gate_histogram(m, counts), 0);
  for (int i = 0; i < 16; i++) ck_assert_uint_eq(counts[i], i == 3 ? n : 0);
  /* gate g's argmax is op g % 16; active gates are all but A (3) and B (5) */
  size_t want[16] = {0};
  for (size_t g = 0; g < n; g++) {
    float *l = m->params + 16 * g;
    for (int i = 0; i < 16; i++) l[i] = (float)((i * 7 + g) % 5) - 2.0f;
    l[g % 16] = 3.0f + (float)(g % 3);
    want[g % 16]++;
  }
  size_t active = dlca_model_gate_histogram(m, counts);
  for (int i = 0; i < 16; i++) ck_assert_uint_eq(counts[i], want[i]);
  ck_assert_uint_eq(active, n - want[3] - want[5]);
  /* ties go to the lowest index (doc/semantics.md section 1) */
  memset(m->params, 0, sizeof(float) * m->n_params);
  m->params[16 * 0 + 9] = 1, m->params[16 * 0 + 12] = 1; /* gate 0: 9 and 12 tie -> 9 */
  m->params[16 * 1 + 5] = 2, m->params[16 * 1 + 3] = 2; /* gate 1: 3 and 5 tie -> 3 */
  active = dlca_model_gate_histogram(m, counts);
  ck_assert_uint_eq(counts[9], 1);
  ck_assert_uint_eq(counts[3], 1);
  ck_assert_uint_eq(counts[0], n - 2); /* all zero: FALSE */
  ck_assert_uint_eq(active, n - 1);
  dlca_model_shape s;
  dlca_model_get_shape(m, &s);
  ck_assert_int_eq(s.channels, 2);
  ck_assert_int_eq(s.n_kernels, 2);
  ck_assert_int_eq(s.n_perceive_layers, 5);
  ck_assert_ptr_eq(dlca_model_params(m), dlca_model_params_const(m));
  dlca_model_free(m);
}
END_TEST

START_TEST(test_init_logits) {
  dlca_model *m;
  ck_assert_int_eq(dlca_model_new_preset("gol", 3, &m), DLCA_OK);
  for (size_t i = 0; i < m->n_params; i++) ck_assert(m->params[i] == (i % 16 == 3 ? 10.0f : 0.0f));
  dlca_model_free(m);
  ck_assert_int_eq(dlca_model_new(NULL, 1, &m), DLCA_EINVAL);
  ck_assert_int_eq(dlca_model_new_preset("gol", 1, NULL), DLCA_EINVAL);
  ck_assert_int_eq(dlca_model_clone(NULL, &m), DLCA_EINVAL);
  ck_assert_int_eq(dlca_model_load(NULL, &m), DLCA_EINVAL);
  ck_assert_int_eq(dlca_model_load("x.json", NULL), DLCA_EINVAL);
  dlca_model_free(NULL);
}
END_TEST

/* ---- status strings, version --------------------------------------------- */

START_TEST(test_strerror) {
  int n = 0, lowest = 0;
#define CHECK_STATUS(name, value, msg)                                \
  ck_assert_int_eq(DLCA_##name, value);                               \
  ck_assert_str_eq(dlca_strerror(value), msg);                        \
  ck_assert_str_eq(dlca_strerror_name(value), #name);                 \
  ck_assert_msg(strlen(msg) > 0 && !strchr(msg, '\n'), "%s", #name);  \
  n++;                                                                \
  if (value < lowest) lowest = value;
  DLCA_STATUS_MAP(CHECK_STATUS)
#undef CHECK_STATUS
  /* 0, -1, ..., -16: dense and distinct */
  ck_assert_int_eq(n, 17);
  ck_assert_int_eq(lowest, -16);
  for (int v = lowest; v <= 0; v++) ck_assert_str_ne(dlca_strerror_name(v), "UNKNOWN");
  static const int unknown[] = {1, -17, 42, INT_MIN, INT_MAX};
  for (int i = 0; i < 5; i++) {
    ck_assert_str_eq(dlca_strerror(unknown[i]), "unknown status");
    ck_assert_str_eq(dlca_strerror_name(unknown[i]), "UNKNOWN");
  }
  ck_assert_str_eq(dlca_strerror_name(DLCA_EMODEL), "EMODEL");
  ck_assert_str_eq(dlca_strerror(DLCA_EMODEL), "invalid model");
  /* the last error is per call, one line, never NULL */
  dlca__clear_error();
  ck_assert_str_eq(dlca_last_error(), "");
  ck_assert_int_eq(dlca__fail(DLCA_EIO, "%s: %d", "x", 7), DLCA_EIO);
  ck_assert_str_eq(dlca_last_error(), "x: 7");
  ck_assert_int_eq(dlca_last_cl_error(), 0);
  /* a long message (build logs) is kept whole */
  char *big = malloc(100001);
  memset(big, 'a', 100000);
  big[100000] = 0;
  ck_assert_int_eq(dlca__fail(DLCA_EBUILD, "%s", big), DLCA_EBUILD);
  ck_assert_uint_eq(strlen(dlca_last_error()), 100000);
  dlca__append_error("tail");
  ck_assert_uint_eq(strlen(dlca_last_error()), 100004);
  free(big);
  dlca__clear_error();
}
END_TEST

START_TEST(test_version) {
  ck_assert_str_eq(dlca_version_string(), DLCA_VERSION_STRING);
  int a = -1, b = -1, c = -1;
  dlca_version(&a, &b, &c);
  ck_assert_int_eq(a, DLCA_VERSION_MAJOR);
  ck_assert_int_eq(b, DLCA_VERSION_MINOR);
  ck_assert_int_eq(c, DLCA_VERSION_PATCH);
  char buf[64];
  snprintf(buf, sizeof buf, "%d.%d.%d", a, b, c);
  ck_assert_str_eq(buf, dlca_version_string());
  dlca_version(NULL, NULL, NULL);
}
END_TEST

Suite *suite_model(void) {
  Suite *s = suite_create("model");
  TCase *tc = tcase_create("model");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_round_trip);
  tcase_add_test(tc, test_round_trip_vectors);
  tcase_add_test(tc, test_save_atomic);
  tcase_add_test(tc, test_save_not_finite);
  tcase_add_test(tc, test_histogram);
  tcase_add_test(tc, test_wires);
  tcase_add_test(tc, test_init_logits);
  tcase_add_test(tc, test_strerror);
  tcase_add_test(tc, test_version);
  suite_add_tcase(s, tc);
  return s;
}
