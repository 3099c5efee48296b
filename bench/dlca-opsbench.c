/* dlca-opsbench: times the compute layer's ops (GEMM through CLBlast, dense,
 * and the suites other parts add in bench/opsbench_suites.h) on one OpenCL
 * device: medians of wall-clock repetitions, each one call and a wait,
 * against the floors of their FLOPs and bytes; a table on stdout, and CSV
 * and JSON rows in the columns bench/peer/torch_ops.py writes for PyTorch.
 * Usage: --help. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "outfile.h"
#include "opsbench_suites.h"

#define PROG "dlca-opsbench"
#define IMPL "dlca_cl (CLBlast)"

static const char help_text[] =
    "NAME\n"
    "    dlca-opsbench - time the compute layer's ops (GEMM, dense, ...) on an OpenCL device\n"
    "\n"
    "SYNOPSIS\n"
    "    dlca-opsbench [--suite NAME[,NAME...]|all] [--device SPEC] [--sizes N[,N...]]\n"
    "                  [--csv FILE] [--json FILE] [OPTION...]\n"
    "\n"
    "DESCRIPTION\n"
    "    Each suite runs its cases on random float32 data. A case is timed by the\n"
    "    wall clock, one call followed by a wait for the device (clFinish), --warmup\n"
    "    times untimed, then --repeats times; the median and the minimum are\n"
    "    reported, with the case's FLOPs and bytes (each operand read once, each\n"
    "    result written once), the TFLOP/s and GB/s they give at the median, and\n"
    "    the floor: the larger of FLOPs / --peak-tflops and bytes / --peak-gbs, and\n"
    "    the share of the median it is. bench/peer/torch_ops.py writes the same\n"
    "    rows for PyTorch (fp32, TF32 off), to run in the same call on a GPU.\n"
    "\n"
    "SUITES\n"
#define OB_HELP(name, what) "    " #name "\n        " what "\n"
    OB_SUITES(OB_HELP)
#undef OB_HELP
    "\n"
    "OPTIONS\n"
    "    --suite LIST         comma-separated suites, or all (default)\n"
    "    --device SPEC        OpenCL device: an index, \"platform:device\", gpu, cpu,\n"
    "                         accelerator or a name substring (default $DLCA_CL_DEVICE,\n"
    "                         else the best device)\n"
    "    --sizes LIST         the gemm suite's n (default 512,1024,2048,4096,8192; on a\n"
    "                         CPU device take smaller ones, such as 128,256,512)\n"
    "    --warmup N           untimed calls per case (default 3)\n"
    "    --repeats N          timed calls per case (default 20)\n"
    "    --peak-tflops X      the arithmetic floor's rate (default 67 on a GPU, the\n"
    "                         fp32 peak of an H100/H200 SXM; 0.1 on a CPU)\n"
    "    --peak-gbs X         the memory floor's rate (default 3350 on a GPU, 20 on a CPU)\n"
    "    --csv FILE           write the rows as CSV: suite,case,impl,device,median_ms,\n"
    "                         min_ms,tflops,gbs,flops,bytes,date\n"
    "    --json FILE          write the rows as a JSON array of objects, the same keys\n"
    "    -h, --help           this text\n"
    "    -V, --version        the library version\n"
    "\n"
    "EXIT STATUS\n"
    "    0 success; 1 a case failed on the device or a file could not be written;\n"
    "    2 bad input (option, suite, device spec)\n"
    "\n"
    "EXAMPLES\n"
    "    dlca-opsbench --suite gemm,dense --csv ops.csv\n"
    "    DLCA_CL_DEVICE=cpu dlca-opsbench --suite gemm --sizes 128,256 --repeats 5\n";

typedef struct options {
  const char *suites, *device, *csv, *json;
  int help, version;
} options;

static const struct {
  const char *name;
  int (*run)(ob_bench *b);
} suites[] = {
#define OB_ENTRY(name, what) {#name, ob_suite_##name},
    OB_SUITES(OB_ENTRY)
#undef OB_ENTRY
};
#define N_SUITES (sizeof suites / sizeof suites[0])

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int ob_time(ob_bench *b, int (*call)(void *arg), void *arg, double *median_ms, double *min_ms) {
  double *t = malloc(sizeof(double) * (size_t)b->repeats);
  if (!t) return dlca__fail(DLCA_ENOMEM, "out of host memory");
  int rc = DLCA_OK;
  for (long i = 0; !rc && i < b->warmup + b->repeats; i++) {
    double t0 = cli_now();
    rc = call(arg);
    if (!rc) rc = dlca__finish(b->ctx, "the case");
    if (i >= b->warmup) t[i - b->warmup] = (cli_now() - t0) * 1e3;
  }
  if (!rc) {
    qsort(t, (size_t)b->repeats, sizeof(double), cmp_double);
    *min_ms = t[0];
    *median_ms = b->repeats % 2 ? t[b->repeats / 2] : 0.5 * (t[b->repeats / 2 - 1] + t[b->repeats / 2]);
  }
  free(t);
  return rc;
}

static double floor_ms(const ob_bench *b, const ob_row *r) {
  return fmax(r->flops / (b->peak_tflops * 1e9), r->bytes / (b->peak_gbs * 1e6));
}

void ob_add(ob_bench *b, const char *suite, const char *name, double median_ms, double min_ms, double flops,
            double bytes) {
  if (b->n_rows == b->cap_rows) {
    size_t cap = b->cap_rows ? 2 * b->cap_rows : 16;
    ob_row *r = realloc(b->rows, cap * sizeof *r);
    if (!r) return;
    b->rows = r, b->cap_rows = cap;
  }
  ob_row *r = &b->rows[b->n_rows++];
  snprintf(r->suite, sizeof r->suite, "%s", suite);
  snprintf(r->name, sizeof r->name, "%s", name);
  r->median_ms = median_ms, r->min_ms = min_ms, r->flops = flops, r->bytes = bytes;
  double fl = floor_ms(b, r);
  printf("%-8s %-30s %10.4f %10.4f %9.3f %9.1f %10.4f %5.1f%%\n", suite, name, median_ms, min_ms,
         flops / (median_ms * 1e9), bytes / (median_ms * 1e6), fl, 100 * fl / median_ms);
  fflush(stdout);
}

/* A CSV field: as it is, or quoted (quotes doubled) where it holds a comma, quote or line break. */
static void csv_field(FILE *f, const char *s) {
  if (!s[strcspn(s, ",\"\r\n")]) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static int write_csv(const ob_bench *b, const char *path, const char *date, char *err, size_t n) {
  outfile_mem m;
  if (outfile_mem_open(&m, err, n)) return -1;
  fputs("suite,case,impl,device,median_ms,min_ms,tflops,gbs,flops,bytes,date\n", m.f);
  for (size_t i = 0; i < b->n_rows; i++) {
    const ob_row *r = &b->rows[i];
    fprintf(m.f, "%s,%s,", r->suite, r->name);
    csv_field(m.f, IMPL), fputc(',', m.f), csv_field(m.f, b->dev.name);
    fprintf(m.f, ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s\n", r->median_ms, r->min_ms, r->flops / (r->median_ms * 1e9),
            r->bytes / (r->median_ms * 1e6), r->flops, r->bytes, date);
  }
  return outfile_mem_commit(&m, path, err, n);
}

static int write_json(const ob_bench *b, const char *path, const char *date, char *err, size_t n) {
  json_t *a = json_array();
  for (size_t i = 0; a && i < b->n_rows; i++) {
    const ob_row *r = &b->rows[i];
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:I, s:I, s:s}", "suite", r->suite, "case",
                          r->name, "impl", IMPL, "device", b->dev.name, "median_ms", outfile_json_num(r->median_ms),
                          "min_ms", outfile_json_num(r->min_ms), "tflops",
                          outfile_json_num(r->flops / (r->median_ms * 1e9)), "gbs",
                          outfile_json_num(r->bytes / (r->median_ms * 1e6)), "flops", (json_int_t)llround(r->flops),
                          "bytes", (json_int_t)llround(r->bytes), "date", date);
    if (!o || json_array_append_new(a, o)) json_decref(a), a = NULL;
  }
  int rc = a ? outfile_json(path, a, 6, err, n) : (snprintf(err, n, "out of memory"), -1);
  json_decref(a);
  return rc;
}

