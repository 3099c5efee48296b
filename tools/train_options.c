/* dlca-train's options (see train_options.h and doc/dlca-train.md). */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dlca_cl.h"
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
    "    clipping and the optimizer (AdamW by default). Every --eval-every epochs, and at the last, the hard\n"
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
    "    --lr X               learning rate (default: the preset's)\n"
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
    "OPTIMIZER OPTIONS\n"
    "    --optimizer O        adamw (default: the reference's AdamW in optax's\n"
    "                         form, betas 0.9, 0.99, eps 1e-8, weight decay 0.01),\n"
    "                         or torch.optim's adam, sgd, rmsprop or adagrad with\n"
    "                         torch's defaults; the lr is --lr's for every one\n"
    "    --clip X             clip every gradient to [-X, X] first (default 100)\n"
    "    --beta1 X, --beta2 X, --eps X, --weight-decay X\n"
    "                         adamw, adam (--eps: also rmsprop, adagrad;\n"
    "                         --weight-decay: every optimizer)\n"
    "    --amsgrad            adam: the running maximum of the second moment\n"
    "    --momentum X, --dampening X, --nesterov\n"
    "                         sgd (--momentum: also rmsprop)\n"
    "    --alpha X, --centered rmsprop\n"
    "    --lr-decay X, --initial-accumulator X\n"
    "                         adagrad\n"
    "    A value outside its range (a beta outside [0, 1), a negative eps),\n"
    "    --nesterov without --momentum, or an option of another optimizer\n"
    "    (--amsgrad with sgd) is an error naming it. The optimizer's state goes\n"
    "    into checkpoints: --resume with the same --optimizer and options.\n"
    "\n"
    "SCHEDULE AND STOPPING OPTIONS\n"
    "    Without these the run follows the paper's reference protocol: a constant\n"
    "    lr for every epoch, no early stop, the last parameters saved.\n"
    "    --lr-schedule S      constant (default), cosine (from --lr down to --min-lr\n"
    "                         at --epochs), warmup-cosine (cosine after a linear\n"
    "                         warm-up, by default 5% of the epochs), cooldown, or\n"
    "                         torch.optim.lr_scheduler's schedules per epoch and\n"
    "                         chains of them: parts KIND[@EPOCH][:NAME=VALUE...]\n"
    "                         joined by commas, each after the first from its\n"
    "                         @EPOCH; KIND step (step_size, gamma), exponential\n"
    "                         (gamma), cosine (T_max, eta_min), onecycle (max_lr,\n"
    "                         pct_start, div_factor, final_div_factor,\n"
    "                         total_steps), linear (start_factor, end_factor,\n"
    "                         total_iters); base_lr and max_lr default to --lr,\n"
    "                         T_max and total_steps to the part's epochs. Example:\n"
    "                         linear:start_factor=0.1:total_iters=50,cosine@50\n"
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
    "    --population M       train M models side by side on the device, seeds\n"
    "                         seed .. seed + M - 1, each exactly the run of its\n"
    "                         seed alone (--population 0); stop at the first whose\n"
    "                         circuit is right on every fresh grid (--eval-fresh,\n"
    "                         100 batches if not given; the checkerboard also exact\n"
    "                         at --eval-scale, 4 if not given), replacing a model\n"
    "                         that ends wrong or is abandoned (--abandon, the\n"
    "                         recipe's) with the next fresh seed; --save and --log\n"
    "                         hold the winner's model and curve. 0: a single run,\n"
    "                         planned on a GPU as a population's model (the circuit\n"
    "                         of the population's model of its seed; growth and\n"
    "                         colour train several times slower than a run without\n"
    "                         --population). Default: the recipe's (RECIPES) on an\n"
    "                         OpenCL device with the recommended recipe, unless\n"
    "                         --epochs, --checkpoint, --resume, --model or\n"
    "                         --restarts asks for one run; else a single run\n"
    "    --max-models N       --population: at most N models in all (default 128 M)\n"
    "    --measure            --population: M single runs of seeds seed .. seed +\n"
    "                         M - 1, each to its end, none replaced, no stop at\n"
    "                         the first right one (no recipe --abandon); prints\n"
    "                         the fraction right by the criterion above (that of\n"
    "                         the single run with the same --eval-fresh and\n"
    "                         --eval-scale) and the median epoch of the right ones\n"
    "    --runs FILE.csv      --population: a row per model done: seed, right,\n"
    "                         epoch, hard loss, fresh and scale errors, its lr,\n"
    "                         temperature and Gumbel scale, seconds, copies;\n"
    "                         rewritten every 10 s while models end\n"
    "    --lr-jitter J        --population: each model's lr times exp(U(-J, J)),\n"
    "                         drawn from its seed (--runs names it; that --lr\n"
    "                         alone gives the same model); also\n"
    "    --temperature-jitter J, --gumbel-jitter J (default 0)\n"
    "    --pbt EVERY:FRAC     --population: every EVERY epochs the worst FRAC\n"
    "                         (<= 0.5) of the models training take a copy of a\n"
    "                         best one (wires, logits, optimizer state, its lr\n"
    "                         x0.8 or x1.25), keeping their seed's noise; the\n"
    "                         winner is then no single run of its seed (the\n"
    "                         summary's lineage line)\n"
    "    --compiled-wires     --population: build a program per seed with its\n"
    "                         perception wires compiled in (a build per seed,\n"
    "                         each model launched alone; faster steps only for\n"
    "                         the narrow presets, not growth or colour); by\n"
    "                         default all seeds share one program that reads\n"
    "                         them from a buffer\n"
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
    "    -h, --help           this text\n"
    "    -V, --version        the program's and the library's version\n"
    "\n"
    "    Progress goes to stderr: one line redrawn in place on a terminal, else a\n"
    "    line every tenth of the run. The summary goes to stdout.\n"
    "\n"
    "INTERRUPTING\n"
    "    Ctrl-C or SIGTERM stops after the current epoch, writes a checkpoint to\n"
    "    the file of --checkpoint (or " TRAIN_INTERRUPT_CKPT " in the current\n"
    "    directory) and exits 130. A second Ctrl-C quits at once; one within\n"
    "    half a second of the first is the same request (timeout(1) sends two).\n"
    "\n"
    "ENVIRONMENT\n"
    "    DLCA_CL_DEVICE       the default --device\n"
    "    DLCA_CL_KERNEL_PATH  directories searched for kernel sources before the\n"
    "                         installed ones; the shipped tuning table is read\n"
    "                         from ../tuning/default.json beside each\n"
    "    DLCA_CL_CACHE_DIR    the cache of compiled kernels (DLCA_CL_CACHE=0: off)\n"
    "    DLCA_CL_TUNING       a tuning table over the shipped one (dlca-tune(1))\n"
    "    DLCA_CL_BUILD_OPTIONS  more OpenCL compiler options for every build\n"
    "    OMP_NUM_THREADS      threads of --backend ref, --repair and --evolve\n"
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
    "    dlca-train --preset checkerboard --optimizer sgd --lr 0.5 --momentum 0.9\n"
    "    dlca-train --preset checkerboard --epochs 3000 --lr-schedule cooldown --early-stop 3\n"
    "               --keep-best --eval-fresh 20 --save cb.json\n"
    "\n"
    "    More in doc/dlca-train.md.\n";

