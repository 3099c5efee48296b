/* dlca-hardbench: how fast a preset's hard circuit is evaluated (one
 * rollout of the training evaluation, its loss and errors) on the three
 * engines: the float CPU reference (dlca_ref_forward with hard gates), an
 * OpenCL device (dlca_trainer_eval_hard), and the packed-bits circuit
 * (dlca_bits_run alone, and dlca_bits_run_variants: many one-gate variants
 * in parallel, the workload of dlca-train --repair). doc/bits.md. */
#include <getopt.h>
#include <jansson.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dlca_cl.h"
#include "cli.h"
#include "outfile.h"

#define PROG "dlca-hardbench"

static void usage(FILE *f) {
  fprintf(f,
          "NAME\n"
          "    %s - time the hard evaluation of a circuit on each engine\n\n"
          "SYNOPSIS\n"
          "    %s [--preset NAME[,NAME...]] [--model FILE.json] [--repeats N]\n"
          "                   [--variants N] [--no-cl] [--device SPEC] [--json FILE]\n"
          "                   [--markdown FILE]\n\n"
          "DESCRIPTION\n"
          "    For each preset, one hard evaluation (the preset's rollout from its\n"
          "    start grids, then the loss and the values wrong) is timed on the float\n"
          "    CPU reference, on an OpenCL device, and on the packed-bits circuit\n"
          "    (include/dlca_cl/bits.h): one circuit at a time, and N one-gate\n"
          "    variants at once on every OpenMP thread, as dlca-train --repair scores\n"
          "    them. The circuit is the preset's model with random logits (every op\n"
          "    occurs), or --model. Medians of --repeats; the engines must agree on the\n"
          "    values wrong, else the tool fails.\n\n"
          "OPTIONS\n"
          "    --preset LIST        presets, comma-separated (default: colour,growth)\n"
          "    --model FILE.json    a saved model instead (one preset)\n"
          "    --repeats N          timed evaluations per engine (default 5)\n"
          "    --variants N         variants per timed call (default 4096)\n"
          "    --no-cl              skip the OpenCL device\n"
          "    --device SPEC        the OpenCL device (default: DLCA_CL_DEVICE, else the\n"
          "                         best one)\n"
          "    --json FILE          write the rows as JSON\n"
          "    --markdown FILE      append the rows as markdown table rows\n"
          "    -h, --help           this text\n"
          "    -V, --version        the library version\n\n"
          "ENVIRONMENT\n"
          "    DLCA_CL_DEVICE       the default --device\n"
          "    DLCA_CL_KERNEL_PATH  directories searched for kernel sources before the\n"
          "                         installed ones (run from the build tree: the source\n"
          "                         tree's kernels-cl); see dlca-info(1)\n\n"
          "EXIT STATUS\n"
          "    0    every preset was timed and the engines agree\n"
          "    1    a preset failed, the engines disagree, or an output file could\n"
          "         not be written\n"
          "    2    bad option, preset, model file or device spec\n\n"
          "EXAMPLES\n"
          "    OMP_NUM_THREADS=16 %s --preset colour,growth --json hard.json\n",
          PROG, PROG, PROG);
}

typedef struct options {
  char presets[8][32];
  int n_presets;
  const char *model, *device, *json, *markdown;
  long repeats, variants;
  int no_cl;
} options;

typedef struct row {
  char preset[32];
  size_t gates, errors, cells;
  double ref_ms, cl_ms, bits_ms, variants_per_s;
  int threads;
} row;

