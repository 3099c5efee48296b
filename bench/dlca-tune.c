/* dlca-tune: finds the fastest values of the `// @tunable` parameters of
 * each kernel file on one OpenCL device, rejects any configuration whose
 * results differ from those of the kernel's defaults, and writes the winners
 * into the user tuning table (doc/tuning-table.md). Usage: --help.
 * It needs the library's internals (lib/cl/runtime.h): per-process
 * overrides, the declared tunables and per-kernel profiling events. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "tune.h"
#include "tune_clblast.h"
#include "tune_table_file.h"

/* ---- helpers ---- */

/* The first line of the library's message, short enough for a table cell. */
void first_line(char *dst, size_t n, const char *src) {
  size_t l = strcspn(src, "\n");
  if (l >= n) l = n - 1;
  memcpy(dst, src, l);
  dst[l] = 0;
}

const char *lib_error(int rc) {
  const char *e = dlca_last_error();
  return e[0] ? e : dlca_strerror(rc);
}

void output_free(output *o) {
  free(o->losses);
  free(o->params);
  free(o->words);
  memset(o, 0, sizeof *o);
}

void params_str(const kfile *k, const int *v, char *buf, size_t n) {
  size_t o = 0;
  buf[0] = 0;
  for (size_t i = 0; i < k->nt && o < n; i++)
    o += (size_t)snprintf(buf + o, n - o, "%s%s=%d", i ? " " : "", k->t[i].name, v[i]);
}

/* ---- kernel files ---- */

/* The directories the loader searches, in its order (lib/cl/loader.c). */
static int kernel_dirs(char dirs[][1024], int max) {
  int n = 0;
  const char *env = getenv("DLCA_CL_KERNEL_PATH");
  for (const char *s = env ? env : ""; *s && n < max;) {
    size_t l = strcspn(s, ":");
    if (l && l < 1024) snprintf(dirs[n++], 1024, "%.*s", (int)l, s);
    s += l;
    if (*s == ':') s++;
  }
  if (n < max) snprintf(dirs[n++], 1024, "%s", DLCA_PKGDATADIR "/kernels");
  return n;
}