void train_options_help(void) {
  fputs(help_text, stdout);
  fputs("\nRECIPES\n    The recommended recipe (--recipe recommended), the default for these presets:\n", stdout);
  const dlca_recipe *q;
  for (size_t i = 0; (q = dlca_recipe_at(i)); i++) {
    char opts[512];
    dlca_recipe_describe(q, 1, opts, sizeof opts);
    printf("    %-20s %s\n", q->preset, opts);
  }
}

/* Large enough for any real run, small enough that epoch arithmetic and
 * per-epoch buffers never overflow. */
#define MAX_EPOCHS 1000000000L
#define MAX_BATCH 65536L
#define MAX_STEPS 100000L

/* --abandon E:W[,E:W...]: epochs rising, each E >= 1 and W >= 0. */
int train_parse_abandon(const char *arg, train_options *o) {
  dlca_loop_options lo;
  dlca_loop_options_default(&lo);
  if (dlca_loop_parse_abandon(arg, &lo)) {
    fprintf(stderr, "%s: --abandon: %s\n", TRAIN_PROG, dlca_last_error());
    return 1;
  }
  o->n_abandon = lo.n_abandon;
  memcpy(o->abandon_epoch, lo.abandon_epoch, sizeof o->abandon_epoch);
  memcpy(o->abandon_above, lo.abandon_above, sizeof o->abandon_above);
  return 0;
}

