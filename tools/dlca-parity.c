/* dlca-parity: check a backend against a JAX reference vector, or a device
 * against the CPU reference on fresh random cases. Exit 0 all within
 * tolerance, 1 some quantity out of tolerance, 2 bad input. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "dlca_cl.h"

static const char *prog = "dlca-parity";

static void usage(FILE *f) {
  fputs("NAME\n"
        "    dlca-parity - check an OpenCL device or the CPU reference against reference data\n"
        "\n"
        "SYNOPSIS\n"
        "    dlca-parity --vector FILE [--backend ref|cl] [--device SPEC] [--json]\n"
        "    dlca-parity (--preset NAME | --model FILE) --random N [--backend cl|bits]\n"
        "                [--device SPEC] [--seed S] [--batch B] [--steps T] [--size HxW]\n"
        "                [--async] [--param P] [--json]\n"
        "\n"
        "DESCRIPTION\n"
        "    With --vector, runs one JAX reference vector (its model, grids and\n"
        "    targets) on the CPU reference or an OpenCL device and compares every\n"
        "    quantity it holds (states, loss, gradients, the optimizer's update) with\n"
        "    the vector's, each within its tolerance. A dlca-ops-vector file (its\n"
        "    \"format\" field says so; testdata/ops/*.json) is one op case of the\n"
        "    compute layer: the forward, then the backward with the file's upstream\n"
        "    gradients, each output and gradient compared with the file's at its\n"
        "    tolerance (abs + rel |want|). With --random, compares an\n"
        "    OpenCL device (or the packed-bits circuit) with the CPU reference on N\n"
        "    fresh random cases: random logits, grids, targets and fire masks.\n"
        "\n"
        "OPTIONS\n"
        "    --vector FILE        a JAX reference vector (testdata/reference/*.json) or a\n"
        "                         dlca-ops-vector file (testdata/ops/*.json)\n"
        "    --backend B          ref (the C CPU reference) or cl (an OpenCL device;\n"
        "                         the default); with --random also bits: the packed-bits\n"
        "                         hard circuit (its hard state and loss against the\n"
        "                         reference's, exactly)\n"
        "    --device SPEC        OpenCL device: an index \"0\", \"platform:device\", gpu,\n"
        "                         cpu, accelerator, or part of its name (default:\n"
        "                         $DLCA_CL_DEVICE, else the best GPU); see dlca-info\n"
        "    --preset NAME        gol, checkerboard, checkerboard-async, growth, colour\n"
        "    --model FILE         a dlca-model JSON file (its parametrisation, softmax16\n"
        "                         or iwp, comes with it)\n"
        "    --param P            the gate parametrisation of the --preset model:\n"
        "                         softmax16 (default) or iwp (input-wise, 4 logits per gate)\n"
        "    --random N           N fresh random cases, each run on the CPU reference and\n"
        "                         on the device\n"
        "    --seed S             seed of the random cases (default 1)\n"
        "    --batch B            override the preset's batch\n"
        "    --steps T            override the preset's CA steps\n"
        "    --size HxW           override the preset's grid\n"
        "    --async              asynchronous updates (fire masks)\n"
        "    --json               one JSON object: {case, backend, device, errors, pass};\n"
        "                         for an ops file also op, tolerance and worst_ratio\n"
        "    -h, --help           this text\n"
        "    -V, --version        the library version\n"
        "\n"
        "ENVIRONMENT\n"
        "    DLCA_CL_DEVICE       the default --device\n"
        "    DLCA_CL_KERNEL_PATH  directories searched for kernel sources before the\n"
        "                         installed ones; see dlca-info(1)\n"
        "\n"
        "EXIT STATUS\n"
        "    0    every quantity within tolerance\n"
        "    1    some quantity out of tolerance, or a runtime failure (no OpenCL\n"
        "         platform, an OpenCL error, out of memory); the message says which\n"
        "    2    bad input: option, vector or model file, preset, device spec; an\n"
        "         op this build does not implement (\"op X not implemented\")\n"
        "\n"
        "EXAMPLES\n"
        "    dlca-parity --vector testdata/reference/tiny_sync.json\n"
        "    dlca-parity --vector testdata/ops/binary_add_0.json --backend cl --json\n"
        "    dlca-parity --preset growth --random 20 --device gpu\n",
        f);
}

static void print_report(const dlca_parity_report *r, const char *backend, const char *device, int json) {
  if (json) {
    printf("{\"case\": \"%s\", \"backend\": \"%s\", \"device\": \"%s\", \"errors\": {", r->case_name, backend, device);
    const char *sep = "";
    for (int q = 0; q < DLCA_Q_COUNT; q++)
      if (r->tolerance[q] >= 0) printf("%s\"%s\": %.6g", sep, dlca_quantity_name(q), r->max_abs[q]), sep = ", ";
    printf("}, \"tolerances\": {");
    sep = "";
    for (int q = 0; q < DLCA_Q_COUNT; q++)
      if (r->tolerance[q] >= 0) printf("%s\"%s\": %.6g", sep, dlca_quantity_name(q), r->tolerance[q]), sep = ", ";
    printf("}, \"pass\": %s}\n", r->all_pass ? "true" : "false");
    return;
  }
  printf("case %s, backend %s, device %s\n", r->case_name, backend, device);
  printf("  %-18s %12s %12s %12s  %s\n", "quantity", "max |error|", "max rel", "tolerance", "");
  for (int q = 0; q < DLCA_Q_COUNT; q++)
    if (r->tolerance[q] >= 0) /* -1: not compared by this check */
      printf("  %-18s %12.3e %12.3e %12.3e  %s\n", dlca_quantity_name(q), r->max_abs[q], r->max_rel[q],
             r->tolerance[q], r->pass[q] ? "ok" : "FAIL");
  printf("%s\n", r->all_pass ? "PASS" : "FAIL");
}

