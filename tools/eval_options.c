/* dlca-eval's options (see eval_options.h and doc/dlca-eval.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "eval_options.h"

static const char help_text[] =
    "NAME\n"
    "    dlca-eval - check whether a trained DiffLogic CA's hard circuit works\n"
    "\n"
    "SYNOPSIS\n"
    "    dlca-eval --preset NAME --model MODEL.json [--backend cl|ref] [--device SPEC]\n"
    "              [--fresh N] [--scale S | --grid HxW] [--steps N] [--gol-board N]\n"
    "              [--target FILE] [--png FILE] [--gif FILE [--gif-delay MS]\n"
    "              [--gif-scale N]] [--frame-every K] [--json FILE] [--seed N]\n"
    "\n"
    "DESCRIPTION\n"
    "    Runs a model saved by dlca-train --save with hard gates (each gate its\n"
    "    most likely op) and says whether the learned circuit really works. Every\n"
    "    check passes only at 100% (exact). It always prints the active-gate count\n"
    "    and the gate histogram, then the checks of the preset:\n"
    "\n"
    "    fresh           checkerboards: accuracy over --fresh N batches of fresh\n"
    "                    random start grids (and fresh fire masks) on the\n"
    "                    training grid\n"
    "    generalisation  checkerboards, with --scale, --grid or --steps: fresh\n"
    "                    random grids S times larger per side for S times the\n"
    "                    steps (the paper uses 4: 16x16, 20 steps -> 64x64, 80\n"
    "                    steps); the target is the checkerboard of that size\n"
    "    boards          gol: accuracy on all 512 3x3 neighbourhoods\n"
    "    board           gol, with --gol-board N: a random NxN torus run --steps\n"
    "                    steps one at a time, each compared with an exact Game\n"
    "                    of Life step\n"
    "    target          growth, colour: whether the circuit paints the target\n"
    "                    exactly (loss channels after T steps from the preset's\n"
    "                    start)\n"
    "\n"
    "OPTIONS\n"
    "    --preset NAME        the experiment the model was trained for (required)\n"
    "    --model FILE.json    the model, dlca-model JSON (required)\n"
    "    --fresh N            batches of the fresh check (default 4; 0 skips it);\n"
    "                         generalisation runs N times the preset's batch too\n"
    "    --scale S            generalisation: S times the grid side and the steps\n"
    "    --grid HxW           generalisation on an H x W grid (steps: --steps, else\n"
    "                         the preset's)\n"
    "    --steps N            generalisation: N steps; gol board: N steps (default\n"
    "                         64); growth, colour: N steps instead of the preset's\n"
    "    --gol-board N        gol: the step-by-step check on an N x N board\n"
    "    --target FILE        growth or colour target, as dlca-train takes it (PNG or\n"
    "                         PBM; default the built-in image)\n"
    "    --seed N             seeds the fresh grids, boards and fire masks (default 0)\n"
    "    --backend cl|ref     OpenCL (default) or the CPU reference\n"
    "    --device SPEC        OpenCL device, as dlca-train takes it (default:\n"
    "                         $DLCA_CL_DEVICE, else the best GPU); see dlca-info\n"
    "    --png FILE           a picture of one hard rollout: channel 0 (RGB for\n"
    "                         colour) every --frame-every steps, then the target;\n"
    "                         the generalisation run where there is one, for gol the\n"
    "                         --gol-board run (cells that differ from Life in red);\n"
    "                         growth and checkerboards: the last step's cells\n"
    "                         unlike the target in red\n"
    "    --gif FILE           the same rollout as an animated GIF, every\n"
    "                         --frame-every steps (default every step), looping;\n"
    "                         the last frame is held for a second (needs giflib)\n"
    "    --gif-delay MS       milliseconds between GIF frames (default 100)\n"
    "    --gif-scale N        GIF pixels per cell side (default: a side of about\n"
    "                         256 pixels)\n"
    "    --frame-every K      steps between frames (default: about 8 frames in the\n"
    "                         PNG, every step in the GIF)\n"
    "    --json FILE          every figure as one JSON object (- for stdout)\n"
    "    -h, --help           this text\n"
    "    -V, --version        the library version\n"
    "\n"
    "ENVIRONMENT\n"
    "    DLCA_CL_DEVICE       the default --device\n"
    "    DLCA_CL_KERNEL_PATH  directories searched for kernel sources before the\n"
    "                         installed ones; see dlca-info(1)\n"
    "\n"
    "EXIT STATUS\n"
    "    0    every check passed (100%, exact)\n"
    "    1    a check failed, or a runtime failure (no OpenCL platform, an OpenCL\n"
    "         error, out of memory, a file not written); the message says which\n"
    "    2    bad input: option, preset, model file, model/preset mismatch, grid,\n"
    "         target image or device spec\n"
    "\n"
    "EXAMPLES\n"
    "    dlca-train --preset checkerboard --save cb.json\n"
    "    dlca-eval --preset checkerboard --model cb.json --scale 4 --png cb.png\n"
    "    dlca-eval --preset checkerboard --model cb.json --gif cb.gif --gif-scale 8\n"
    "    dlca-eval --preset gol --model gol.json --gol-board 64 --backend ref\n"
    "    dlca-eval --preset growth --model lizard.json --target lizard.png --json out.json\n"
    "\n"
    "    More in the note dlca-eval.md.\n";

void eval_options_help(void) { fputs(help_text, stdout); }

enum {
  OPT_PRESET = 256, OPT_MODEL, OPT_BACKEND, OPT_DEVICE, OPT_SEED, OPT_FRESH, OPT_SCALE, OPT_GRID, OPT_STEPS,
  OPT_GOL_BOARD, OPT_TARGET, OPT_PNG, OPT_GIF, OPT_GIF_DELAY, OPT_GIF_SCALE, OPT_FRAME_EVERY, OPT_JSON, OPT_HELP, OPT_VERSION
};

static const struct option long_options[] = {
    {"preset", required_argument, NULL, OPT_PRESET},     {"model", required_argument, NULL, OPT_MODEL},
    {"backend", required_argument, NULL, OPT_BACKEND},   {"device", required_argument, NULL, OPT_DEVICE},
    {"seed", required_argument, NULL, OPT_SEED},         {"fresh", required_argument, NULL, OPT_FRESH},
    {"scale", required_argument, NULL, OPT_SCALE},       {"grid", required_argument, NULL, OPT_GRID},
    {"steps", required_argument, NULL, OPT_STEPS},       {"gol-board", required_argument, NULL, OPT_GOL_BOARD},
    {"target", required_argument, NULL, OPT_TARGET},     {"png", required_argument, NULL, OPT_PNG},
    {"frame-every", required_argument, NULL, OPT_FRAME_EVERY}, {"gif", required_argument, NULL, OPT_GIF},
    {"gif-delay", required_argument, NULL, OPT_GIF_DELAY},     {"gif-scale", required_argument, NULL, OPT_GIF_SCALE},
    {"json", required_argument, NULL, OPT_JSON},         {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},         {NULL, 0, NULL, 0},
};

#define MAX_SIDE 4096L
#define MAX_STEPS 100000L

/* "HxW", both sides in [1, MAX_SIDE]. */
static int parse_grid(const char *s, int *h, int *w) {
  char *end;
  errno = 0;
  long a = strtol(s, &end, 10);
  if (errno || end == s || (*end != 'x' && *end != 'X')) return -1;
  const char *b0 = end + 1;
  long b = strtol(b0, &end, 10);
  if (errno || end == b0 || *end || a < 1 || b < 1 || a > MAX_SIDE || b > MAX_SIDE) return -1;
  *h = (int)a, *w = (int)b;
  return 0;
}