/* How an option's value is read (table below). */
typedef enum kind {
  K_STR,    /* the argument itself (const char *) */
  K_LONG,   /* a long in [lo, hi] */
  K_DOUBLE, /* a finite double above `above` that is also finite as a float */
  K_NONNEG, /* a finite double >= 0, finite as a float */
  K_NUMBER, /* any finite double (its range is the library's to check) */
  K_FLAG,   /* sets an int to 1 */
  K_OTHER   /* parsed by parse_other() */
} kind;

/* What the options after a value check: */
enum {
  F_TRAINS = 1,   /* changes the training away from the reference protocol where not `neutral` */
  F_COOLDOWN = 2, /* only with --lr-schedule cooldown */
};

typedef struct opt_spec {
  const char *name;
  int kind;
  size_t off;            /* of the value in train_options */
  long lo, hi;           /* K_LONG */
  double above;          /* K_DOUBLE */
  int flags;
  double neutral;        /* F_TRAINS: the value that changes nothing */
  ptrdiff_t given;       /* offset of an int set when the option is given; -1: none */
} opt_spec;

#define O(f) offsetof(train_options, f)
#define G(f) (ptrdiff_t) offsetof(train_options, f)
static const opt_spec specs[] = {
    {"preset", K_STR, O(preset), 0, 0, 0, 0, 0, -1},
    {"epochs", K_LONG, O(epochs), 0, MAX_EPOCHS, 0, 0, 0, -1},
    {"batch", K_LONG, O(batch), 1, MAX_BATCH, 0, 0, 0, -1},
    {"steps", K_LONG, O(steps), 1, MAX_STEPS, 0, 0, 0, -1},
    {"lr", K_DOUBLE, O(lr), 0, 0, 0.0, 0, 0, -1},
    {"seed", K_OTHER, 0, 0, 0, 0, 0, 0, -1},
    {"device", K_STR, O(device), 0, 0, 0, 0, 0, -1},
    {"backend", K_OTHER, 0, 0, 0, 0, 0, 0, -1},
    {"log", K_STR, O(log), 0, 0, 0, 0, 0, -1},
    {"eval-every", K_LONG, O(eval_every), 1, MAX_EPOCHS, 0, 0, 0, G(eval_every_given)},
    {"save", K_STR, O(save), 0, 0, 0, 0, 0, -1},
    {"checkpoint", K_STR, O(checkpoint), 0, 0, 0, 0, 0, -1},
    {"checkpoint-every", K_LONG, O(checkpoint_every), 1, MAX_EPOCHS, 0, 0, 0, -1},
    {"resume", K_STR, O(resume), 0, 0, 0, 0, 0, -1},
    {"model", K_STR, O(model), 0, 0, 0, 0, 0, -1},
    {"target", K_STR, O(target), 0, 0, 0, 0, 0, -1},
    {"lr-schedule", K_OTHER, 0, 0, 0, 0, F_TRAINS, 0, G(lr_schedule_given)},
    {"warmup", K_LONG, O(warmup), 0, MAX_EPOCHS, 0, F_TRAINS, 0, -1},
    {"min-lr", K_NONNEG, O(min_lr), 0, 0, 0, F_TRAINS, 0, -1},
    {"cooldown-factor", K_DOUBLE, O(cooldown_factor), 0, 0, 0.0, F_COOLDOWN, 0, -1},
    {"plateau", K_LONG, O(plateau), 1, MAX_EPOCHS, 0, F_COOLDOWN, 0, -1},
    {"max-cooldowns", K_LONG, O(max_cooldowns), 0, 1000, 0, F_COOLDOWN, 0, -1},
    {"early-stop", K_LONG, O(early_stop), 1, MAX_EPOCHS, 0, F_TRAINS, -1, -1},
    {"keep-best", K_FLAG, O(keep_best), 0, 0, 0, F_TRAINS, -1, -1},
    {"eval-fresh", K_LONG, O(eval_fresh), 1, 1000000, 0, 0, 0, -1},
    {"restarts", K_LONG, O(restarts), 0, 100000, 0, 0, 0, -1},
    {"eval-scale", K_LONG, O(eval_scale), 1, 16, 0, 0, 0, -1},
    {"repair", K_LONG, O(repair), 0, 100, 0, 0, 0, -1},
    {"restart-from", K_LONG, O(restart_from), 0, 100000, 0, 0, 0, -1},
    {"jobs", K_LONG, O(jobs), 1, 256, 0, 0, 0, -1},
    {"population", K_LONG, O(population), 0, 65536L, 0, 0, 0, -1},
    {"max-models", K_LONG, O(max_models), 1, 100000000L, 0, 0, 0, -1},
    {"compiled-wires", K_FLAG, O(compiled_wires), 0, 0, 0, 0, 0, -1},
    {"measure", K_FLAG, O(measure), 0, 0, 0, 0, 0, -1},
    {"pbt", K_STR, O(pbt), 0, 0, 0, 0, 0, -1},
    {"lr-jitter", K_NONNEG, O(lr_jitter), 0, 0, 0, 0, 0, -1},
    {"temperature-jitter", K_NONNEG, O(temperature_jitter), 0, 0, 0, 0, 0, -1},
    {"gumbel-jitter", K_NONNEG, O(gumbel_jitter), 0, 0, 0, 0, 0, -1},
    {"runs", K_STR, O(runs), 0, 0, 0, 0, 0, -1},
    {"abandon", K_OTHER, 0, 0, 0, 0, F_TRAINS, -1, -1},
    {"evolve", K_LONG, O(evolve), 0, 1000000000L, 0, 0, 0, -1},
    {"evolve-lineages", K_LONG, O(evolve_lineages), 1, 65536L, 0, 0, 0, -1},
    {"evolve-lambda", K_LONG, O(evolve_lambda), 1, 65536L, 0, 0, 0, -1},
    {"evolve-changes", K_LONG, O(evolve_changes), 1, 64, 0, 0, 0, -1},
    {"evolve-max-wrong", K_LONG, O(evolve_max_wrong), 0, 1000000000L, 0, 0, 0, G(evolve_max_wrong_given)},
    {"repair-max-wrong", K_LONG, O(repair_max_wrong), 0, 1000000000L, 0, 0, 0, G(repair_max_wrong_given)},
    {"rescale-logits", K_DOUBLE, O(rescale_logits), 0, 0, 0.0, 0, 0, -1},
    {"reference-protocol", K_FLAG, O(reference_protocol), 0, 0, 0, 0, 0, -1},
    {"temperature", K_DOUBLE, O(temperature), 0, 0, 0.0, F_TRAINS, 1, -1},
    {"gumbel", K_NONNEG, O(gumbel), 0, 0, 0, F_TRAINS, 0, -1},
    {"straight-through", K_FLAG, O(straight_through), 0, 0, 0, F_TRAINS, -1, -1},
    {"grad-noise", K_NONNEG, O(grad_noise), 0, 0, 0, F_TRAINS, 0, -1},
    {"optimizer", K_OTHER, 0, 0, 0, 0, F_TRAINS, 0, -1},
    {"clip", K_NUMBER, O(clip), 0, 0, 0, 0, 0, -1},
    {"momentum", K_NUMBER, O(momentum), 0, 0, 0, 0, 0, -1},
    {"dampening", K_NUMBER, O(dampening), 0, 0, 0, 0, 0, -1},
    {"nesterov", K_FLAG, O(nesterov), 0, 0, 0, 0, 0, -1},
    {"beta1", K_NUMBER, O(beta1), 0, 0, 0, 0, 0, -1},
    {"beta2", K_NUMBER, O(beta2), 0, 0, 0, 0, 0, -1},
    {"eps", K_NUMBER, O(eps), 0, 0, 0, 0, 0, -1},
    {"weight-decay", K_NUMBER, O(weight_decay), 0, 0, 0, 0, 0, -1},
    {"amsgrad", K_FLAG, O(amsgrad), 0, 0, 0, 0, 0, -1},
    {"alpha", K_NUMBER, O(alpha), 0, 0, 0, 0, 0, -1},
    {"centered", K_FLAG, O(centered), 0, 0, 0, 0, 0, -1},
    {"lr-decay", K_NUMBER, O(lr_decay), 0, 0, 0, 0, 0, -1},
    {"initial-accumulator", K_NUMBER, O(initial_accumulator), 0, 0, 0, 0, 0, -1},
    {"recipe", K_OTHER, 0, 0, 0, 0, 0, 0, -1},
    {"param", K_OTHER, 0, 0, 0, 0, 0, 0, -1},
    {"iwp-init", K_DOUBLE, O(iwp_init), 0, 0, 0.0, 0, 0, -1},
    {"quiet", K_FLAG, O(quiet), 0, 0, 0, 0, 0, -1},
    {"help", K_FLAG, O(help), 0, 0, 0, 0, 0, -1},
    {"version", K_FLAG, O(version), 0, 0, 0, 0, 0, -1},
};
#undef G
#define N_SPECS (sizeof specs / sizeof specs[0])

