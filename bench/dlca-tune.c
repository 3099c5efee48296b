/* dlca-tune: finds the fastest values of the `// @tunable` parameters of
 * each kernel file on one OpenCL device, rejects any configuration whose
 * results differ from those of the kernel's defaults, and writes the winners
 * into the user tuning table (doc/tuning-table.md). Usage: --help.
 * It needs the library's internals (lib/cl/runtime.h): per-process
 * overrides, the declared tunables and per-kernel profiling events. */
#include <dirent.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include "cl/runtime.h"
#include "cli.h"
#include "tune_clblast.h"

#define PROG "dlca-tune"
#define MAX_T 32          /* tunables of one kernel file */
#define MAX_V 16          /* candidate values of one tunable (the loader's limit) */
#define MAX_ONLY 16       /* --only options */
#define MAX_FILES 64      /* kernel files in the search path */
#define GRID_MAX 16       /* the full grid when it has at most this many combinations */
#define QUICK_VALUES 3    /* --quick: the first 3 candidates of each tunable */
#define MIN_GAIN 0.01     /* what it takes to displace the default: 1% faster */
/* Correctness gate. Work-group sizes and group counts change the order of
 * float sums (per-group partial sums of the gradients, the loss), so a
 * correct configuration differs from the reference in the last bits, and
 * AdamW carries that into the parameters; equality would reject every
 * candidate. A wrong kernel misses by far more than these. */
#define LOSS_RTOL 1e-4
#define PARAM_ATOL 1e-4
/* The differences grow as training goes on (about 2e-5 after 13 epochs of
 * checkerboard when only BWD_GROUPS_PER_CU changes), so the gate looks at
 * the losses of the first GATE_EPOCHS epochs and the parameters after them,
 * however many epochs are timed. */
#define GATE_EPOCHS 16
#define SELFTEST_N (1u << 22)
#define SELFTEST_KEY 0x0123456789abcdefULL

enum { SEARCH_AUTO, SEARCH_GRID, SEARCH_DESCENT };
enum { ST_OK, ST_REJECTED, ST_FAILED };

typedef struct only_opt {
  char name[64];
  int v[MAX_V], n;
  int used;
} only_opt;

typedef struct options {
  const char *kernel, *device, *preset, *output;
  long batch, steps, warmup, repeats, passes, max_configs;
  unsigned long long seed;
  int quick, print_entry, search, help, version;
  only_opt only[MAX_ONLY];
  int n_only;
} options;

/* What a configuration computed, compared with the reference's. */
typedef struct output {
  double *losses; /* relative LOSS_RTOL */
  size_t n_losses;
  float *params; /* absolute PARAM_ATOL */
  size_t n_params;
  uint32_t *words; /* exactly */
  size_t n_words;
} output;

typedef struct meas {
  int v[MAX_T];
  int status;
  double dev_ms, wall_ms; /* medians over the timed repeats */
  double dp, dl;          /* differences from the reference (compare()) */
  char msg[320];
} meas;

struct tuner;
struct kfile;

/* How a kernel file is exercised. run() gets a fresh context whose
 * overrides are set; it returns a dlca status, the message in dlca_last_error(). */
typedef struct workload {
  const char *stem;
  int (*prepare)(struct tuner *T);                    /* once; returns an exit code */
  void (*describe)(struct tuner *T, char *buf, size_t n);
  int (*run)(struct tuner *T, struct kfile *k, dlca_context *ctx, meas *m, output *out);
  int kernels; /* trainer_run: the trainer.cl KERNELS whose steps are the file's, or -1 (no override) */
} workload;

typedef struct kfile {
  char file[1024], stem[64];
  dlca_tunable *t;
  size_t nt;
  const workload *w;
  int trials[MAX_T][MAX_V], n_trials[MAX_T];
  int start[MAX_T]; /* the values in effect now (override-free context) */
  int search;       /* SEARCH_GRID or SEARCH_DESCENT */
  meas *m;
  size_t n_m, cap_m;
  int ref, winner, start_idx; /* indices into m, -1 if none */
  output ref_out;
  int use_wall; /* no device times (profiling gave 0): rank by wall time */
  int capped;   /* the search stopped at --max-configs */
  uint64_t src_key; /* hash of the source (includes resolved) when tuning began */
  int changed;      /* the source changed on disk meanwhile: results void */
  int pw;       /* width of the params column */
} kfile;

typedef struct tuner {
  options o;
  dlca_device_info dev;
  FILE *out; /* the table: stdout, or stderr under --print-entry */
  int kw;    /* width of the kernel column */
  /* the trainer workload */
  dlca_preset preset;
  dlca_train_config cfg;
  dlca_model *model;
  float *target;
  int gol, gol_order[DLCA_GOL_BOARDS];
  float *gol_x, *gol_y;
} tuner;

/* ---- helpers ---- */

/* The first line of the library's message, short enough for a table cell. */
static void first_line(char *dst, size_t n, const char *src) {
  size_t l = strcspn(src, "\n");
  if (l >= n) l = n - 1;
  memcpy(dst, src, l);
  dst[l] = 0;
}

