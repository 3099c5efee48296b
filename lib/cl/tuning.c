/* The tuning table (doc/tuning-table.md): tuned kernel parameters by device,
 * then vendor, then device type, then default; the shipped table, the user's table, and the
 * tuner's in-process overrides. */
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "cl/runtime.h"
#include "core/json_util.h"

#define BAD(...) dlca__fail(DLCA_ETUNING, __VA_ARGS__)

void dlca__normalise_name(const char *in, char *out, size_t n) {
  size_t o = 0;
  int space = 0;
  for (const char *p = in ? in : ""; *p && o + 1 < n;) {
    if (!strncasecmp(p, "(tm)", 4)) {
      p += 4;
      continue;
    }
    if (!strncasecmp(p, "(r)", 3)) {
      p += 3;
      continue;
    }
    unsigned char c = (unsigned char)*p++;
    if (isspace(c)) {
      space = 1;
      continue;
    }
    if (space && o > 0 && o + 2 < n) out[o++] = ' ';
    space = 0;
    out[o++] = (char)tolower(c);
  }
  out[o] = 0;
}


static int ident_ok(const char *s) {
  if (!isalpha((unsigned char)*s) && *s != '_') return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return 0;
  return 1;
}

/* An optional string member, normalised into out. */
static int opt_string(json_t *obj, const char *key, const char *path, const char *where, char *out,
                      size_t n, int normalise) {
  out[0] = 0;
  json_t *j = json_object_get(obj, key);
  if (!j) return DLCA_OK;
  if (!json_is_string(j))
    return BAD("%s: %s%s: expected a string, found %s", path, where, key, dlca__json_type(j));
  if (normalise) dlca__normalise_name(json_string_value(j), out, n);
  else {
    /* Drivers are compared as written, but stray blanks are not significant. */
    const char *s = json_string_value(j);
    while (isspace((unsigned char)*s)) s++;
    snprintf(out, n, "%s", s);
    for (size_t l = strlen(out); l > 0 && isspace((unsigned char)out[l - 1]); l--) out[l - 1] = 0;
  }
  return DLCA_OK;
}

static int read_params(json_t *params, const char *path, size_t ei, dlca__tuning_entry *e) {
  if (!json_is_object(params))
    return BAD("%s: entries[%zu].params: expected an object, found %s", path, ei, dlca__json_type(params));
  size_t total = 0;
  const char *stem;
  json_t *kv;
  json_object_foreach(params, stem, kv) {
    if (!json_is_object(kv))
      return BAD("%s: entries[%zu].params.%s: expected an object of NAME: integer, found %s", path,
                 ei, stem, dlca__json_type(kv));
    total += json_object_size(kv);
  }
  e->params = calloc(total ? total : 1, sizeof *e->params);
  if (!e->params) return BAD("%s: out of memory", path);
  json_object_foreach(params, stem, kv) {
    char st[64];
    dlca__kernel_stem(stem, st, sizeof st);
    if (!*st || strlen(stem) >= 64)
      return BAD("%s: entries[%zu].params: \"%s\" is not a kernel file name", path, ei, stem);
    const char *name;
    json_t *v;
    json_object_foreach(kv, name, v) {
      if (!ident_ok(name) || strlen(name) >= 64)
        return BAD("%s: entries[%zu].params.%s: \"%s\" is not a macro name", path, ei, stem, name);
      if (!json_is_integer(v))
        return BAD("%s: entries[%zu].params.%s.%s: expected an integer, found %s", path, ei, stem,
                   name, dlca__json_type(v));
      json_int_t x = json_integer_value(v);
      if (x < -2147483647LL || x > 2147483647LL)
        return BAD("%s: entries[%zu].params.%s.%s: %lld does not fit an int", path, ei, stem, name,
                   (long long)x);
      dlca__tuning_param *p = &e->params[e->n_params++];
      snprintf(p->stem, sizeof p->stem, "%s", st);
      snprintf(p->name, sizeof p->name, "%s", name);
      p->value = (int)x;
    }
  }
  return DLCA_OK;
}