const train_hyper train_hypers[] = {
    {"momentum", "momentum", O(momentum), 0},   {"dampening", "dampening", O(dampening), 0},
    {"nesterov", "nesterov", O(nesterov), 1},   {"beta1", "beta1", O(beta1), 0},
    {"beta2", "beta2", O(beta2), 0},            {"eps", "eps", O(eps), 0},
    {"weight-decay", "weight_decay", O(weight_decay), 0}, {"amsgrad", "amsgrad", O(amsgrad), 1},
    {"alpha", "alpha", O(alpha), 0},            {"centered", "centered", O(centered), 1},
    {"lr-decay", "lr_decay", O(lr_decay), 0},
    {"initial-accumulator", "initial_accumulator_value", O(initial_accumulator), 0},
};
const size_t train_n_hypers = sizeof train_hypers / sizeof train_hypers[0];
#undef O

/* One of the choices in names[n], by name; -1 after printing why. */
static int choose(const char *opt, const char *arg, const char *const *names, int n, const char *expected) {
  for (int i = 0; i < n; i++)
    if (!strcmp(arg, names[i])) return i;
  fprintf(stderr, "%s: --%s: '%s' is %s\n", TRAIN_PROG, opt, arg, expected);
  return -1;
}

/* The options that are not a plain value; returns nonzero when bad. */
static int parse_other(const opt_spec *s, const char *arg, train_options *o) {
  static const char *const backends[] = {"cl", "ref"}, *const recipes[] = {"", "reference", "recommended"};
  static const char *const params[] = {"softmax16", "iwp"};
  static const char *const schedules[] = {"constant", "cosine", "warmup-cosine", "cooldown"};
  static const char *const optimizers[] = {"sgd", "adam", "adamw", "rmsprop", "adagrad"};
  int k = 0;
  if (!strcmp(s->name, "seed")) {
    unsigned long long v = 0;
    k = cli_parse_u64(TRAIN_PROG, "--seed", arg, &v);
    o->seed = v;
    return k;
  }
  if (!strcmp(s->name, "abandon")) return train_parse_abandon(arg, o);
  if (!strcmp(s->name, "optimizer")) {
    if ((k = choose(s->name, arg, optimizers, 5, "not adamw, adam, sgd, rmsprop or adagrad")) >= 0) o->optimizer = k;
    return k < 0;
  }
  int loop_schedule = 0;
  for (int i = 0; i < 4; i++) loop_schedule |= !strcmp(arg, schedules[i]);
  if (!strcmp(s->name, "lr-schedule") && !loop_schedule) {
    /* torch's schedules (step, exponential, cosine:..., onecycle, linear) and chains of them */
    dlca_loop_options lo;
    dlca_loop_options_default(&lo);
    if (dlca_loop_parse_lr_chain(arg, &lo)) {
      fprintf(stderr, "%s: --lr-schedule: %s (or constant, cosine, warmup-cosine, cooldown)\n", TRAIN_PROG,
              dlca_last_error());
      return 1;
    }
    o->lr_schedule = TRAIN_LR_CHAIN, o->lr_chain = arg;
    return 0;
  }
  if (!strcmp(s->name, "backend")) {
    if ((k = choose(s->name, arg, backends, 2, "neither cl nor ref")) >= 0) o->backend_ref = k;
  } else if (!strcmp(s->name, "recipe")) {
    if ((k = choose(s->name, arg, recipes + 1, 2, "not reference or recommended")) >= 0) o->recipe = k + 1;
  } else if (!strcmp(s->name, "param")) {
    if ((k = choose(s->name, arg, params, 2, "neither softmax16 nor iwp")) >= 0)
      o->param = k ? DLCA_PARAM_IWP : DLCA_PARAM_SOFTMAX16;
  } else if ((k = choose(s->name, arg, schedules, 4, "not constant, cosine, warmup-cosine or cooldown")) >= 0) {
    o->lr_schedule = k;
  }
  return k < 0;
}

