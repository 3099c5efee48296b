/* Mutation sweeps of the files a user hands the library: a checkpoint cut at
 * every length and flipped byte by byte, and a model file cut at every
 * length and with characters replaced. Every load must fail cleanly (a
 * status, a message that names the file, the trainer untouched) or, for a
 * model whose change is still valid JSON of the right shape, succeed; it
 * must never crash. The shipped tuning table gets the model file's sweeps,
 * and a binary cache entry (format 2) is cut and flipped at every byte.
 * scripts/run-sanitizers.sh runs this suite under ASan and
 * UBSan, which is where a read past a buffer would show. No device: the
 * loaders are host code, so the CPU reference trainer is enough. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>
#include "cl/runtime.h"
#include "util.h"

static void spit(const char *path, const void *b, size_t len) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(b, 1, len, f), len);
  ck_assert_int_eq(fclose(f), 0);
}

static dlca_model *small_model(void) {
  dlca_model_shape s = tu_small_shape(2, 2, 0, 1, 0, DLCA_WIRING_UNIQUE);
  dlca_model *m;
  ck_assert_msg(dlca_model_new(&s, 41, &m) == DLCA_OK, "%s", dlca_last_error());
  return m;
}

static dlca_trainer *ref_trainer(const dlca_model *m) {
  dlca_train_config cfg = tu_small_train_config();
  dlca_trainer *t;
  ck_assert_msg(dlca_trainer_new(NULL, m, &cfg, &t) == DLCA_OK, "%s", dlca_last_error());
  return t;
}

/* ---- checkpoints ---- */

typedef struct ckpt_fixture {
  dlca_model *m;
  dlca_trainer *t;         /* a fresh trainer: every refused load must leave it so */
  float *fresh;            /* its logits */
  size_t P;
  unsigned char *good;     /* a checkpoint after 3 epochs */
  size_t len;
  const char *path;        /* where each mutation is written */
  int refused;
} ckpt_fixture;