static int read_table(json_t *root, const char *path, dlca__tuning_table *t) {
  if (!json_is_object(root)) return BAD("%s: expected a JSON object, found %s", path, dlca__json_type(root));
  json_t *fmt = json_object_get(root, "format");
  if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "dlca-tuning") != 0)
    return BAD("%s: format: expected \"dlca-tuning\"", path);
  json_t *ver = json_object_get(root, "version");
  if (!json_is_integer(ver)) return BAD("%s: version: expected the integer 1", path);
  if (json_integer_value(ver) != 1)
    return BAD("%s: version: %lld is not supported (this library reads version 1)", path,
               (long long)json_integer_value(ver));
  int rc;
  if ((rc = opt_string(root, "device", path, "", t->device, sizeof t->device, 1))) return rc;
  if ((rc = opt_string(root, "driver", path, "", t->driver, sizeof t->driver, 0))) return rc;
  json_t *entries = json_object_get(root, "entries");
  if (!entries) return BAD("%s: entries: missing", path);
  if (!json_is_array(entries))
    return BAD("%s: entries: expected an array, found %s", path, dlca__json_type(entries));
  size_t n = json_array_size(entries);
  t->entries = calloc(n ? n : 1, sizeof *t->entries);
  if (!t->entries) return BAD("%s: out of memory", path);
  for (size_t i = 0; i < n; i++) {
    json_t *e = json_array_get(entries, i);
    dlca__tuning_entry *te = &t->entries[i];
    t->n_entries = i + 1;
    if (!json_is_object(e))
      return BAD("%s: entries[%zu]: expected an object, found %s", path, i, dlca__json_type(e));
    char where[32];
    snprintf(where, sizeof where, "entries[%zu].", i);
    if ((rc = opt_string(e, "device", path, where, te->device, sizeof te->device, 1))) return rc;
    if ((rc = opt_string(e, "driver", path, where, te->driver, sizeof te->driver, 0))) return rc;
    if ((rc = opt_string(e, "vendor", path, where, te->vendor, sizeof te->vendor, 1))) return rc;
    if ((rc = opt_string(e, "type", path, where, te->type, sizeof te->type, 1))) return rc;
    if (!strcmp(te->device, "default")) {
      te->is_default = 1;
      te->device[0] = 0;
    }
    if (te->type[0] && strcmp(te->type, "cpu") && strcmp(te->type, "gpu") && strcmp(te->type, "accelerator"))
      return BAD("%s: entries[%zu].type: \"%s\" is not \"cpu\", \"gpu\" or \"accelerator\"", path, i, te->type);
    if (te->type[0] && (te->device[0] || te->vendor[0] || te->is_default))
      return BAD("%s: entries[%zu]: \"type\" selects an entry on its own, without \"device\" or \"vendor\"", path,
                 i);
    if (!te->is_default && !te->device[0] && !te->vendor[0] && !te->type[0])
      return BAD("%s: entries[%zu]: needs \"device\", \"vendor\", \"type\", or \"device\": \"default\"", path,
                 i);
    if (te->driver[0] && !te->device[0])
      return BAD("%s: entries[%zu]: \"driver\" needs a \"device\"", path, i);
    json_t *params = json_object_get(e, "params");
    if (!params) return BAD("%s: entries[%zu].params: missing", path, i);
    if ((rc = read_params(params, path, i, te))) return rc;
  }
  return DLCA_OK;
}

void dlca__tuning_free(dlca__tuning_table *t) {
  for (size_t i = 0; i < t->n_entries; i++) free(t->entries[i].params);
  free(t->entries);
  t->entries = NULL;
  t->n_entries = 0;
}

/* A tuning table is a few KiB; this is far beyond any real one. */
#define TUNING_MAX ((size_t)16 << 20)

/* Reads and parses the table at path with the bounded reader (a FIFO or a
 * device is refused, never waited on); 1 if missing and flags allow it. */
static int load_table(const char *path, int flags, dlca__tuning_table *t) {
  memset(t, 0, sizeof *t);
  snprintf(t->path, sizeof t->path, "%s", path);
  const dlca__read_limits lim = {TUNING_MAX, DLCA_ETUNING, "a tuning table", flags};
  char *text;
  size_t len;
  int rc = dlca__read_file_limited(path, &lim, &text, &len);
  if (rc == 1) return 1;
  if (rc) {
    char why[1200]; /* the reader's message names the path and what is wrong */
    snprintf(why, sizeof why, "%s", dlca_last_error());
    return BAD("cannot read the tuning table: %s", why);
  }
  json_error_t je;
  json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
  free(text);
  if (!root)
    return BAD("%s:%d:%d: tuning table is not valid JSON: %s", path, je.line, je.column, je.text);
  rc = read_table(root, path, t);
  json_decref(root);
  if (rc) dlca__tuning_free(t);
  return rc;
}

