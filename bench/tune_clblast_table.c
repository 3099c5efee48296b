/* dlca-tune --clblast: the tuners' JSON files read, and the user tuning
 * table's "clblast" section written (bench/tune_clblast_table.h). */
#include "tune_clblast_table.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cl/clblast.h"
#include "cli.h"
#include "tune_table_file.h"

#define PROG "dlca-tune"

/* "GEMMK=0 KREG=1 ... PRECISION=32" as {"GEMMK": 0, ...} without PRECISION; NULL if malformed. */
static json_t *params_of(const char *text) {
  json_t *o = json_object();
  char buf[2048];
  snprintf(buf, sizeof buf, "%s", text);
  for (char *save = NULL, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
    char *eq = strchr(t, '='), *end;
    if (!eq || eq == t) break;
    *eq = 0;
    long long v = strtoll(eq + 1, &end, 10);
    if (*end || end == eq + 1) break;
    if (strcmp(t, "PRECISION")) json_object_set_new(o, t, json_integer(v));
  }
  if (!json_object_size(o)) json_decref(o), o = NULL;
  return o;
}

/* One tuner file into best (kept where it is the kernel's fastest); -1 after a message. */
static int read_one(const char *path, const char *name, tc_best *best) {
  json_error_t je;
  json_t *root = json_load_file(path, 0, &je);
  const char *kernel = json_string_value(json_object_get(root, "best_kernel"));
  const char *time = json_string_value(json_object_get(root, "best_time"));
  const char *params = json_string_value(json_object_get(root, "best_parameters"));
  json_t *p = params ? params_of(params) : NULL;
  if (!kernel || !time || !p) {
    fprintf(stderr, "%s: %s: not a CLBlast tuner result (best_kernel, best_time, best_parameters)%s%s\n", PROG, path,
            root ? "" : ": ", root ? "" : je.text);
    json_decref(p), json_decref(root);
    return -1;
  }
  double ms = strtod(time, NULL);
  int i = 0;
  while (i < best->n && strcmp(best->kernel[i], kernel)) i++;
  if (i == TC_MAX || (i < best->n && best->ms[i] <= ms)) {
    json_decref(p), json_decref(root);
    return 0;
  }
  if (i == best->n) best->n++;
  else json_decref(best->params[i]);
  snprintf(best->kernel[i], sizeof best->kernel[i], "%s", kernel);
  snprintf(best->file[i], sizeof best->file[i], "%s", name);
  best->ms[i] = ms, best->params[i] = p;
  json_decref(root);
  return 0;
}

int tc_read_results(const char *dir, tc_best *best, int *found) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  struct dirent *e;
  int rc = 0;
  while (!rc && (e = readdir(d))) {
    size_t l = strlen(e->d_name);
    if (strncmp(e->d_name, "clblast_", 8) || l < 6 || strcmp(e->d_name + l - 5, ".json")) continue;
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    rc = read_one(path, e->d_name, best);
  }
  closedir(d);
  *found = best->n;
  return rc;
}

void tc_best_free(tc_best *best) {
  for (int i = 0; i < best->n; i++) json_decref(best->params[i]);
  best->n = 0;
}

void tc_remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  if (d) closedir(d);
  rmdir(dir);
}

/* Sets the section's kernels and their measurements in entry; -1 where the library would refuse one. */
static int fill(json_t *entry, const tc_best *best, const char *path, long size) {
  json_t *sec = json_object_get(entry, "clblast"), *meas = json_object_get(entry, "measured");
  if (!json_is_object(sec)) json_object_set_new(entry, "clblast", sec = json_object());
  if (!json_is_object(meas)) json_object_set_new(entry, "measured", meas = json_object());
  json_t *mc = json_object();
  char date[32];
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d", localtime(&now));
  for (int i = 0; i < best->n; i++) {
    json_object_set(sec, best->kernel[i], best->params[i]);
    json_object_set_new(mc, best->kernel[i], json_pack("{s:f, s:s, s:I, s:s}", "best_ms", best->ms[i], "from",
                                                       best->file[i], "size", (json_int_t)size, "date", date));
  }
  json_object_set_new(meas, "clblast", mc);
  dlca__clblast_kernel *ks;
  size_t n;
  if (dlca__clblast_section(sec, path, "clblast", &ks, &n)) {
    fprintf(stderr, "%s: the tuners' parameters would not load: %s\n", PROG, dlca_last_error());
    return -1;
  }
  free(ks);
  return 0;
}

int tc_write(const dlca_device_info *dev, const tc_best *best, const char *output, long size) {
  char path[1100];
  int code = tune_table_path(output, path, sizeof path);
  json_t *root = code ? NULL : tune_table_load(path);
  if (!root) return CLI_FAIL;
  code = fill(tune_table_device_entry(root, dev), best, path, size) ? CLI_FAIL : tune_table_store(root, path, !output);
  json_decref(root);
  if (code) return code;
  for (int i = 0; i < best->n; i++) printf("%-12s %.4g ms (from %s)\n", best->kernel[i], best->ms[i], best->file[i]);
  printf("wrote the \"clblast\" section of %s for \"%s\" (driver %s)\n", path, dev->name, dev->driver);
  return CLI_OK;
}