static void ckpt_setup(ckpt_fixture *f, const char *dir) {
  memset(f, 0, sizeof *f);
  f->m = small_model();
  dlca_trainer *src = ref_trainer(f->m);
  float y[6 * 6 * 2];
  tu_random(y, sizeof y / sizeof *y, 0, 1, 8);
  ck_assert_int_eq(dlca_trainer_set_target(src, y, 0), DLCA_OK);
  for (int e = 0; e < 3; e++) ck_assert_msg(dlca_trainer_step(src) == DLCA_OK, "%s", dlca_last_error());
  char good[1200];
  snprintf(good, sizeof good, "%s/good.ckpt", dir);
  ck_assert_msg(dlca_trainer_save_checkpoint(src, good) == DLCA_OK, "%s", dlca_last_error());
  dlca_trainer_free(src);
  f->good = (unsigned char *)tu_read(good, &f->len);
  f->t = ref_trainer(f->m);
  f->P = dlca_trainer_n_params(f->t);
  f->fresh = malloc(f->P * sizeof(float));
  ck_assert_int_eq(dlca_trainer_get_params(f->t, f->fresh), DLCA_OK);
  /* the good file loads (into a trainer of its own, so f->t stays fresh) */
  dlca_trainer *u = ref_trainer(f->m);
  ck_assert_msg(dlca_trainer_load_checkpoint(u, good) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_int_eq((int)dlca_trainer_epoch(u), 3);
  dlca_trainer_free(u);
  static char p[1200];
  snprintf(p, sizeof p, "%s/mutant.ckpt", dir);
  f->path = p;
}

static void ckpt_teardown(ckpt_fixture *f) {
  free(f->good), free(f->fresh);
  dlca_trainer_free(f->t);
  dlca_model_free(f->m);
}

/* Writes b as the mutant and requires a clean refusal: DLCA_ECHECKPOINT,
 * the file named, the trainer's epoch and logits unchanged. */
static void expect_refused(ckpt_fixture *f, const void *b, size_t len, const char *what, size_t at) {
  spit(f->path, b, len);
  int rc = dlca_trainer_load_checkpoint(f->t, f->path);
  ck_assert_msg(rc == DLCA_ECHECKPOINT, "%s at %zu: got %s (%s)", what, at, dlca_strerror_name(rc),
                rc ? dlca_last_error() : "loaded");
  ck_assert_msg(strstr(dlca_last_error(), "mutant.ckpt") != NULL, "%s at %zu: message does not name the file: %s",
                what, at, dlca_last_error());
  ck_assert_int_eq((int)dlca_trainer_epoch(f->t), 0);
  float *now = malloc(f->P * sizeof(float));
  ck_assert_int_eq(dlca_trainer_get_params(f->t, now), DLCA_OK);
  ck_assert_msg(memcmp(now, f->fresh, f->P * sizeof(float)) == 0, "%s at %zu: a refused load changed the logits",
                what, at);
  free(now);
  f->refused++;
}

/* The header and metadata (64 bytes) byte by byte; the payload at a stride
 * that is prime to 4, so that every byte position of a float is hit. */
static size_t next_offset(size_t i) { return i < 64 ? i + 1 : i + 13; }

START_TEST(test_checkpoint_truncated) {
  ckpt_fixture f;
  ckpt_setup(&f, tu_tmpdir("mut-trunc"));
  for (size_t n = 0; n < f.len; n = next_offset(n)) expect_refused(&f, f.good, n, "cut", n);
  expect_refused(&f, f.good, f.len - 1, "cut", f.len - 1);
  /* a cut through the header still says what it is */
  expect_refused(&f, f.good, 12, "cut", 12);
  ck_assert_msg(strstr(dlca_last_error(), "truncated"), "%s", dlca_last_error());
  /* padded by one byte */
  unsigned char *b = malloc(f.len + 1);
  memcpy(b, f.good, f.len);
  b[f.len] = 0;
  expect_refused(&f, b, f.len + 1, "padded", f.len);
  free(b);
  ck_assert_int_gt(f.refused, 100);
  ckpt_teardown(&f);
}
END_TEST

START_TEST(test_checkpoint_flipped) {
  ckpt_fixture f;
  ckpt_setup(&f, tu_tmpdir("mut-flip"));
  unsigned char *b = malloc(f.len);
  for (size_t i = 0; i < f.len; i = next_offset(i)) {
    for (int bit = 0; bit < 8; bit += i < 64 ? 1 : 7) {
      memcpy(b, f.good, f.len);
      b[i] ^= (unsigned char)(1u << bit);
      expect_refused(&f, b, f.len, "bit flipped", i * 8 + (size_t)bit);
    }
  }
  free(b);
  ckpt_teardown(&f);
}
END_TEST

/* Files with a valid checksum that are still wrong: made by hand, or by a
 * run that diverged. The checksum is recomputed after each change. */
static void reseal(unsigned char *b, size_t len) {
  uint64_t payload = len - 32, sum = XXH64(b + 32, payload, 0);
  memcpy(b + 16, &payload, 8);
  memcpy(b + 24, &sum, 8);
}

START_TEST(test_checkpoint_crafted) {
  ckpt_fixture f;
  ckpt_setup(&f, tu_tmpdir("mut-craft"));
  unsigned char *b = malloc(f.len);
  /* a header with a payload too small for its metadata */
  for (size_t n = 32; n < 64; n += 8) {
    memcpy(b, f.good, n);
    reseal(b, n);
    expect_refused(&f, b, n, "sealed short payload", n);
  }
  /* another model's size */
  memcpy(b, f.good, f.len);
  uint64_t P1 = f.P + 1;
  memcpy(b + 48, &P1, 8);
  reseal(b, f.len);
  expect_refused(&f, b, f.len, "sealed wrong P", 48);
  /* a non-finite logit, first moment or second moment; a negative second moment */
  const float bad[] = {NAN, INFINITY, -INFINITY};
  for (int k = 0; k < 3; k++)
    for (int q = 0; q < 3; q++) {
      memcpy(b, f.good, f.len);
      size_t at = 64 + ((size_t)q * f.P + f.P / 2) * sizeof(float);
      memcpy(b + at, &bad[k], sizeof(float));
      reseal(b, f.len);
      expect_refused(&f, b, f.len, "sealed non-finite value", at);
      ck_assert_msg(strstr(dlca_last_error(), q == 0 ? "logit" : "moment"), "%s", dlca_last_error());
    }
  memcpy(b, f.good, f.len);
  const float neg = -1.0f;
  memcpy(b + 64 + (2 * f.P + 1) * sizeof(float), &neg, sizeof neg);
  reseal(b, f.len);
  expect_refused(&f, b, f.len, "sealed negative second moment", 2 * f.P + 1);
  /* and the same reseal of an unchanged file loads: the test's own sealing is right */
  memcpy(b, f.good, f.len);
  reseal(b, f.len);
  ck_assert(memcmp(b, f.good, f.len) == 0);
  free(b);
  ckpt_teardown(&f);
}
END_TEST

/* A diverged run's state is not saved: the last good checkpoint at that
 * path is kept, and the error says why. An absurd learning rate makes the
 * CPU reference's logits overflow within a few epochs. */
START_TEST(test_checkpoint_diverged) {
  ckpt_fixture f;
  const char *dir = tu_tmpdir("mut-diverged");
  ckpt_setup(&f, dir);
  char path[1200];
  snprintf(path, sizeof path, "%s/good.ckpt", dir);
  dlca_trainer *t = ref_trainer(f.m);
  float y[6 * 6 * 2];
  tu_random(y, sizeof y / sizeof *y, 0, 1, 8);
  ck_assert_int_eq(dlca_trainer_set_target(t, y, 0), DLCA_OK);
  ck_assert_int_eq(dlca_trainer_set_lr(t, 3e38f), DLCA_OK);
  float *p = malloc(f.P * sizeof(float));
  int finite = 1;
  for (int e = 0; e < 20 && finite; e++) {
    ck_assert_msg(dlca_trainer_step(t) == DLCA_OK, "%s", dlca_last_error());
    ck_assert_int_eq(dlca_trainer_get_params(t, p), DLCA_OK);
    for (size_t i = 0; i < f.P; i++) finite &= isfinite(p[i]) != 0;
  }
  ck_assert_msg(!finite, "the run did not diverge");
  int rc = dlca_trainer_save_checkpoint(t, path);
  ck_assert_int_eq(rc, DLCA_ECHECKPOINT);
  ck_assert_msg(strstr(dlca_last_error(), "good.ckpt") && strstr(dlca_last_error(), "diverged"), "%s",
                dlca_last_error());
  size_t len;
  unsigned char *after = (unsigned char *)tu_read(path, &len);
  ck_assert_msg(len == f.len && memcmp(after, f.good, len) == 0, "the good checkpoint changed");
  free(after), free(p);
  dlca_trainer_free(t);
  ckpt_teardown(&f);
}
END_TEST

/* ---- JSON files: models and tuning tables ---- */

/* A loader under test: loads path and frees what it loaded; returns the status. */
typedef int (*json_loader)(const char *path);

static int load_model(const char *path) {
  dlca_model *m = NULL;
  int rc = dlca_model_load(path, &m);
  if (rc == DLCA_OK) {
    ck_assert_ptr_nonnull(m);
    ck_assert_uint_gt(dlca_model_n_params(m), 0);
    dlca_model_free(m);
  }
  return rc;
}

static int load_tuning(const char *path) {
  dlca__tuning_table t;
  int rc = dlca__tuning_load(path, &t);
  if (rc == DLCA_OK) {
    ck_assert_uint_gt(t.n_entries, 0);
    dlca__tuning_free(&t);
  } else {
    ck_assert_int_eq(rc, DLCA_ETUNING);
  }
  return rc;
}

/* Writes len bytes of b to path and loads it; a failure must be a status
 * whose message starts with the path. Returns the status. */
static int load_cleanly(json_loader load, const char *path, const void *b, size_t len, const char *what, size_t at) {
  spit(path, b, len);
  int rc = load(path);
  if (rc != DLCA_OK)
    ck_assert_msg(strncmp(dlca_last_error(), path, strlen(path)) == 0, "%s at %zu: message does not start with %s: %s",
                  what, at, path, dlca_last_error());
  return rc;
}

/* The small model saved in a fresh directory: its text, and in path (1200
 * bytes) the name each mutation is written to. */
static unsigned char *saved_model(const char *tag, char *path, size_t *len) {
  const char *dir = tu_tmpdir(tag);
  dlca_model *m = small_model();
  char good[1200];
  snprintf(good, sizeof good, "%s/good.json", dir);
  snprintf(path, 1200, "%s/mutant.json", dir);
  ck_assert_msg(dlca_model_save(m, good) == DLCA_OK, "%s", dlca_last_error());
  dlca_model_free(m);
  return (unsigned char *)tu_read(good, len);
}

/* The shipped tuning table's text, and the mutant's name in path. */
static unsigned char *shipped_table(const char *tag, char *path, size_t *len) {
  snprintf(path, 1200, "%s/mutant.json", tu_tmpdir(tag));
  return (unsigned char *)tu_read(DLCA_SRCDIR "/tuning/default.json", len);
}

/* Every cut of text is refused (every length up to `dense` bytes, then at
 * `stride`, to keep the sanitizer run short), and the whole text loads. */
static void sweep_cuts(json_loader load, const char *path, const unsigned char *text, size_t len, size_t dense,
                       size_t stride) {
  size_t end = len; /* the text without its trailing white space */
  while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == ' ')) end--;
  int n_refused = 0;
  for (size_t n = 0; n < end; n += n < dense ? 1 : stride) {
    ck_assert_msg(load_cleanly(load, path, text, n, "cut", n) != DLCA_OK, "%s cut to %zu of %zu bytes loaded", path,
                  n, len);
    n_refused++;
  }
  ck_assert_int_eq(load_cleanly(load, path, text, end, "cut", end), DLCA_OK);
  ck_assert_int_gt(n_refused, 100);
}