int dlca__tuning_load(const char *path, dlca__tuning_table *t) {
  return load_table(path, 0, t);
}

int dlca__tuning_matches(const dlca__tuning_table *t, const char *device, const char *driver) {
  char d[256];
  dlca__normalise_name(device, d, sizeof d);
  if (t->device[0] && strcmp(t->device, d) != 0) return 0;
  if (t->driver[0] && strcmp(t->driver, driver) != 0) return 0;
  return 1;
}

/* How closely an entry names this device; -1 if it does not apply. */
static int entry_score(const dlca__tuning_entry *e, const char *dev, const char *driver, const char *vendor,
                       const char *type) {
  if (e->device[0]) {
    if (strcmp(e->device, dev) != 0) return -1;
    if (!e->driver[0]) return 4;
    return strcmp(e->driver, driver) == 0 ? 5 : 3;
  }
  if (e->vendor[0]) return strcmp(e->vendor, vendor) == 0 ? 2 : -1;
  if (e->type[0]) return strcmp(e->type, type) == 0 ? 1 : -1;
  return e->is_default ? 0 : -1;
}

/* The most specific entry that has parameters for the kernel file decides
 * all of that file's parameters: parameters tuned together stay together. */
int dlca__tuning_lookup(const dlca__tuning_table *t, const char *device, const char *driver,
                        const char *vendor, const char *stem, const char *param, int *value) {
  return dlca__tuning_lookup_typed(t, device, driver, vendor, NULL, stem, param, value);
}

int dlca__tuning_lookup_typed(const dlca__tuning_table *t, const char *device, const char *driver,
                              const char *vendor, const char *type, const char *stem, const char *param,
                              int *value) {
  char dev[256], ven[128], st[64];
  dlca__normalise_name(device, dev, sizeof dev);
  dlca__normalise_name(vendor, ven, sizeof ven);
  dlca__kernel_stem(stem, st, sizeof st);
  const dlca__tuning_entry *best = NULL;
  int best_score = -1;
  for (size_t i = 0; i < t->n_entries; i++) {
    const dlca__tuning_entry *e = &t->entries[i];
    int s = entry_score(e, dev, driver ? driver : "", ven, type ? type : "");
    if (s <= best_score) continue;
    for (size_t j = 0; j < e->n_params; j++)
      if (!strcmp(e->params[j].stem, st)) {
        best = e;
        best_score = s;
        break;
      }
  }
  if (!best) return 0;
  for (size_t j = 0; j < best->n_params; j++)
    if (!strcmp(best->params[j].stem, st) && !strcmp(best->params[j].name, param)) {
      *value = best->params[j].value;
      return 1;
    }
  return 0;
}

/* The shipped table is found as the kernels are: tuning/default.json beside
 * each directory of DLCA_CL_KERNEL_PATH (D/../tuning/default.json: the source
 * tree keeps kernels-cl/ and tuning/ side by side, as the install keeps
 * kernels/ and tuning/), then the installed one. Its path goes to path; 0 if
 * none exists, with the places tried in tried. */
static int shipped_table(char *path, size_t n, char *tried, size_t tn) {
  const char *env = getenv("DLCA_CL_KERNEL_PATH");
  for (const char *s = env ? env : ""; *s;) {
    size_t l = strcspn(s, ":");
    int w = snprintf(path, n, "%.*s/../tuning/default.json", (int)l, s);
    if (l && w > 0 && (size_t)w < n && access(path, F_OK) == 0) return 1;
    s += l;
    if (*s == ':') s++;
  }
  snprintf(path, n, "%s", DLCA_PKGDATADIR "/tuning/default.json");
  if (access(path, F_OK) == 0) return 1;
  snprintf(tried, tn, "%s%s", env && *env ? "../tuning/default.json from each DLCA_CL_KERNEL_PATH directory, " : "",
           DLCA_PKGDATADIR "/tuning/default.json");
  return 0;
}