/* One option c with its value arg into o; nonzero after printing why. */
static int parse_option(int c, const char *arg, eval_options *o) {
  unsigned long long seed = 0;
  switch (c) {
    case OPT_PRESET: o->preset = arg; return 0;
    case OPT_MODEL: o->model = arg; return 0;
    case OPT_BACKEND:
      if (!strcmp(arg, "ref")) o->backend_ref = 1;
      else if (!strcmp(arg, "cl")) o->backend_ref = 0;
      else return fprintf(stderr, "%s: --backend: '%s' is neither cl nor ref\n", EVAL_PROG, arg), 1;
      return 0;
    case OPT_DEVICE: o->device = arg; return 0;
    case OPT_SEED:
      if (cli_parse_u64(EVAL_PROG, "--seed", arg, &seed)) return 1;
      o->seed = seed;
      return 0;
    case OPT_FRESH: return cli_parse_long(EVAL_PROG, "--fresh", arg, 0, 100000, &o->fresh);
    case OPT_SCALE: return cli_parse_long(EVAL_PROG, "--scale", arg, 1, 64, &o->scale);
    case OPT_GRID:
      if (!parse_grid(arg, &o->grid_h, &o->grid_w)) return 0;
      return fprintf(stderr, "%s: --grid: '%s' is not HxW with sides in [1, %ld]\n", EVAL_PROG, arg, MAX_SIDE), 1;
    case OPT_STEPS: return cli_parse_long(EVAL_PROG, "--steps", arg, 1, MAX_STEPS, &o->steps);
    case OPT_GOL_BOARD: return cli_parse_long(EVAL_PROG, "--gol-board", arg, 3, MAX_SIDE, &o->gol_board);
    case OPT_TARGET: o->target = arg; return 0;
    case OPT_PNG: o->png = arg; return 0;
    case OPT_GIF: o->gif = arg; return 0;
    case OPT_GIF_DELAY: return cli_parse_long(EVAL_PROG, "--gif-delay", arg, 20, 60000, &o->gif_delay_ms);
    case OPT_GIF_SCALE: return cli_parse_long(EVAL_PROG, "--gif-scale", arg, 1, 256, &o->gif_scale);
    case OPT_FRAME_EVERY: return cli_parse_long(EVAL_PROG, "--frame-every", arg, 1, MAX_STEPS, &o->frame_every);
    case OPT_JSON: o->json = arg; return 0;
    default: return 1;
  }
}

