/* The tuning table's CLBlast section (doc/tuning-table.md, lib/cl/clblast.h):
 * an entry's "clblast": {"Xgemm": {"MWG": 64, ...}, ...}, validated and
 * applied to the context's device with CLBlastOverrideParameters. */
#include <clblast_c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl/clblast.h"
#include "core/json_util.h"

#define BAD(...) dlca__fail(DLCA_ETUNING, __VA_ARGS__)

/* The kernels of CLBlast's single-precision GEMM (direct, or indirect with
 * its copy, pad and transpose helpers, GemmRoutine choosing between them)
 * and every parameter of each, as CLBlast 1.5's database has them: an
 * override must give them all. */
static const struct {
  const char *kernel;
  const char *params[17];
} known[] = {
    {"Xgemm",
     {"GEMMK", "KREG", "KWG", "KWI", "MDIMA", "MDIMC", "MWG", "NDIMB", "NDIMC", "NWG", "SA", "SB", "STRM", "STRN",
      "VWM", "VWN"}},
    {"XgemmDirect", {"KWID", "MDIMAD", "MDIMCD", "NDIMBD", "NDIMCD", "PADA", "PADB", "VWMD", "VWND", "WGD"}},
    {"Copy", {"COPY_DIMX", "COPY_DIMY", "COPY_VW", "COPY_WPT"}},
    {"Pad", {"PAD_DIMX", "PAD_DIMY", "PAD_WPTX", "PAD_WPTY"}},
    {"Transpose", {"TRA_DIM", "TRA_PAD", "TRA_SHUFFLE", "TRA_WPT"}},
    {"Padtranspose", {"PADTRA_PAD", "PADTRA_TILE", "PADTRA_WPT"}},
    {"GemmRoutine", {"XGEMM_MIN_INDIRECT_SIZE"}},
};
#define N_KNOWN (sizeof known / sizeof known[0])

static size_t n_params(size_t k) {
  size_t n = 0;
  while (n < 17 && known[k].params[n]) n++;
  return n;
}

/* One kernel's object: each parameter of known[k] once, a non-negative integer. */
static int read_kernel(json_t *obj, size_t k, const char *path, const char *where, dlca__clblast_kernel *out) {
  const char *kn = known[k].kernel;
  if (!json_is_object(obj))
    return BAD("%s: %s.%s: expected an object of PARAMETER: integer, found %s", path, where, kn, dlca__json_type(obj));
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "%s", kn);
  const char *name;
  json_t *v;
  json_object_foreach(obj, name, v) {
    size_t p = 0, np = n_params(k);
    while (p < np && strcmp(known[k].params[p], name)) p++;
    if (p == np) return BAD("%s: %s.%s.%s: CLBlast's %s has no such parameter", path, where, kn, name, kn);
    if (!json_is_integer(v))
      return BAD("%s: %s.%s.%s: expected an integer, found %s", path, where, kn, name, dlca__json_type(v));
    json_int_t x = json_integer_value(v);
    if (x < 0 || x > 1 << 30)
      return BAD("%s: %s.%s.%s: %lld is not a parameter value (0 to 2^30)", path, where, kn, name, (long long)x);
    snprintf(out->param[out->n], sizeof out->param[0], "%s", name);
    out->value[out->n++] = (size_t)x;
  }
  for (size_t p = 0; p < n_params(k); p++)
    if (!json_object_get(obj, known[k].params[p]))
      return BAD("%s: %s.%s: %s is missing (CLBlast takes all of a kernel's parameters at once)", path, where, kn,
                 known[k].params[p]);
  return DLCA_OK;
}

int dlca__clblast_section(json_t *section, const char *path, const char *where, dlca__clblast_kernel **out,
                          size_t *n) {
  *out = NULL, *n = 0;
  if (!json_is_object(section))
    return BAD("%s: %s: expected an object of CLBlast kernel: {PARAMETER: integer}, found %s", path, where,
               dlca__json_type(section));
  dlca__clblast_kernel *ks = calloc(json_object_size(section) + 1, sizeof *ks);
  if (!ks) return BAD("%s: out of memory", path);
  const char *kernel;
  json_t *obj;
  int rc = DLCA_OK;
  json_object_foreach(section, kernel, obj) {
    size_t k = 0;
    while (k < N_KNOWN && strcmp(known[k].kernel, kernel)) k++;
    if (k == N_KNOWN)
      rc = BAD("%s: %s.%s: not a CLBlast kernel this library tunes (Xgemm, XgemmDirect, Copy, Pad, Transpose, "
               "Padtranspose, GemmRoutine)", path, where, kernel);
    else rc = read_kernel(obj, k, path, where, &ks[*n]);
    if (rc) break;
    (*n)++;
  }
  if (rc) free(ks), *n = 0;
  else *out = ks;
  return rc;
}

/* How closely entry e names ctx's device, as lib/cl/tuning.c's entry_score
 * ranks them: device + driver 5, device 4, device under another driver 3,
 * vendor 2, type 1, default 0; -1 if it does not apply. */
static int score(const dlca__tuning_entry *e, const dlca_context *ctx) {
  const dlca_device_type t = ctx->info.type;
  const char *type = t == DLCA_DEVICE_CPU ? "cpu" : t == DLCA_DEVICE_GPU ? "gpu" : t == DLCA_DEVICE_ACCELERATOR ? "accelerator" : "";
  if (e->device[0]) {
    if (strcmp(e->device, ctx->name_norm)) return -1;
    return !e->driver[0] ? 4 : !strcmp(e->driver, ctx->info.driver) ? 5 : 3;
  }
  if (e->vendor[0]) return strcmp(e->vendor, ctx->vendor_norm) ? -1 : 2;
  if (e->type[0]) return strcmp(e->type, type) ? -1 : 1;
  return e->is_default ? 0 : -1;
}