static const char *lib_error(int rc) {
  const char *e = dlca_last_error();
  return e[0] ? e : dlca_strerror(rc);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, size_t n) {
  if (!n) return 0;
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void output_free(output *o) {
  free(o->losses);
  free(o->params);
  free(o->words);
  memset(o, 0, sizeof *o);
}

static void params_str(const kfile *k, const int *v, char *buf, size_t n) {
  size_t o = 0;
  buf[0] = 0;
  for (size_t i = 0; i < k->nt && o < n; i++)
    o += (size_t)snprintf(buf + o, n - o, "%s%s=%d", i ? " " : "", k->t[i].name, v[i]);
}

static double score(const kfile *k, const meas *m) { return k->use_wall ? m->wall_ms : m->dev_ms; }

/* ---- the trainer workload: real training epochs ---- */

static int trainer_prepare(tuner *T) {
  const options *o = &T->o;
  int rc;
  if ((rc = dlca_model_new_preset(T->preset.name, o->seed, &T->model))) {
    fprintf(stderr, "%s: %s model: %s\n", PROG, T->preset.name, lib_error(rc));
    return CLI_FAIL;
  }
  dlca_train_config_from_preset(&T->preset, &T->cfg);
  T->cfg.seed = o->seed;
  if (o->batch > 0) T->cfg.batch = (int)o->batch;
  else if (o->quick) T->cfg.batch = 1;
  if (o->steps > 0) T->cfg.steps = (int)o->steps;
  else if (o->quick && T->cfg.steps > 4) T->cfg.steps = 4;
  T->gol = dlca_preset_is_gol(&T->preset);
  if (T->gol) {
    dlca_gol_order(o->seed, T->gol_order);
    T->gol_x = malloc(sizeof(float) * 9 * (size_t)T->cfg.batch);
    T->gol_y = malloc(sizeof(float) * 9 * (size_t)T->cfg.batch);
    if (!T->gol_x || !T->gol_y) {
      fprintf(stderr, "%s: gol boards: out of memory\n", PROG);
      return CLI_FAIL;
    }
    return CLI_OK;
  }
  dlca_model_shape s;
  dlca_model_get_shape(T->model, &s);
  rc = dlca_preset_target(&T->preset, s.channels, NULL, &T->target);
  if (rc) {
    fprintf(stderr, "%s: %s\n", PROG, dlca_last_error());
    return rc == DLCA_ENOMEM ? CLI_FAIL : CLI_USAGE;
  }
  return CLI_OK;
}

static void trainer_describe(tuner *T, char *buf, size_t n) {
  snprintf(buf, n, "training epochs of %s, batch %d, %d steps, seed %llu", T->preset.name, T->cfg.batch,
           T->cfg.steps, T->o.seed);
}

/* Device time, in ms, of everything launched since the last profile reset
 * (waits for the queue). */
static int profiled_ms(dlca_context *ctx, double *ms) {
  dlca_kernel_profile *p;
  size_t np;
  int rc = dlca__profile_collect(ctx, &p, &np);
  if (rc) return rc;
  double sum = 0;
  for (size_t i = 0; i < np; i++) sum += p[i].total_ms;
  free(p);
  *ms = sum;
  return DLCA_OK;
}

/* Training epochs. trainer_cpu.cl's steps run only where trainer.cl's
 * KERNELS is 1, trainer_tile.cl's where it is 2 (its forward step also from
 * TILE_CELLS cells on, with the same TL): their workloads set it. */
static int trainer_run(tuner *T, kfile *k, dlca_context *ctx, meas *m, output *out) {
  dlca_trainer *t = NULL;
  int rc = k->w->kernels >= 0 ? dlca__tuning_override(ctx, "trainer.cl", "KERNELS", k->w->kernels) : DLCA_OK;
  if (!rc) rc = dlca_trainer_new(ctx, T->model, &T->cfg, &t); /* builds trainer.cl with the overrides */
  if (rc) return rc;
  const size_t warm = (size_t)T->o.warmup, reps = (size_t)T->o.repeats, total = warm + reps;
  const size_t gate = total < GATE_EPOCHS ? total : GATE_EPOCHS;
  double *dev = calloc(reps, sizeof *dev), *wall = calloc(reps, sizeof *wall);
  out->losses = calloc(gate, sizeof *out->losses);
  out->n_losses = gate;
  out->n_params = dlca_trainer_n_params(t);
  out->params = malloc(out->n_params * sizeof *out->params);
  if (!dev || !wall || !out->losses || !out->params) rc = dlca__fail(DLCA_ENOMEM, "out of memory");
  if (!rc && !T->gol) rc = dlca_trainer_set_target(t, T->target, 0);
  for (size_t e = 0; !rc && e < total; e++) {
    int timed = e >= warm;
    if (T->gol) {
      dlca_gol_batch(T->gol_order, e, T->cfg.batch, T->gol_x, T->gol_y);
      rc = dlca_trainer_set_input(t, T->gol_x);
      if (!rc) rc = dlca_trainer_set_target(t, T->gol_y, 1);
      if (rc) break;
    }
    if (timed) {
      dlca__profile_enable(ctx, 1);
      dlca__profile_reset(ctx);
    }
    double t0 = dlca__now_ms(), loss;
    rc = dlca_trainer_step(t);
    if (!rc) rc = dlca_trainer_loss(t, &loss);
    if (!rc && e < gate) out->losses[e] = loss;
    if (!rc && timed) {
      if ((rc = profiled_ms(ctx, &dev[e - warm]))) break;
      wall[e - warm] = dlca__now_ms() - t0;
    }
    if (!rc && e + 1 == gate) rc = dlca_trainer_get_params(t, out->params); /* after the timing */
  }
  dlca__profile_enable(ctx, 0);
  if (!rc) {
    m->dev_ms = median(dev, reps);
    m->wall_ms = median(wall, reps);
  }
  free(dev);
  free(wall);
  dlca_trainer_free(t);
  return rc;
}

/* ---- the selftest workload: its fill kernel, timed directly ---- */

static void selftest_describe(tuner *T, char *buf, size_t n) {
  (void)T;
  snprintf(buf, n, "dlca_selftest_rng over %u values; an \"epoch\" is one launch", SELFTEST_N);
}

/* --warmup untimed launches of k, then --repeats timed ones, each read from
 * its profiling event. */
static int time_launches(tuner *T, dlca_context *ctx, cl_kernel k, size_t gws, size_t lws, meas *m) {
  const size_t warm = (size_t)T->o.warmup, reps = (size_t)T->o.repeats;
  double *dev = calloc(reps, sizeof *dev), *wall = calloc(reps, sizeof *wall);
  int rc = dev && wall ? DLCA_OK : dlca__fail(DLCA_ENOMEM, "out of memory");
  for (size_t e = 0; !rc && e < warm + reps; e++) {
    int timed = e >= warm;
    if (timed) {
      dlca__profile_enable(ctx, 1);
      dlca__profile_reset(ctx);
    }
    double t0 = dlca__now_ms();
    rc = dlca__launch(ctx, k, "selftest_rng", 1, &gws, lws ? &lws : NULL);
    if (!rc && !timed) rc = dlca__finish(ctx, "dlca_selftest_rng");
    if (!rc && timed) {
      if ((rc = profiled_ms(ctx, &dev[e - warm]))) break;
      wall[e - warm] = dlca__now_ms() - t0;
    }
  }
  dlca__profile_enable(ctx, 0);
  if (!rc) {
    m->dev_ms = median(dev, reps);
    m->wall_ms = median(wall, reps);
  }
  free(dev);
  free(wall);
  return rc;
}

static int selftest_launch(tuner *T, dlca_context *ctx, cl_kernel kern, cl_mem buf, meas *m, output *out) {
  /* The local size must be the reqd_work_group_size the program was built
   * with: ask the kernel rather than assume which tunable sets it. */
  size_t req[3] = {0, 0, 0}, lws = 0, gws = SELFTEST_N;
  cl_int err = clGetKernelWorkGroupInfo(kern, ctx->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof req, req, NULL);
  if (err) return dlca__fail_cl(err, "dlca_selftest_rng: CL_KERNEL_COMPILE_WORK_GROUP_SIZE: %s", dlca__cl_error_name(err));
  if (req[0]) {
    lws = req[0];
    gws = (gws + lws - 1) / lws * lws;
  }
  cl_ulong key = SELFTEST_KEY;
  cl_uint a = 7, n = SELFTEST_N;
  err = clSetKernelArg(kern, 0, sizeof buf, &buf);
  if (!err) err = clSetKernelArg(kern, 1, sizeof key, &key);
  if (!err) err = clSetKernelArg(kern, 2, sizeof a, &a);
  if (!err) err = clSetKernelArg(kern, 3, sizeof n, &n);
  if (err) return dlca__fail_cl(err, "dlca_selftest_rng: setting its arguments: %s", dlca__cl_error_name(err));
  int rc = time_launches(T, ctx, kern, gws, lws, m);
  if (rc) return rc;
  out->n_words = SELFTEST_N;
  out->words = malloc((size_t)SELFTEST_N * 4);
  if (!out->words) return dlca__fail(DLCA_ENOMEM, "out of memory");
  return dlca__download(ctx, buf, 0, (size_t)SELFTEST_N * 4, out->words, "selftest output");
}

static int selftest_run(tuner *T, kfile *k, dlca_context *ctx, meas *m, output *out) {
  cl_program prog;
  cl_kernel kern = NULL;
  cl_mem buf = NULL;
  int rc = dlca__program_get(ctx, k->file, NULL, &prog, NULL);
  if (!rc) rc = dlca__kernel_create(ctx, prog, "dlca_selftest_rng", &kern);
  if (!rc) rc = dlca__buffer(ctx, (size_t)SELFTEST_N * 4, "selftest output", &buf);
  if (!rc) rc = selftest_launch(T, ctx, kern, buf, m, out);
  if (buf) clReleaseMemObject(buf);
  if (kern) clReleaseKernel(kern);
  return rc;
}

static const workload workloads[] = {
    {"trainer", trainer_prepare, trainer_describe, trainer_run, -1},
    {"trainer_cpu", trainer_prepare, trainer_describe, trainer_run, 1},
    {"trainer_tile", trainer_prepare, trainer_describe, trainer_run, 2},
    {"selftest", NULL, selftest_describe, selftest_run, -1},
};

static const workload *workload_of(const char *stem) {
  for (size_t i = 0; i < sizeof workloads / sizeof *workloads; i++)
    if (!strcmp(workloads[i].stem, stem)) return &workloads[i];
  return NULL;
}

/* ---- measuring one configuration ---- */

/* 0 when out matches the reference's; else 1 and why. *dp gets the largest
 * difference of a parameter or output value, *dl that of a loss (relative). */
static int compare(const output *o, const output *r, double *dp_out, double *dl_out, char *why, size_t n) {
  double dp = 0, dl = 0;
  size_t bad_words = 0;
  *dp_out = *dl_out = INFINITY;
  if (o->n_losses != r->n_losses || o->n_params != r->n_params || o->n_words != r->n_words) {
    snprintf(why, n, "rejected (its output is not the size of the reference's)");
    return 1;
  }
  for (size_t i = 0; i < o->n_losses; i++) {
    double d = fabs(o->losses[i] - r->losses[i]) / fmax(fabs(r->losses[i]), 1e-30);
    if (!(d <= dl)) dl = isnan(d) ? INFINITY : d; /* NaN counts as the worst */
  }
  for (size_t i = 0; i < o->n_params; i++) {
    double d = fabs((double)o->params[i] - (double)r->params[i]);
    if (!(d <= dp)) dp = isnan(d) ? INFINITY : d;
  }
  for (size_t i = 0; i < o->n_words; i++)
    if (o->words[i] != r->words[i]) {
      double d = fabs((double)o->words[i] - (double)r->words[i]);
      if (d > dp) dp = d;
      bad_words++;
    }
  *dp_out = dp;
  *dl_out = dl;
  if (dl <= LOSS_RTOL && dp <= PARAM_ATOL && !bad_words) return 0;
  if (o->n_words) snprintf(why, n, "rejected (max |dp| = %.4g, %zu of %zu values differ)", dp, bad_words, o->n_words);
  else snprintf(why, n, "rejected (max |dp| = %.3g, losses differ by %.3g relative)", dp, dl);
  return 1;
}

static void print_row(tuner *T, kfile *k, const meas *m, int idx) {
  char ps[512], dev[32] = "-", wall[32] = "-", status[400];
  params_str(k, m->v, ps, sizeof ps);
  if (m->status != ST_FAILED) {
    snprintf(dev, sizeof dev, "%.3f", m->dev_ms);
    snprintf(wall, sizeof wall, "%.3f", m->wall_ms);
  }
  if (m->status == ST_OK && idx == k->ref)
    snprintf(status, sizeof status, "ok (reference)");
  else if (m->status == ST_OK && k->ref_out.n_words)
    snprintf(status, sizeof status, "ok (identical%s)", idx == k->start_idx ? ", current" : "");
  else if (m->status == ST_OK)
    snprintf(status, sizeof status, "ok (max |dp| = %.2g, loss rel. %.2g%s)", m->dp, m->dl,
             idx == k->start_idx ? ", current" : "");
  else if (m->status == ST_REJECTED) snprintf(status, sizeof status, "%s", m->msg);
  else snprintf(status, sizeof status, "failed: %s", m->msg);
  fprintf(T->out, "%-*s  %-*s  %12s  %12s  %s\n", T->kw, k->file, k->pw, ps, dev, wall, status);
  fflush(T->out);
}

/* A hash of file's source with its includes, 0 if it cannot be read. */
static uint64_t source_key(tuner *T, const char *file) {
  char *src, path[1024];
  size_t len;
  if (dlca__kernel_resolve(file, &src, &len, path, sizeof path)) return 0;
  uint64_t key = dlca__cache_key(&T->dev, src, len, "");
  free(src);
  return key;
}

/* Whether the file still is what tuning began with. In a working tree
 * someone may save the kernel mid-run; every candidate is built from the
 * file as it is then, so a comparison across versions would be meaningless. */
static int unchanged(tuner *T, kfile *k) {
  if (!k->changed && source_key(T, k->file) != k->src_key) k->changed = 1;
  return !k->changed;
}

/* The index of v's measurement, measured now if it is new. -1: out of
 * memory; -2: new, but --max-configs are measured already; -3: the source
 * changed on disk. */
static int measure(tuner *T, kfile *k, const int *v) {
  if (!unchanged(T, k)) return -3;
  for (size_t i = 0; i < k->n_m; i++)
    if (!memcmp(k->m[i].v, v, sizeof(int) * k->nt)) return (int)i;
  if (T->o.max_configs > 0 && k->n_m >= (size_t)T->o.max_configs) {
    k->capped = 1;
    return -2;
  }
  if (k->n_m == k->cap_m) {
    size_t cap = k->cap_m ? 2 * k->cap_m : 16;
    meas *p = realloc(k->m, cap * sizeof *p);
    if (!p) return -1;
    k->m = p;
    k->cap_m = cap;
  }
  int idx = (int)k->n_m++;
  meas *m = &k->m[idx];
  memset(m, 0, sizeof *m);
  memcpy(m->v, v, sizeof(int) * k->nt);
  output out = {0};
  dlca__clear_error();
  dlca_context *ctx = NULL;
  /* A new context per configuration: programs are built when the workload
   * first needs them, with the overrides in force, and nothing built or
   * allocated for one candidate lingers into the next. */
  int rc = dlca_context_new(T->o.device, &ctx);
  for (size_t i = 0; !rc && i < k->nt; i++) rc = dlca__tuning_override(ctx, k->file, k->t[i].name, v[i]);
  if (!rc) rc = k->w->run(T, k, ctx, m, &out);
  if (!unchanged(T, k)) {
    dlca_context_free(ctx);
    output_free(&out);
    k->n_m--;
    return -3;
  }
  if (rc) {
    m->status = ST_FAILED;
    first_line(m->msg, sizeof m->msg, lib_error(rc));
  }
  dlca_context_free(ctx);
  if (!rc) {
    if (k->ref < 0) { /* the first configuration that runs is the reference */
      k->ref = idx;
      k->ref_out = out;
      memset(&out, 0, sizeof out);
      if (k->m[idx].dev_ms <= 0) k->use_wall = 1;
    } else if (compare(&out, &k->ref_out, &m->dp, &m->dl, m->msg, sizeof m->msg)) {
      m->status = ST_REJECTED;
    }
  }
  output_free(&out);
  if (!memcmp(v, k->start, sizeof(int) * k->nt)) k->start_idx = idx;
  print_row(T, k, m, idx);
  return idx;
}

static int better(const kfile *k, int a, int b) {
  if (a < 0 || k->m[a].status != ST_OK) return 0;
  if (b < 0 || k->m[b].status != ST_OK) return 1;
  return score(k, &k->m[a]) < score(k, &k->m[b]);
}

/* ---- the searches ---- */

static size_t n_combinations(const kfile *k) {
  size_t c = 1;
  for (size_t i = 0; i < k->nt && c <= 1000000; i++) c *= (size_t)k->n_trials[i];
  return c;
}

static int search_grid(tuner *T, kfile *k) {
  int pos[MAX_T] = {0}, v[MAX_T];
  for (;;) {
    for (size_t i = 0; i < k->nt; i++) v[i] = k->trials[i][pos[i]];
    int idx = measure(T, k, v);
    if (idx < 0) return idx == -2 ? 0 : idx;
    size_t i = k->nt;
    while (i > 0 && ++pos[i - 1] == k->n_trials[i - 1]) pos[--i] = 0;
    if (i == 0) return 0;
  }
}

/* Coordinate descent: each tunable in turn, over its candidates, with the
 * others at their best so far; another pass only if the last one moved. */
static int search_descent(tuner *T, kfile *k, long passes) {
  int best = k->start_idx >= 0 && k->m[k->start_idx].status == ST_OK ? k->start_idx : k->ref;
  int v[MAX_T];
  for (long pass = 0; pass < passes && best >= 0; pass++) {
    int moved = 0;
    for (size_t i = 0; i < k->nt; i++) {
      int from = best;
      for (int j = 0; j < k->n_trials[i]; j++) {
        memcpy(v, k->m[from].v, sizeof(int) * k->nt);
        v[i] = k->trials[i][j];
        int idx = measure(T, k, v);
        if (idx < 0) return idx == -2 ? 0 : idx;
        if (better(k, idx, best)) best = idx;
      }
      if (best != from) moved = 1;
    }
    if (!moved) break;
  }
  return 0;
}

static int tune_file(tuner *T, kfile *k) {
  char buf[1024], ps[512];
  k->ref = k->winner = k->start_idx = -1;
  size_t o = 0;
  for (size_t i = 0; i < k->nt && o < sizeof buf; i++) {
    o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s {", i ? ", " : "", k->t[i].name);
    for (int j = 0; j < k->n_trials[i] && o < sizeof buf; j++)
      o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%d", j ? " " : "", k->trials[i][j]);
    if (o < sizeof buf) o += (size_t)snprintf(buf + o, sizeof buf - o, "}");
  }
  params_str(k, k->start, ps, sizeof ps);
  fprintf(T->out, "\n%s: %s\n  search: ", k->file, buf);
  if (k->search == SEARCH_GRID) fprintf(T->out, "full grid, %zu combinations", n_combinations(k));
  else fprintf(T->out, "one parameter at a time, up to %ld pass%s", T->o.passes, T->o.passes == 1 ? "" : "es");
  fprintf(T->out, ", from the current values %s\n", ps);
  k->w->describe(T, buf, sizeof buf);
  fprintf(T->out, "  workload: %s; %ld warm-up + %ld timed per configuration, each in a new context\n", buf,
          T->o.warmup, T->o.repeats);
  fprintf(T->out, "%-*s  %-*s  %12s  %12s  %s\n", T->kw, "kernel", k->pw, "params", "dev ms/epoch", "wall ms/epoch",
          "status");

  int def[MAX_T];
  for (size_t i = 0; i < k->nt; i++) def[i] = k->t[i].values[0];
  k->src_key = source_key(T, k->file);
  int r = measure(T, k, def);
  if (r >= 0 || r == -2) r = measure(T, k, k->start);
  if (r >= 0 || r == -2) r = k->search == SEARCH_GRID ? search_grid(T, k) : search_descent(T, k, T->o.passes);
  if (r == -1) return -1;
  if (k->changed) {
    fprintf(T->out, "  (%s changed on disk during tuning: its results are discarded)\n", k->file);
    return 0;
  }

  int win = -1;
  for (size_t i = 0; i < k->n_m; i++)
    if (better(k, (int)i, win)) win = (int)i;
  /* Measurements are noisy: the default keeps its place unless beaten clearly. */
  if (win >= 0 && k->ref >= 0 && win != k->ref && !memcmp(k->m[k->ref].v, def, sizeof(int) * k->nt) &&
      score(k, &k->m[win]) > (1.0 - MIN_GAIN) * score(k, &k->m[k->ref]))
    win = k->ref;
  k->winner = win;
  if (k->capped) fprintf(T->out, "  (stopped after %ld configurations: --max-configs)\n", T->o.max_configs);
  return 0;
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
    const dlca_tunable *t = &k->t[i];
    if ((rc = dlca__tunable_value(probe, k->stem, t, &k->start[i]))) {
      fprintf(stderr, "%s: %s: %s\n", PROG, file, lib_error(rc));
      return CLI_FAIL;
    }
    only_opt *only = NULL;
    for (int j = 0; j < T->o.n_only; j++)
      if (!strcmp(T->o.only[j].name, t->name)) only = &T->o.only[j];
    if (only) {
      only->used = 1;
      memcpy(k->trials[i], only->v, sizeof(int) * (size_t)only->n);
      k->n_trials[i] = only->n;
    } else {
      k->n_trials[i] = T->o.quick && t->n_values > QUICK_VALUES ? QUICK_VALUES : t->n_values;
      memcpy(k->trials[i], t->values, sizeof(int) * (size_t)k->n_trials[i]);
    }
    int widest = 1;
    for (int j = 0; j < k->n_trials[i]; j++) {
      char num[16];
      int w = snprintf(num, sizeof num, "%d", k->trials[i][j]);
      if (w > widest) widest = w;
    }
    char num[16];
    int w = snprintf(num, sizeof num, "%d", k->start[i]);
    if (w > widest) widest = w;
    pw += strlen(t->name) + 2 + (size_t)widest;
  }
  k->pw = (int)(pw > 200 ? 200 : pw);
  k->search = T->o.search;
  if (k->search == SEARCH_AUTO)
    /* Every configuration is a program build (seconds on a CPU device), so
     * --quick takes the fewest: one parameter at a time. */
    k->search = !T->o.quick && n_combinations(k) <= GRID_MAX ? SEARCH_GRID : SEARCH_DESCENT;
  return 0;
}

/* ---- the table ---- */

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

/* Writes the winners into path: this device's entry is updated (the kernel
 * files tuned now replaced, the others kept), every other entry kept. */
static int write_table(tuner *T, kfile *ks, int nk, const char *path, int make_dir) {
  json_t *root;
  struct stat sb;
  if (stat(path, &sb) == 0) {
    dlca__tuning_table old;
    if (dlca__tuning_load(path, &old)) {
      fprintf(stderr, "%s: %s: not overwritten, it is not a valid tuning table: %s (fix or delete it, or write "
                      "elsewhere with --output)\n", PROG, path, dlca_last_error());
      return CLI_FAIL;
    }
    dlca__tuning_free(&old);
    json_error_t je;
    root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
      fprintf(stderr, "%s: %s: %s\n", PROG, path, je.text);
      return CLI_FAIL;
    }
  } else {
    root = json_object();
    json_object_set_new(root, "format", json_string("dlca-tuning"));
    json_object_set_new(root, "version", json_integer(1));
    json_object_set_new(root, "device", json_string(""));
    json_object_set_new(root, "driver", json_string(""));
    json_object_set_new(root, "comment", json_string("Written by bench/dlca-tune (doc/tuning-table.md)."));
    json_object_set_new(root, "entries", json_array());
  }
  /* The header names the device the table was tuned on: the library ignores
   * the table on any other device (or driver). */
  json_object_set_new(root, "device", json_string(T->dev.name));
  json_object_set_new(root, "driver", json_string(T->dev.driver));
  json_t *entries = json_object_get(root, "entries");
  json_t *entry = NULL;
  for (size_t i = 0; i < json_array_size(entries);) {
    json_t *e = json_array_get(entries, i);
    if (!same_device(e, &T->dev)) {
      i++;
    } else if (!entry) {
      entry = e;
      i++;
    } else {
      json_array_remove(entries, i); /* a later duplicate would never be read */
    }
  }
  if (!entry) {
    entry = json_object();
    json_array_append_new(entries, entry);
  }
  json_object_set_new(entry, "device", json_string(T->dev.name));
  json_object_set_new(entry, "driver", json_string(T->dev.driver));
  json_t *params = json_object_get(entry, "params");
  if (!json_is_object(params)) {
    params = json_object();
    json_object_set_new(entry, "params", params);
  }
  json_t *measured = json_object_get(entry, "measured");
  if (!json_is_object(measured)) {
    measured = json_object();
    json_object_set_new(entry, "measured", measured);
  }
  char date[32];
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d", localtime(&now));
  for (int i = 0; i < nk; i++) {
    if (ks[i].winner < 0) continue;
    set_stem(params, ks[i].stem, params_json(&ks[i]));
    set_stem(measured, ks[i].stem, measured_json(T, &ks[i], date));
  }
  char *text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
  json_decref(root);
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
  if (make_dir) {
    char dir[1100];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
      *slash = 0;
      rc = dlca__mkdirs(dir);
    }
  }
  /* in the cache directory: writable by no one else whatever the umask, or the library ignores it */
  if (!rc) rc = dlca__write_file_atomic_mode(path, text, len, make_dir ? 022 : 0);
  free(text);
  if (rc) {
    fprintf(stderr, "%s: writing the tuning table: %s\n", PROG, lib_error(rc));
    return CLI_FAIL;
  }
  return CLI_OK;
}