/* What is missing, or given together where it cannot be; 0 or CLI_USAGE. */
static int check_options(const eval_options *o) {
  const char *why = NULL;
  if (!o->preset) why = "--preset: missing; one of gol, checkerboard, checkerboard-async, growth, colour";
  else if (!o->model) why = "--model: missing; a dlca-model JSON file, as dlca-train --save writes it";
  else if (!o->gif && o->gif_scale) why = "--gif-scale: only with --gif FILE";
  else if (o->scale && o->grid_h) why = "--grid: give --scale S or --grid HxW, not both";
  if (why) fprintf(stderr, "%s: %s\n", EVAL_PROG, why);
  return why ? CLI_USAGE : 0;
}

int eval_options_parse(int argc, char **argv, eval_options *o) {
  memset(o, 0, sizeof *o);
  o->fresh = 4;
  o->steps = -1;
  o->gif_delay_ms = 100;
  opterr = 0; /* getopt's own messages do not follow "dlca-eval: what: why" */
  int c;
  while ((c = getopt_long(argc, argv, ":hV", long_options, NULL)) != -1) {
    const char *name = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    if (c == 'h' || c == OPT_HELP) o->help = 1;
    else if (c == 'V' || c == OPT_VERSION) o->version = 1;
    else if (c == ':') return fprintf(stderr, "%s: %s: needs a value (see --help)\n", EVAL_PROG, name), CLI_USAGE;
    else if (c == '?') return fprintf(stderr, "%s: %s: unknown option (see --help)\n", EVAL_PROG, name), CLI_USAGE;
    else if (parse_option(c, optarg, o)) return CLI_USAGE;
  }
  if (o->help || o->version) return 0;
  if (optind < argc) {
    fprintf(stderr, "%s: %s: unexpected argument; options start with -- (see --help)\n", EVAL_PROG, argv[optind]);
    return CLI_USAGE;
  }
  return check_options(o);
}