/* --csv or --json: the rows written whole (tools/outfile.h). */
static int write_rows(const ob_bench *b, const char *path, int json, const char *date) {
  char err[256];
  if (!(json ? write_json : write_csv)(b, path, date, err, sizeof err)) return CLI_OK;
  fprintf(stderr, "%s: %s: %s\n", PROG, path, err);
  return CLI_FAIL;
}

enum { O_SUITE = 256, O_DEVICE, O_SIZES, O_WARMUP, O_REPEATS, O_PEAK_TF, O_PEAK_GBS, O_CSV, O_JSON, O_HELP, O_VERSION };
static const struct option long_options[] = {
    {"suite", required_argument, NULL, O_SUITE},     {"device", required_argument, NULL, O_DEVICE},
    {"sizes", required_argument, NULL, O_SIZES},     {"warmup", required_argument, NULL, O_WARMUP},
    {"repeats", required_argument, NULL, O_REPEATS}, {"peak-tflops", required_argument, NULL, O_PEAK_TF},
    {"peak-gbs", required_argument, NULL, O_PEAK_GBS}, {"csv", required_argument, NULL, O_CSV},
    {"json", required_argument, NULL, O_JSON},       {"help", no_argument, NULL, O_HELP},
    {"version", no_argument, NULL, O_VERSION},       {NULL, 0, NULL, 0},
};