static int print_entry(tuner *T, kfile *ks, int nk) {
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

/* ---- the command line ---- */

static void help(void) {
  printf(
      "NAME\n"
      "    dlca-tune - tune the kernel parameters of libdlca_cl for one OpenCL device\n"
      "\n"
      "SYNOPSIS\n"
      "    dlca-tune [--device SPEC] [--kernel FILE] [--quick] [--output FILE | --print-entry]\n"
      "              [OPTION...]\n"
      "    dlca-tune --clblast [OPTIONS]   CLBlast's tuners into the table (dlca-tune --clblast --help)\n"
      "\n"
      "DESCRIPTION\n"
      "    For every kernel file on the kernel search path that declares tunable\n"
      "    parameters (// @tunable NAME DEFAULT CANDIDATES... | ALLOWED, see\n"
      "    doc/tuning-table.md), or only for the one of --kernel FILE, measures\n"
      "    configurations of those parameters on one device and writes the fastest\n"
      "    into the user tuning table, which the library reads from then on.\n"
      "\n"
      "    Search: the full grid of the candidates when it has at most %d\n"
      "    combinations, else one parameter at a time (coordinate descent): from the\n"
      "    values in effect now (the tables, else the kernel's defaults), each\n"
      "    tunable in turn tries each of its candidates with the others at their\n"
      "    best so far, and a second pass follows if the first moved (--passes).\n"
      "    With --quick it always searches one parameter at a time, because every\n"
      "    configuration is a program build, and builds dominate on CPU devices.\n"
      "\n"
      "    Each configuration runs in a new context with the values as overrides:\n"
      "    trainer.cl trains real epochs (--preset, from a fixed seed), and so does\n"
      "    trainer_cpu.cl with trainer.cl's KERNELS set to 1, trainer_tile.cl with\n"
      "    it set to 2 (its steps are for many cells: tune it with --batch 32 or\n"
      "    more, where the tuned TL also serves TILE_CELLS); selftest.cl\n"
      "    launches its fill kernel over %u values. After --warmup untimed epochs, the\n"
      "    next --repeats are timed with profiling events; a configuration's time\n"
      "    is the median over those epochs of the summed device time of the file's\n"
      "    kernels (wall time per epoch is shown for information).\n"
      "\n"
      "    Correctness: the first configuration, the kernel's defaults, is the\n"
      "    reference. A configuration whose results differ from it is rejected:\n"
      "    for trainer.cl, the losses of the first %d epochs within a relative %g\n"
      "    and the parameters after them within %g (work-group sizes and counts\n"
      "    change the order of float sums, so exact equality would reject correct\n"
      "    ones, and the differences grow with training); for selftest.cl the\n"
      "    output must be identical. The default stays unless a configuration is\n"
      "    at least %.0f%% faster.\n"
      "\n"
      "OPTIONS\n"
      "    --device SPEC        OpenCL device: an index \"0\", \"platform:device\", gpu, cpu,\n"
      "                         accelerator, or part of its name (default:\n"
      "                         $DLCA_CL_DEVICE, else the best GPU); see dlca-info\n"
      "    --kernel FILE        tune only this kernel file of the search path (\"trainer.cl\")\n"
      "    --only NAME=V[,V...] try only these values of tunable NAME (repeatable)\n"
      "    --search auto|grid|descent  (default auto, as above)\n"
      "    --passes N           coordinate-descent passes at most (default 2; 1 with --quick)\n"
      "    --max-configs N      measure at most N configurations per kernel file, the\n"
      "                         reference included (each one is a program build)\n"
      "    --quick              a check in about a minute: --warmup 1 --repeats 3, batch 1\n"
      "                         and at most 4 steps for trainer.cl, the first %d candidates\n"
      "                         of each tunable\n"
      "    --warmup N           untimed epochs per configuration (default 3)\n"
      "    --repeats N          timed epochs per configuration (default 10)\n"
      "    --preset NAME        trainer.cl's workload: gol, checkerboard (default),\n"
      "                         checkerboard-async, growth, colour\n"
      "    --batch N            its batch (default: the preset's)\n"
      "    --steps N            its CA steps per epoch (default: the preset's)\n"
      "    --seed N             its model, start grids and fire masks (default 0)\n"
      "    --output FILE        the table to write (default: <cache dir>/tuning.json,\n"
      "                         the user table that the library reads)\n"
      "    --print-entry        print only this device's table entry, as JSON, to paste\n"
      "                         into tuning/default.json; the report goes to stderr and\n"
      "                         no table is written unless --output is given too\n"
      "    -h, --help           this text\n"
      "    -V, --version        the library version\n"
      "\n"
      "THE TABLE\n"
      "    The written table's header names this device and driver, and its entry\n"
      "    for them gets the winners of the files tuned now; its other entries and\n"
      "    the entry's other kernel files are kept. The file is replaced atomically.\n"
      "\n"
      "ENVIRONMENT\n"
      "    DLCA_CL_DEVICE       the default --device\n"
      "    DLCA_CL_KERNEL_PATH  directories searched for kernel sources before the\n"
      "                         installed ones, and so the files tuned (run from the\n"
      "                         build tree: the source tree's kernels-cl); the\n"
      "                         shipped table is read from ../tuning/default.json\n"
      "                         beside them\n"
      "    DLCA_CL_CACHE_DIR    the cache directory, where the user table goes;\n"
      "                         DLCA_CL_CACHE=0 turns the cache off\n"
      "    DLCA_CL_TUNING       the user table the library reads instead\n"
      "    The format notes kernel-cache.md and tuning-table.md say more.\n"
      "\n"
      "EXIT STATUS\n"
      "    0    success\n"
      "    1    failure: no configuration of a kernel file ran, or the table could\n"
      "         not be written\n"
      "    2    bad input: option, preset, device spec, kernel file\n"
      "\n"
      "EXAMPLES\n"
      "    dlca-tune --device gpu\n"
      "    dlca-tune --quick --kernel trainer.cl --output /tmp/t.json\n"
      "    dlca-tune --kernel trainer.cl --only WG=64,128,256 --print-entry\n",
      GRID_MAX, SELFTEST_N, GATE_EPOCHS, LOSS_RTOL, PARAM_ATOL, MIN_GAIN * 100, QUICK_VALUES);
}

enum {
  OPT_KERNEL = 256, OPT_DEVICE, OPT_PRESET, OPT_BATCH, OPT_STEPS, OPT_SEED, OPT_WARMUP, OPT_REPEATS, OPT_PASSES,
  OPT_SEARCH, OPT_ONLY, OPT_MAX_CONFIGS, OPT_QUICK, OPT_OUTPUT, OPT_PRINT_ENTRY, OPT_HELP, OPT_VERSION
};

static const struct option long_options[] = {
    {"kernel", required_argument, NULL, OPT_KERNEL},   {"device", required_argument, NULL, OPT_DEVICE},
    {"preset", required_argument, NULL, OPT_PRESET},   {"batch", required_argument, NULL, OPT_BATCH},
    {"steps", required_argument, NULL, OPT_STEPS},     {"seed", required_argument, NULL, OPT_SEED},
    {"warmup", required_argument, NULL, OPT_WARMUP},   {"repeats", required_argument, NULL, OPT_REPEATS},
    {"passes", required_argument, NULL, OPT_PASSES},   {"search", required_argument, NULL, OPT_SEARCH},
    {"only", required_argument, NULL, OPT_ONLY},       {"max-configs", required_argument, NULL, OPT_MAX_CONFIGS},
    {"quick", no_argument, NULL, OPT_QUICK},
    {"output", required_argument, NULL, OPT_OUTPUT},   {"print-entry", no_argument, NULL, OPT_PRINT_ENTRY},
    {"help", no_argument, NULL, OPT_HELP},             {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

static int parse_only(const char *arg, options *o) {
  const char *eq = strchr(arg, '=');
  if (o->n_only == MAX_ONLY) {
    fprintf(stderr, "%s: --only: at most %d of them\n", PROG, MAX_ONLY);
    return -1;
  }
  only_opt *p = &o->only[o->n_only];
  memset(p, 0, sizeof *p);
  if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof p->name || !eq[1]) {
    fprintf(stderr, "%s: --only: '%s' is not NAME=V[,V...]\n", PROG, arg);
    return -1;
  }
  snprintf(p->name, sizeof p->name, "%.*s", (int)(eq - arg), arg);
  char list[512];
  snprintf(list, sizeof list, "%s", eq + 1);
  for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    long v;
    if (p->n == MAX_V) {
      fprintf(stderr, "%s: --only %s: at most %d values\n", PROG, p->name, MAX_V);
      return -1;
    }
    if (cli_parse_long(PROG, "--only", tok, -2147483647L, 2147483647L, &v)) return -1;
    int dup = 0;
    for (int i = 0; i < p->n; i++) dup |= p->v[i] == (int)v;
    if (!dup) p->v[p->n++] = (int)v;
  }
  if (!p->n) {
    fprintf(stderr, "%s: --only: '%s' lists no value\n", PROG, arg);
    return -1;
  }
  for (int i = 0; i < o->n_only; i++)
    if (!strcmp(o->only[i].name, p->name)) {
      fprintf(stderr, "%s: --only: %s given twice\n", PROG, p->name);
      return -1;
    }
  o->n_only++;
  return 0;
}

static int parse(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  o->preset = "checkerboard";
  o->batch = o->steps = o->warmup = o->repeats = o->passes = -1;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, ":hV", long_options, NULL)) != -1) {
    const char *name = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    int bad = 0;
    switch (c) {
      case OPT_KERNEL: o->kernel = optarg; break;
      case OPT_DEVICE: o->device = optarg; break;
      case OPT_PRESET: o->preset = optarg; break;
      case OPT_BATCH: bad = cli_parse_long(PROG, "--batch", optarg, 1, 65536, &o->batch); break;
      case OPT_STEPS: bad = cli_parse_long(PROG, "--steps", optarg, 1, 100000, &o->steps); break;
      case OPT_SEED: bad = cli_parse_u64(PROG, "--seed", optarg, &o->seed); break;
      case OPT_WARMUP: bad = cli_parse_long(PROG, "--warmup", optarg, 0, 1000, &o->warmup); break;
      case OPT_REPEATS: bad = cli_parse_long(PROG, "--repeats", optarg, 1, 1000, &o->repeats); break;
      case OPT_PASSES: bad = cli_parse_long(PROG, "--passes", optarg, 1, 10, &o->passes); break;
      case OPT_MAX_CONFIGS: bad = cli_parse_long(PROG, "--max-configs", optarg, 1, 100000, &o->max_configs); break;
      case OPT_SEARCH:
        if (!strcmp(optarg, "auto")) o->search = SEARCH_AUTO;
        else if (!strcmp(optarg, "grid")) o->search = SEARCH_GRID;
        else if (!strcmp(optarg, "descent")) o->search = SEARCH_DESCENT;
        else {
          fprintf(stderr, "%s: --search: '%s' is not auto, grid or descent\n", PROG, optarg);
          bad = 1;
        }
        break;
      case OPT_ONLY: bad = parse_only(optarg, o); break;
      case OPT_QUICK: o->quick = 1; break;
      case OPT_OUTPUT: o->output = optarg; break;
      case OPT_PRINT_ENTRY: o->print_entry = 1; break;
      case 'h':
      case OPT_HELP: o->help = 1; break;
      case 'V':
      case OPT_VERSION: o->version = 1; break;
      case ':': fprintf(stderr, "%s: %s: needs a value (see --help)\n", PROG, name); return CLI_USAGE;
      default: fprintf(stderr, "%s: %s: unknown option (see --help)\n", PROG, name); return CLI_USAGE;
    }
    if (bad) return CLI_USAGE;
  }
  if (o->help || o->version) return CLI_OK;
  if (optind < argc) {
    fprintf(stderr, "%s: %s: unexpected argument; options start with -- (see --help)\n", PROG, argv[optind]);
    return CLI_USAGE;
  }
  if (o->kernel && (!*o->kernel || strchr(o->kernel, '/'))) {
    /* The workloads build their file by name from the search path. */
    fprintf(stderr, "%s: --kernel: '%s': give a file name on the kernel search path, such as trainer.cl "
                    "(DLCA_CL_KERNEL_PATH adds directories)\n", PROG, o->kernel);
    return CLI_USAGE;
  }
  if (o->output && !*o->output) {
    fprintf(stderr, "%s: --output: empty file name\n", PROG);
    return CLI_USAGE;
  }
  if (o->warmup < 0) o->warmup = o->quick ? 1 : 3;
  if (o->repeats < 0) o->repeats = o->quick ? 3 : 10;
  if (o->passes < 0) o->passes = o->quick ? 1 : 2;
  return CLI_OK;
}