/* The value of a number option, for the checks below. */
static double value_of(const opt_spec *s, const train_options *o) {
  const char *p = (const char *)o + s->off;
  if (!strcmp(s->name, "lr-schedule")) return o->lr_schedule;
  if (!strcmp(s->name, "optimizer")) return o->optimizer != DLCA_OPTIM_ADAMW;
  if (s->kind == K_LONG) return (double)*(const long *)(const void *)p;
  if (s->kind == K_DOUBLE || s->kind == K_NONNEG || s->kind == K_NUMBER) return *(const double *)(const void *)p;
  return 0;
}

/* The limits some options add to their kind's. */
static int check_range(const opt_spec *s, const char *arg, double v) {
  const char *why = NULL;
  if (!strcmp(s->name, "cooldown-factor") && v >= 1) why = "'%s' is not below 1";
  else if (!strcmp(s->name, "temperature") && v < 1e-3) why = "%s is below 0.001";
  else if (!strcmp(s->name, "iwp-init") && !(v <= 1e6)) why = "%s is above 1e6";
  else if ((s->kind == K_DOUBLE || s->kind == K_NONNEG || s->kind == K_NUMBER) && !isfinite((float)v))
    why = "%s overflows a 32-bit float (the library's lr, temperature and logits are floats)";
  if (!why) return 0;
  fprintf(stderr, "%s: --%s: ", TRAIN_PROG, s->name);
  fprintf(stderr, why, arg);
  fputc('\n', stderr);
  return 1;
}