/* s as a JSON string. */
static void json_str(const char *s) {
  putchar('"');
  for (; *s; s++)
    if (*s == '"' || *s == '\\') printf("\\%c", *s);
    else if ((unsigned char)*s < 0x20) printf("\\u%04x", (unsigned char)*s);
    else putchar(*s);
  putchar('"');
}

/* A number, or null where it is not finite (a NaN result). */
static void json_num(double x) {
  if (isfinite(x)) printf("%.6g", x);
  else fputs("null", stdout);
}

static void print_ops_report(const dlca_ops_parity_report *r, const char *backend, const char *device, int json) {
  if (json) {
    fputs("{\"case\": ", stdout), json_str(r->case_name), fputs(", \"op\": ", stdout), json_str(r->op);
    fputs(", \"backend\": ", stdout), json_str(backend), fputs(", \"device\": ", stdout), json_str(device);
    printf(", \"tolerance\": {\"abs\": %.6g, \"rel\": %.6g}, \"errors\": {", r->tol_abs, r->tol_rel);
    for (int i = 0; i < r->n; i++) printf("%s\"%s\": ", i ? ", " : "", r->entry[i].name), json_num(r->entry[i].max_abs);
    fputs("}, \"worst_ratio\": {", stdout);
    for (int i = 0; i < r->n; i++)
      printf("%s\"%s\": ", i ? ", " : "", r->entry[i].name), json_num(r->entry[i].worst_ratio);
    printf("}, \"pass\": %s}\n", r->all_pass ? "true" : "false");
    return;
  }
  printf("case %s (op %s), backend %s, device %s\n", r->case_name, r->op, backend, device);
  printf("  %-30s %12s %12s  tolerance %.3g + %.3g |want|\n", "result", "max |error|", "worst/tol", r->tol_abs,
         r->tol_rel);
  for (int i = 0; i < r->n; i++)
    printf("  %-30s %12.3e %12.3e  %s\n", r->entry[i].name, r->entry[i].max_abs, r->entry[i].worst_ratio,
           r->entry[i].pass ? "ok" : "FAIL");
  printf("%s\n", r->all_pass ? "PASS" : "FAIL");
}

