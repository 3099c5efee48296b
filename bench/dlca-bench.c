/* dlca-bench: times training epochs of the paper's presets, for a list of
 * batch sizes, on an OpenCL device or on the C CPU reference, through the
 * public API only. For each workload it reports wall time per epoch (median
 * and minimum of repeats after a warm-up), samples/s, gate evaluations/s,
 * the trainer's device memory, a per-phase device profile from OpenCL
 * events, and the efficiency against three floors: arithmetic, bytes moved
 * and dependent launches. Writes a table to stdout, and optionally JSON and
 * markdown rows. Usage: --help, or doc/performance.md. */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "dlca_cl.h"
#include "cli.h"
#include "outfile.h"
#include "bench_population.h"

#define PROG "dlca-bench"
#define MAX_LIST 64
#define MAX_KERNELS 16
#define MAX_BATCH 65536L
#define MAX_STEPS 100000L
#define MAX_REPEATS 100000L

/* Peak numbers of an H100 (PCIe/SXM, fp32 non-tensor) and of PoCL on a
 * 2-core CPU: the defaults of the floors when no --peak-* flag is given. */
#define GPU_GFLOPS 51000.0
#define GPU_GBS 3000.0
#define GPU_LAUNCH_US 4.0
#define CPU_GFLOPS 100.0
#define CPU_GBS 20.0
#define CPU_LAUNCH_US 20.0
/* Local (shared) memory bandwidth of an H100 SXM: 132 SMs x 128 B per clock
 * x 1.98 GHz. A CPU device's "local memory" is its cache: not counted. */
#define GPU_LOCAL_GBS 33400.0
#define CPU_LOCAL_GBS 0.0
/* The fewest local-memory bytes per update gate and cell-step of any fp32
 * design that keeps a cell's activations on chip: 11 four-byte accesses
 * (forward 3, recompute 3, backward 5; doc/performance.md, "Work and
 * floors"). */
#define LOCAL_BYTES_PER_GATE 44.0
/* Arithmetic of one relaxed gate evaluation: c0 + c1 a + c2 b + c3 ab and
 * its operand loads, or its share of the 4 backward sums. */
#define FLOPS_PER_GATE 8.0

static const char help_text[] =
    "NAME\n"
    "    dlca-bench - time DLCA training epochs on an OpenCL device or the CPU reference\n"
    "\n"
    "SYNOPSIS\n"
    "    dlca-bench [--preset NAME[,NAME...]] [--batch N[,N...]] [--backend cl|ref]\n"
    "               [--device SPEC] [--json FILE] [--markdown FILE] [OPTION...]\n"
    "\n"
    "DESCRIPTION\n"
    "    For every preset and batch size, builds the preset's model (seed 1) and\n"
    "    trainer, runs --warmup epochs, then times --repeats epochs by wall clock\n"
    "    (dlca_trainer_step and the blocking loss read) and reports the median and\n"
    "    the minimum. On an OpenCL device it then runs --repeats more epochs with\n"
    "    OpenCL profiling events on and reports device time per kernel and per\n"
    "    phase; the wall-clock epochs run with profiling off.\n"
    "\n"
    "    Per workload: ms/epoch, samples/s, gate evaluations/s (forward, recompute\n"
    "    and backward: 3 x cells x T x (C*K*G1 + NGU)), the trainer's device memory\n"
    "    (dlca_trainer_estimate_memory), the floors (arithmetic, bytes moved,\n"
    "    dependent launches and, on a GPU, local-memory traffic) and the\n"
    "    efficiency: the largest floor over the\n"
    "    measured median. A batch that does not fit the device is reported as\n"
    "    such and the run goes on. The formulas are in doc/performance.md.\n"
    "\n"
    "WORKLOAD OPTIONS\n"
    "    --preset LIST        comma-separated presets, or \"all\" (default\n"
    "                         checkerboard): gol, checkerboard, checkerboard-async,\n"
    "                         growth, colour\n"
    "    --batch LIST         comma-separated batch sizes, e.g. 1,2,8,32,128,512,1024\n"
    "                         (default: each preset's own)\n"
    "    --steps N            CA steps per epoch (default: the preset's)\n"
    "    --population LIST    also, per preset, a row for each population size M\n"
    "                         in LIST: M models trained side by side\n"
    "                         (dlca_population_step), each at --population-batch;\n"
    "                         samples/s counts model-samples, the floors are M\n"
    "                         models' work with one model's launches\n"
    "    --population-batch B the batch of each model of a population (default 2)\n"
    "    --model FILE.json    train this saved model (dlca-train --save) instead\n"
    "                         of the preset's; the preset still gives the grid,\n"
    "                         steps, loss and optimizer (its shape must fit them)\n"
    "    --warmup N           untimed epochs first (default 3)\n"
    "    --repeats N          timed epochs; the median is reported (default 10)\n"
    "\n"
    "DEVICE OPTIONS\n"
    "    --backend cl|ref     OpenCL (default) or the CPU reference (wall time only)\n"
    "    --device SPEC        OpenCL device: \"0\", \"1:0\", gpu, cpu, accelerator or\n"
    "                         part of its name (default: $DLCA_CL_DEVICE, else the\n"
    "                         best GPU)\n"
    "    --peak-gflops X      device fp32 peak for the arithmetic floor\n"
    "    --peak-gbs X         device memory bandwidth (GB/s) for the bytes floor\n"
    "    --launch-us X        latency of one dependent launch (microseconds)\n"
    "    --peak-local-gbs X   local-memory bandwidth (GB/s) for the local floor;\n"
    "                         0: not counted\n"
    "                         Defaults: an H100 (51000 GFLOP/s, 3000 GB/s, 4 us,\n"
    "                         33400 GB/s local) for a GPU or accelerator, PoCL on 2\n"
    "                         cores (100 GFLOP/s, 20 GB/s, 20 us, local not counted)\n"
    "                         for a CPU device and the reference.\n"
    "\n"
    "OUTPUT OPTIONS\n"
    "    --json FILE          write every row as a JSON array of objects\n"
    "    --markdown FILE      append the rows to the markdown table at the end of\n"
    "                         FILE (a header is written first if FILE does not end\n"
    "                         with this table)\n"
    "    --quiet              no progress on stderr\n"
    "    -h, --help           this text\n"
    "    -V, --version        the library version\n"
    "\n"
    "ENVIRONMENT\n"
    "    DLCA_CL_DEVICE       the default --device\n"
    "    DLCA_CL_KERNEL_PATH  directories searched for kernel sources before the\n"
    "                         installed ones (run from the build tree: the source\n"
    "                         tree's kernels-cl); see dlca-info(1)\n"
    "    DLCA_CL_BUILD_OPTIONS  more OpenCL compiler options; the library's\n"
    "                         warnings, with them the build logs (NVIDIA:\n"
    "                         -cl-nv-verbose gives registers and spills), are\n"
    "                         printed on stderr\n"
    "\n"
    "EXIT STATUS\n"
    "    0    every workload was measured or does not fit the device\n"
    "    1    a workload failed, or an output file could not be written\n"
    "    2    bad option, preset, model file or device spec\n"
    "\n"
    "EXAMPLES\n"
    "    dlca-bench --preset checkerboard --batch 1,2,8,32,128,512,1024 --device gpu\n"
    "    dlca-bench --preset checkerboard --batch 2 --backend ref --repeats 3\n"
    "    dlca-bench --preset all --json bench.json --markdown perf.md\n"
    "    dlca-bench --preset checkerboard --batch 512 --population 64,256,1024\n";