/* A finite number of any sign; nonzero after printing why. */
static int parse_number(const char *opt, const char *arg, double *out) {
  char *end;
  errno = 0;
  double v = strtod(arg, &end);
  if (errno || end == arg || *end || !isfinite(v)) {
    fprintf(stderr, "%s: %s: '%s' is not a number\n", TRAIN_PROG, opt, arg);
    return 1;
  }
  *out = v;
  return 0;
}

/* Parses the value of option s; returns nonzero after printing why. */
static int parse_one(const opt_spec *s, const char *arg, train_options *o) {
  char *p = (char *)o + s->off, opt[64];
  snprintf(opt, sizeof opt, "--%s", s->name);
  int bad = 0;
  switch (s->kind) {
    case K_STR: *(const char **)(void *)p = arg; break;
    case K_FLAG: *(int *)(void *)p = 1; break;
    case K_LONG: bad = cli_parse_long(TRAIN_PROG, opt, arg, s->lo, s->hi, (long *)(void *)p); break;
    case K_DOUBLE: bad = cli_parse_double(TRAIN_PROG, opt, arg, s->above, (double *)(void *)p); break;
    case K_NUMBER: bad = parse_number(opt, arg, (double *)(void *)p); break;
    case K_NONNEG:
      bad = !strcmp(s->name, "min-lr") ? cli_parse_double(TRAIN_PROG, opt, arg, -INFINITY, (double *)(void *)p)
                                       : cli_parse_nonneg(TRAIN_PROG, opt, arg, (double *)(void *)p);
      if (!bad && *(double *)(void *)p < 0) {
        fprintf(stderr, "%s: --%s: '%s' is negative\n", TRAIN_PROG, s->name, arg);
        bad = 1;
      }
      break;
    default: bad = parse_other(s, arg, o);
  }
  if (s->given >= 0) *(int *)(void *)((char *)o + s->given) = 1;
  return bad || check_range(s, arg, value_of(s, o));
}