static int parse_sizes(const char *arg, ob_bench *b) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", arg);
  b->n_sizes = 0;
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (b->n_sizes == OB_MAX_SIZES) {
      fprintf(stderr, "%s: --sizes: at most %d\n", PROG, OB_MAX_SIZES);
      return -1;
    }
    if (cli_parse_long(PROG, "--sizes", t, 1, 65536, &b->sizes[b->n_sizes++])) return -1;
  }
  return b->n_sizes ? 0 : -1;
}

static int parse(int argc, char **argv, options *o, ob_bench *b) {
  memset(o, 0, sizeof *o);
  o->suites = "all";
  b->warmup = 3, b->repeats = 20;
  parse_sizes("512,1024,2048,4096,8192", b);
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, ":hV", long_options, NULL)) != -1) {
    const char *name = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    int bad = 0;
    switch (c) {
      case O_SUITE: o->suites = optarg; break;
      case O_DEVICE: o->device = optarg; break;
      case O_SIZES: bad = parse_sizes(optarg, b); break;
      case O_WARMUP: bad = cli_parse_long(PROG, "--warmup", optarg, 0, 100000, &b->warmup); break;
      case O_REPEATS: bad = cli_parse_long(PROG, "--repeats", optarg, 1, 100000, &b->repeats); break;
      case O_PEAK_TF: bad = cli_parse_double(PROG, "--peak-tflops", optarg, 0, &b->peak_tflops); break;
      case O_PEAK_GBS: bad = cli_parse_double(PROG, "--peak-gbs", optarg, 0, &b->peak_gbs); break;
      case O_CSV: o->csv = optarg; break;
      case O_JSON: o->json = optarg; break;
      case 'h':
      case O_HELP: o->help = 1; break;
      case 'V':
      case O_VERSION: o->version = 1; break;
      case ':': fprintf(stderr, "%s: %s: needs a value (see --help)\n", PROG, name); return CLI_USAGE;
      default: fprintf(stderr, "%s: %s: unknown option (see --help)\n", PROG, name); return CLI_USAGE;
    }
    if (bad) return CLI_USAGE;
  }
  if (optind < argc) {
    fprintf(stderr, "%s: %s: unexpected argument (see --help)\n", PROG, argv[optind]);
    return CLI_USAGE;
  }
  return CLI_OK;
}

/* Which suites --suite names (want[i] for suites[i]); -1 after a message. */
static int pick(const char *list, int *want) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", list);
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    size_t i = 0;
    int all = !strcmp(t, "all");
    while (!all && i < N_SUITES && strcmp(suites[i].name, t)) i++;
    if (!all && i == N_SUITES) {
      fprintf(stderr, "%s: --suite: '%s' is not a suite (", PROG, t);
      for (size_t k = 0; k < N_SUITES; k++) fprintf(stderr, "%s%s", k ? ", " : "", suites[k].name);
      fprintf(stderr, ", all)\n");
      return -1;
    }
    for (size_t k = 0; k < N_SUITES; k++) want[k] |= all || k == i;
  }
  return 0;
}

static int run(ob_bench *b, const int *want) {
  printf("%s %s on %s (%s, driver %s, OpenCL device %s), %ld repeats after %ld warm-up calls\n", PROG,
         dlca_version_string(), b->dev.name, b->dev.platform, b->dev.driver, b->dev.spec, b->repeats, b->warmup);
  printf("floors at %.4g TFLOP/s and %.4g GB/s\n", b->peak_tflops, b->peak_gbs);
  printf("%-8s %-30s %10s %10s %9s %9s %10s %6s\n", "suite", "case", "median_ms", "min_ms", "TFLOP/s", "GB/s",
         "floor_ms", "floor");
  for (size_t i = 0; i < N_SUITES; i++) {
    if (!want[i]) continue;
    int rc = suites[i].run(b);
    if (rc) {
      fprintf(stderr, "%s: suite %s: %s\n", PROG, suites[i].name, dlca_last_error());
      return CLI_FAIL;
    }
  }
  return CLI_OK;
}

int main(int argc, char **argv) {
  static ob_bench b;
  options o;
  int code = parse(argc, argv, &o, &b), want[N_SUITES] = {0};
  if (code) return code;
  if (o.help) return fputs(help_text, stdout), CLI_OK;
  if (o.version) return cli_print_version(PROG, dlca_version_string());
  if (pick(o.suites, want)) return CLI_USAGE;
  int rc = dlca_context_new(o.device, &b.ctx);
  if (rc) return cli_context_fail(PROG, o.device, rc, NULL);
  dlca_context_device(b.ctx, &b.dev);
  int gpu = b.dev.type == DLCA_DEVICE_GPU;
  if (b.peak_tflops <= 0) b.peak_tflops = gpu ? 67 : 0.1;
  if (b.peak_gbs <= 0) b.peak_gbs = gpu ? 3350 : 20;
  code = run(&b, want);
  char date[32];
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
  if (!code && o.csv) code = write_rows(&b, o.csv, 0, date);
  if (!code && o.json) code = write_rows(&b, o.json, 1, date);
  free(b.rows);
  dlca_context_free(b.ctx);
  return code;
}