typedef struct options {
  const char *presets[MAX_LIST];
  int n_presets;
  long batches[MAX_LIST];
  int n_batches;
  long pops[MAX_LIST];    /* --population: the sizes M of the population rows */
  int n_pops;
  long pop_batch;         /* --population-batch (2) */
  long steps, warmup, repeats;
  int backend_ref, quiet;
  const char *device, *json, *markdown;
  const char *model_path; /* --model: every workload trains this model instead of the preset's */
  dlca_model *model;      /* ... loaded once by main */
  double peak_gflops, peak_gbs, launch_us, peak_local_gbs; /* < 0: the device type's default */
} options;

typedef struct kernel_time {
  char name[64];
  double ms;       /* device time per epoch */
  double launches; /* per epoch */
} kernel_time;

enum { ROW_OK = 0, ROW_NOFIT = 1, ROW_FAILED = 2 };

typedef struct row {
  char preset[32];
  int batch, steps, backend_ref;
  int models;  /* 1, or a population's M (batch is then each model's) */
  int status;
  char *error; /* whole: a build failure carries the compiler's log */
  double setup_s;
  double ms_med, ms_min, samples_s, gate_evals_s;
  double gate_evals, gflop, gbytes, glocal, launches; /* per epoch */
  double mem_mb;
  int have_profile;
  double ph_forward, ph_backward, ph_optimizer, ph_other, device_ms;
  kernel_time kernels[MAX_KERNELS];
  int n_kernels;
  double fl_arith, fl_bytes, fl_launch, fl_local, floor_ms, efficiency; /* fl_local 0: not counted */
  const char *bound;
  char date[32];
  double load; /* 1-minute load average of the host at the start, or NAN */
} row;

typedef struct peaks {
  double gflops, gbs, launch_us, local_gbs;
  char source[96];
} peaks;

/* ---- option parsing ---- */

/* Splits a comma-separated list in place; returns the count or -1. */
static int split_list(char *s, const char **out, int max) {
  int n = 0;
  for (char *p = strtok(s, ","); p; p = strtok(NULL, ",")) {
    if (n == max) return -1;
    out[n++] = p;
  }
  return n;
}

enum {
  OPT_PRESET = 256, OPT_BATCH, OPT_STEPS, OPT_WARMUP, OPT_REPEATS, OPT_BACKEND, OPT_DEVICE, OPT_JSON,
  OPT_MARKDOWN, OPT_GFLOPS, OPT_GBS, OPT_LOCAL_GBS, OPT_LAUNCH, OPT_QUIET, OPT_HELP, OPT_VERSION, OPT_MODEL,
  OPT_POPULATION, OPT_POP_BATCH
};

static const struct option long_options[] = {
    {"preset", required_argument, NULL, OPT_PRESET},   {"batch", required_argument, NULL, OPT_BATCH},
    {"steps", required_argument, NULL, OPT_STEPS},     {"warmup", required_argument, NULL, OPT_WARMUP},
    {"repeats", required_argument, NULL, OPT_REPEATS}, {"backend", required_argument, NULL, OPT_BACKEND},
    {"device", required_argument, NULL, OPT_DEVICE},   {"json", required_argument, NULL, OPT_JSON},
    {"markdown", required_argument, NULL, OPT_MARKDOWN}, {"peak-gflops", required_argument, NULL, OPT_GFLOPS},
    {"peak-gbs", required_argument, NULL, OPT_GBS},    {"launch-us", required_argument, NULL, OPT_LAUNCH},
    {"peak-local-gbs", required_argument, NULL, OPT_LOCAL_GBS}, {"model", required_argument, NULL, OPT_MODEL},
    {"quiet", no_argument, NULL, OPT_QUIET},           {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},       {"population", required_argument, NULL, OPT_POPULATION},
    {"population-batch", required_argument, NULL, OPT_POP_BATCH}, {NULL, 0, NULL, 0},
};

/* A comma-separated list of at most MAX_LIST numbers in [1, hi] into out
 * and *n (0 on an error); nonzero after printing why. */
static int parse_list(const char *opt, const char *what, const char *arg, long hi, long *out, int *n) {
  char buf[1024];
  const char *items[MAX_LIST];
  snprintf(buf, sizeof buf, "%s", arg);
  int k = split_list(buf, items, MAX_LIST), bad = 0;
  if (k <= 0) {
    fprintf(stderr, "%s: %s: '%s' is not a list of at most %d %s\n", PROG, opt, arg, MAX_LIST, what);
    bad = 1;
  }
  for (int i = 0; i < k && !bad; i++) bad = cli_parse_long(PROG, opt, items[i], 1, hi, &out[i]);
  *n = bad ? 0 : k;
  return bad;
}