/* The exit status of a library failure: 2 for bad input, 1 for a runtime failure. */
static int fail_status(int rc) {
  return rc == DLCA_EIO || rc == DLCA_EPARSE || rc == DLCA_EMODEL || rc == DLCA_EINVAL || rc == DLCA_ECONFIG ||
                 rc == DLCA_ETUNING || rc == DLCA_EUNSUPPORTED
             ? CLI_USAGE
             : CLI_FAIL;
}

static int parse_size(const char *s, int *h, int *w) {
  char *end;
  long a = strtol(s, &end, 10);
  if (*end != 'x' && *end != 'X') return -1;
  long b = strtol(end + 1, &end, 10);
  if (*end || a < 1 || b < 1 || a > 4096 || b > 4096) return -1;
  *h = (int)a, *w = (int)b;
  return 0;
}

int main(int argc, char **argv) {
  const char *vector = NULL, *backend = "cl", *device = NULL, *preset = NULL, *model_path = NULL;
  long random_n = 0, batch = 0, steps = 0;
  unsigned long long seed = 1;
  int rc, json = 0, async = 0, H = 0, W = 0, param = DLCA_PARAM_SOFTMAX16, param_given = 0;
  static const struct option opts[] = {
      {"vector", 1, 0, 'v'}, {"backend", 1, 0, 'b'}, {"device", 1, 0, 'd'}, {"json", 0, 0, 'j'},
      {"preset", 1, 0, 'p'}, {"model", 1, 0, 'm'},   {"random", 1, 0, 'r'}, {"seed", 1, 0, 's'},
      {"batch", 1, 0, 'B'},  {"steps", 1, 0, 'T'},   {"size", 1, 0, 'S'},   {"async", 0, 0, 'a'},
      {"help", 0, 0, 'h'},   {"version", 0, 0, 'V'}, {"param", 1, 0, 'P'},  {0, 0, 0, 0}};
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":hV", opts, NULL)) != -1) {
    const char *opt = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    switch (c) {
      case 'v': vector = optarg; break;
      case 'b': backend = optarg; break;
      case 'd': device = optarg; break;
      case 'j': json = 1; break;
      case 'p': preset = optarg; break;
      case 'm': model_path = optarg; break;
      case 'r': if (cli_parse_long(prog, "--random", optarg, 1, 100000, &random_n)) return CLI_USAGE; break;
      case 's': if (cli_parse_u64(prog, "--seed", optarg, &seed)) return CLI_USAGE; break;
      case 'B': if (cli_parse_long(prog, "--batch", optarg, 1, 1 << 20, &batch)) return CLI_USAGE; break;
      case 'T': if (cli_parse_long(prog, "--steps", optarg, 1, 100000, &steps)) return CLI_USAGE; break;
      case 'S':
        if (parse_size(optarg, &H, &W)) {
          fprintf(stderr, "%s: --size: '%s' is not HxW\n", prog, optarg);
          return CLI_USAGE;
        }
        break;
      case 'a': async = 1; break;
      case 'P':
        if (!strcmp(optarg, "iwp")) param = DLCA_PARAM_IWP;
        else if (!strcmp(optarg, "softmax16")) param = DLCA_PARAM_SOFTMAX16;
        else {
          fprintf(stderr, "%s: --param: '%s' is neither softmax16 nor iwp\n", prog, optarg);
          return CLI_USAGE;
        }
        param_given = 1;
        break;
      case 'h': usage(stdout); return CLI_OK;
      case 'V': return cli_print_version(prog, dlca_version_string());
      case ':': fprintf(stderr, "%s: %s: needs a value (see --help)\n", prog, opt); return CLI_USAGE;
      default: fprintf(stderr, "%s: %s: unknown option (see --help)\n", prog, opt); return CLI_USAGE;
    }
  }
  if (optind < argc || (!vector && !random_n) || (vector && random_n)) {
    fprintf(stderr, "%s: give either --vector FILE or (--preset NAME | --model FILE) --random N (see --help)\n",
            prog);
    return CLI_USAGE;
  }
  if (param_given && !preset) {
    fprintf(stderr, "%s: --param: only with --preset (a --model or --vector brings its own)\n", prog);
    return CLI_USAGE;
  }
  if (strcmp(backend, "ref") && strcmp(backend, "cl") && strcmp(backend, "bits")) {
    fprintf(stderr, "%s: --backend: '%s' is not ref, cl or bits\n", prog, backend);
    return CLI_USAGE;
  }
  if (vector && !strcmp(backend, "bits")) {
    fprintf(stderr, "%s: --backend bits: only with --random (the vectors' start grids are not all 0/1)\n", prog);
    return CLI_USAGE;
  }
  if (random_n && !strcmp(backend, "ref")) {
    fprintf(stderr, "%s: --random compares the CPU reference with a device; --backend ref makes no sense\n", prog);
    return CLI_USAGE;
  }
  dlca_vector_kind kind = DLCA_VECTOR_JAX;
  if (vector && (rc = dlca_parity_vector_kind(vector, &kind))) {
    fprintf(stderr, "%s: %s\n", prog, dlca_last_error());
    return fail_status(rc);
  }
  dlca_context *ctx = NULL;
  char devname[300] = "CPU reference";
  if (!strcmp(backend, "bits")) snprintf(devname, sizeof devname, "packed bits on the CPU");
  if (!strcmp(backend, "cl")) {
    if ((rc = dlca_context_new(device, &ctx)))
      return cli_context_fail(prog, device, rc, "--backend ref checks the CPU reference alone");
    dlca_device_info info;
    dlca_context_device(ctx, &info);
    snprintf(devname, sizeof devname, "%s", info.name);
  }
  dlca_parity_report r;
  if (kind == DLCA_VECTOR_OPS) {
    dlca_ops_parity_report o;
    if ((rc = dlca_parity_ops_vector(ctx, vector, &o))) goto bad;
    print_ops_report(&o, backend, devname, json);
    dlca_context_free(ctx);
    return o.all_pass ? CLI_OK : CLI_FAIL;
  }
  if (vector) {
    rc = dlca_parity_vector(ctx, vector, &r);
  } else {
    dlca_model *m = NULL;
    dlca_preset p;
    int have_preset = 0;
    if (preset) {
      if ((rc = dlca_preset_get(preset, &p))) goto bad;
      p.shape.parametrisation = (dlca_parametrisation)param;
      if ((rc = dlca_model_new(&p.shape, seed, &m))) goto bad;
      have_preset = 1;
    } else if (model_path) {
      if ((rc = dlca_model_load(model_path, &m))) goto bad;
    } else {
      fprintf(stderr, "%s: --random needs --preset NAME or --model FILE\n", prog);
      dlca_context_free(ctx);
      return CLI_USAGE;
    }
    dlca_run run = dlca_run_default(have_preset ? p.batch : 1, have_preset ? p.height : 8, have_preset ? p.width : 8,
                                    have_preset ? p.steps : 4);
    if (have_preset) {
      run.async = p.async;
      run.n_loss_channels = p.n_loss_channels;
      memcpy(run.loss_channels, p.loss_channels, sizeof run.loss_channels);
    }
    if (batch) run.batch = (int)batch;
    if (steps) run.steps = (int)steps;
    if (H) run.height = H, run.width = W;
    if (async) run.async = 1;
    rc = !strcmp(backend, "bits") ? dlca_parity_bits(m, &run, (int)random_n, seed, &r)
                                  : dlca_parity_random(ctx, m, &run, (int)random_n, seed, &r);
    dlca_model_free(m);
  }
bad:
  if (rc) {
    fprintf(stderr, "%s: %s\n", prog, dlca_last_error());
    dlca_context_free(ctx);
    return fail_status(rc);
  }
  print_report(&r, backend, devname, json);
  dlca_context_free(ctx);
  return r.all_pass ? CLI_OK : CLI_FAIL;
}