static int cmp_name(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

/* Every *.cl file name on the search path, each once, sorted. */
static int kernel_names(char names[][1024], int max) {
  char dirs[32][1024];
  int nd = kernel_dirs(dirs, 32), n = 0;
  for (int d = 0; d < nd; d++) {
    DIR *dir = opendir(dirs[d]);
    if (!dir) continue;
    struct dirent *e;
    while ((e = readdir(dir)) && n < max) {
      size_t l = strlen(e->d_name);
      if (l < 4 || l >= 1024 || strcmp(e->d_name + l - 3, ".cl")) continue;
      int seen = 0;
      for (int i = 0; i < n && !seen; i++) seen = !strcmp(names[i], e->d_name);
      if (!seen) snprintf(names[n++], 1024, "%s", e->d_name);
    }
    closedir(dir);
  }
  qsort(names, (size_t)n, 1024, cmp_name);
  return n;
}

/* Tunable i's values to try: --only's, else its declared ones (--quick:
 * the first QUICK_VALUES). Returns the width of its params column item. */
static size_t set_trials(options *o, kfile *k, size_t i) {
  const dlca_tunable *t = &k->t[i];
  only_opt *only = NULL;
  for (int j = 0; j < o->n_only; j++)
    if (!strcmp(o->only[j].name, t->name)) only = &o->only[j];
  if (only) {
    only->used = 1;
    memcpy(k->trials[i], only->v, sizeof(int) * (size_t)only->n);
    k->n_trials[i] = only->n;
  } else {
    k->n_trials[i] = o->quick && t->n_values > QUICK_VALUES ? QUICK_VALUES : t->n_values;
    memcpy(k->trials[i], t->values, sizeof(int) * (size_t)k->n_trials[i]);
  }
  char num[16];
  int widest = snprintf(num, sizeof num, "%d", k->start[i]);
  for (int j = 0; j < k->n_trials[i]; j++) {
    int w = snprintf(num, sizeof num, "%d", k->trials[i][j]);
    if (w > widest) widest = w;
  }
  return strlen(t->name) + 2 + (size_t)widest;
}

/* Fills k for file: its tunables, the values to try, the values now. */
static int load_file(tuner *T, dlca_context *probe, const char *file, kfile *k, int explicit) {
  memset(k, 0, sizeof *k);
  snprintf(k->file, sizeof k->file, "%.1023s", file);
  dlca__kernel_stem(file, k->stem, sizeof k->stem);
  int rc = dlca__kernel_tunables(probe, file, &k->t, &k->nt);
  if (rc) {
    fprintf(stderr, "%s: %s: %s\n", PROG, file, lib_error(rc));
    return explicit && rc == DLCA_ENOKERNEL ? CLI_USAGE : CLI_FAIL;
  }
  if (!k->nt) {
    if (explicit) {
      fprintf(stderr, "%s: --kernel %s: the file declares no // @tunable parameters\n", PROG, file);
      return CLI_USAGE;
    }
    return -1; /* nothing to tune: skipped silently */
  }
  k->w = workload_of(k->stem);
  if (!k->w) {
    fprintf(stderr, "%s: %s%s: declares tunables, but dlca-tune has no workload that runs it%s\n", PROG,
            explicit ? "--kernel " : "", file, explicit ? "" : "; skipped");
    return explicit ? CLI_USAGE : -1;
  }
  if (k->nt > MAX_T) {
    fprintf(stderr, "%s: %s: declares %zu tunables; dlca-tune handles at most %d\n", PROG, file, k->nt, MAX_T);
    return CLI_FAIL;
  }
  size_t pw = strlen("params");
  for (size_t i = 0; i < k->nt; i++) {
    if ((rc = dlca__tunable_value(probe, k->stem, &k->t[i], &k->start[i]))) {
      fprintf(stderr, "%s: %s: %s\n", PROG, file, lib_error(rc));
      return CLI_FAIL;
    }
    pw += set_trials(&T->o, k, i);
  }
  k->pw = (int)(pw > 200 ? 200 : pw);
  k->search = T->o.search;
  if (k->search == SEARCH_AUTO)
    /* Every configuration is a program build (seconds on a CPU device), so
     * --quick takes the fewest: one parameter at a time. */
    k->search = !T->o.quick && n_combinations(k) <= GRID_MAX ? SEARCH_GRID : SEARCH_DESCENT;
  return 0;
}


/* "trainer" -> "trainer.cl"; a path stays as given. */
static void kernel_file_name(const char *arg, char *out, size_t n) {
  size_t l = strlen(arg);
  snprintf(out, n, "%s%s", arg, l > 3 && !strcmp(arg + l - 3, ".cl") ? "" : ".cl");
}

/* The probe context's warnings, and what DLCA_CL_BUILD_OPTIONS does to the timings. */
static void print_notes(dlca_context *probe) {
  const char *warn = dlca_context_warnings(probe);
  for (const char *p = warn; *p;) {
    size_t l = strcspn(p, "\n");
    if (l) fprintf(stderr, "%s: note: %.*s\n", PROG, (int)l, p);
    p += l;
    if (*p) p++;
  }
  const char *extra = dlca__build_options_env();
  if (extra && *extra)
    fprintf(stderr, "%s: note: DLCA_CL_BUILD_OPTIONS=\"%s\" is set: every configuration is built with it, so the "
                    "timings are those of such builds\n", PROG, extra);
}

/* The kernel files to tune into ks (--kernel's, or every file on the
 * search path that declares tunables); an exit code. */
static int load_files(tuner *T, dlca_context *probe, kfile *ks, int *nk) {
  static char names[MAX_FILES][1024];
  const options *o = &T->o;
  int n_names = 1, code = CLI_OK, need_trainer = 0;
  if (o->kernel) kernel_file_name(o->kernel, names[0], sizeof names[0]);
  else n_names = kernel_names(names, MAX_FILES);
  for (int i = 0; i < n_names && !code; i++) {
    int r = load_file(T, probe, names[i], &ks[*nk], o->kernel != NULL);
    if (r == 0) {
      need_trainer |= ks[*nk].w->prepare == trainer_prepare;
      ++*nk;
      continue;
    }
    free(ks[*nk].t);
    ks[*nk].t = NULL;
    if (r > 0) code = r;
  }
  for (int j = 0; !code && j < o->n_only; j++)
    if (!o->only[j].used) {
      fprintf(stderr, "%s: --only %s: no kernel file being tuned declares it\n", PROG, o->only[j].name);
      code = CLI_USAGE;
    }
  if (!code && !*nk) {
    fprintf(stderr, "%s: no kernel file on the search path declares tunables (set DLCA_CL_KERNEL_PATH)\n", PROG);
    code = CLI_FAIL;
  }
  return !code && need_trainer ? trainer_prepare(T) : code;
}

/* Writes the table to path, and says whether the library will read it there. */
static int write_and_note(tuner *T, kfile *ks, int nk, const char *path) {
  const options *o = &T->o;
  int code = write_table(T, ks, nk, path, !o->output);
  if (code) return code;
  fprintf(T->out, "wrote %s for \"%s\" (driver %s)\n", path, T->dev.name, T->dev.driver);
  const char *env = getenv("DLCA_CL_TUNING"), *cache = getenv("DLCA_CL_CACHE");
  if (!o->output && env && *env)
    fprintf(stderr, "%s: note: DLCA_CL_TUNING=%s is set, so the library reads that table, not this one\n", PROG, env);
  else if (!o->output && cache && !strcmp(cache, "0"))
    fprintf(stderr, "%s: note: DLCA_CL_CACHE=0: the library does not read %s while the cache is off\n", PROG, path);
  return CLI_OK;
}

/* Tunes every file, reports the winners and writes them; an exit code. */
static int tune_all(tuner *T, kfile *ks, int nk, double t_start) {
  const options *o = &T->o;
  char path[1100] = "";
  const int do_write = !o->print_entry || o->output;
  int code = do_write ? tune_table_path(o->output, path, sizeof path) : CLI_OK;
  if (code) return code;
  T->kw = 6;
  for (int i = 0; i < nk; i++)
    if ((int)strlen(ks[i].file) > T->kw) T->kw = (int)strlen(ks[i].file);
  fprintf(T->out, "%s %s on %s (%s, driver %s, OpenCL device %s)\n", PROG, dlca_version_string(), T->dev.name,
          T->dev.platform, T->dev.driver, T->dev.spec);
  for (int i = 0; i < nk; i++)
    if (tune_file(T, &ks[i])) {
      fprintf(stderr, "%s: out of memory\n", PROG);
      return CLI_FAIL;
    }
  fprintf(T->out, "\n");
  int tuned = 0;
  for (int i = 0; i < nk; i++) {
    int r = report_file(T, &ks[i]);
    if (r) code = r;
    else tuned++;
  }
  if (tuned && do_write) {
    int wc = write_and_note(T, ks, nk, path);
    if (wc) code = wc;
  }
  if (tuned && o->print_entry && print_entry(T, ks, nk)) code = CLI_FAIL;
  char dur[32];
  fprintf(T->out, "took %s\n", cli_duration(cli_now() - t_start, dur, sizeof dur));
  return code;
}

int main(int argc, char **argv) {
  if (tune_clblast_wanted(argc, argv)) return tune_clblast_main(argc, argv); /* bench/tune_clblast.c */
  static tuner T;
  static kfile ks[MAX_FILES];
  int nk = 0, code = parse(argc, argv, &T.o);
  const options *o = &T.o;
  if (code) return code;
  if (o->help) {
    help();
    return CLI_OK;
  }
  if (o->version) return cli_print_version(PROG, dlca_version_string());
  double t_start = cli_now();
  T.out = o->print_entry ? stderr : stdout;
  int rc = dlca_preset_get(o->preset, &T.preset);
  if (rc) {
    fprintf(stderr, "%s: --preset: %s\n", PROG, lib_error(rc));
    return CLI_USAGE;
  }
  /* The probe context: the device, and the values the tables give now. */
  dlca_context *probe;
  if ((rc = dlca_context_new(o->device, &probe))) return cli_context_fail(PROG, o->device, rc, NULL);
  dlca_context_device(probe, &T.dev);
  print_notes(probe);
  code = load_files(&T, probe, ks, &nk);
  dlca_context_free(probe);
  if (!code) code = tune_all(&T, ks, nk, t_start);
  for (int i = 0; i < nk; i++) {
    free(ks[i].t);
    free(ks[i].m);
    output_free(&ks[i].ref_out);
  }
  dlca_model_free(T.model);
  free(T.target);
  free(T.gol_x);
  free(T.gol_y);
  return code;
}