/* --backend's value into o; nonzero after printing why. */
static int parse_backend(const char *arg, options *o) {
  if (!strcmp(arg, "ref")) o->backend_ref = 1;
  else if (!strcmp(arg, "cl")) o->backend_ref = 0;
  else return fprintf(stderr, "%s: --backend: '%s' is neither cl nor ref\n", PROG, arg), 1;
  return 0;
}

/* --launch-us: a duration of at least 0. */
static int parse_launch(const char *arg, options *o) {
  if (cli_parse_double(PROG, "--launch-us", arg, -1.0, &o->launch_us)) return 1;
  if (o->launch_us < 0) return fprintf(stderr, "%s: --launch-us: '%s' is negative\n", PROG, arg), 1;
  return 0;
}

/* One option c with its value arg into o (--preset's list into presets,
 * n bytes); nonzero after printing why. */
static int parse_option(int c, const char *arg, options *o, char *presets, size_t n) {
  switch (c) {
    case OPT_PRESET:
      if (strlen(arg) >= n) return fprintf(stderr, "%s: --preset: list too long\n", PROG), 1;
      snprintf(presets, n, "%s", arg);
      return 0;
    case OPT_BATCH: return parse_list("--batch", "batch sizes", arg, MAX_BATCH, o->batches, &o->n_batches);
    case OPT_POPULATION: return parse_list("--population", "sizes", arg, 65536L, o->pops, &o->n_pops);
    case OPT_POP_BATCH: return cli_parse_long(PROG, "--population-batch", arg, 1, MAX_BATCH, &o->pop_batch);
    case OPT_STEPS: return cli_parse_long(PROG, "--steps", arg, 1, MAX_STEPS, &o->steps);
    case OPT_WARMUP: return cli_parse_long(PROG, "--warmup", arg, 0, MAX_REPEATS, &o->warmup);
    case OPT_REPEATS: return cli_parse_long(PROG, "--repeats", arg, 1, MAX_REPEATS, &o->repeats);
    case OPT_BACKEND: return parse_backend(arg, o);
    case OPT_DEVICE: o->device = arg; return 0;
    case OPT_MODEL: o->model_path = arg; return 0;
    case OPT_JSON: o->json = arg; return 0;
    case OPT_MARKDOWN: o->markdown = arg; return 0;
    case OPT_GFLOPS: return cli_parse_double(PROG, "--peak-gflops", arg, 0.0, &o->peak_gflops);
    case OPT_GBS: return cli_parse_double(PROG, "--peak-gbs", arg, 0.0, &o->peak_gbs);
    case OPT_LOCAL_GBS: return cli_parse_nonneg(PROG, "--peak-local-gbs", arg, &o->peak_local_gbs);
    case OPT_LAUNCH: return parse_launch(arg, o);
    case 'q':
    case OPT_QUIET: o->quiet = 1; return 0;
    default: return 1; /* not an option with a value: the caller's */
  }
}

/* --preset's list ("all": every preset) into o, each name checked. */
static int resolve_presets(char *list, options *o) {
  if (!strcmp(list, "all")) {
    const char *const *names = dlca_preset_names();
    for (o->n_presets = 0; names[o->n_presets] && o->n_presets < MAX_LIST; o->n_presets++)
      o->presets[o->n_presets] = names[o->n_presets];
  } else {
    o->n_presets = split_list(list, o->presets, MAX_LIST);
  }
  if (o->n_presets <= 0) {
    fprintf(stderr, "%s: --preset: give one or more preset names, separated by commas\n", PROG);
    return CLI_USAGE;
  }
  for (int i = 0; i < o->n_presets; i++) {
    dlca_preset p;
    if (dlca_preset_get(o->presets[i], &p)) {
      const char *why = dlca_last_error();
      fprintf(stderr, "%s: --preset: %s\n", PROG, why[0] ? why : "unknown preset");
      return CLI_USAGE;
    }
  }
  return 0;
}

/* 0 to run, -1 for --help/--version done, else an exit code. */
static int parse_options(int argc, char **argv, options *o) {
  static char preset_buf[1024];
  memset(o, 0, sizeof *o);
  o->steps = -1, o->warmup = 3, o->repeats = 10, o->pop_batch = 2;
  o->peak_gflops = o->peak_gbs = o->launch_us = o->peak_local_gbs = -1;
  snprintf(preset_buf, sizeof preset_buf, "checkerboard");
  int help = 0, version = 0, c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":hqV", long_options, NULL)) != -1) {
    const char *name = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    if (c == 'h' || c == OPT_HELP) help = 1;
    else if (c == 'V' || c == OPT_VERSION) version = 1;
    else if (c == ':') return fprintf(stderr, "%s: %s: needs a value (see --help)\n", PROG, name), CLI_USAGE;
    else if (c == '?') return fprintf(stderr, "%s: %s: unknown option (see --help)\n", PROG, name), CLI_USAGE;
    else if (parse_option(c, optarg, o, preset_buf, sizeof preset_buf)) return CLI_USAGE;
  }
  if (help) return fputs(help_text, stdout), -1;
  if (version) return cli_print_version(PROG, dlca_version_string()), -1;
  if (optind < argc) {
    fprintf(stderr, "%s: %s: unexpected argument; options start with -- (see --help)\n", PROG, argv[optind]);
    return CLI_USAGE;
  }
  if (o->backend_ref && o->device) {
    fprintf(stderr, "%s: --device: chooses an OpenCL device, but --backend is ref\n", PROG);
    return CLI_USAGE;
  }
  return resolve_presets(preset_buf, o);
}

/* ---- the workload ---- */

/* The host's 1-minute load average (Linux), NAN elsewhere: a busy host
 * explains noisy timings. */
static double host_load(void) {
  double l = NAN;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &l) != 1) l = NAN;
    fclose(f);
  }
  return l;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static const char *row_error(const row *r) { return r->error ? r->error : "(no memory for the message)"; }

static void set_error(row *r, int status, const char *what, int rc) {
  const char *why = dlca_last_error();
  if (!why[0]) why = dlca_strerror(rc);
  r->status = status;
  free(r->error);
  size_t n = strlen(what) + strlen(why) + 3;
  if ((r->error = malloc(n))) snprintf(r->error, n, "%s: %s", what, why);
}