int dlca__tuning_init(dlca_context *ctx) {
  char shipped[1100], tried[600];
  int rc;
  if (shipped_table(shipped, sizeof shipped, tried, sizeof tried)) {
    if ((rc = dlca__tuning_load(shipped, &ctx->shipped))) return rc;
    ctx->have_shipped = 1;
  } else {
    dlca__warn(ctx, "no shipped tuning table (searched %s): kernels use their built-in defaults", tried);
  }

  const char *env = getenv("DLCA_CL_TUNING");
  char path[1100];
  int explicit = env && *env;
  if (explicit) snprintf(path, sizeof path, "%s", env);
  else if (ctx->cache_on) snprintf(path, sizeof path, "%s/tuning.json", ctx->cache_dir);
  else return DLCA_OK;
  /* The one in the cache directory must be this user's and writable by no
   * one else (doc/kernel-cache.md); one named by DLCA_CL_TUNING is the user's choice. */
  rc = load_table(path, explicit ? 0 : DLCA__READ_MISSING_OK | DLCA__READ_OWNED, &ctx->user);
  if (rc == 1) return DLCA_OK;
  if (rc) {
    /* Named explicitly, a bad table is the user's mistake to hear about; one
     * found in the cache directory must not stop the library working. */
    if (explicit) {
      char msg[1400];
      snprintf(msg, sizeof msg, "%s", dlca_last_error());
      return dlca__fail(rc, "%s (the table named by DLCA_CL_TUNING)", msg);
    }
    dlca__warn(ctx, "tuning table ignored: %s", dlca_last_error());
    return DLCA_OK;
  }
  if (!dlca__tuning_matches(&ctx->user, ctx->info.name, ctx->info.driver)) {
    dlca__warn(ctx,
               "tuning table %s ignored: it was tuned on \"%s\" (driver \"%s\"), not on this "
               "device \"%s\" (driver \"%s\"); run dlca-tune to make one for this device",
               path, ctx->user.device, ctx->user.driver[0] ? ctx->user.driver : "any",
               ctx->name_norm, ctx->info.driver);
    dlca__tuning_free(&ctx->user);
    return DLCA_OK;
  }
  ctx->have_user = 1;
  return DLCA_OK;
}

/* The "type" of a tuning entry that matches a device of this type. */
static const char *device_type_name(dlca_device_type t) {
  return t == DLCA_DEVICE_CPU ? "cpu" : t == DLCA_DEVICE_GPU ? "gpu" : t == DLCA_DEVICE_ACCELERATOR ? "accelerator" : "";
}

#define OVERRIDES "the tuner's overrides (dlca__tuning_override)"

/* DLCA_ETUNING unless value is one that t's @tunable line allows; `table`
 * names where the value comes from. */
static int check_allowed(const char *table, const char *stem, const dlca_tunable *t, int value) {
  if (dlca__tunable_allowed(t, value)) return DLCA_OK;
  char a[256];
  dlca__tunable_allowed_text(t, a, sizeof a);
  return BAD("%s: %s.cl tunable %s = %d is outside its declared values %s (its @tunable line)", table, stem,
             t->name, value, a);
}

int dlca__tunable_value(dlca_context *ctx, const char *stem, const dlca_tunable *t, int *value) {
  const char *from = NULL;
  if (ctx) {
    pthread_mutex_lock(&ctx->lock);
    for (size_t i = 0; i < ctx->n_overrides && !from; i++)
      if (!strcmp(ctx->overrides[i].stem, stem) && !strcmp(ctx->overrides[i].name, t->name)) {
        *value = ctx->overrides[i].value;
        from = OVERRIDES;
      }
    pthread_mutex_unlock(&ctx->lock);
    const char *type = device_type_name(ctx->info.type);
    if (!from && ctx->have_user &&
        dlca__tuning_lookup_typed(&ctx->user, ctx->info.name, ctx->info.driver, ctx->info.vendor, type, stem,
                                  t->name, value))
      from = ctx->user.path;
    if (!from && ctx->have_shipped &&
        dlca__tuning_lookup_typed(&ctx->shipped, ctx->info.name, ctx->info.driver, ctx->info.vendor, type, stem,
                                  t->name, value))
      from = ctx->shipped.path;
  }
  if (!from) *value = t->values[0]; /* allowed: the loader checked the line */
  return from ? check_allowed(from, stem, t, *value) : DLCA_OK;
}