static void set_defaults(train_options *o) {
  memset(o, 0, sizeof *o);
  o->epochs = o->batch = o->steps = -1;
  o->eval_every = 10;
  o->checkpoint_every = 100;
  o->warmup = -1;
  o->cooldown_factor = 0.1;
  o->plateau = 100;
  o->max_cooldowns = 2;
  o->repair = -1;           /* the recipe's, else none */
  o->evolve = -1;           /* the recipe's, else none */
  o->evolve_max_wrong = -1; /* any, unless the recipe's evolution says */
  o->repair_max_wrong = -1; /* any, unless the recipe's repair says */
  o->evolve_lineages = 64, o->evolve_lambda = 4, o->evolve_changes = 3;
  o->jobs = 1;
  o->temperature = o->gumbel = -1;
  o->param = -1;
  o->population = -1;       /* the recipe's where the run is the default one (default_population) */
  o->optimizer = -1;
  o->momentum = o->dampening = o->beta1 = o->beta2 = o->eps = o->weight_decay = NAN;
  o->alpha = o->lr_decay = o->initial_accumulator = o->clip = NAN;
}

/* One line on stderr and the usage exit code. */
static int usage(const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s: ", TRAIN_PROG);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return CLI_USAGE;
}

/* The recipe's population (dlca_recipe.population) where the run is the
 * default one, training until a circuit works: on an OpenCL device, with
 * the recommended recipe, and none of the options of one run of a given
 * length or start (--epochs, --checkpoint, --resume, --model) or of a
 * chain (--restarts); otherwise a single run. */
static long default_population(const train_options *o) {
  if (o->backend_ref || o->recipe == TRAIN_RECIPE_REFERENCE || o->reference_protocol || o->epochs >= 0 ||
      o->restarts > 0 || o->jobs > 1 || o->resume || o->model || o->checkpoint || !o->preset)
    return 0;
  const dlca_recipe *q;
  return dlca_recipe_for(o->preset, o->param < 0 ? DLCA_PARAM_SOFTMAX16 : o->param, &q) ? 0 : q->population;
}

/* --population and its options: the default, what goes with it, its criterion. */
static int check_population(train_options *o) {
  o->population_given = o->population >= 0;
  if (o->population < 0) o->population = default_population(o), o->population_default = o->population > 0;
  if (o->population > 0 && (o->restarts > 0 || o->jobs > 1 || o->resume || o->model || o->checkpoint))
    return usage("--population: trains fresh models side by side; not with --restarts, --jobs, --resume, --model "
                 "or --checkpoint");
  const char *pop_only = o->max_models > 0 ? "max-models" : o->compiled_wires ? "compiled-wires"
                         : o->measure ? "measure" : o->runs ? "runs" : o->lr_jitter > 0 ? "lr-jitter"
                         : o->temperature_jitter > 0 ? "temperature-jitter"
                         : o->gumbel_jitter > 0 ? "gumbel-jitter" : NULL;
  if (pop_only && o->population == 0) return usage("--%s: only with --population", pop_only);
  if (o->pbt && o->population == 0) return usage("--pbt: only with --population");
  if (o->pbt && o->measure) return usage("--pbt: copies models into others, but --measure trains single runs");
  char end;
  if (o->pbt && (sscanf(o->pbt, "%ld:%lf%c", &o->pbt_every, &o->pbt_fraction, &end) != 2 || o->pbt_every < 1 ||
                 !(o->pbt_fraction > 0 && o->pbt_fraction <= 0.5)))
    return usage("--pbt: '%s' is not EVERY:FRACTION, EVERY >= 1 steps and FRACTION in (0, 0.5]", o->pbt);
  if (o->lr_jitter > 20 || o->temperature_jitter > 20 || o->gumbel_jitter > 20)
    return usage("--lr-jitter, --temperature-jitter, --gumbel-jitter: at most 20");
  if (o->measure && (o->max_models > 0 || o->save || o->log))
    return usage("--measure: every model trains to its end and none is replaced; not with --max-models, --save "
                 "or --log (the per-seed results go to --runs FILE)");
  /* a population's criterion (issue 34): the checkerboard also exact on 64x64 for 80 steps */
  if (o->population > 0 && o->eval_scale == 0 && o->preset && !strcmp(o->preset, "checkerboard"))
    o->eval_scale = 4;
  if (o->population > 0 && o->eval_fresh == 0) o->eval_fresh = 100; /* what decides the winner */
  return 0;
}