/* One epoch, timed from the step to the blocking loss read. */
static int timed_epoch(dlca_trainer *t, double *ms) {
  double t0 = cli_now(), loss;
  int rc = dlca_trainer_step(t);
  if (!rc) rc = dlca_trainer_loss(t, &loss);
  *ms = 1e3 * (cli_now() - t0);
  return rc;
}

/* A fixed target: the 2x2-square checkerboard of doc/semantics.md on every loss
 * channel, 0 elsewhere. Only the timing matters here, not what is learnt. */
static float *make_target(const dlca_train_config *cfg, int C) {
  float *y = calloc((size_t)cfg->height * cfg->width * C, sizeof *y);
  if (!y) return NULL;
  for (int l = 0; l < cfg->n_loss_channels; l++)
    for (int r = 0; r < cfg->height; r++)
      for (int q = 0; q < cfg->width; q++)
        y[((size_t)r * cfg->width + q) * C + cfg->loss_channels[l]] = (float)((r / 2 + q / 2) & 1);
  return y;
}

/* DLCA_START_UPLOAD (gol): random 0/1 boards, the same every epoch. */
static int upload_input(dlca_trainer *t, const dlca_train_config *cfg, int C) {
  size_t n = (size_t)cfg->batch * cfg->height * cfg->width * C;
  float *x = malloc(n * sizeof *x);
  if (!x) return DLCA_ENOMEM;
  for (size_t i = 0; i < n; i++) x[i] = (float)(dlca_rng_u32(0xb3c4, (uint32_t)(i >> 32), (uint32_t)i) & 1u);
  int rc = dlca_trainer_set_input(t, x);
  free(x);
  return rc;
}

/* The launch floor for n dependent launches per epoch, and the floor. */
static void set_launches(row *r, double n, const peaks *pk) {
  r->launches = n;
  r->fl_launch = 1e-3 * r->launches * pk->launch_us;
  r->floor_ms = r->fl_arith, r->bound = "arith";
  if (r->fl_bytes > r->floor_ms) r->floor_ms = r->fl_bytes, r->bound = "bytes";
  if (r->fl_launch > r->floor_ms) r->floor_ms = r->fl_launch, r->bound = "launches";
  if (r->fl_local > r->floor_ms) r->floor_ms = r->fl_local, r->bound = "local";
}

/* Work per epoch and the three floors (doc/performance.md). */
static void floors(row *r, const dlca_model *m, const dlca_train_config *cfg, const peaks *pk) {
  dlca_model_shape s;
  dlca_model_get_shape(m, &s);
  double G1 = 0, NGU = 0;
  for (int l = 1; l < s.n_perceive_layers; l++) G1 += s.perceive_layers[l];
  for (int l = 1; l < s.n_update_layers; l++) NGU += s.update_layers[l];
  double cells = (double)cfg->batch * cfg->height * cfg->width, T = cfg->steps;
  double fwd = cells * T * ((double)s.channels * s.n_kernels * G1 + NGU);
  double N = cells * s.channels, P = (double)dlca_model_n_params(m);
  r->gate_evals = 3 * fwd; /* forward, recompute in backward, backward */
  r->gflop = FLOPS_PER_GATE * r->gate_evals * 1e-9;
  /* states: T+1 grids written once and read twice; per backward step the
   * state gradient (1 grid) and the patch gradients (9 grids) are written
   * and read; logits, gradient and both moments read and written once. */
  double bytes = 4.0 * (3 * (T + 1) * N + 2 * T * N + 2 * 9 * T * N) + 4.0 * P * 4 * 2;
  r->gbytes = bytes * 1e-9;
  r->fl_arith = 1e3 * r->gflop / pk->gflops;
  r->fl_bytes = 1e3 * r->gbytes / pk->gbs;
  r->glocal = LOCAL_BYTES_PER_GATE * cells * T * NGU * 1e-9;
  r->fl_local = pk->local_gbs > 0 ? 1e3 * r->glocal / pk->local_gbs : 0;
  /* coef, start, T forward, fill, T backward, adamw; a profiled OpenCL
   * epoch replaces this by the launches it counted (profile_into) */
  set_launches(r, 2 * T + 4, pk);
}

static void profile_into(row *r, const dlca_kernel_profile *p, size_t n, long repeats, const peaks *pk) {
  double total = 0, launches = 1; /* the fill of the gate sums, not profiled */
  r->n_kernels = 0;
  for (size_t i = 0; i < n; i++) {
    double ms = p[i].total_ms / (double)repeats;
    total += ms;
    /* forward, backward: trainer.cl's or trainer_cpu.cl's steps; forward_tile,
     * backward_tile: trainer_tile.cl's (lib/cl/trainer/enqueue.c) */
    if (!strcmp(p[i].name, "coef") || !strcmp(p[i].name, "start") || !strncmp(p[i].name, "forward", 7))
      r->ph_forward += ms;
    else if (!strncmp(p[i].name, "backward", 8)) r->ph_backward += ms;
    else if (!strcmp(p[i].name, "adamw")) r->ph_optimizer += ms;
    else r->ph_other += ms;
    if (r->n_kernels < MAX_KERNELS) {
      kernel_time *k = &r->kernels[r->n_kernels++];
      snprintf(k->name, sizeof k->name, "%s", p[i].name);
      k->ms = ms;
      k->launches = (double)p[i].count / (double)repeats;
    }
    launches += (double)p[i].count / (double)repeats;
  }
  /* the launches the epoch made (one backward launch with BWD_PERSIST) */
  if (n) set_launches(r, launches, pk);
  r->device_ms = total;
  r->have_profile = 1;
}