/* Characters that change a JSON value's type, sign, size or structure, put
 * at every position up to `dense` bytes, then at `stride`. Most changes
 * break the file; some (a digit of a logit) leave it valid. */
static void sweep_replacements(json_loader load, const char *path, const unsigned char *text, size_t len,
                               size_t dense, size_t stride) {
  static const char subst[] = "x0-9.\"[]{},:e \x01\xff";
  unsigned char *b = malloc(len);
  int n_ok = 0, n_refused = 0;
  for (size_t i = 0; i < len; i += i < dense ? 1 : stride) {
    for (size_t k = 0; k < sizeof subst - 1; k++) {
      if (text[i] == (unsigned char)subst[k]) continue;
      memcpy(b, text, len);
      b[i] = (unsigned char)subst[k];
      if (load_cleanly(load, path, b, len, "replaced", i) == DLCA_OK)
        n_ok++;
      else
        n_refused++;
    }
  }
  ck_assert_int_gt(n_refused, 1000);
  ck_assert_int_gt(n_ok, 0);
  free(b);
}

/* _i: the model (0, 1) or the tuning table (2, 3); cuts (even) or
 * replacements (odd). The model's shape fields come first, so its first
 * 2 KB are swept densely; the 13 KB table is swept at wider strides. */
START_TEST(test_json_sweeps) {
  static const char *tags[] = {"mut-model-cut", "mut-model-repl", "mut-tune-cut", "mut-tune-repl"};
  char path[1200];
  size_t len;
  int table = _i >= 2;
  unsigned char *text = table ? shipped_table(tags[_i], path, &len) : saved_model(tags[_i], path, &len);
  json_loader load = table ? load_tuning : load_model;
  if (_i % 2 == 0)
    sweep_cuts(load, path, text, len, table ? 600 : 2000, table ? 11 : 3);
  else
    sweep_replacements(load, path, text, len, table ? 400 : 1500, table ? 29 : 5);
  free(text);
}
END_TEST