/* "trainer" -> "trainer.cl"; a path stays as given. */
static void kernel_file_name(const char *arg, char *out, size_t n) {
  size_t l = strlen(arg);
  snprintf(out, n, "%s%s", arg, l > 3 && !strcmp(arg + l - 3, ".cl") ? "" : ".cl");
}

/* One line on the winner of a tuned file (0), or on why there is none (1). */
static int report_file(tuner *T, kfile *k) {
  char ps[512], rs[512];
  if (k->changed) {
    fprintf(stderr, "%s: %s: the file changed on disk while it was being tuned; run dlca-tune again\n", PROG,
            k->file);
    return CLI_FAIL;
  }
  if (k->winner < 0) {
    const char *why = k->n_m ? k->m[0].msg : "nothing measured";
    fprintf(stderr, "%s: %s: no configuration ran; the default's failure: %s\n", PROG, k->file, why);
    return CLI_FAIL;
  }
  const meas *w = &k->m[k->winner], *r = &k->m[k->ref];
  params_str(k, w->v, ps, sizeof ps);
  params_str(k, r->v, rs, sizeof rs);
  fprintf(T->out, "winner %-*s  %s: %.3f ms/epoch (%s)", T->kw, k->file, ps, score(k, w),
          k->use_wall ? "wall" : "device");
  if (k->winner == k->ref) fprintf(T->out, ", the reference");
  else fprintf(T->out, ", x%.2f over the reference %s (%.3f ms)", score(k, r) / score(k, w), rs, score(k, r));
  if (k->start_idx >= 0 && k->start_idx != k->ref && k->start_idx != k->winner && k->m[k->start_idx].status == ST_OK) {
    params_str(k, k->start, rs, sizeof rs);
    fprintf(T->out, ", x%.2f over the current %s", score(k, &k->m[k->start_idx]) / score(k, w), rs);
  }
  fprintf(T->out, "\n");
  if (memcmp(k->m[k->ref].v, k->m[0].v, sizeof(int) * k->nt))
    fprintf(T->out, "       (the defaults failed, so the first configuration that ran was the reference)\n");
  return CLI_OK;
}