static void progress(const options *o, const char *fmt, ...) {
  if (o->quiet) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", PROG);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* The warm-up epochs, then --repeats timed ones into r's speeds; a status. */
static int time_epochs(const options *o, dlca_trainer *t, const dlca_train_config *cfg, row *r) {
  double dummy, *ms = malloc(sizeof *ms * (size_t)o->repeats);
  int rc = DLCA_OK;
  if (!ms) return set_error(r, ROW_FAILED, "host memory", DLCA_ENOMEM), DLCA_ENOMEM;
  for (long i = 0; i < o->warmup && !rc; i++)
    if ((rc = timed_epoch(t, &dummy))) set_error(r, ROW_FAILED, "warm-up epoch", rc);
  for (long i = 0; i < o->repeats && !rc; i++)
    if ((rc = timed_epoch(t, &ms[i]))) set_error(r, ROW_FAILED, "timed epoch", rc);
  if (!rc) {
    r->ms_med = median(ms, (int)o->repeats); /* sorts ms */
    r->ms_min = ms[0];
    r->samples_s = cfg->batch / (1e-3 * r->ms_med);
    r->gate_evals_s = r->gate_evals / (1e-3 * r->ms_med);
    r->efficiency = r->floor_ms / r->ms_med;
  }
  free(ms);
  return rc;
}

/* --repeats more epochs with the device's profiling on, into r's phases; a status. */
static int profile_epochs(const options *o, dlca_context *ctx, dlca_trainer *t, const peaks *pk, row *r) {
  double dummy;
  int rc = DLCA_OK;
  dlca_context_profile_reset(ctx);
  dlca_context_set_profiling(ctx, 1);
  for (long i = 0; i < o->repeats && !rc; i++) rc = timed_epoch(t, &dummy);
  dlca_kernel_profile *prof = NULL;
  size_t n = 0;
  if (!rc) rc = dlca_context_profile(ctx, &prof, &n);
  dlca_context_set_profiling(ctx, 0);
  dlca_context_profile_reset(ctx);
  if (rc) return set_error(r, ROW_FAILED, "profiled epoch", rc), rc;
  profile_into(r, prof, n, o->repeats, pk);
  r->efficiency = r->floor_ms / r->ms_med;
  free(prof);
  return DLCA_OK;
}

/* The trainer of m under cfg, its setup time and device memory in r; a status. */
static int build_trainer(const options *o, dlca_context *ctx, const dlca_model *m, const dlca_train_config *cfg,
                         row *r, dlca_trainer **t) {
  size_t bytes = 0;
  int rc = dlca_trainer_estimate_memory(m, cfg, &bytes);
  if (rc) return set_error(r, rc == DLCA_ECONFIG ? ROW_NOFIT : ROW_FAILED, "configuration", rc), rc;
  /* The device trainer's buffers; the reference keeps its own host arrays. */
  if (ctx) r->mem_mb = (double)bytes / (1024.0 * 1024.0);
  progress(o, "%s, batch %d, %d steps: building the trainer", r->preset, cfg->batch, cfg->steps);
  double t0 = cli_now();
  rc = dlca_trainer_new(ctx, m, cfg, t);
  r->setup_s = cli_now() - t0;
  if (rc) {
    int nofit = rc == DLCA_EDEVMEM || rc == DLCA_ECONFIG || rc == DLCA_ENOMEM;
    set_error(r, nofit ? ROW_NOFIT : ROW_FAILED, "trainer", rc);
  }
  return rc;
}

/* The target, and the start grids where the preset uploads them; a status. */
static int set_data(dlca_trainer *t, const dlca_train_config *cfg, int channels, row *r) {
  float *y = make_target(cfg, channels);
  if (!y) return set_error(r, ROW_FAILED, "host memory", DLCA_ENOMEM), DLCA_ENOMEM;
  int rc = dlca_trainer_set_target(t, y, 0);
  free(y);
  if (rc) return set_error(r, ROW_FAILED, "target", rc), rc;
  if (cfg->start == DLCA_START_UPLOAD && (rc = upload_input(t, cfg, channels)))
    set_error(r, ROW_FAILED, "start grids", rc);
  return rc;
}

static void run_workload(const options *o, dlca_context *ctx, const peaks *pk, const char *preset_name, long batch,
                         row *r) {
  dlca_preset p;
  dlca_train_config cfg;
  dlca_model *own = NULL; /* the preset's model, built here */
  const dlca_model *m = o->model;
  dlca_trainer *t = NULL;
  time_t now = time(NULL);
  strftime(r->date, sizeof r->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  r->load = host_load();
  if (dlca_preset_get(preset_name, &p)) { /* checked by parse_options */
    set_error(r, ROW_FAILED, "preset", DLCA_EINVAL);
    return;
  }
  dlca_train_config_from_preset(&p, &cfg);
  cfg.seed = 1;
  if (batch > 0) cfg.batch = (int)batch;
  if (o->steps > 0) cfg.steps = (int)o->steps;
  snprintf(r->preset, sizeof r->preset, "%s", p.name);
  r->batch = cfg.batch, r->steps = cfg.steps, r->backend_ref = o->backend_ref, r->models = 1;
  int rc = m ? DLCA_OK : dlca_model_new_preset(p.name, 1, &own);
  if (rc) set_error(r, ROW_FAILED, "model", rc);
  if (!m) m = own;
  if (!rc) floors(r, m, &cfg, pk);
  if (!rc) rc = build_trainer(o, ctx, m, &cfg, r, &t);
  dlca_model_shape s;
  if (!rc) dlca_model_get_shape(m, &s), rc = set_data(t, &cfg, s.channels, r);
  if (!rc && ctx) dlca_context_set_profiling(ctx, 0);
  if (!rc) progress(o, "%s, batch %d: %ld warm-up and %ld timed epochs", p.name, cfg.batch, o->warmup, o->repeats);
  if (!rc) rc = time_epochs(o, t, &cfg, r);
  if (!rc && ctx) progress(o, "%s, batch %d: %ld profiled epochs", p.name, cfg.batch, o->repeats);
  if (!rc && ctx) rc = profile_epochs(o, ctx, t, pk, r);
  dlca_trainer_free(t);
  dlca_model_free(own);
}

/* A population of M models at --population-batch: the floors are M
 * models' arithmetic and bytes with one model's launches (the best of one
 * launch per phase); samples/s counts model-samples. */
static void run_population(const options *o, dlca_context *ctx, const peaks *pk, const char *preset_name, long M,
                           row *r) {
  dlca_preset p;
  dlca_train_config cfg;
  dlca_model *m = NULL;
  time_t now = time(NULL);
  strftime(r->date, sizeof r->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  r->load = host_load();
  int rc = dlca_preset_get(preset_name, &p); /* checked by parse_options */
  if (!rc) rc = dlca_model_new_preset(p.name, 1, &m);
  if (rc) {
    set_error(r, ROW_FAILED, "model", rc);
    return;
  }
  dlca_train_config_from_preset(&p, &cfg);
  cfg.batch = (int)o->pop_batch;
  if (o->steps > 0) cfg.steps = (int)o->steps;
  snprintf(r->preset, sizeof r->preset, "%s x%ld", p.name, M);
  r->batch = cfg.batch, r->steps = cfg.steps, r->backend_ref = o->backend_ref, r->models = (int)M;
  floors(r, m, &cfg, pk);
  dlca_model_free(m);
  r->gate_evals *= (double)M, r->gflop *= (double)M, r->gbytes *= (double)M, r->glocal *= (double)M;
  r->fl_arith *= (double)M, r->fl_bytes *= (double)M, r->fl_local *= (double)M;
  set_launches(r, r->launches, pk);
  progress(o, "%s, %ld models at batch %d: %ld warm-up and %ld timed steps", p.name, M, cfg.batch, o->warmup,
           o->repeats);
  bench_pop b;
  rc = bench_population(ctx, p.name, cfg.batch, cfg.steps, (int)M, o->warmup, o->repeats, &b);
  r->setup_s = b.setup_s;
  if (ctx && b.bytes) r->mem_mb = (double)b.bytes / (1024.0 * 1024.0);
  if (rc) {
    int nofit = rc == DLCA_EDEVMEM || rc == DLCA_ECONFIG || rc == DLCA_ENOMEM;
    set_error(r, nofit ? ROW_NOFIT : ROW_FAILED, b.what, rc);
    return;
  }
  r->ms_med = b.ms_med, r->ms_min = b.ms_min;
  r->samples_s = (double)M * cfg.batch / (1e-3 * r->ms_med);
  r->gate_evals_s = r->gate_evals / (1e-3 * r->ms_med);
  r->efficiency = r->floor_ms / r->ms_med;
}

/* ---- output ---- */

static void device_name(const options *o, dlca_context *ctx, char *buf, size_t n) {
  if (o->backend_ref) {
#ifdef _OPENMP
    int threads = omp_get_max_threads();
    snprintf(buf, n, "CPU reference (%d thread%s)", threads, threads == 1 ? "" : "s");
#else
    snprintf(buf, n, "CPU reference");
#endif
    return;
  }
  dlca_device_info info;
  dlca_context_device(ctx, &info);
  /* "OpenCL 3.0 PoCL 3.1+debian  Linux, ..." -> "PoCL 3.1+debian";
   * "OpenCL 3.0 CUDA 12.4.131" -> "CUDA 12.4.131" */
  char plat[128];
  const char *v = info.platform_version;
  if (!strncmp(v, "OpenCL ", 7) && strchr(v + 7, ' ')) v = strchr(v + 7, ' ') + 1;
  snprintf(plat, sizeof plat, "%s", v);
  plat[strcspn(plat, ",")] = 0;
  char *dbl = strstr(plat, "  ");
  if (dbl) *dbl = 0;
  snprintf(buf, n, "%s (%s, %u CU)", info.name, plat[0] ? plat : info.platform, info.compute_units);
}

static void pick_peaks(const options *o, dlca_context *ctx, peaks *pk) {
  int gpu = 0;
  if (ctx) {
    dlca_device_info info;
    dlca_context_device(ctx, &info);
    gpu = info.type != DLCA_DEVICE_CPU;
  }
  pk->gflops = o->peak_gflops > 0 ? o->peak_gflops : gpu ? GPU_GFLOPS : CPU_GFLOPS;
  pk->gbs = o->peak_gbs > 0 ? o->peak_gbs : gpu ? GPU_GBS : CPU_GBS;
  pk->launch_us = o->launch_us >= 0 ? o->launch_us : gpu ? GPU_LAUNCH_US : CPU_LAUNCH_US;
  pk->local_gbs = o->peak_local_gbs >= 0 ? o->peak_local_gbs : gpu ? GPU_LOCAL_GBS : CPU_LOCAL_GBS;
  int flags = o->peak_gflops > 0 || o->peak_gbs > 0 || o->launch_us >= 0 || o->peak_local_gbs >= 0;
  snprintf(pk->source, sizeof pk->source, "%sdefaults for %s", flags ? "--peak-*/--launch-us flags, else " : "",
           gpu ? "a GPU or accelerator: H100" : "a CPU: PoCL on 2 cores");
}

static void print_header(void) {
  printf("%-19s %6s %4s %-4s %11s %11s %11s %12s %9s %17s %7s\n", "preset", "batch", "T", "bknd", "ms/epoch",
         "min ms", "samples/s", "gate-evals/s", "mem MiB", "floor ms (bound)", "eff");
  fflush(stdout);
}

static void print_row(const row *r) {
  if (r->status != ROW_OK) {
    printf("%-19s %6d %4d %-4s %s\n", r->preset, r->batch, r->steps, r->backend_ref ? "ref" : "cl",
           r->status == ROW_NOFIT ? "does not fit" : "FAILED");
    printf("    %s\n", row_error(r));
    fflush(stdout);
    return;
  }
  char fl[32], mem[32] = "-";
  snprintf(fl, sizeof fl, "%.3g (%s)", r->floor_ms, r->bound);
  if (r->mem_mb > 0) snprintf(mem, sizeof mem, "%.1f", r->mem_mb);
  printf("%-19s %6d %4d %-4s %11.3f %11.3f %11.4g %12.4g %9s %17s %6.2f%%\n", r->preset, r->batch, r->steps,
         r->backend_ref ? "ref" : "cl", r->ms_med, r->ms_min, r->samples_s, r->gate_evals_s, mem, fl,
         100 * r->efficiency);
  printf("    floors per epoch: arith %.4g ms (%.4g GFLOP), bytes %.4g ms (%.4g GB), launches %.4g ms (%.0f)",
         r->fl_arith, r->gflop, r->fl_bytes, r->gbytes, r->fl_launch, r->launches);
  if (r->fl_local > 0) printf(", local %.4g ms (%.4g GB)", r->fl_local, r->glocal);
  putchar('\n');
  if (r->have_profile) {
    printf("    device time per epoch: forward %.3f ms, backward (loss included) %.3f ms, optimizer %.3f ms",
           r->ph_forward, r->ph_backward, r->ph_optimizer);
    if (r->ph_other > 0) printf(", other %.3f ms", r->ph_other);
    printf("; %.3f ms in kernels of %.3f ms wall\n     ", r->device_ms, r->ms_med);
    for (int i = 0; i < r->n_kernels; i++)
      printf(" %s %.3f ms x%.0f%s", r->kernels[i].name, r->kernels[i].ms, r->kernels[i].launches,
             i + 1 < r->n_kernels ? "," : "\n");
  }
  fflush(stdout);
}

/* The device profile's phases and kernels of an ok row (else nulls) into o. */
static void profile_json(json_t *o, const row *r) {
  if (r->status != ROW_OK || !r->have_profile) {
    json_object_set_new(o, "phases_ms", json_null());
    json_object_set_new(o, "kernels_ms", json_null());
    return;
  }
  json_object_set_new(o, "phases_ms",
                      json_pack("{s:o, s:n, s:o, s:o, s:o, s:o, s:s}", "forward", outfile_json_num(r->ph_forward),
                                "loss", "backward", outfile_json_num(r->ph_backward), "optimizer",
                                outfile_json_num(r->ph_optimizer), "other", outfile_json_num(r->ph_other),
                                "device_total", outfile_json_num(r->device_ms), "note",
                                "loss is computed in the first backward launch and counted in backward"));
  json_t *k = json_object();
  for (int i = 0; i < r->n_kernels; i++) json_object_set_new(k, r->kernels[i].name, outfile_json_num(r->kernels[i].ms));
  json_object_set_new(o, "kernels_ms", k);
}

/* One row's object: what ran, its speed, its floors and the peaks they assume. */
static json_t *row_json(const row *r, const char *device, const peaks *pk, const char *command) {
  const int ok = r->status == ROW_OK;
  json_t *o = json_pack("{s:s, s:i, s:i, s:i, s:s, s:s, s:s}", "preset", r->preset, "models", r->models, "batch",
                        r->batch, "steps", r->steps, "backend", r->backend_ref ? "ref" : "cl", "device", device,
                        "status", ok ? "ok" : r->status == ROW_NOFIT ? "does not fit" : "failed");
  if (!o) return NULL;
  if (!ok) json_object_set_new(o, "error", json_string(row_error(r)));
  const char *keys[] = {"ms_per_epoch_median", "ms_per_epoch_min", "samples_per_s", "gate_evals_per_s",
                        "gate_evals_per_epoch", "gflop_per_epoch", "gbytes_per_epoch", "launches_per_epoch",
                        "device_mem_mb", "setup_s"};
  const double vals[] = {ok ? r->ms_med : NAN, ok ? r->ms_min : NAN, ok ? r->samples_s : NAN,
                         ok ? r->gate_evals_s : NAN, r->gate_evals, r->gflop, r->gbytes, r->launches,
                         r->mem_mb > 0 ? r->mem_mb : NAN, r->setup_s};
  for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) json_object_set_new(o, keys[i], outfile_json_num(vals[i]));
  profile_json(o, r);
  json_object_set_new(o, "floors_ms",
                      json_pack("{s:o, s:o, s:o, s:o, s:s}", "arith", outfile_json_num(r->fl_arith), "bytes",
                                outfile_json_num(r->fl_bytes), "launches", outfile_json_num(r->fl_launch), "local",
                                outfile_json_num(r->fl_local > 0 ? r->fl_local : NAN), "bound",
                                r->bound ? r->bound : ""));
  json_object_set_new(o, "efficiency", outfile_json_num(ok ? r->efficiency : NAN));
  json_object_set_new(o, "peaks",
                      json_pack("{s:o, s:o, s:o, s:o}", "gflops", outfile_json_num(pk->gflops), "gbs",
                                outfile_json_num(pk->gbs), "launch_us", outfile_json_num(pk->launch_us), "local_gbs",
                                outfile_json_num(pk->local_gbs)));
  json_object_set_new(o, "host_load", outfile_json_num(r->load));
  json_object_set_new(o, "date", json_string(r->date));
  json_object_set_new(o, "command", json_string(command));
  return o;
}

/* --json: an array of the rows, one a line, written whole; 0 or -1 with the reason in err. */
static int write_json(const char *path, const row *rows, int n, const char *device, const peaks *pk,
                      const char *command, char *err, size_t en) {
  json_t *a = json_array();
  for (int i = 0; a && i < n; i++) {
    json_t *o = row_json(&rows[i], device, pk, command);
    if (!o || json_array_append_new(a, o)) json_decref(a), a = NULL;
  }
  int rc = a ? outfile_json(path, a, 6, err, en) : (snprintf(err, en, "out of memory"), -1);
  json_decref(a);
  return rc;
}

static const char md_header[] =
    "| date | preset | batch | T | backend | device | ms/epoch median (min) | samples/s | gate-evals/s "
    "| device MiB | forward / backward / optimizer ms | floor ms: arith / bytes / launches | efficiency "
    "| command |\n"
    "|---|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";

/* One row of the markdown table into f. */
static void md_row(FILE *f, const row *r, const char *device, const char *command) {
  fprintf(f, "| %.10s | %s | %d | %d | %s | ", r->date, r->preset, r->batch, r->steps, r->backend_ref ? "ref" : "cl");
  outfile_md_cell(f, device);
  if (r->status != ROW_OK) {
    fprintf(f, " | %s: ", r->status == ROW_NOFIT ? "does not fit" : "failed");
    outfile_md_cell(f, row_error(r));
    fputs(" | | | ", f);
    if (r->mem_mb > 0) fprintf(f, "%.1f", r->mem_mb);
    else fputs("-", f);
    fprintf(f, " | | %.3g / %.3g / %.3g", r->fl_arith, r->fl_bytes, r->fl_launch);
    if (r->fl_local > 0) fprintf(f, "; local %.3g", r->fl_local);
    fputs(" | | `", f);
  } else {
    fprintf(f, " | %.4g (%.4g) | %.4g | %.3g | ", r->ms_med, r->ms_min, r->samples_s, r->gate_evals_s);
    if (r->mem_mb > 0) fprintf(f, "%.1f | ", r->mem_mb);
    else fputs("- | ", f);
    if (r->have_profile) fprintf(f, "%.4g / %.4g / %.3g", r->ph_forward, r->ph_backward, r->ph_optimizer);
    else fputs("-", f);
    fprintf(f, " | %.3g / %.3g / %.3g", r->fl_arith, r->fl_bytes, r->fl_launch);
    if (r->fl_local > 0) fprintf(f, "; local %.3g", r->fl_local);
    fprintf(f, " | %.2f%% | `", 100 * r->efficiency);
  }
  outfile_md_cell(f, command);
  fputs("` |\n", f);
}

/* --markdown: the rows appended to the file's table (tools/outfile.h); 0 or -1 with the reason in err. */
static int append_markdown(const char *path, const row *rows, int n, const char *device, const char *command,
                           char *err, size_t en) {
  outfile_mem m;
  if (outfile_mem_open(&m, err, en)) return -1;
  for (int i = 0; i < n; i++) md_row(m.f, &rows[i], device, command);
  return outfile_mem_md_append(&m, path, md_header, err, en);
}

/* The command line, with arguments that need it in single quotes. */
static void command_line(int argc, char **argv, char *buf, size_t n) {
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < argc && len + 1 < n; i++) {
    const char *a = i == 0 ? PROG : argv[i];
    int quote = a[0] == 0 || strpbrk(a, " \t'\"$`\\|;&<>()*?") != NULL;
    len += (size_t)snprintf(buf + len, n - len, "%s%s%s%s", i ? " " : "", quote ? "'" : "", a, quote ? "'" : "");
  }
}

/* What the rows are measured on and against. */
static void print_preamble(const options *o, dlca_context *ctx, const char *device, const peaks *pk) {
  printf("device: %s\n", device);
  printf("peaks for the floors: %g GFLOP/s, %g GB/s, %g us per dependent launch, %g GB/s local (0: not "
         "counted); from %s\n", pk->gflops, pk->gbs, pk->launch_us, pk->local_gbs, pk->source);
  printf("timing: %ld warm-up epochs, median of %ld (wall clock, profiling off)%s\n", o->warmup, o->repeats,
         ctx ? "; device profile from as many more epochs" : "");
  double load = host_load();
  if (isfinite(load)) printf("host load average (1 min): %.2f\n", load);
  print_header();
}

/* Every workload's row, printed as it ends; whether one failed. */
static int run_rows(const options *o, dlca_context *ctx, const peaks *pk, row *rows) {
  const int n_batches = o->n_batches ? o->n_batches : 1;
  int failed = 0, k = 0;
  for (int i = 0; i < o->n_presets; i++)
    for (int j = 0; j < n_batches + o->n_pops; j++, k++) {
      if (j < n_batches) run_workload(o, ctx, pk, o->presets[i], o->n_batches ? o->batches[j] : -1, &rows[k]);
      else run_population(o, ctx, pk, o->presets[i], o->pops[j - n_batches], &rows[k]);
      if (rows[k].status == ROW_FAILED) {
        failed = 1;
        fprintf(stderr, "%s: %s, batch %d: %s\n", PROG, rows[k].preset, rows[k].batch, row_error(&rows[k]));
      }
      print_row(&rows[k]);
    }
  /* the library never prints: its warnings (an ignored tuning table; with
   * DLCA_CL_BUILD_OPTIONS set, the compilers' build logs, which tell
   * registers and spills) go to stderr here */
  const char *warn = ctx ? dlca_context_warnings(ctx) : "";
  if (*warn) fprintf(stderr, "%s: warning: %s%s", PROG, warn, warn[strlen(warn) - 1] == '\n' ? "" : "\n");
  return failed;
}

/* --json and --markdown; 0, or 1 after a message. */
static int write_outputs(const options *o, const row *rows, int n_rows, const char *device, const peaks *pk,
                         const char *command) {
  char err[256];
  int bad = 0;
  if (o->json && write_json(o->json, rows, n_rows, device, pk, command, err, sizeof err))
    bad = 1, fprintf(stderr, "%s: --json %s: %s\n", PROG, o->json, err);
  if (o->markdown && append_markdown(o->markdown, rows, n_rows, device, command, err, sizeof err))
    bad = 1, fprintf(stderr, "%s: --markdown %s: %s\n", PROG, o->markdown, err);
  return bad;
}

int main(int argc, char **argv) {
  options o;
  int rc = parse_options(argc, argv, &o);
  if (rc) return rc < 0 ? 0 : rc;
  char command[2048], device[512];
  command_line(argc, argv, command, sizeof command);
  if (o.model_path && (rc = dlca_model_load(o.model_path, &o.model))) {
    const char *why = dlca_last_error();
    fprintf(stderr, "%s: --model %s: %s\n", PROG, o.model_path, why[0] ? why : dlca_strerror(rc));
    return rc == DLCA_ENOMEM ? CLI_FAIL : CLI_USAGE; /* a missing or bad file is the user's to fix */
  }
  dlca_context *ctx = NULL;
  if (!o.backend_ref && (rc = dlca_context_new(o.device, &ctx))) {
    dlca_model_free(o.model);
    return cli_context_fail(PROG, o.device, rc, "use --backend ref for the CPU reference");
  }
  device_name(&o, ctx, device, sizeof device);
  peaks pk;
  pick_peaks(&o, ctx, &pk);
  print_preamble(&o, ctx, device, &pk);
  const int n_rows = o.n_presets * ((o.n_batches ? o.n_batches : 1) + o.n_pops);
  row *rows = calloc((size_t)n_rows, sizeof *rows);
  if (!rows) fprintf(stderr, "%s: out of memory\n", PROG);
  rc = !rows ? CLI_FAIL : run_rows(&o, ctx, &pk, rows) ? CLI_FAIL : CLI_OK;
  if (rows && write_outputs(&o, rows, n_rows, device, &pk, command)) rc = CLI_FAIL;
  for (int k = 0; rows && k < n_rows; k++) free(rows[k].error);
  free(rows);
  dlca_context_free(ctx);
  dlca_model_free(o.model);
  return rc;
}