/* Every entry's section of table t checked; *best gets the deciding one's (NULL: none). */
static int table_section(const dlca_context *ctx, const dlca__tuning_table *t, dlca__clblast_kernel **best,
                         size_t *n_best) {
  json_error_t je;
  json_t *root = json_load_file(t->path, JSON_REJECT_DUPLICATES, &je);
  *best = NULL, *n_best = 0;
  if (!root) return BAD("%s:%d:%d: %s", t->path, je.line, je.column, je.text);
  json_t *entries = json_object_get(root, "entries");
  int rc = DLCA_OK, best_score = -1;
  for (size_t i = 0; !rc && i < json_array_size(entries) && i < t->n_entries; i++) {
    json_t *sec = json_object_get(json_array_get(entries, i), "clblast");
    if (!sec) continue;
    char where[48];
    snprintf(where, sizeof where, "entries[%zu].clblast", i);
    dlca__clblast_kernel *ks;
    size_t n;
    if ((rc = dlca__clblast_section(sec, t->path, where, &ks, &n))) break;
    int s = score(&t->entries[i], ctx);
    if (s > best_score) free(*best), *best = ks, *n_best = n, best_score = s;
    else free(ks);
  }
  json_decref(root);
  if (rc) free(*best), *best = NULL, *n_best = 0;
  return rc;
}

/* The parameters whose product is a kernel's work-group, as CLBlast 1.5 launches it. */
static const struct {
  const char *kernel, *x, *y;
} groups[] = {{"Xgemm", "MDIMC", "NDIMC"},       {"XgemmDirect", "MDIMCD", "NDIMCD"}, {"Copy", "COPY_DIMX", "COPY_DIMY"},
              {"Pad", "PAD_DIMX", "PAD_DIMY"}, {"Transpose", "TRA_DIM", "TRA_DIM"},  {"Padtranspose", "PADTRA_TILE", "PADTRA_TILE"}};

static size_t value_of(const dlca__clblast_kernel *k, const char *param) {
  for (size_t p = 0; p < k->n; p++)
    if (!strcmp(k->param[p], param)) return k->value[p];
  return 0;
}

/* 1 where k's work-group is over the device's largest, with a warning: CLBlast would fail each call of it
 * and print the failure on stderr (the library never prints), so it keeps its own values for k. */
static int too_wide(dlca_context *ctx, const char *path, const dlca__clblast_kernel *k) {
  for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
    if (strcmp(groups[g].kernel, k->name)) continue;
    size_t x = value_of(k, groups[g].x), y = value_of(k, groups[g].y);
    if ((double)x * (double)y <= (double)ctx->info.max_work_group) return 0;
    dlca__warn(ctx, "%s: clblast.%s ignored: %s %zu x %s %zu is over the largest work-group of %s, %zu", path, k->name,
               groups[g].x, x, groups[g].y, y, ctx->info.name, ctx->info.max_work_group);
    return 1;
  }
  return 0;
}

/* CLBlastOverrideParameters for each kernel of the section that fits the device. */
static int override(dlca_context *ctx, const char *path, const dlca__clblast_kernel *ks, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (too_wide(ctx, path, &ks[i])) continue;
    const char *names[24];
    for (size_t p = 0; p < ks[i].n; p++) names[p] = ks[i].param[p];
    CLBlastStatusCode s = CLBlastOverrideParameters(ctx->device, ks[i].name, CLBlastPrecisionSingle, ks[i].n, names,
                                                    ks[i].value);
    if (s != CLBlastSuccess) {
      char what[1200];
      snprintf(what, sizeof what, "%s: clblast.%s: CLBlastOverrideParameters on %s", path, ks[i].name, ctx->info.name);
      dlca__clblast_fail(s, what);
      char msg[1400];
      snprintf(msg, sizeof msg, "%s", dlca_last_error());
      return BAD("%s", msg);
    }
  }
  return DLCA_OK;
}

int dlca__clblast_apply(dlca_context *ctx) {
  const char *env = getenv("DLCA_CL_TUNING");
  int explicit = env && *env;
  dlca__clblast_kernel *user = NULL, *shipped = NULL;
  size_t nu = 0, ns = 0;
  int rc;
  if (ctx->have_shipped && (rc = table_section(ctx, &ctx->shipped, &shipped, &ns))) return rc;
  if (ctx->have_user && (rc = table_section(ctx, &ctx->user, &user, &nu))) {
    char msg[1400];
    snprintf(msg, sizeof msg, "%s", dlca_last_error());
    if (explicit) {
      free(shipped);
      return dlca__fail(rc, "%s (the table named by DLCA_CL_TUNING)", msg);
    }
    dlca__warn(ctx, "the tuning table's CLBlast section ignored: %s", msg);
  }
  /* A kernel the user's section leaves out keeps the shipped table's values, as params do. */
  size_t keep = 0;
  for (size_t i = 0; i < ns; i++) {
    size_t j = 0;
    while (j < nu && strcmp(user[j].name, shipped[i].name)) j++;
    if (j == nu) shipped[keep++] = shipped[i];
  }
  rc = override(ctx, ctx->shipped.path, shipped, keep);
  if (!rc) rc = override(ctx, ctx->user.path, user, nu);
  free(user), free(shipped);
  return rc;
}
