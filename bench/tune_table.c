/* dlca-tune's output: the kernel files' winners in this device's entry of
 * the user tuning table (bench/tune_table_file.h), or that entry on stdout
 * (--print-entry). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "tune.h"
#include "tune_table_file.h"

static json_t *params_json(const kfile *k) {
  json_t *p = json_object();
  for (size_t i = 0; i < k->nt; i++) json_object_set_new(p, k->t[i].name, json_integer(k->m[k->winner].v[i]));
  return p;
}

static json_t *measured_json(tuner *T, const kfile *k, const char *date) {
  json_t *j = json_object();
  const meas *w = &k->m[k->winner], *r = &k->m[k->ref];
  char desc[512];
  k->w->describe(T, desc, sizeof desc);
  json_object_set_new(j, "ms_per_epoch", json_real(score(k, w)));
  json_object_set_new(j, "reference_ms_per_epoch", json_real(score(k, r)));
  json_object_set_new(j, "speedup", json_real(score(k, w) > 0 ? score(k, r) / score(k, w) : 1.0));
  json_object_set_new(j, "timing", json_string(k->use_wall ? "wall" : "device"));
  json_object_set_new(j, "workload", json_string(desc));
  json_object_set_new(j, "date", json_string(date));
  char tool[64];
  snprintf(tool, sizeof tool, "dlca-tune %s", dlca_version_string());
  json_object_set_new(j, "tool", json_string(tool));
  return j;
}

/* Sets stem's member of obj, dropping other spellings of the same stem
 * ("trainer.cl" next to "trainer"), which the reader would take as one. */
static void set_stem(json_t *obj, const char *stem, json_t *value) {
  const char *key;
  json_t *v;
  void *tmp;
  json_object_foreach_safe(obj, tmp, key, v) {
    char st[64];
    dlca__kernel_stem(key, st, sizeof st);
    if (!strcmp(st, stem) && strcmp(key, stem)) json_object_del(obj, key);
  }
  json_object_set_new(obj, stem, value);
}

int write_table(tuner *T, kfile *ks, int nk, const char *path, int make_dir) {
  json_t *root = tune_table_load(path);
  if (!root) return CLI_FAIL;
  json_t *entry = tune_table_device_entry(root, &T->dev);
  json_t *params = tune_table_object(entry, "params"), *measured = tune_table_object(entry, "measured");
  char date[32];
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d", localtime(&now));
  for (int i = 0; i < nk; i++) {
    if (ks[i].winner < 0) continue;
    set_stem(params, ks[i].stem, params_json(&ks[i]));
    set_stem(measured, ks[i].stem, measured_json(T, &ks[i], date));
  }
  int code = tune_table_store(root, path, make_dir);
  json_decref(root);
  return code;
}

int print_entry(tuner *T, kfile *ks, int nk) {
  json_t *e = json_object(), *params = json_object();
  json_object_set_new(e, "device", json_string(T->dev.name));
  json_object_set_new(e, "driver", json_string(T->dev.driver));
  for (int i = 0; i < nk; i++)
    if (ks[i].winner >= 0) json_object_set_new(params, ks[i].stem, params_json(&ks[i]));
  json_object_set_new(e, "params", params);
  char *s = json_dumps(e, 0); /* one line, in the doc's style: {"device": ..., "params": {...}} */
  json_decref(e);
  if (!s) return CLI_FAIL;
  puts(s);
  free(s);
  return fflush(stdout) == 0 ? CLI_OK : CLI_FAIL;
}

