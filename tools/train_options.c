/* dlca-train's options (see train_options.h and doc/dlca-train.md). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "train_options.h"

static const char help_text[] =
    "NAME\n"
    "    dlca-train - train a Differentiable Logic Cellular Automaton\n"
    "\n"
    "SYNOPSIS\n"
    "    dlca-train --preset NAME [--backend cl|ref] [--device SPEC] [--epochs N]\n"
    "               [--log FILE.csv] [--save MODEL.json] [--checkpoint FILE] [OPTION...]\n"
    "\n"
    "DESCRIPTION\n"
    "    Trains one of the paper's experiments on an OpenCL device or on the C CPU\n"
    "    reference. One epoch is one optimiser step: a batch of start grids, T soft\n"
    "    CA steps, the squared-error loss, backpropagation through time, gradient\n"
    "    clipping and AdamW. Every --eval-every epochs, and at the last, the hard\n"
    "    circuit (each gate its most likely op) is evaluated: its loss and accuracy\n"
    "    say whether the circuit really works. The same seed gives the same losses.\n"
    "\n"
    "PRESETS\n"
    "    gol                 Game of Life: all 512 3x3 boards, 1 channel, 1 step;\n"
    "                        the hard evaluation covers all 512 boards\n"
    "    checkerboard        2x2-square checkerboard, 16x16 grid, 8 channels, 20 steps\n"
    "    checkerboard-async  the same with asynchronous updates, 14x14, 50 steps\n"
    "    growth              grow a 20x20 shape (--target) from one seed cell\n"
    "    colour              paint a 16x16 RGB image (--target), 15 steps\n"
    "\n"
    "TRAINING OPTIONS\n"
    "    --preset NAME        the experiment (required)\n"
    "    --epochs N           train until epoch N (default: the preset's)\n"
    "    --batch N            samples per epoch (default: the preset's)\n"
    "    --steps N            CA steps per sample (default: the preset's)\n"
    "    --lr X               AdamW learning rate (default: the preset's)\n"
    "    --seed N             seeds the wiring, start grids, fire masks and the\n"
    "                         gol board order (default 0)\n"
    "    --target FILE        growth or colour target: PNG, or PBM (P1/P4), exactly\n"
    "                         the grid's size (default: a built-in image)\n"
    "    --model FILE.json    start from a saved model (its channel count must be\n"
    "                         the preset's) instead of a fresh one\n"
    "    --resume FILE        continue from a checkpoint up to --epochs; give the\n"
    "                         --seed and --model of the run that wrote it\n"
    "\n"
    "DEVICE OPTIONS\n"
    "    --backend cl|ref     OpenCL (default) or the CPU reference\n"
    "    --device SPEC        OpenCL device: an index \"0\", \"platform:device\" \"1:0\",\n"
    "                         gpu, cpu, accelerator, or part of its name (default:\n"
    "                         $DLCA_CL_DEVICE, else the best GPU); see dlca-info\n"
    "\n"
    "OUTPUT OPTIONS\n"
    "    --log FILE.csv       one row per hard evaluation:\n"
    "                         epoch,soft_loss,hard_loss,hard_accuracy,epochs_per_s\n"
    "                         (a resumed run keeps the rows up to its checkpoint)\n"
    "    --eval-every N       hard evaluation every N epochs (default 10)\n"
    "    --save MODEL.json    write the trained model (dlca-model JSON) at the end\n"
    "    --checkpoint FILE    write a checkpoint every --checkpoint-every epochs and\n"
    "                         at the end\n"
    "    --checkpoint-every N (default 100)\n"
    "    --quiet              print errors only\n"
    "    --help               this text\n"
    "    --version            the library version\n"
    "\n"
    "    Progress goes to stderr: one line redrawn in place on a terminal, else a\n"
    "    line every tenth of the run. The summary goes to stdout.\n"
    "\n"
    "INTERRUPTING\n"
    "    Ctrl-C or SIGTERM stops after the current epoch, writes a checkpoint to\n"
    "    --checkpoint FILE (or " TRAIN_INTERRUPT_CKPT " in the current\n"
    "    directory) and exits 130. A second Ctrl-C quits at once.\n"
    "\n"
    "EXIT STATUS\n"
    "    0    success\n"
    "    1    runtime failure (device, memory, disk)\n"
    "    2    bad input: option, preset, device spec, target image, model or\n"
    "         checkpoint file\n"
    "    130  interrupted; the checkpoint was saved\n"
    "\n"
    "EXAMPLES\n"
    "    dlca-train --preset checkerboard --log cb.csv --save cb.json\n"
    "    dlca-train --preset gol --backend ref --epochs 500 --seed 3\n"
    "    dlca-train --preset growth --target lizard.png --device gpu\n"
    "    dlca-train --preset checkerboard --epochs 1000 --resume cb.ckpt --checkpoint cb.ckpt\n"
    "\n"
    "    More in doc/dlca-train.md.\n";

void train_options_help(void) { fputs(help_text, stdout); }

enum {
  OPT_PRESET = 256, OPT_EPOCHS, OPT_BATCH, OPT_STEPS, OPT_LR, OPT_SEED, OPT_DEVICE, OPT_BACKEND, OPT_LOG,
  OPT_EVAL_EVERY, OPT_SAVE, OPT_CHECKPOINT, OPT_CHECKPOINT_EVERY, OPT_RESUME, OPT_MODEL, OPT_TARGET,
  OPT_QUIET, OPT_HELP, OPT_VERSION
};

static const struct option long_options[] = {
    {"preset", required_argument, NULL, OPT_PRESET},
    {"epochs", required_argument, NULL, OPT_EPOCHS},
    {"batch", required_argument, NULL, OPT_BATCH},
    {"steps", required_argument, NULL, OPT_STEPS},
    {"lr", required_argument, NULL, OPT_LR},
    {"seed", required_argument, NULL, OPT_SEED},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"log", required_argument, NULL, OPT_LOG},
    {"eval-every", required_argument, NULL, OPT_EVAL_EVERY},
    {"save", required_argument, NULL, OPT_SAVE},
    {"checkpoint", required_argument, NULL, OPT_CHECKPOINT},
    {"checkpoint-every", required_argument, NULL, OPT_CHECKPOINT_EVERY},
    {"resume", required_argument, NULL, OPT_RESUME},
    {"model", required_argument, NULL, OPT_MODEL},
    {"target", required_argument, NULL, OPT_TARGET},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* Large enough for any real run, small enough that epoch arithmetic and
 * per-epoch buffers never overflow. */