/* The options that exclude or need each other. */
static int check_combinations(train_options *o, const opt_spec *cooldown_only, const opt_spec *changes_training) {
  if (!o->preset) return usage("--preset: missing; one of gol, checkerboard, checkerboard-async, growth, colour");
  if (o->reference_protocol && o->recipe == TRAIN_RECIPE_RECOMMENDED)
    return usage("--recipe recommended: contradicts --reference-protocol");
  if (o->reference_protocol) o->recipe = TRAIN_RECIPE_REFERENCE;
  if (o->reference_protocol && changes_training)
    return usage("--%s: the reference protocol trains with a constant lr, no early stop, no --keep-best and no "
                 "relaxation", changes_training->name);
  if (o->min_lr > 0 && o->lr_schedule == TRAIN_LR_CONSTANT)
    return usage("--min-lr: only with --lr-schedule cosine, warmup-cosine or cooldown");
  if (o->min_lr > 0 && o->lr_schedule == TRAIN_LR_CHAIN)
    return usage("--min-lr: not with torch's schedules; give cosine its eta_min (--lr-schedule cosine:eta_min=X)");
  if (cooldown_only && o->lr_schedule != TRAIN_LR_COOLDOWN)
    return usage("--%s: only with --lr-schedule cooldown", cooldown_only->name);
  if (o->iwp_init > 0 && o->param != DLCA_PARAM_IWP) return usage("--iwp-init: only with --param iwp");
  if (o->iwp_init > 0 && o->model) return usage("--iwp-init: initialises a fresh model, but --model gives one");
  if (o->rescale_logits > 0 && (!o->model || o->resume))
    return usage("--rescale-logits: needs --model (and not --resume)");
  if (o->restarts > 0 && (o->resume || o->model))
    return usage("--restarts: trains fresh models with new seeds, but %s gives the start",
                 o->resume ? "--resume" : "--model");
  if (o->restart_from > 0 && o->restarts == 0)
    return usage("--restart-from: goes on with a chain of --restarts, which is not given");
  if (o->jobs > 1 && o->restarts == 0)
    return usage("--jobs: runs the runs of a chain of --restarts side by side, which is not given");
  if (o->restarts > 0 && o->eval_fresh == 0) o->eval_fresh = 100; /* what decides a restart */
  int rc = check_population(o);
  if (rc) return rc;
  if (o->backend_ref && o->device) return usage("--device: chooses an OpenCL device, but --backend is ref");
  return 0;
}

int train_options_parse(int argc, char **argv, train_options *o) {
  struct option longs[N_SPECS + 1];
  for (size_t i = 0; i < N_SPECS; i++) {
    const int flag = specs[i].kind == K_FLAG;
    longs[i] = (struct option){specs[i].name, flag ? no_argument : required_argument, NULL, 256 + (int)i};
  }
  memset(&longs[N_SPECS], 0, sizeof longs[N_SPECS]);
  set_defaults(o);
  /* which cooldown-only or training-changing options were given, for the checks */
  const opt_spec *cooldown_only = NULL, *changes_training = NULL;
  opterr = 0; /* getopt's own messages do not follow "dlca-train: what: why" */
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, ":hqV", longs, NULL)) != -1) {
    const char *name = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    if (c == 'q' || c == 'h' || c == 'V') /* the table ends with quiet, help, version */
      c = 256 + (int)N_SPECS - (c == 'q' ? 3 : c == 'h' ? 2 : 1);
    if (c == ':') return usage("%s: needs a value (see --help)", name);
    if (c < 256 || c >= 256 + (int)N_SPECS) return usage("%s: unknown option (see --help)", name);
    const opt_spec *s = &specs[c - 256];
    if (parse_one(s, optarg, o)) return CLI_USAGE;
    if ((s->flags & F_TRAINS) && value_of(s, o) != s->neutral) changes_training = s;
    if (s->flags & F_COOLDOWN) cooldown_only = s;
  }
  if (o->help || o->version) return 0;
  if (optind < argc)
    return usage("%s: unexpected argument; options start with -- (see --help)", argv[optind]);
  return check_combinations(o, cooldown_only, changes_training);
}