int main(int argc, char **argv) {
  if (tune_clblast_wanted(argc, argv)) return tune_clblast_main(argc, argv); /* bench/tune_clblast.c */
  static tuner T;
  static kfile ks[MAX_FILES];
  static char names[MAX_FILES][1024];
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

  int n_names = 0;
  if (o->kernel) {
    kernel_file_name(o->kernel, names[0], sizeof names[0]);
    n_names = 1;
  } else {
    n_names = kernel_names(names, MAX_FILES);
  }
  int need_trainer = 0;
  for (int i = 0; i < n_names; i++) {
    int r = load_file(&T, probe, names[i], &ks[nk], o->kernel != NULL);
    if (r == 0) {
      need_trainer |= ks[nk].w->prepare == trainer_prepare;
      nk++;
      continue;
    }
    free(ks[nk].t);
    ks[nk].t = NULL;
    if (r > 0) {
      code = r;
      break;
    }
  }
  dlca_context_free(probe);
  for (int j = 0; !code && j < o->n_only; j++)
    if (!o->only[j].used) {
      fprintf(stderr, "%s: --only %s: no kernel file being tuned declares it\n", PROG, o->only[j].name);
      code = CLI_USAGE;
    }
  if (!code && !nk) {
    fprintf(stderr, "%s: no kernel file on the search path declares tunables (set DLCA_CL_KERNEL_PATH)\n", PROG);
    code = CLI_FAIL;
  }
  if (!code && need_trainer) code = trainer_prepare(&T);
  if (code) goto out;

  /* Where the table goes, and whether the library will read it there. */
  char path[1100] = "";
  int do_write = !o->print_entry || o->output;
  if (do_write) {
    if (o->output) {
      snprintf(path, sizeof path, "%s", o->output);
    } else {
      char dir[1024];
      if ((rc = dlca_cache_dir(dir, sizeof dir))) {
        fprintf(stderr, "%s: the cache directory: %s\n", PROG, lib_error(rc));
        code = CLI_FAIL;
        goto out;
      }
      snprintf(path, sizeof path, "%s/tuning.json", dir);
    }
  }

  T.kw = 6;
  for (int i = 0; i < nk; i++)
    if ((int)strlen(ks[i].file) > T.kw) T.kw = (int)strlen(ks[i].file);
  fprintf(T.out, "%s %s on %s (%s, driver %s, OpenCL device %s)\n", PROG, dlca_version_string(), T.dev.name,
          T.dev.platform, T.dev.driver, T.dev.spec);
  for (int i = 0; i < nk; i++)
    if (tune_file(&T, &ks[i])) {
      fprintf(stderr, "%s: out of memory\n", PROG);
      code = CLI_FAIL;
      goto out;
    }

  fprintf(T.out, "\n");
  int tuned = 0;
  for (int i = 0; i < nk; i++) {
    int r = report_file(&T, &ks[i]);
    if (r) code = r;
    else tuned++;
  }
  if (tuned && do_write) {
    int wc = write_table(&T, ks, nk, path, !o->output);
    if (wc) code = wc;
    else {
      fprintf(T.out, "wrote %s for \"%s\" (driver %s)\n", path, T.dev.name, T.dev.driver);
      const char *env = getenv("DLCA_CL_TUNING"), *cache = getenv("DLCA_CL_CACHE");
      if (!o->output && env && *env)
        fprintf(stderr, "%s: note: DLCA_CL_TUNING=%s is set, so the library reads that table, not this one\n", PROG,
                env);
      else if (!o->output && cache && !strcmp(cache, "0"))
        fprintf(stderr, "%s: note: DLCA_CL_CACHE=0: the library does not read %s while the cache is off\n", PROG,
                path);
    }
  }
  if (tuned && o->print_entry && print_entry(&T, ks, nk)) code = CLI_FAIL;
  char dur[32];
  fprintf(T.out, "took %s\n", cli_duration(cli_now() - t_start, dur, sizeof dur));

out:
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
