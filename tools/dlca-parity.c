/* dlca-parity: check a backend against a JAX reference vector, or a device
 * against the CPU reference on fresh random cases. Exit 0 all within
 * tolerance, 1 some quantity out of tolerance, 2 bad input. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "outfile.h"
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

/* --json: v on one line of stdout (consumed); 0, or 1 after a message. */
static int print_json(json_t *v) {
  char err[128] = "out of memory";
  int bad = !v || outfile_json("-", v, 6, err, sizeof err);
  json_decref(v);
  if (bad) fprintf(stderr, "%s: --json: %s\n", prog, err);
  return bad;
}

static int print_report(const dlca_parity_report *r, const char *backend, const char *device, int json) {
  if (json) {
    json_t *errors = json_object(), *tols = json_object();
    for (int q = 0; q < DLCA_Q_COUNT; q++)
      if (r->tolerance[q] >= 0) {
        json_object_set_new(errors, dlca_quantity_name(q), outfile_json_num(r->max_abs[q]));
        json_object_set_new(tols, dlca_quantity_name(q), outfile_json_num(r->tolerance[q]));
      }
    /* "o" values are the object's, or freed where json_pack fails */
    return print_json(json_pack("{s:s, s:s, s:s, s:o, s:o, s:b}", "case", r->case_name, "backend", backend, "device",
                                device, "errors", errors, "tolerances", tols, "pass", r->all_pass));
  }
  printf("case %s, backend %s, device %s\n", r->case_name, backend, device);
  printf("  %-18s %12s %12s %12s  %s\n", "quantity", "max |error|", "max rel", "tolerance", "");
  for (int q = 0; q < DLCA_Q_COUNT; q++)
    if (r->tolerance[q] >= 0) /* -1: not compared by this check */
      printf("  %-18s %12.3e %12.3e %12.3e  %s\n", dlca_quantity_name(q), r->max_abs[q], r->max_rel[q],
             r->tolerance[q], r->pass[q] ? "ok" : "FAIL");
  printf("%s\n", r->all_pass ? "PASS" : "FAIL");
  return 0;
}