static int parse(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  o->repeats = 5, o->variants = 4096;
  const char *list = "colour,growth";
  enum { O_PRESET = 256, O_MODEL, O_REPEATS, O_VARIANTS, O_NOCL, O_DEVICE, O_JSON, O_MD };
  static const struct option lo[] = {{"preset", required_argument, NULL, O_PRESET},
                                     {"model", required_argument, NULL, O_MODEL},
                                     {"repeats", required_argument, NULL, O_REPEATS},
                                     {"variants", required_argument, NULL, O_VARIANTS},
                                     {"no-cl", no_argument, NULL, O_NOCL},
                                     {"device", required_argument, NULL, O_DEVICE},
                                     {"json", required_argument, NULL, O_JSON},
                                     {"markdown", required_argument, NULL, O_MD},
                                     {"help", no_argument, NULL, 'h'},
                                     {"version", no_argument, NULL, 'V'},
                                     {NULL, 0, NULL, 0}};
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":hV", lo, NULL)) != -1) {
    switch (c) {
      case 'h': usage(stdout); return -1;
      case 'V': cli_print_version(PROG, dlca_version_string()); return -1;
      case O_PRESET: list = optarg; break;
      case O_MODEL: o->model = optarg; break;
      case O_REPEATS: if (cli_parse_long(PROG, "--repeats", optarg, 1, 1000, &o->repeats)) return CLI_USAGE; break;
      case O_VARIANTS:
        if (cli_parse_long(PROG, "--variants", optarg, 1, 10000000, &o->variants)) return CLI_USAGE;
        break;
      case O_NOCL: o->no_cl = 1; break;
      case O_DEVICE: o->device = optarg; break;
      case O_JSON: o->json = optarg; break;
      case O_MD: o->markdown = optarg; break;
      case ':': fprintf(stderr, "%s: %s: needs a value\n", PROG, argv[optind - 1]); return CLI_USAGE;
      default: fprintf(stderr, "%s: %s: unknown option (see --help)\n", PROG, argv[optind - 1]); return CLI_USAGE;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "%s: '%s': unexpected argument (see --help)\n", PROG, argv[optind]);
    return CLI_USAGE;
  }
  for (const char *p = list; *p && o->n_presets < 8;) {
    size_t n = strcspn(p, ",");
    if (n == 0 || n >= sizeof o->presets[0]) {
      fprintf(stderr, "%s: --preset: '%s' is not a list of preset names\n", PROG, list);
      return CLI_USAGE;
    }
    memcpy(o->presets[o->n_presets], p, n);
    o->presets[o->n_presets][n] = 0;
    dlca_preset pr;
    if (dlca_preset_get(o->presets[o->n_presets], &pr)) {
      fprintf(stderr, "%s: --preset: %s\n", PROG, dlca_last_error());
      return CLI_USAGE;
    }
    o->n_presets++;
    p += n + (p[n] == ',');
  }
  if (o->model && o->n_presets != 1) {
    fprintf(stderr, "%s: --model: give exactly one --preset with it\n", PROG);
    return CLI_USAGE;
  }
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *v, long n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A trainer of the preset's configuration on ctx (NULL: the reference),
 * the model given, and a fixed target: the preset's start grids stand. */
static int trainer_of(dlca_context *ctx, const dlca_model *m, const dlca_preset *p, dlca_trainer **t) {
  dlca_train_config cfg;
  dlca_train_config_from_preset(p, &cfg);
  int rc = dlca_trainer_new(ctx, m, &cfg, t);
  if (rc) return rc;
  dlca_model_shape s;
  dlca_model_get_shape(m, &s);
  const size_t n = (size_t)cfg.height * cfg.width * s.channels;
  float *y = malloc(sizeof(float) * n);
  if (!y) return DLCA_ENOMEM;
  for (size_t i = 0; i < n; i++) y[i] = (float)(dlca_rng_u32(5, 0, (uint32_t)i) >> 31);
  rc = dlca_trainer_set_target(*t, y, 0);
  free(y);
  if (!rc && cfg.start == DLCA_START_UPLOAD) { /* gol: random boards */
    const size_t nx = (size_t)cfg.batch * n;
    float *x = malloc(sizeof(float) * nx);
    if (!x) return DLCA_ENOMEM;
    for (size_t i = 0; i < nx; i++) x[i] = (float)(dlca_rng_u32(6, 0, (uint32_t)i) >> 31);
    rc = dlca_trainer_set_input(*t, x);
    free(x);
  }
  return rc;
}

/* Times `call` (a DLCA_ status expression) o->repeats times into t[], while rc is 0. */
#define TIMED(call)                                        \
  for (long i_ = 0; !rc && i_ < o->repeats; i_++) {        \
    const double t0_ = cli_now();                          \
    rc = (call);                                           \
    t[i_] = cli_now() - t0_;                               \
  }

