/* dlca-train's options (see train_options.h and doc/dlca-train.md). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dlca_cl.h"
#include "cli.h"
#include "recipes.h"
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
    "    --rescale-logits F   with --model: its logits times F first; F < 1 gives a\n"
    "                         saturated model (a near miss whose soft loss no\n"
    "                         longer moves) its gradients back, the same hard\n"
    "                         circuit (softmax16: the argmax stays)\n"
    "    --resume FILE        continue from a checkpoint up to --epochs; give the\n"
    "                         --seed, --model and --param of the run that wrote it\n"
    "    --param P            gate parametrisation of a fresh model: softmax16 (the\n"
    "                         paper's: 16 logits per gate, p = softmax; the default)\n"
    "                         or iwp (input-wise, Ruettgers et al. 2025: 4 logits\n"
    "                         per gate, one per input pair, s = sigmoid); a --model\n"
    "                         file brings its own. The recipes below are softmax16's\n"
    "    --iwp-init Z         iwp: start every gate as pass-through A with logits\n"
    "                         (-Z, -Z, Z, Z) (default 3)\n"
    "\n"
    "SCHEDULE AND STOPPING OPTIONS\n"
    "    Without these the run follows the paper's reference protocol: a constant\n"
    "    lr for every epoch, no early stop, the last parameters saved.\n"
    "    --lr-schedule S      constant (default), cosine (from --lr down to --min-lr\n"
    "                         at --epochs), warmup-cosine (cosine after a linear\n"
    "                         warm-up, by default 5% of the epochs), or cooldown\n"
    "    --warmup N           epochs of linear warm-up from lr/N to lr, for any\n"
    "                         schedule (default 0)\n"
    "    --min-lr X           floor of cosine and cooldown (default 0)\n"
    "    --cooldown-factor F  cooldown: multiply the lr by F when the hard loss\n"
    "                         reaches 0 at an evaluation, or when the mean soft loss\n"
    "                         of the last --plateau epochs is no lower than that of\n"
    "                         every earlier such window (default 0.1)\n"
    "    --plateau N          cooldown: the window, in epochs (default 100)\n"
    "    --max-cooldowns K    cooldown: at most K times (default 2)\n"
    "    --early-stop K       stop when the hard loss was 0 at K evaluations in a row\n"
    "    --keep-best          --save the parameters of the lowest hard loss seen at\n"
    "                         an evaluation (ties: the later), not the last ones\n"
    "    --eval-fresh N       at the end, also score the saved model's hard circuit\n"
    "                         on N batches of start grids no epoch trained on\n"
    "    --eval-scale S       checkerboard presets: at the end, also run the saved\n"
    "                         hard circuit on 8 fresh grids S times larger for S\n"
    "                         times the steps (the paper's generalisation test:\n"
    "                         S 4 is 64x64 for 80 steps); it must be exact there\n"
    "    --repair N           at the end, at most N passes of greedy repair of the\n"
    "                         saved hard circuit: gate by gate, each other op is\n"
    "                         tried and kept where it lowers the values wrong (then\n"
    "                         the hard loss) of the hard evaluation; for presets\n"
    "                         whose start is fixed (growth, colour; gol's 512\n"
    "                         boards). Before --eval-fresh and --restarts decide.\n"
    "                         Scored on the packed-bits circuit on all CPU cores\n"
    "                         (OMP_NUM_THREADS), skipping gates that cannot reach\n"
    "                         the loss\n"
    "    --repair-max-wrong K repair only a circuit with at most K values wrong\n"
    "                         (default: any, or the recipe's); the others are left\n"
    "                         as they are\n"
    "    --evolve N           after --repair, at most N generations of evolution of\n"
    "                         the hard circuit (Cartesian genetic programming): P\n"
    "                         lineages, each keeping the best of L offspring with\n"
    "                         1 to M random gates set to random ops unless it is\n"
    "                         worse (equal ones are kept: drift across plateaus);\n"
    "                         every 64 generations the worst lineage becomes a\n"
    "                         copy of the best. Drifted gates the result does not\n"
    "                         need are set back. All CPU cores (OMP_NUM_THREADS);\n"
    "                         Ctrl-C stops it with the best circuit so far\n"
    "    --evolve-lineages P  lineages (default 64)\n"
    "    --evolve-lambda L    offspring per lineage and generation (default 4)\n"
    "    --evolve-changes M   at most M gates changed per offspring (default 3)\n"
    "    --evolve-max-wrong K evolve only a circuit with at most K values wrong\n"
    "                         after the repair (default: any, or the recipe's);\n"
    "                         the others are left as they are\n"
    "    --restarts N         while the saved circuit is not right on every fresh\n"
    "                         grid (--eval-fresh, 100 batches if not given; and\n"
    "                         with --eval-scale, exact on the larger grid), train\n"
    "                         a new model with the next seed (seed + 1000 k for\n"
    "                         restart k), at most N times; --save, --log and\n"
    "                         --checkpoint then hold the last run's (default 0)\n"
    "    --restart-from K     --restarts: start the chain at run K (seed + 1000 K),\n"
    "                         to go on with a chain that was cut off (default 0)\n"
    "    --jobs N             --restarts: train N runs of the chain at once, each in\n"
    "                         a process of its own (one run's start, repair and\n"
    "                         evolution overlap the others' training); the\n"
    "                         summaries, the files and the run found are those of\n"
    "                         the chain run one by one (default 1; set\n"
    "                         OMP_NUM_THREADS to share the cores among them)\n"
    "    --abandon E:W[,...]  stop a run at its first evaluation from epoch E on\n"
    "                         when its lowest hard loss so far is above W (up to 8\n"
    "                         pairs, epochs rising): with --restarts, the chain goes\n"
    "                         on with the next seed instead of finishing a run\n"
    "                         that is far from working (an abandoned run is not\n"
    "                         repaired, evolved or checked on fresh grids)\n"
    "    --recipe R           recommended (the default where a preset has one,\n"
    "                         measured in doc/training.md; options given here win;\n"
    "                         the recipes are listed at the end of this text) or\n"
    "                         reference (the paper's protocol)\n"
    "    --reference-protocol the paper's protocol exactly: --recipe reference,\n"
    "                         constant lr, no early stop, no --keep-best and no\n"
    "                         relaxation (conflicting options are errors)\n"
    "\n"
    "RELAXATION OPTIONS\n"
    "    Ways to close the gap between the soft circuit that trains and the hard\n"
    "    one that is deployed (doc/training.md). Off by default, except in a\n"
    "    preset's recommended recipe (--recipe); given here, they override it.\n"
    "    --temperature T      gate probabilities softmax(logits / T) (iwp:\n"
    "                         sigmoid(logits / T)) (default 1, or the recipe's)\n"
    "    --gumbel S           add S times a Gumbel(0, 1) draw to every logit (iwp: a\n"
    "                         logistic draw, the Gumbel noise of a two-way softmax),\n"
    "                         a new draw each epoch (default 0, or the recipe's)\n"
    "    --straight-through   forward pass with hard gates (the argmax of the noisy\n"
    "                         logits; iwp: their signs), backward with the soft\n"
    "                         gradient\n"
    "    --grad-noise ETA     add Gaussian noise of variance ETA / t^0.55 to the\n"
    "                         gradient at AdamW step t (default 0: off)\n"
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
    "    dlca-train --preset gol --backend ref --param iwp --early-stop 3 --keep-best\n"
    "    dlca-train --preset growth --target lizard.png --device gpu\n"
    "    dlca-train --preset checkerboard --epochs 1000 --resume cb.ckpt --checkpoint cb.ckpt\n"
    "    dlca-train --preset checkerboard --epochs 3000 --lr-schedule cooldown --early-stop 3\n"
    "               --keep-best --eval-fresh 20 --save cb.json\n"
    "\n"
    "    More in doc/dlca-train.md.\n";

void train_options_help(void) {
  fputs(help_text, stdout);
  fputs("\nRECIPES\n    --recipe recommended, the default for these presets:\n", stdout);
  const train_recipe *q;
  for (size_t i = 0; (q = train_recipe_at(i)); i++) {
    char opts[256];
    train_recipe_describe(q, 1, opts, sizeof opts);
    printf("    %-20s %s\n", q->preset, opts);
  }
}

enum {
  OPT_PRESET = 256, OPT_EPOCHS, OPT_BATCH, OPT_STEPS, OPT_LR, OPT_SEED, OPT_DEVICE, OPT_BACKEND, OPT_LOG,
  OPT_EVAL_EVERY, OPT_SAVE, OPT_CHECKPOINT, OPT_CHECKPOINT_EVERY, OPT_RESUME, OPT_MODEL, OPT_TARGET,
  OPT_QUIET, OPT_HELP, OPT_VERSION, OPT_LR_SCHEDULE, OPT_WARMUP, OPT_MIN_LR, OPT_COOLDOWN_FACTOR, OPT_PLATEAU,
  OPT_MAX_COOLDOWNS, OPT_EARLY_STOP, OPT_KEEP_BEST, OPT_EVAL_FRESH, OPT_RESTARTS, OPT_EVAL_SCALE, OPT_REPAIR, OPT_EVOLVE, OPT_EVOLVE_LINEAGES, OPT_EVOLVE_LAMBDA, OPT_EVOLVE_CHANGES, OPT_EVOLVE_MAX_WRONG, OPT_REPAIR_MAX_WRONG, OPT_RESCALE_LOGITS, OPT_RESTART_FROM, OPT_JOBS, OPT_ABANDON, OPT_REFERENCE_PROTOCOL,
  OPT_TEMPERATURE, OPT_GUMBEL, OPT_STRAIGHT_THROUGH, OPT_GRAD_NOISE, OPT_RECIPE, OPT_PARAM, OPT_IWP_INIT
};

const char *const train_lr_schedule_names[4] = {"constant", "cosine", "warmup-cosine", "cooldown"};

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
    {"lr-schedule", required_argument, NULL, OPT_LR_SCHEDULE},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"min-lr", required_argument, NULL, OPT_MIN_LR},
    {"cooldown-factor", required_argument, NULL, OPT_COOLDOWN_FACTOR},
    {"plateau", required_argument, NULL, OPT_PLATEAU},
    {"max-cooldowns", required_argument, NULL, OPT_MAX_COOLDOWNS},
    {"early-stop", required_argument, NULL, OPT_EARLY_STOP},
    {"keep-best", no_argument, NULL, OPT_KEEP_BEST},
    {"eval-fresh", required_argument, NULL, OPT_EVAL_FRESH},
    {"restarts", required_argument, NULL, OPT_RESTARTS},
    {"eval-scale", required_argument, NULL, OPT_EVAL_SCALE},
    {"repair", required_argument, NULL, OPT_REPAIR},
    {"restart-from", required_argument, NULL, OPT_RESTART_FROM},
    {"jobs", required_argument, NULL, OPT_JOBS},
    {"abandon", required_argument, NULL, OPT_ABANDON},
    {"evolve", required_argument, NULL, OPT_EVOLVE},
    {"evolve-lineages", required_argument, NULL, OPT_EVOLVE_LINEAGES},
    {"evolve-lambda", required_argument, NULL, OPT_EVOLVE_LAMBDA},
    {"evolve-changes", required_argument, NULL, OPT_EVOLVE_CHANGES},
    {"evolve-max-wrong", required_argument, NULL, OPT_EVOLVE_MAX_WRONG},
    {"repair-max-wrong", required_argument, NULL, OPT_REPAIR_MAX_WRONG},
    {"rescale-logits", required_argument, NULL, OPT_RESCALE_LOGITS},
    {"reference-protocol", no_argument, NULL, OPT_REFERENCE_PROTOCOL},
    {"temperature", required_argument, NULL, OPT_TEMPERATURE},
    {"gumbel", required_argument, NULL, OPT_GUMBEL},
    {"straight-through", no_argument, NULL, OPT_STRAIGHT_THROUGH},
    {"grad-noise", required_argument, NULL, OPT_GRAD_NOISE},
    {"recipe", required_argument, NULL, OPT_RECIPE},
    {"param", required_argument, NULL, OPT_PARAM},
    {"iwp-init", required_argument, NULL, OPT_IWP_INIT},
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

/* --abandon E:W[,E:W...]: epochs rising, each E >= 1 and W >= 0. */
int train_parse_abandon(const char *arg, train_options *o) {
  const char *p = arg;
  o->n_abandon = 0;
  while (*p) {
    char *end;
    errno = 0;
    long e = strtol(p, &end, 10);
    double w = 0;
    int ok = end != p && *end == ':' && !errno && e >= 1 && e <= MAX_EPOCHS;
    if (ok) {
      p = end + 1;
      w = strtod(p, &end);
      ok = end != p && (*end == ',' || *end == '\0') && isfinite(w) && w >= 0;
    }
    if (ok && o->n_abandon == TRAIN_MAX_ABANDON) {
      fprintf(stderr, "%s: --abandon: more than %d checkpoints in '%s'\n", TRAIN_PROG, TRAIN_MAX_ABANDON, arg);
      return 1;
    }
    if (ok && o->n_abandon > 0 && e <= o->abandon_epoch[o->n_abandon - 1]) {
      fprintf(stderr, "%s: --abandon: the epochs of '%s' must rise\n", TRAIN_PROG, arg);
      return 1;
    }
    if (!ok) {
      fprintf(stderr, "%s: --abandon: '%s' is not EPOCH:LOSS[,EPOCH:LOSS...] (epoch >= 1, loss >= 0)\n",
              TRAIN_PROG, arg);
      return 1;
    }
    o->abandon_epoch[o->n_abandon] = e, o->abandon_above[o->n_abandon] = w, o->n_abandon++;
    p = *end == ',' ? end + 1 : end;
    if (*end == ',' && !*p) {
      fprintf(stderr, "%s: --abandon: '%s' ends with a comma\n", TRAIN_PROG, arg);
      return 1;
    }
  }
  if (!o->n_abandon) {
    fprintf(stderr, "%s: --abandon: empty\n", TRAIN_PROG);
    return 1;
  }
  return 0;
}