#define MAX_EPOCHS 1000000000L
#define MAX_BATCH 65536L
#define MAX_STEPS 100000L

int train_options_parse(int argc, char **argv, train_options *o) {
  memset(o, 0, sizeof *o);
  o->epochs = o->batch = o->steps = -1;
  o->eval_every = 10;
  o->checkpoint_every = 100;
  opterr = 0; /* getopt's own messages do not follow "dlca-train: what: why" */
  int c;
  while ((c = getopt_long(argc, argv, ":hqV", long_options, NULL)) != -1) {
    const char *name = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    int bad = 0;
    switch (c) {
      case OPT_PRESET: o->preset = optarg; break;
      case OPT_EPOCHS: bad = cli_parse_long(TRAIN_PROG, "--epochs", optarg, 0, MAX_EPOCHS, &o->epochs); break;
      case OPT_BATCH: bad = cli_parse_long(TRAIN_PROG, "--batch", optarg, 1, MAX_BATCH, &o->batch); break;
      case OPT_STEPS: bad = cli_parse_long(TRAIN_PROG, "--steps", optarg, 1, MAX_STEPS, &o->steps); break;
      case OPT_LR: bad = cli_parse_double(TRAIN_PROG, "--lr", optarg, 0.0, &o->lr); break;
      case OPT_SEED: {
        unsigned long long s = 0;
        bad = cli_parse_u64(TRAIN_PROG, "--seed", optarg, &s);
        o->seed = s;
        break;
      }
      case OPT_DEVICE: o->device = optarg; break;
      case OPT_BACKEND:
        if (!strcmp(optarg, "ref")) o->backend_ref = 1;
        else if (!strcmp(optarg, "cl")) o->backend_ref = 0;
        else {
          fprintf(stderr, "%s: --backend: '%s' is neither cl nor ref\n", TRAIN_PROG, optarg);
          bad = 1;
        }
        break;
      case OPT_LOG: o->log = optarg; break;
      case OPT_EVAL_EVERY:
        bad = cli_parse_long(TRAIN_PROG, "--eval-every", optarg, 1, MAX_EPOCHS, &o->eval_every);
        break;
      case OPT_SAVE: o->save = optarg; break;
      case OPT_CHECKPOINT: o->checkpoint = optarg; break;
      case OPT_CHECKPOINT_EVERY:
        bad = cli_parse_long(TRAIN_PROG, "--checkpoint-every", optarg, 1, MAX_EPOCHS, &o->checkpoint_every);
        break;
      case OPT_RESUME: o->resume = optarg; break;
      case OPT_MODEL: o->model = optarg; break;
      case OPT_TARGET: o->target = optarg; break;
      case 'q':
      case OPT_QUIET: o->quiet = 1; break;
      case 'h':
      case OPT_HELP: o->help = 1; break;
      case 'V':
      case OPT_VERSION: o->version = 1; break;
      case ':':
        fprintf(stderr, "%s: %s: needs a value (see --help)\n", TRAIN_PROG, name);
        return CLI_USAGE;
      default:
        fprintf(stderr, "%s: %s: unknown option (see --help)\n", TRAIN_PROG, name);
        return CLI_USAGE;
    }
    if (bad) return CLI_USAGE;
  }
  if (o->help || o->version) return 0;
  if (optind < argc) {
    fprintf(stderr, "%s: %s: unexpected argument; options start with -- (see --help)\n", TRAIN_PROG,
            argv[optind]);
    return CLI_USAGE;
  }
  if (!o->preset) {
    fprintf(stderr, "%s: --preset: missing; one of gol, checkerboard, checkerboard-async, growth, colour\n",
            TRAIN_PROG);
    return CLI_USAGE;
  }
  if (o->backend_ref && o->device) {
    fprintf(stderr, "%s: --device: chooses an OpenCL device, but --backend is ref\n", TRAIN_PROG);
    return CLI_USAGE;
  }
  return 0;
}