static int bench_preset(const options *o, dlca_context *ctx, const char *name, row *r, char *err, size_t nerr) {
  memset(r, 0, sizeof *r);
  snprintf(r->preset, sizeof r->preset, "%s", name);
  dlca_preset p;
  dlca_model *m = NULL;
  dlca_trainer *tr = NULL, *tc = NULL;
  dlca_bits *b = NULL;
  double *t = malloc(sizeof(double) * (size_t)o->repeats);
  size_t *gates = malloc(sizeof(size_t) * (size_t)o->variants);
  uint8_t *ops = malloc((size_t)o->variants);
  dlca_eval *out = malloc(sizeof(dlca_eval) * (size_t)o->variants), e, ec;
  int rc = t && gates && ops && out ? dlca_preset_get(name, &p) : DLCA_ENOMEM;
  if (!rc) rc = o->model ? dlca_model_load(o->model, &m) : dlca_model_new_preset(name, 1, &m);
  if (!rc && !o->model) {
    float *l = dlca_model_params(m);
    for (size_t i = 0; i < dlca_model_n_params(m); i++)
      l[i] = 6.0f * (float)(dlca_rng_u32(9, 1, (uint32_t)i) >> 8) / 16777216.0f - 3.0f;
  }
  if (!rc) rc = trainer_of(NULL, m, &p, &tr);
  if (!rc) rc = dlca_trainer_bits(tr, &b);
  if (!rc) {
    r->gates = dlca_bits_n_gates(b);
    r->cells = (size_t)p.batch * p.height * p.width;
    r->threads = omp_get_max_threads();
  }
  /* the float reference, one evaluation */
  TIMED(dlca_trainer_eval_hard(tr, &e));
  if (!rc) r->ref_ms = 1e3 * median(t, o->repeats), r->errors = e.errors;
  if (!rc && ctx) {
    if (!(rc = trainer_of(ctx, m, &p, &tc))) rc = dlca_trainer_eval_hard(tc, &ec); /* the kernel build */
    TIMED(dlca_trainer_eval_hard(tc, &ec));
    if (!rc) r->cl_ms = 1e3 * median(t, o->repeats);
    if (!rc && ec.errors != e.errors) {
      snprintf(err, nerr, "the device finds %zu values wrong, the reference %zu", ec.errors, e.errors);
      rc = DLCA_EPARITY;
    }
  }
  TIMED(dlca_bits_run(b, &ec, NULL));
  if (!rc) r->bits_ms = 1e3 * median(t, o->repeats);
  if (!rc && ec.errors != e.errors) {
    snprintf(err, nerr, "the packed bits find %zu values wrong, the reference %zu", ec.errors, e.errors);
    rc = DLCA_EPARITY;
  }
  for (long i = 0; !rc && i < o->variants; i++) {
    gates[i] = (size_t)dlca_rng_u32(11, 2, (uint32_t)i) % r->gates;
    ops[i] = (uint8_t)(dlca_rng_u32(11, 3, (uint32_t)i) % 16);
  }
  TIMED(dlca_bits_run_variants(b, (size_t)o->variants, NULL, gates, ops, out));
  if (!rc) r->variants_per_s = (double)o->variants / median(t, o->repeats);
  if (rc && !err[0]) snprintf(err, nerr, "%s", dlca_last_error()[0] ? dlca_last_error() : dlca_strerror(rc));
  dlca_bits_free(b);
  dlca_trainer_free(tr);
  dlca_trainer_free(tc);
  dlca_model_free(m);
  free(t), free(gates), free(ops), free(out);
  return rc;
}

static int write_json(const char *path, const row *rows, int n, const char *device, const char *command) {
  json_t *root = json_object(), *arr = json_array();
  char date[32];
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
  json_object_set_new(root, "tool", json_string(PROG));
  json_object_set_new(root, "date", json_string(date));
  json_object_set_new(root, "command", json_string(command));
  json_object_set_new(root, "device", json_string(device));
  for (int i = 0; i < n; i++) {
    json_t *x = json_object();
    json_object_set_new(x, "preset", json_string(rows[i].preset));
    json_object_set_new(x, "gates", json_integer((json_int_t)rows[i].gates));
    json_object_set_new(x, "cells", json_integer((json_int_t)rows[i].cells));
    json_object_set_new(x, "values_wrong", json_integer((json_int_t)rows[i].errors));
    json_object_set_new(x, "ref_ms", outfile_json_num(rows[i].ref_ms));
    json_object_set_new(x, "cl_ms", rows[i].cl_ms > 0 ? json_real(rows[i].cl_ms) : json_null());
    json_object_set_new(x, "bits_ms", outfile_json_num(rows[i].bits_ms));
    json_object_set_new(x, "bits_variants_per_s", outfile_json_num(rows[i].variants_per_s));
    json_object_set_new(x, "threads", json_integer(rows[i].threads));
    json_array_append_new(arr, x);
  }
  json_object_set_new(root, "rows", arr);
  /* written whole (tools/outfile.h): a reader never sees half a file */
  char *text = json_dumps(root, JSON_INDENT(1));
  json_decref(root);
  char err[256];
  int rc = !text || outfile_write(path, text, strlen(text), err, sizeof err);
  if (rc) fprintf(stderr, "%s: --json %s: %s\n", PROG, path, text ? err : "out of memory");
  free(text);
  return rc;
}