int train_options_parse(int argc, char **argv, train_options *o) {
  memset(o, 0, sizeof *o);
  o->epochs = o->batch = o->steps = -1;
  o->eval_every = 10;
  o->checkpoint_every = 100;
  o->warmup = -1;
  o->cooldown_factor = 0.1;
  o->plateau = 100;
  o->max_cooldowns = 2;
  o->repair = -1; /* the recipe's, else none */
  o->evolve = -1; /* the recipe's, else none */
  o->evolve_max_wrong = -1; /* any, unless the recipe's evolution says */
  o->repair_max_wrong = -1; /* any, unless the recipe's repair says */
  o->evolve_lineages = 64, o->evolve_lambda = 4, o->evolve_changes = 3;
  o->jobs = 1;
  o->temperature = o->gumbel = -1;
  o->param = -1;
  /* which cooldown-only or training-changing options were given, for the checks below */
  const char *cooldown_only = NULL, *changes_training = NULL;
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
        o->eval_every_given = 1;
        break;
      case OPT_SAVE: o->save = optarg; break;
      case OPT_CHECKPOINT: o->checkpoint = optarg; break;
      case OPT_CHECKPOINT_EVERY:
        bad = cli_parse_long(TRAIN_PROG, "--checkpoint-every", optarg, 1, MAX_EPOCHS, &o->checkpoint_every);
        break;
      case OPT_RESUME: o->resume = optarg; break;
      case OPT_LR_SCHEDULE: {
        int k = -1;
        for (int i = 0; i < 4; i++)
          if (!strcmp(optarg, train_lr_schedule_names[i])) k = i;
        if (k < 0) {
          fprintf(stderr, "%s: --lr-schedule: '%s' is not constant, cosine, warmup-cosine or cooldown\n", TRAIN_PROG,
                  optarg);
          bad = 1;
        }
        o->lr_schedule = k;
        o->lr_schedule_given = 1;
        if (k != TRAIN_LR_CONSTANT) changes_training = "--lr-schedule";
        break;
      }
      case OPT_WARMUP:
        bad = cli_parse_long(TRAIN_PROG, "--warmup", optarg, 0, MAX_EPOCHS, &o->warmup);
        if (o->warmup > 0) changes_training = "--warmup";
        break;
      case OPT_MIN_LR:
        bad = cli_parse_double(TRAIN_PROG, "--min-lr", optarg, -INFINITY, &o->min_lr);
        if (!bad && o->min_lr < 0) {
          fprintf(stderr, "%s: --min-lr: '%s' is negative\n", TRAIN_PROG, optarg);
          bad = 1;
        }
        if (o->min_lr > 0) changes_training = "--min-lr";
        break;
      case OPT_COOLDOWN_FACTOR:
        bad = cli_parse_double(TRAIN_PROG, "--cooldown-factor", optarg, 0.0, &o->cooldown_factor);
        if (!bad && o->cooldown_factor >= 1) {
          fprintf(stderr, "%s: --cooldown-factor: '%s' is not below 1\n", TRAIN_PROG, optarg);
          bad = 1;
        }
        cooldown_only = "--cooldown-factor";
        break;
      case OPT_PLATEAU:
        bad = cli_parse_long(TRAIN_PROG, "--plateau", optarg, 1, MAX_EPOCHS, &o->plateau);
        cooldown_only = "--plateau";
        break;
      case OPT_MAX_COOLDOWNS:
        bad = cli_parse_long(TRAIN_PROG, "--max-cooldowns", optarg, 0, 1000, &o->max_cooldowns);
        cooldown_only = "--max-cooldowns";
        break;
      case OPT_EARLY_STOP:
        bad = cli_parse_long(TRAIN_PROG, "--early-stop", optarg, 1, MAX_EPOCHS, &o->early_stop);
        changes_training = "--early-stop";
        break;
      case OPT_KEEP_BEST:
        o->keep_best = 1;
        changes_training = "--keep-best";
        break;
      case OPT_EVAL_FRESH: bad = cli_parse_long(TRAIN_PROG, "--eval-fresh", optarg, 1, 1000000, &o->eval_fresh); break;
      case OPT_RESTARTS: bad = cli_parse_long(TRAIN_PROG, "--restarts", optarg, 0, 100000, &o->restarts); break;
      case OPT_EVAL_SCALE: bad = cli_parse_long(TRAIN_PROG, "--eval-scale", optarg, 1, 16, &o->eval_scale); break;
      case OPT_REPAIR: bad = cli_parse_long(TRAIN_PROG, "--repair", optarg, 0, 100, &o->repair); break;
      case OPT_EVOLVE: bad = cli_parse_long(TRAIN_PROG, "--evolve", optarg, 0, 1000000000L, &o->evolve); break;
      case OPT_EVOLVE_LINEAGES:
        bad = cli_parse_long(TRAIN_PROG, "--evolve-lineages", optarg, 1, 65536L, &o->evolve_lineages);
        break;
      case OPT_EVOLVE_LAMBDA:
        bad = cli_parse_long(TRAIN_PROG, "--evolve-lambda", optarg, 1, 65536L, &o->evolve_lambda);
        break;
      case OPT_EVOLVE_CHANGES:
        bad = cli_parse_long(TRAIN_PROG, "--evolve-changes", optarg, 1, 64, &o->evolve_changes);
        break;
      case OPT_RESCALE_LOGITS:
        bad = cli_parse_double(TRAIN_PROG, "--rescale-logits", optarg, 0.0, &o->rescale_logits);
        break;
      case OPT_EVOLVE_MAX_WRONG:
        bad = cli_parse_long(TRAIN_PROG, "--evolve-max-wrong", optarg, 0, 1000000000L, &o->evolve_max_wrong);
        o->evolve_max_wrong_given = 1;
        break;
      case OPT_REPAIR_MAX_WRONG:
        bad = cli_parse_long(TRAIN_PROG, "--repair-max-wrong", optarg, 0, 1000000000L, &o->repair_max_wrong);
        o->repair_max_wrong_given = 1;
        break;
      case OPT_RESTART_FROM:
        bad = cli_parse_long(TRAIN_PROG, "--restart-from", optarg, 0, 100000, &o->restart_from);
        break;
      case OPT_JOBS: bad = cli_parse_long(TRAIN_PROG, "--jobs", optarg, 1, 256, &o->jobs); break;
      case OPT_ABANDON:
        bad = train_parse_abandon(optarg, o);
        changes_training = "--abandon";
        break;
      case OPT_REFERENCE_PROTOCOL: o->reference_protocol = 1; break;
      case OPT_RECIPE:
        if (!strcmp(optarg, "reference")) o->recipe = TRAIN_RECIPE_REFERENCE;
        else if (!strcmp(optarg, "recommended")) o->recipe = TRAIN_RECIPE_RECOMMENDED;
        else {
          fprintf(stderr, "%s: --recipe: '%s' is not reference or recommended\n", TRAIN_PROG, optarg);
          bad = 1;
        }
        break;
      case OPT_TEMPERATURE:
        bad = cli_parse_double(TRAIN_PROG, "--temperature", optarg, 0.0, &o->temperature);
        if (!bad && o->temperature < 1e-3) {
          fprintf(stderr, "%s: --temperature: %s is below 0.001\n", TRAIN_PROG, optarg);
          bad = 1;
        }
        if (!bad && o->temperature != 1) changes_training = "--temperature";
        break;
      case OPT_GUMBEL:
        bad = cli_parse_nonneg(TRAIN_PROG, "--gumbel", optarg, &o->gumbel);
        if (!bad && o->gumbel > 0) changes_training = "--gumbel";
        break;
      case OPT_STRAIGHT_THROUGH:
        o->straight_through = 1;
        changes_training = "--straight-through";
        break;
      case OPT_GRAD_NOISE:
        bad = cli_parse_nonneg(TRAIN_PROG, "--grad-noise", optarg, &o->grad_noise);
        if (!bad && o->grad_noise > 0) changes_training = "--grad-noise";
        break;
      case OPT_PARAM:
        if (!strcmp(optarg, "softmax16")) o->param = DLCA_PARAM_SOFTMAX16;
        else if (!strcmp(optarg, "iwp")) o->param = DLCA_PARAM_IWP;
        else {
          fprintf(stderr, "%s: --param: '%s' is neither softmax16 nor iwp\n", TRAIN_PROG, optarg);
          bad = 1;
        }
        break;
      case OPT_IWP_INIT:
        bad = cli_parse_double(TRAIN_PROG, "--iwp-init", optarg, 0.0, &o->iwp_init);
        if (!bad && !(o->iwp_init <= 1e6)) {
          fprintf(stderr, "%s: --iwp-init: %s is above 1e6\n", TRAIN_PROG, optarg);
          bad = 1;
        }
        break;
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
  if (o->reference_protocol && o->recipe == TRAIN_RECIPE_RECOMMENDED) {
    fprintf(stderr, "%s: --recipe recommended: contradicts --reference-protocol\n", TRAIN_PROG);
    return CLI_USAGE;
  }
  if (o->reference_protocol) o->recipe = TRAIN_RECIPE_REFERENCE;
  if (o->reference_protocol && changes_training) {
    fprintf(stderr,
            "%s: %s: the reference protocol trains with a constant lr, no early stop, no --keep-best and no "
            "relaxation\n",
            TRAIN_PROG, changes_training);
    return CLI_USAGE;
  }
  if (o->min_lr > 0 && o->lr_schedule == TRAIN_LR_CONSTANT) {
    fprintf(stderr, "%s: --min-lr: only with --lr-schedule cosine, warmup-cosine or cooldown\n", TRAIN_PROG);
    return CLI_USAGE;
  }
  if (cooldown_only && o->lr_schedule != TRAIN_LR_COOLDOWN) {
    fprintf(stderr, "%s: %s: only with --lr-schedule cooldown\n", TRAIN_PROG, cooldown_only);
    return CLI_USAGE;
  }
  if (o->iwp_init > 0 && o->param != DLCA_PARAM_IWP) {
    fprintf(stderr, "%s: --iwp-init: only with --param iwp\n", TRAIN_PROG);
    return CLI_USAGE;
  }
  if (o->iwp_init > 0 && o->model) {
    fprintf(stderr, "%s: --iwp-init: initialises a fresh model, but --model gives one\n", TRAIN_PROG);
    return CLI_USAGE;
  }
  if (o->rescale_logits > 0 && (!o->model || o->resume)) {
    fprintf(stderr, "%s: --rescale-logits: needs --model (and not --resume)\n", TRAIN_PROG);
    return CLI_USAGE;
  }
  if (o->restarts > 0 && (o->resume || o->model)) {
    fprintf(stderr, "%s: --restarts: trains fresh models with new seeds, but %s gives the start\n", TRAIN_PROG,
            o->resume ? "--resume" : "--model");
    return CLI_USAGE;
  }
  if (o->restart_from > 0 && o->restarts == 0) {
    fprintf(stderr, "%s: --restart-from: goes on with a chain of --restarts, which is not given\n", TRAIN_PROG);
    return CLI_USAGE;
  }
  if (o->jobs > 1 && o->restarts == 0) {
    fprintf(stderr, "%s: --jobs: runs the runs of a chain of --restarts side by side, which is not given\n",
            TRAIN_PROG);
    return CLI_USAGE;
  }
  if (o->restarts > 0 && o->eval_fresh == 0) o->eval_fresh = 100; /* what decides a restart */
  if (o->backend_ref && o->device) {
    fprintf(stderr, "%s: --device: chooses an OpenCL device, but --backend is ref\n", TRAIN_PROG);
    return CLI_USAGE;
  }
  return 0;
}