/* ---- cache entries ---- */

/* A format-2 entry (header, key text, payload) cut at every length and
 * flipped at every byte: each load is a miss that deletes the file, never a
 * crash or a payload. Host only: a hash-only key, as bank orders use. */
START_TEST(test_cache_entry_mutations) {
  const char *dir = tu_tmpdir("mut-entry");
  char path[1200];
  snprintf(path, sizeof path, "%s/programs/0123456789abcdef.clbin", dir);
  uint64_t key = 0x0123456789abcdefull;
  dlca__cache_id id;
  dlca__cache_key_hash(&id, &key);
  unsigned char payload[100];
  for (size_t i = 0; i < sizeof payload; i++) payload[i] = (unsigned char)(i * 7 + 1);
  ck_assert_msg(dlca__cache_store(path, &id, payload, sizeof payload) == DLCA_OK, "%s", dlca_last_error());
  size_t len;
  unsigned char *good = (unsigned char *)tu_read(path, &len), *bin, *b = malloc(len);
  ck_assert_int_eq(dlca__cache_load(path, &id, &bin, &len), 0);
  ck_assert(memcmp(bin, payload, sizeof payload) == 0);
  free(bin);
  len = sizeof payload + 48 + 16;
  for (size_t n = 0; n < 2 * len; n++) {
    int cut = n < len;
    size_t at = cut ? n : n - len, m = cut ? n : len;
    memcpy(b, good, len);
    if (!cut) b[at] ^= 0x10;
    spit(path, b, m);
    ck_assert_msg(dlca__cache_load(path, &id, &bin, &m) == 1, "%s at %zu loaded", cut ? "cut" : "flip", at);
    ck_assert_msg(access(path, F_OK) != 0, "%s at %zu: the bad entry is still there", cut ? "cut" : "flip", at);
  }
  /* another key, same bytes: a miss */
  uint64_t other = key ^ 1;
  dlca__cache_id oid;
  dlca__cache_key_hash(&oid, &other);
  spit(path, good, len);
  ck_assert_int_eq(dlca__cache_load(path, &oid, &bin, &len), 1);
  free(good);
  free(b);
}
END_TEST

Suite *suite_mutations(void) {
  Suite *s = suite_create("mutations");
  TCase *tc = tcase_create("files");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_checkpoint_truncated);
  tcase_add_test(tc, test_checkpoint_flipped);
  tcase_add_test(tc, test_checkpoint_crafted);
  tcase_add_test(tc, test_checkpoint_diverged);
  tcase_add_loop_test(tc, test_json_sweeps, 0, 4);
  tcase_add_test(tc, test_cache_entry_mutations);
  suite_add_tcase(s, tc);
  return s;
}