static int print_ops_report(const dlca_ops_parity_report *r, const char *backend, const char *device, int json) {
  if (json) {
    json_t *errors = json_object(), *ratios = json_object();
    for (int i = 0; i < r->n; i++) {
      json_object_set_new(errors, r->entry[i].name, outfile_json_num(r->entry[i].max_abs));
      json_object_set_new(ratios, r->entry[i].name, outfile_json_num(r->entry[i].worst_ratio));
    }
    return print_json(json_pack("{s:s, s:s, s:s, s:s, s:{s:o, s:o}, s:o, s:o, s:b}", "case", r->case_name, "backend",
                                backend, "device", device, "op", r->op, "tolerance", "abs",
                                outfile_json_num(r->tol_abs), "rel", outfile_json_num(r->tol_rel), "errors", errors,
                                "worst_ratio", ratios, "pass", r->all_pass));
  }
  printf("case %s (op %s), backend %s, device %s\n", r->case_name, r->op, backend, device);
  printf("  %-30s %12s %12s  tolerance %.3g + %.3g |want|\n", "result", "max |error|", "worst/tol", r->tol_abs,
         r->tol_rel);
  for (int i = 0; i < r->n; i++)
    printf("  %-30s %12.3e %12.3e  %s\n", r->entry[i].name, r->entry[i].max_abs, r->entry[i].worst_ratio,
           r->entry[i].pass ? "ok" : "FAIL");
  printf("%s\n", r->all_pass ? "PASS" : "FAIL");
  return 0;
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

typedef struct options {
  const char *vector, *backend, *device, *preset, *model_path;
  long random_n, batch, steps;
  unsigned long long seed;
  int json, async, H, W, param, param_given;
} options;

/* The command line into o; -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, options *o) {
  static const struct option opts[] = {
      {"vector", 1, 0, 'v'}, {"backend", 1, 0, 'b'}, {"device", 1, 0, 'd'}, {"json", 0, 0, 'j'},
      {"preset", 1, 0, 'p'}, {"model", 1, 0, 'm'},   {"random", 1, 0, 'r'}, {"seed", 1, 0, 's'},
      {"batch", 1, 0, 'B'},  {"steps", 1, 0, 'T'},   {"size", 1, 0, 'S'},   {"async", 0, 0, 'a'},
      {"help", 0, 0, 'h'},   {"version", 0, 0, 'V'}, {"param", 1, 0, 'P'},  {0, 0, 0, 0}};
  memset(o, 0, sizeof *o);
  o->backend = "cl", o->seed = 1, o->param = DLCA_PARAM_SOFTMAX16;
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":hV", opts, NULL)) != -1) {
    const char *opt = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    switch (c) {
      case 'v': o->vector = optarg; break;
      case 'b': o->backend = optarg; break;
      case 'd': o->device = optarg; break;
      case 'j': o->json = 1; break;
      case 'p': o->preset = optarg; break;
      case 'm': o->model_path = optarg; break;
      case 'r': if (cli_parse_long(prog, "--random", optarg, 1, 100000, &o->random_n)) return CLI_USAGE; break;
      case 's': if (cli_parse_u64(prog, "--seed", optarg, &o->seed)) return CLI_USAGE; break;
      case 'B': if (cli_parse_long(prog, "--batch", optarg, 1, 1 << 20, &o->batch)) return CLI_USAGE; break;
      case 'T': if (cli_parse_long(prog, "--steps", optarg, 1, 100000, &o->steps)) return CLI_USAGE; break;
      case 'S':
        if (parse_size(optarg, &o->H, &o->W)) {
          fprintf(stderr, "%s: --size: '%s' is not HxW\n", prog, optarg);
          return CLI_USAGE;
        }
        break;
      case 'a': o->async = 1; break;
      case 'P':
        if (!strcmp(optarg, "iwp")) o->param = DLCA_PARAM_IWP;
        else if (!strcmp(optarg, "softmax16")) o->param = DLCA_PARAM_SOFTMAX16;
        else {
          fprintf(stderr, "%s: --param: '%s' is neither softmax16 nor iwp\n", prog, optarg);
          return CLI_USAGE;
        }
        o->param_given = 1;
        break;
      case 'h': usage(stdout); return CLI_OK;
      case 'V': return cli_print_version(prog, dlca_version_string());
      case ':': fprintf(stderr, "%s: %s: needs a value (see --help)\n", prog, opt); return CLI_USAGE;
      default: fprintf(stderr, "%s: %s: unknown option (see --help)\n", prog, opt); return CLI_USAGE;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "%s: %s: unexpected argument (see --help)\n", prog, argv[optind]);
    return CLI_USAGE;
  }
  return -1;
}

/* The combinations that make no sense; 0, or CLI_USAGE after a message. */
static int check_args(const options *o) {
  const char *why = NULL;
  if (!o->vector == !o->random_n) why = "give either --vector FILE or (--preset NAME | --model FILE) --random N";
  else if (o->random_n && !o->preset && !o->model_path) why = "--random needs --preset NAME or --model FILE";
  else if (o->param_given && !o->preset) why = "--param: only with --preset (a --model or --vector brings its own)";
  else if (strcmp(o->backend, "ref") && strcmp(o->backend, "cl") && strcmp(o->backend, "bits"))
    why = "--backend: give ref, cl or bits";
  else if (o->vector && !strcmp(o->backend, "bits"))
    why = "--backend bits: only with --random (the vectors' start grids are not all 0/1)";
  else if (o->random_n && !strcmp(o->backend, "ref"))
    why = "--random compares the CPU reference with a device; --backend ref makes no sense";
  if (why) fprintf(stderr, "%s: %s (see --help)\n", prog, why);
  return why ? CLI_USAGE : 0;
}

/* --random: the preset's (or the model file's) model on fresh random cases. */
static int run_random(const options *o, dlca_context *ctx, dlca_parity_report *r) {
  dlca_model *m = NULL;
  dlca_preset p;
  int rc;
  if (o->preset) {
    if ((rc = dlca_preset_get(o->preset, &p))) return rc;
    p.shape.parametrisation = (dlca_parametrisation)o->param;
    if ((rc = dlca_model_new(&p.shape, o->seed, &m))) return rc;
  } else if ((rc = dlca_model_load(o->model_path, &m))) {
    return rc;
  }
  dlca_run run = dlca_run_default(o->preset ? p.batch : 1, o->preset ? p.height : 8, o->preset ? p.width : 8,
                                  o->preset ? p.steps : 4);
  if (o->preset) {
    run.async = p.async;
    run.n_loss_channels = p.n_loss_channels;
    memcpy(run.loss_channels, p.loss_channels, sizeof run.loss_channels);
  }
  if (o->batch) run.batch = (int)o->batch;
  if (o->steps) run.steps = (int)o->steps;
  if (o->H) run.height = o->H, run.width = o->W;
  if (o->async) run.async = 1;
  rc = !strcmp(o->backend, "bits") ? dlca_parity_bits(m, &run, (int)o->random_n, o->seed, r)
                                   : dlca_parity_random(ctx, m, &run, (int)o->random_n, o->seed, r);
  dlca_model_free(m);
  return rc;
}

/* The check asked for (kind: --vector's), reported; the exit status. */
static int run(const options *o, dlca_vector_kind kind, dlca_context *ctx, const char *devname) {
  int rc = DLCA_OK;
  if (kind == DLCA_VECTOR_OPS) {
    dlca_ops_parity_report op;
    if (!(rc = dlca_parity_ops_vector(ctx, o->vector, &op)))
      return print_ops_report(&op, o->backend, devname, o->json) || !op.all_pass ? CLI_FAIL : CLI_OK;
  }
  dlca_parity_report r;
  if (!rc) rc = o->vector ? dlca_parity_vector(ctx, o->vector, &r) : run_random(o, ctx, &r);
  if (rc) {
    fprintf(stderr, "%s: %s\n", prog, dlca_last_error());
    return fail_status(rc);
  }
  return print_report(&r, o->backend, devname, o->json) || !r.all_pass ? CLI_FAIL : CLI_OK;
}

int main(int argc, char **argv) {
  options o;
  int code = parse_args(argc, argv, &o);
  if (code >= 0) return code;
  if ((code = check_args(&o))) return code;
  dlca_vector_kind kind = DLCA_VECTOR_JAX; /* the file's errors before the device's */
  int rc = o.vector ? dlca_parity_vector_kind(o.vector, &kind) : DLCA_OK;
  if (rc) {
    fprintf(stderr, "%s: %s\n", prog, dlca_last_error());
    return fail_status(rc);
  }
  dlca_context *ctx = NULL;
  char devname[300] = "CPU reference";
  if (!strcmp(o.backend, "bits")) snprintf(devname, sizeof devname, "packed bits on the CPU");
  if (!strcmp(o.backend, "cl")) {
    if ((rc = dlca_context_new(o.device, &ctx)))
      return cli_context_fail(prog, o.device, rc, "--backend ref checks the CPU reference alone");
    dlca_device_info info;
    dlca_context_device(ctx, &info);
    snprintf(devname, sizeof devname, "%s", info.name);
  }
  code = run(&o, kind, ctx, devname);
  dlca_context_free(ctx);
  return code;
}
