/* dlca-parity: check a backend against a JAX reference vector, or a device
 * against the CPU reference on fresh random cases. Exit 0 all within
 * tolerance, 1 some quantity out of tolerance, 2 bad input. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "dlca_cl.h"

static const char *prog = "dlca-parity";

static void usage(FILE *f) {
  fprintf(f,
          "usage: dlca-parity --vector FILE [--backend ref|cl] [--device SPEC] [--json]\n"
          "       dlca-parity (--preset NAME | --model FILE) --random N [--device SPEC] [--seed S]\n"
          "                   [--batch B] [--steps T] [--size HxW] [--async] [--param P] [--json]\n"
          "\n"
          "  --vector FILE   a JAX reference vector (shared/testdata/reference/*.json)\n"
          "  --backend B     ref (the C CPU reference) or cl (an OpenCL device; default cl);\n"
          "                  with --random also bits: the packed-bits hard circuit (its hard\n"
          "                  state and loss against the reference's, exactly)\n"
          "  --device SPEC   OpenCL device: index, platform:device, gpu|cpu|accelerator, or a\n"
          "                  name substring (default: $DLCA_CL_DEVICE, else the best device)\n"
          "  --preset NAME   gol, checkerboard, checkerboard-async, growth, colour\n"
          "  --model FILE    a dlca-model JSON file (its parametrisation, softmax16 or iwp,\n"
          "                  comes with it)\n"
          "  --param P       the gate parametrisation of the --preset model: softmax16\n"
          "                  (default) or iwp (input-wise, 4 logits per gate)\n"
          "  --random N      N fresh random cases (random logits, grids, targets, masks),\n"
          "                  each run on the CPU reference and on the device\n"
          "  --seed S        seed of the random cases (default 1)\n"
          "  --batch B, --steps T, --size HxW, --async   override the preset's run\n"
          "  --json          one JSON object: {case, backend, device, errors, pass}\n"
          "  --help, --version\n"
          "\n"
          "Exit status: 0 all within tolerance, 1 some quantity out of tolerance, 2 bad input.\n");
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
  int json = 0, async = 0, H = 0, W = 0, param = DLCA_PARAM_SOFTMAX16, param_given = 0;
  static const struct option opts[] = {
      {"vector", 1, 0, 'v'}, {"backend", 1, 0, 'b'}, {"device", 1, 0, 'd'}, {"json", 0, 0, 'j'},
      {"preset", 1, 0, 'p'}, {"model", 1, 0, 'm'},   {"random", 1, 0, 'r'}, {"seed", 1, 0, 's'},
      {"batch", 1, 0, 'B'},  {"steps", 1, 0, 'T'},   {"size", 1, 0, 'S'},   {"async", 0, 0, 'a'},
      {"help", 0, 0, 'h'},   {"version", 0, 0, 'V'}, {"param", 1, 0, 'P'},  {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    switch (c) {
      case 'v': vector = optarg; break;
      case 'b': backend = optarg; break;
      case 'd': device = optarg; break;
      case 'j': json = 1; break;
      case 'p': preset = optarg; break;
      case 'm': model_path = optarg; break;
      case 'r': if (cli_parse_long(prog, "--random", optarg, 1, 100000, &random_n)) return 2; break;
      case 's': if (cli_parse_u64(prog, "--seed", optarg, &seed)) return 2; break;
      case 'B': if (cli_parse_long(prog, "--batch", optarg, 1, 1 << 20, &batch)) return 2; break;
      case 'T': if (cli_parse_long(prog, "--steps", optarg, 1, 100000, &steps)) return 2; break;
      case 'S':
        if (parse_size(optarg, &H, &W)) {
          fprintf(stderr, "%s: --size: '%s' is not HxW\n", prog, optarg);
          return 2;
        }
        break;
      case 'a': async = 1; break;
      case 'P':
        if (!strcmp(optarg, "iwp")) param = DLCA_PARAM_IWP;
        else if (!strcmp(optarg, "softmax16")) param = DLCA_PARAM_SOFTMAX16;
        else {
          fprintf(stderr, "%s: --param: '%s' is neither softmax16 nor iwp\n", prog, optarg);
          return 2;
        }
        param_given = 1;
        break;
      case 'h': usage(stdout); return 0;
      case 'V': printf("dlca-parity %s\n", dlca_version_string()); return 0;
      default: usage(stderr); return 2;
    }
  }
  if (optind < argc || (!vector && !random_n) || (vector && random_n)) {
    fprintf(stderr, "%s: give either --vector FILE or (--preset NAME | --model FILE) --random N\n", prog);
    usage(stderr);
    return 2;
  }
  if (param_given && !preset) {
    fprintf(stderr, "%s: --param: only with --preset (a --model or --vector brings its own)\n", prog);
    return 2;
  }
  if (strcmp(backend, "ref") && strcmp(backend, "cl") && strcmp(backend, "bits")) {
    fprintf(stderr, "%s: --backend: '%s' is not ref, cl or bits\n", prog, backend);
    return 2;
  }
  if (vector && !strcmp(backend, "bits")) {
    fprintf(stderr, "%s: --backend bits: only with --random (the vectors' start grids are not all 0/1)\n", prog);
    return 2;
  }
  if (random_n && !strcmp(backend, "ref")) {
    fprintf(stderr, "%s: --random compares the CPU reference with a device; --backend ref makes no sense\n", prog);
    return 2;
  }
  dlca_context *ctx = NULL;
  char devname[300] = "CPU reference";
  if (!strcmp(backend, "bits")) snprintf(devname, sizeof devname, "packed bits on the CPU");
  int rc;
  if (!strcmp(backend, "cl")) {
    if ((rc = dlca_context_new(device, &ctx))) {
      fprintf(stderr, "%s: %s\n", prog, dlca_last_error());
      return rc == DLCA_ENODEVICE || rc == DLCA_ENOPLATFORM ? 2 : 1;
    }
    dlca_device_info info;
    dlca_context_device(ctx, &info);
    snprintf(devname, sizeof devname, "%s", info.name);
  }
  dlca_parity_report r;
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
      return 2;
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
    return rc == DLCA_EIO || rc == DLCA_EPARSE || rc == DLCA_EMODEL || rc == DLCA_EINVAL || rc == DLCA_ECONFIG ||
                   rc == DLCA_EUNSUPPORTED
               ? 2
               : 1;
  }
  print_report(&r, backend, devname, json);
  dlca_context_free(ctx);
  return r.all_pass ? 0 : 1;
}
