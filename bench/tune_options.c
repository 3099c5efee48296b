/* dlca-tune's command line: --help and the options. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "tune.h"

void help(void) {
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

int parse(int argc, char **argv, options *o) {
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

