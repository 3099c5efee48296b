/* The user tuning table as a file (bench/tune_table_file.h). */
#include "tune_table_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cl/runtime.h"
#include "cli.h"

#define PROG "dlca-tune"

int tune_table_path(const char *output, char *path, size_t n) {
  if (output) {
    snprintf(path, n, "%s", output);
    return CLI_OK;
  }
  char dir[1024];
  int rc = dlca_cache_dir(dir, sizeof dir);
  if (rc) {
    fprintf(stderr, "%s: the cache directory: %s\n", PROG, dlca_last_error());
    return CLI_FAIL;
  }
  snprintf(path, n, "%s/tuning.json", dir);
  return CLI_OK;
}

static void trim(const char *in, char *out, size_t n) {
  while (*in == ' ' || *in == '\t') in++;
  snprintf(out, n, "%s", in);
  for (size_t l = strlen(out); l > 0 && (out[l - 1] == ' ' || out[l - 1] == '\t'); l--) out[l - 1] = 0;
}

/* Whether entry e is this device's under this driver. */
static int same_device(const json_t *e, const dlca_device_info *d) {
  const char *dev = json_string_value(json_object_get(e, "device"));
  const char *drv = json_string_value(json_object_get(e, "driver"));
  if (!dev || !drv) return 0;
  char a[256], b[256], c[128], x[128];
  dlca__normalise_name(dev, a, sizeof a);
  dlca__normalise_name(d->name, b, sizeof b);
  trim(drv, c, sizeof c);
  trim(d->driver, x, sizeof x);
  return !strcmp(a, b) && !strcmp(c, x);
}

json_t *tune_table_load(const char *path) {
  struct stat sb;
  if (stat(path, &sb) != 0) {
    json_t *root = json_object();
    json_object_set_new(root, "format", json_string("dlca-tuning"));
    json_object_set_new(root, "version", json_integer(1));
    json_object_set_new(root, "device", json_string(""));
    json_object_set_new(root, "driver", json_string(""));
    json_object_set_new(root, "comment", json_string("Written by bench/dlca-tune (doc/tuning-table.md)."));
    json_object_set_new(root, "entries", json_array());
    return root;
  }
  dlca__tuning_table old;
  if (dlca__tuning_load(path, &old)) {
    fprintf(stderr, "%s: %s: not overwritten, it is not a valid tuning table: %s (fix or delete it, or write "
                    "elsewhere with --output)\n", PROG, path, dlca_last_error());
    return NULL;
  }
  dlca__tuning_free(&old);
  json_error_t je;
  json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
  if (!root) fprintf(stderr, "%s: %s: %s\n", PROG, path, je.text);
  return root;
}

json_t *tune_table_object(json_t *entry, const char *key) {
  json_t *v = json_object_get(entry, key);
  if (json_is_object(v)) return v;
  v = json_object();
  json_object_set_new(entry, key, v);
  return v;
}

json_t *tune_table_device_entry(json_t *root, const dlca_device_info *dev) {
  /* The header names the device the table was tuned on: the library ignores
   * the table on any other device (or driver). */
  json_object_set_new(root, "device", json_string(dev->name));
  json_object_set_new(root, "driver", json_string(dev->driver));
  json_t *entries = json_object_get(root, "entries");
  json_t *entry = NULL;
  for (size_t i = 0; i < json_array_size(entries);) {
    json_t *e = json_array_get(entries, i);
    if (!same_device(e, dev)) {
      i++;
    } else if (!entry) {
      entry = e;
      i++;
    } else {
      json_array_remove(entries, i);
    }
  }
  if (!entry) {
    entry = json_object();
    json_array_append_new(entries, entry);
  }
  json_object_set_new(entry, "device", json_string(dev->name));
  json_object_set_new(entry, "driver", json_string(dev->driver));
  tune_table_object(entry, "params");
  return entry;
}

int tune_table_store(const json_t *root, const char *path, int in_cache) {
  char *text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
  if (!text) {
    fprintf(stderr, "%s: %s: out of memory\n", PROG, path);
    return CLI_FAIL;
  }
  size_t len = strlen(text);
  char *nl = realloc(text, len + 2);
  if (nl) {
    text = nl;
    text[len++] = '\n';
    text[len] = 0;
  }
  int rc = DLCA_OK;
  if (in_cache) {
    char dir[1100];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
      *slash = 0;
      rc = dlca__mkdirs(dir);
    }
  }
  /* in the cache directory: writable by no one else whatever the umask, or the library ignores it */
  if (!rc) rc = dlca__write_file_atomic_mode(path, text, len, in_cache ? 022 : 0);
  free(text);
  if (rc) {
    fprintf(stderr, "%s: writing the tuning table: %s\n", PROG, dlca_last_error());
    return CLI_FAIL;
  }
  return CLI_OK;
}