/* --markdown: the rows appended to the file's table (tools/outfile.h); 0 or -1 with the reason in err. */
static int append_markdown(const char *path, const row *rows, int n, const char *device, const char *command,
                           char *err, size_t en) {
  static const char header[] = "| date | preset | device | threads | gates | ref ms | cl ms | bits ms | bits variants/s "
                               "| command |\n|---|---|---|---:|---:|---:|---:|---:|---:|---|\n";
  char date[32];
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
  outfile_mem m;
  if (outfile_mem_open(&m, err, en)) return -1;
  FILE *f = m.f;
  for (int i = 0; i < n; i++) {
    fprintf(f, "| %s | %s | ", date, rows[i].preset);
    outfile_md_cell(f, device);
    fprintf(f, " | %d | %zu | %.3f | %.3f | %.3f | %.0f | `", rows[i].threads, rows[i].gates, rows[i].ref_ms,
            rows[i].cl_ms, rows[i].bits_ms, rows[i].variants_per_s);
    outfile_md_cell(f, command);
    fputs("` |\n", f);
  }
  return outfile_mem_md_append(&m, path, header, err, en);
}

int main(int argc, char **argv) {
  options o;
  int rc = parse(argc, argv, &o);
  if (rc) return rc < 0 ? 0 : rc;
  char command[2048] = PROG, device[512] = "none";
  for (int i = 1; i < argc; i++) {
    size_t len = strlen(command);
    snprintf(command + len, sizeof command - len, " %s", argv[i]);
  }
  dlca_context *ctx = NULL;
  if (!o.no_cl && (rc = dlca_context_new(o.device, &ctx)))
    return cli_context_fail(PROG, o.device, rc, "--no-cl for the CPU engines only");
  if (ctx) {
    dlca_device_info info;
    dlca_context_device(ctx, &info);
    snprintf(device, sizeof device, "%s (%s, %u CU)", info.name, info.platform, info.compute_units);
  }
  printf("device: %s; CPU threads: %d; medians of %ld\n", device, omp_get_max_threads(), o.repeats);
  printf("%-14s %6s %6s %8s %12s %12s %12s %16s\n", "preset", "gates", "wrong", "cells", "ref ms", "cl ms",
         "bits ms", "variants/s");
  row rows[8];
  int failed = 0, n_ok = 0;
  for (int i = 0; i < o.n_presets; i++) {
    char err[512] = "";
    if (bench_preset(&o, ctx, o.presets[i], &rows[i], err, sizeof err)) {
      fprintf(stderr, "%s: %s: %s\n", PROG, o.presets[i], err);
      failed = 1;
      continue;
    }
    if (n_ok < i) rows[n_ok] = rows[i]; /* the rows that ran, in order */
    const row *r = &rows[n_ok++];
    printf("%-14s %6zu %6zu %8zu %12.3f %12.3f %12.3f %16.0f\n", r->preset, r->gates, r->errors, r->cells, r->ref_ms,
           r->cl_ms, r->bits_ms, r->variants_per_s);
  }
  /* the rows that ran are written even when another failed */
  if (n_ok && o.json && write_json(o.json, rows, n_ok, device, command)) failed = 1;
  char err[256];
  if (n_ok && o.markdown && append_markdown(o.markdown, rows, n_ok, device, command, err, sizeof err)) {
    fprintf(stderr, "%s: --markdown %s: %s\n", PROG, o.markdown, err);
    failed = 1;
  }
  dlca_context_free(ctx);
  return failed ? CLI_FAIL : CLI_OK;
}