int dlca__tuning_validate(const dlca__tuning_table *t) {
  for (size_t i = 0; i < t->n_entries; i++)
    for (size_t j = 0; j < t->entries[i].n_params; j++) {
      const dlca__tuning_param *p = &t->entries[i].params[j];
      char file[80];
      snprintf(file, sizeof file, "%s.cl", p->stem);
      dlca_tunable *ts;
      size_t n;
      int rc = dlca__kernel_tunables(NULL, file, &ts, &n);
      if (rc) return rc;
      size_t k = 0;
      while (k < n && strcmp(ts[k].name, p->name)) k++;
      if (k == n) rc = BAD("%s: entries[%zu].params.%s.%s: %s declares no such tunable", t->path, i, p->stem,
                           p->name, file);
      else rc = check_allowed(t->path, p->stem, &ts[k], p->value);
      free(ts);
      if (rc) return rc;
    }
  return DLCA_OK;
}

/* The tunable `param` that file declares, or DLCA_EINVAL listing those it does. */
static int declared(const char *file, const char *param, dlca_tunable *out) {
  dlca_tunable *ts;
  size_t n;
  char name[1024];
  size_t len = strlen(file);
  /* "selftest" names the file as the table does. */
  snprintf(name, sizeof name, "%s%s", file, len > 3 && !strcmp(file + len - 3, ".cl") ? "" : ".cl");
  int rc = dlca__kernel_tunables(NULL, name, &ts, &n);
  if (rc) return rc;
  for (size_t i = 0; i < n; i++)
    if (!strcmp(ts[i].name, param)) {
      *out = ts[i];
      free(ts);
      return DLCA_OK;
    }
  dlca__fail(DLCA_EINVAL, "%s: declares no tunable %s (it declares:%s", file, param, n ? "" : " none");
  for (size_t i = 0; i < n; i++) {
    dlca__append_error(" ");
    dlca__append_error(ts[i].name);
  }
  dlca__append_error(")");
  free(ts);
  return DLCA_EINVAL;
}

int dlca__tunable(dlca_context *ctx, const char *file, const char *param, int *value) {
  if (!file || !param || !value) return dlca__fail(DLCA_EINVAL, "dlca__tunable: NULL argument");
  dlca_tunable t;
  int rc = declared(file, param, &t);
  if (rc) return rc;
  char stem[64];
  dlca__kernel_stem(file, stem, sizeof stem);
  return dlca__tunable_value(ctx, stem, &t, value);
}

int dlca__tuning_override(dlca_context *ctx, const char *file, const char *param, int value) {
  if (!ctx || !file || !param) return dlca__fail(DLCA_EINVAL, "dlca__tuning_override: NULL argument");
  dlca_tunable t;
  int rc = declared(file, param, &t);
  if (rc) return rc;
  char stem[64];
  dlca__kernel_stem(file, stem, sizeof stem);
  if ((rc = check_allowed(OVERRIDES, stem, &t, value))) return rc;
  pthread_mutex_lock(&ctx->lock);
  size_t i = 0;
  while (i < ctx->n_overrides &&
         (strcmp(ctx->overrides[i].stem, stem) || strcmp(ctx->overrides[i].name, param)))
    i++;
  if (i == ctx->n_overrides) {
    dlca__tuning_param *o = realloc(ctx->overrides, (i + 1) * sizeof *o);
    if (!o) {
      pthread_mutex_unlock(&ctx->lock);
      return dlca__fail(DLCA_ENOMEM, "out of memory");
    }
    ctx->overrides = o;
    ctx->n_overrides++;
    snprintf(o[i].stem, sizeof o[i].stem, "%s", stem);
    snprintf(o[i].name, sizeof o[i].name, "%s", param);
  }
  ctx->overrides[i].value = value;
  ctx->overrides_gen++;
  pthread_mutex_unlock(&ctx->lock);
  return DLCA_OK;
}

void dlca__tuning_clear_overrides(dlca_context *ctx) {
  if (!ctx) return;
  pthread_mutex_lock(&ctx->lock);
  free(ctx->overrides);
  ctx->overrides = NULL;
  ctx->n_overrides = 0;
  ctx->overrides_gen++;
  pthread_mutex_unlock(&ctx->lock);
}
