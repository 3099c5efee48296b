/* dlca-recipes: which training recipe gives a working hard circuit, and how
 * fast? Trains a checkerboard task with each recipe (a schedule and a
 * relaxation, issue 6) on several seeds and reports, per run, the first
 * epoch at which the hard circuit is right on every fresh start grid, and
 * per recipe how many seeds got there. Public API and jansson only.
 * Usage: --help, or doc/training.md. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "dlca_cl.h"
#include "cli.h"
#include "outfile.h"

#define PROG "dlca-recipes"
#define MAX_SEEDS 64
#define MAX_RECIPES 64

typedef struct recipe {
  const char *name, *what;
  int cooldown;     /* lr x 0.1 when the training batch's hard loss reaches 0, at most twice */
  int batch;        /* 0: the task's */
  dlca_relax relax;
  float t_final;    /* > 0: the temperature goes linearly from relax.temperature to this */
  long anneal;      /* over this many epochs */
  long st_at;       /* > 0: straight-through from this epoch on */
  int param;        /* DLCA_PARAM_*: the gate parametrisation (issue 6) */
  float iwp_init;   /* IWP: the pass-through strength z of (-z, -z, z, z); 0: the default */
} recipe;

#define R(n, w, cd, b, T, G, ST, GN) {.name = n, .what = w, .cooldown = cd, .batch = b, .relax = {T, G, ST, GN}}
static const recipe recipes[] = {
    R("reference", "constant lr, the paper's protocol", 0, 0, 0, 0, 0, 0),
    R("cooldown", "lr x 0.1 when the hard loss reaches 0 (at most twice)", 1, 0, 0, 0, 0, 0),
    R("gumbel-0.5", "cooldown + Gumbel noise 0.5", 1, 0, 0, 0.5f, 0, 0),
    R("gumbel-1", "cooldown + Gumbel noise 1", 1, 0, 0, 1.0f, 0, 0),
    R("gumbel-2", "cooldown + Gumbel noise 2", 1, 0, 0, 2.0f, 0, 0),
    R("st-gumbel-1", "cooldown + straight-through + Gumbel noise 1", 1, 0, 0, 1.0f, 1, 0),
    R("temp-0.5", "cooldown + temperature 0.5", 1, 0, 0.5f, 0, 0, 0),
    R("temp-2", "cooldown + temperature 2", 1, 0, 2.0f, 0, 0, 0),
    R("temp-3", "cooldown + temperature 3", 1, 0, 3.0f, 0, 0, 0),
    R("temp-4", "cooldown + temperature 4", 1, 0, 4.0f, 0, 0, 0),
    R("temp-2-gumbel-0.5", "cooldown + temperature 2 + Gumbel noise 0.5", 1, 0, 2.0f, 0.5f, 0, 0),
    R("temp-2-gumbel-0.25", "cooldown + temperature 2 + Gumbel noise 0.25", 1, 0, 2.0f, 0.25f, 0, 0),
    R("temp-2-gumbel-1", "cooldown + temperature 2 + Gumbel noise 1", 1, 0, 2.0f, 1.0f, 0, 0),
    R("temp-1.5-gumbel-0.5", "cooldown + temperature 1.5 + Gumbel noise 0.5", 1, 0, 1.5f, 0.5f, 0, 0),
    R("temp-3-gumbel-0.5", "cooldown + temperature 3 + Gumbel noise 0.5", 1, 0, 3.0f, 0.5f, 0, 0),
    R("temp-2-gumbel-0.5-constant", "constant lr + temperature 2 + Gumbel noise 0.5", 0, 0, 2.0f, 0.5f, 0, 0),
    R("temp-2-batch-8", "cooldown + temperature 2, batch 8", 1, 8, 2.0f, 0, 0, 0),
    R("temp-2-reference", "constant lr + temperature 2", 0, 0, 2.0f, 0, 0, 0),
    R("st-temp-4", "cooldown + straight-through + temperature 4", 1, 0, 4.0f, 0, 1, 0),
    {.name = "anneal-4-1", .what = "cooldown + temperature 4 -> 1 linearly over 1500 epochs", .cooldown = 1,
     .relax = {4.0f, 0, 0, 0}, .t_final = 1.0f, .anneal = 1500},
    {.name = "anneal-2-0.5", .what = "cooldown + temperature 2 -> 0.5 linearly over 1500 epochs", .cooldown = 1,
     .relax = {2.0f, 0, 0, 0}, .t_final = 0.5f, .anneal = 1500},
    {.name = "temp-2-st-1000", .what = "cooldown + temperature 2, straight-through from epoch 1000", .cooldown = 1,
     .relax = {2.0f, 0, 0, 0}, .st_at = 1000},
    R("grad-noise", "cooldown + gradient noise eta 0.01", 1, 0, 0, 0, 0, 0.01f),
    R("batch-8", "cooldown, batch 8", 1, 8, 0, 0, 0, 0),
    R("gumbel-1-batch-8", "cooldown + Gumbel noise 1, batch 8", 1, 8, 0, 1.0f, 0, 0),
    R("temp-2-gumbel-0.5-batch-8", "cooldown + temperature 2 + Gumbel noise 0.5, batch 8", 1, 8, 2.0f, 0.5f, 0, 0),
    R("temp-2-batch-32", "cooldown + temperature 2, batch 32", 1, 32, 2.0f, 0, 0, 0),
    R("reference-batch-32", "constant lr, batch 32", 0, 32, 0, 0, 0, 0),
/* Issue 6, the input-wise parametrisation: 4 logits per gate, initialised to
 * pass-through A as (-z, -z, z, z); "logistic" is its Gumbel noise. */
#define RI(n, w, cd, z, T, G, ST) \
  {.name = n, .what = w, .cooldown = cd, .relax = {T, G, ST, 0}, .param = DLCA_PARAM_IWP, .iwp_init = z}
    RI("iwp-z1", "IWP, z = 1, constant lr", 0, 1.0f, 0, 0, 0),
    RI("iwp-z2", "IWP, z = 2, constant lr", 0, 2.0f, 0, 0, 0),
    RI("iwp-z3", "IWP, z = 3, constant lr", 0, 3.0f, 0, 0, 0),
    RI("iwp-z4", "IWP, z = 4, constant lr", 0, 4.0f, 0, 0, 0),
    RI("iwp-z5", "IWP, z = 5, constant lr", 0, 5.0f, 0, 0, 0),
    RI("iwp-z3-cooldown", "IWP, z = 3, cooldown", 1, 3.0f, 0, 0, 0),
    RI("iwp-z3-temp-2", "IWP, z = 3, cooldown + temperature 2", 1, 3.0f, 2.0f, 0, 0),
    RI("iwp-z5-temp-2", "IWP, z = 5, cooldown + temperature 2", 1, 5.0f, 2.0f, 0, 0),
    RI("iwp-z3-logistic-0.5", "IWP, z = 3, cooldown + logistic noise 0.5", 1, 3.0f, 0, 0.5f, 0),
    RI("iwp-z3-temp-2-logistic-0.5", "IWP, z = 3, cooldown + temperature 2 + logistic noise 0.5", 1, 3.0f, 2.0f,
       0.5f, 0),
    RI("iwp-z3-st", "IWP, z = 3, cooldown + straight-through", 1, 3.0f, 0, 0, 1),
};
#undef RI
#undef R
#define N_RECIPES (int)(sizeof recipes / sizeof recipes[0])

static const char help_text[] =
    "NAME\n"
    "    dlca-recipes - compare training recipes by how often and how fast they\n"
    "    give a hard circuit that is right on every fresh start grid\n"
    "\n"
    "SYNOPSIS\n"
    "    dlca-recipes [--task reduced|checkerboard|checkerboard-async]\n"
    "                 [--recipes LIST] [--seeds LIST] [--epochs N] [OPTION...]\n"
    "\n"
    "DESCRIPTION\n"
    "    For every recipe and seed: a fresh model (the seed seeds the wiring, the\n"
    "    start grids and the noise), trained up to --epochs. Every --eval-every\n"
    "    epochs the hard circuit is evaluated on the epoch's batch; when that is\n"
    "    right, on --fresh batches of fresh start grids (and fire masks). The run\n"
    "    succeeds at the first epoch where every fresh cell is right.\n"
    "\n"
    "    Tasks: reduced (default) is a small checkerboard that trains in seconds\n"
    "    on a CPU: 4 channels, 4 kernels, perception [9,8,4,2], update\n"
    "    [36,64,64,32,16,8,4], an 8x8 grid, 8 steps, batch 2, loss on channel 0.\n"
    "    checkerboard and checkerboard-async are the paper's presets.\n"
    "\n"
    "RECIPES\n"
    "    reference, cooldown, gumbel-0.5, gumbel-1, gumbel-2, st-gumbel-1,\n"
    "    temp-0.5, temp-2, temp-3, temp-4, temp-2-gumbel-0.5, temp-2-gumbel-0.25,\n"
    "    temp-2-gumbel-1, temp-1.5-gumbel-0.5, temp-3-gumbel-0.5,\n"
    "    temp-2-gumbel-0.5-constant, temp-2-batch-8,\n"
    "    temp-2-reference, st-temp-4, anneal-4-1, anneal-2-0.5, temp-2-st-1000,\n"
    "    grad-noise, batch-8, gumbel-1-batch-8, temp-2-gumbel-0.5-batch-8,\n"
    "    temp-2-batch-32, reference-batch-32; input-wise gates (issue 6):\n"
    "    iwp-z1, iwp-z2, iwp-z3, iwp-z4, iwp-z5, iwp-z3-cooldown, iwp-z3-temp-2,\n"
    "    iwp-z5-temp-2, iwp-z3-logistic-0.5, iwp-z3-temp-2-logistic-0.5, iwp-z3-st\n"
    "    (--list says what each is); default: all\n"
    "\n"
    "OPTIONS\n"
    "    --task NAME          the task (default reduced)\n"
    "    --recipes LIST       comma-separated recipe names (default: all)\n"
    "    --seeds LIST         comma-separated seeds (default 1,2,3,4,5)\n"
    "    --epochs N           at most N epochs per run (default 3000)\n"
    "    --eval-every N       (default 20)\n"
    "    --fresh N            fresh batches of the success test (default 10)\n"
    "    --backend cl|ref     OpenCL or the CPU reference (default ref)\n"
    "    --device SPEC        OpenCL device (default: $DLCA_CL_DEVICE, else the best)\n"
    "    --json FILE          every run and the per-recipe summary as JSON\n"
    "    --markdown FILE      append the per-recipe summary rows to FILE\n"
    "    --save-dir DIR       save each run's final model as DIR/TASK-RECIPE-sSEED.json\n"
    "                         for dlca-eval (DIR is created if missing)\n"
    "    --list               the recipes and what they do\n"
    "    --quiet              no per-run lines on stderr\n"
    "    -h, --help           this text\n"
    "    -V, --version        the library version\n"
    "\n"
    "ENVIRONMENT\n"
    "    DLCA_CL_DEVICE       the default --device\n"
    "    DLCA_CL_KERNEL_PATH  directories searched for kernel sources before the\n"
    "                         installed ones (run from the build tree: the source\n"
    "                         tree's kernels-cl); see dlca-info(1)\n"
    "\n"
    "EXIT STATUS\n"
    "    0    done (whatever the outcome)\n"
    "    1    a run failed, or an output file could not be written\n"
    "    2    bad option, task, recipe or device spec\n"
    "\n"
    "EXAMPLES\n"
    "    dlca-recipes --recipes cooldown,gumbel-1 --seeds 1,2,3,4,5 --json r.json\n";

typedef struct options {
  const char *task, *device, *json, *markdown, *save_dir;
  int recipe[MAX_RECIPES], n_recipes;
  long seeds[MAX_SEEDS];
  int n_seeds;
  long epochs, eval_every, fresh;
  int backend_ref, quiet;
} options;

typedef struct result {
  int recipe;
  long seed;
  long success_epoch; /* -1: not reached */
  long epochs_run;
  double fresh_accuracy; /* at the end, on --fresh batches */
  size_t active_gates, n_gates;
  double wall_s;
} result;

static int find_recipe(const char *name) {
  for (int i = 0; i < N_RECIPES; i++)
    if (!strcmp(recipes[i].name, name)) return i;
  return -1;
}

/* --task: reduced, checkerboard or checkerboard-async; nonzero after printing why. */
static int parse_task(const char *arg, options *o) {
  if (strcmp(arg, "reduced") && strcmp(arg, "checkerboard") && strcmp(arg, "checkerboard-async"))
    return fprintf(stderr, "%s: --task: '%s' is not reduced, checkerboard or checkerboard-async\n", PROG, arg), 1;
  o->task = arg;
  return 0;
}

/* --recipes: a comma-separated list of names (--list). */
static int parse_recipes(const char *arg, options *o) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", arg);
  o->n_recipes = 0;
  for (char *s = strtok(buf, ","); s; s = strtok(NULL, ",")) {
    int r = find_recipe(s);
    if (r < 0 || o->n_recipes == MAX_RECIPES)
      return fprintf(stderr, "%s: --recipes: unknown recipe '%s' (see --list)\n", PROG, s), 1;
    o->recipe[o->n_recipes++] = r;
  }
  return 0;
}

/* --seeds: a comma-separated list of at most MAX_SEEDS seeds. */
static int parse_seeds(const char *arg, options *o) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", arg);
  o->n_seeds = 0;
  for (char *s = strtok(buf, ","); s; s = strtok(NULL, ",")) {
    if (o->n_seeds == MAX_SEEDS) return fprintf(stderr, "%s: --seeds: at most %d\n", PROG, MAX_SEEDS), 1;
    if (cli_parse_long(PROG, "--seeds", s, 0, 1L << 40, &o->seeds[o->n_seeds++])) return 1;
  }
  if (!o->n_seeds) return fprintf(stderr, "%s: --seeds: empty\n", PROG), 1;
  return 0;
}

static int parse_backend(const char *arg, options *o) {
  if (!strcmp(arg, "ref")) o->backend_ref = 1;
  else if (!strcmp(arg, "cl")) o->backend_ref = 0;
  else return fprintf(stderr, "%s: --backend: '%s' is not cl or ref\n", PROG, arg), 1;
  return 0;
}

static int parse(int argc, char **argv, options *o) {
  enum { O_TASK = 256, O_RECIPES, O_SEEDS, O_EPOCHS, O_EVERY, O_FRESH, O_BACKEND, O_DEVICE, O_JSON, O_MD, O_LIST,
         O_QUIET, O_HELP, O_VERSION, O_SAVE };
  static const struct option lo[] = {
      {"task", 1, NULL, O_TASK},       {"recipes", 1, NULL, O_RECIPES}, {"seeds", 1, NULL, O_SEEDS},
      {"epochs", 1, NULL, O_EPOCHS},   {"eval-every", 1, NULL, O_EVERY}, {"fresh", 1, NULL, O_FRESH},
      {"backend", 1, NULL, O_BACKEND}, {"device", 1, NULL, O_DEVICE},   {"json", 1, NULL, O_JSON},
      {"markdown", 1, NULL, O_MD},     {"list", 0, NULL, O_LIST},       {"quiet", 0, NULL, O_QUIET},
      {"help", 0, NULL, O_HELP},       {"version", 0, NULL, O_VERSION}, {"save-dir", 1, NULL, O_SAVE},
      {NULL, 0, NULL, 0}};
  memset(o, 0, sizeof *o);
  o->task = "reduced", o->epochs = 3000, o->eval_every = 20, o->fresh = 10, o->backend_ref = 1;
  for (int i = 0; i < 5; i++) o->seeds[i] = i + 1;
  o->n_seeds = 5;
  for (int i = 0; i < N_RECIPES; i++) o->recipe[i] = i;
  o->n_recipes = N_RECIPES;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, ":hV", lo, NULL)) != -1) {
    const char *name = optind > 1 ? argv[optind - 1] : "?";
    int bad = 0;
    switch (c) {
      case O_TASK: bad = parse_task(optarg, o); break;
      case O_RECIPES: bad = parse_recipes(optarg, o); break;
      case O_SEEDS: bad = parse_seeds(optarg, o); break;
      case O_EPOCHS: bad = cli_parse_long(PROG, "--epochs", optarg, 1, 10000000, &o->epochs); break;
      case O_EVERY: bad = cli_parse_long(PROG, "--eval-every", optarg, 1, 10000000, &o->eval_every); break;
      case O_FRESH: bad = cli_parse_long(PROG, "--fresh", optarg, 1, 100000, &o->fresh); break;
      case O_BACKEND: bad = parse_backend(optarg, o); break;
      case O_DEVICE: o->device = optarg, o->backend_ref = 0; break;
      case O_JSON: o->json = optarg; break;
      case O_MD: o->markdown = optarg; break;
      case O_SAVE: o->save_dir = optarg; break;
      case O_LIST:
        for (int i = 0; i < N_RECIPES; i++) printf("%-26s %s\n", recipes[i].name, recipes[i].what);
        exit(0);
      case O_QUIET: o->quiet = 1; break;
      case 'h':
      case O_HELP: fputs(help_text, stdout); exit(CLI_OK);
      case 'V':
      case O_VERSION: exit(cli_print_version(PROG, dlca_version_string()));
      case ':': fprintf(stderr, "%s: %s: needs a value (see --help)\n", PROG, name); return CLI_USAGE;
      default: fprintf(stderr, "%s: %s: unknown option (see --help)\n", PROG, name); return CLI_USAGE;
    }
    if (bad) return CLI_USAGE;
  }
  if (optind < argc) {
    fprintf(stderr, "%s: %s: unexpected argument (see --help)\n", PROG, argv[optind]);
    return 2;
  }
  if (o->save_dir && mkdir(o->save_dir, 0777) && errno != EEXIST) {
    fprintf(stderr, "%s: --save-dir %s: cannot create it: %s\n", PROG, o->save_dir, strerror(errno));
    return 2;
  }
  return 0;
}

/* The task's model (in the recipe's parametrisation) and configuration for one seed. */
static int task_setup(const options *o, const recipe *rp, long seed, dlca_model **m, dlca_train_config *cfg) {
  dlca_preset p;
  if (!strcmp(o->task, "reduced")) {
    if (dlca_preset_get("checkerboard", &p)) return DLCA_EINVAL;
    static const int ul[] = {36, 64, 64, 32, 16, 8, 4};
    p.shape.channels = 4, p.shape.n_kernels = 4;
    p.shape.n_update_layers = 7;
    memcpy(p.shape.update_layers, ul, sizeof ul);
    p.height = p.width = 8, p.steps = 8, p.batch = 2;
  } else if (dlca_preset_get(o->task, &p)) {
    return DLCA_EINVAL;
  }
  p.shape.parametrisation = (dlca_parametrisation)rp->param;
  int rc = dlca_model_new(&p.shape, (uint64_t)seed, m);
  if (rc) return rc;
  if (rp->iwp_init > 0 && (rc = dlca_model_init_pass_through(*m, rp->iwp_init))) return rc;
  dlca_train_config_from_preset(&p, cfg);
  cfg->seed = (uint64_t)seed;
  return DLCA_OK;
}

static int fail(const char *what, int rc) {
  fprintf(stderr, "%s: %s: %s\n", PROG, what, dlca_last_error());
  return rc;
}

/* The checkerboard target of the model's channels; 0, or 1 after a message. */
static int set_target(dlca_trainer *t, const dlca_train_config *cfg, const dlca_model *m) {
  dlca_model_shape sh;
  dlca_model_get_shape(m, &sh);
  float *y = calloc((size_t)cfg->height * cfg->width * sh.channels, sizeof(float));
  if (!y) return fprintf(stderr, "%s: target: out of memory\n", PROG), 1;
  dlca_target_checkerboard(cfg->height, cfg->width, sh.channels, y);
  int rc = dlca_trainer_set_target(t, y, 0);
  free(y);
  return rc ? fail("target", 1) : 0;
}

/* The recipe's relaxation for epoch e: an annealed temperature, or
 * straight-through from epoch st_at on. */
static int schedule_relax(dlca_trainer *t, const recipe *rp, long e) {
  if (!(rp->t_final > 0 || (rp->st_at > 0 && e == rp->st_at))) return 0;
  dlca_relax x = dlca_trainer_relax(t);
  if (rp->t_final > 0) {
    double f = e - 1 >= rp->anneal ? 1.0 : (double)(e - 1) / (double)rp->anneal;
    x.temperature = (float)(rp->relax.temperature + f * (rp->t_final - rp->relax.temperature));
  }
  if (rp->st_at > 0 && e >= rp->st_at) x.straight_through = 1;
  return dlca_trainer_set_relax(t, &x) ? fail("relaxation", 1) : 0;
}

/* Up to --epochs epochs, until the hard circuit is right on the fresh
 * batches (out->success_epoch); the recipe's cooldown on the way. */
static int train_epochs(const options *o, dlca_trainer *t, const recipe *rp, long seed, result *out) {
  int cooldowns = 0;
  double last_hard = -1;
  for (long e = 1; e <= o->epochs; e++) {
    if (schedule_relax(t, rp, e)) return 1;
    if (dlca_trainer_step(t)) return fail("step", 1);
    out->epochs_run = e;
    if (e % o->eval_every) continue;
    dlca_eval ev, f;
    if (dlca_trainer_eval_hard(t, &ev)) return fail("evaluation", 1);
    if (ev.errors == 0) {
      if (dlca_trainer_eval_hard_fresh(t, 1000 + (uint64_t)seed, (int)o->fresh, &f)) return fail("fresh evaluation", 1);
      if (f.errors == 0) {
        out->success_epoch = e;
        return 0;
      }
      if (rp->cooldown && last_hard != 0 && cooldowns < 2) {
        int rc = dlca_trainer_set_lr(t, dlca_trainer_lr(t) * 0.1f);
        if (rc) return rc;
        cooldowns++;
      }
    }
    last_hard = (double)ev.errors;
  }
  return 0;
}

/* The trained circuit's fresh accuracy and gates, saved under --save-dir. */
static int finish_run(const options *o, dlca_trainer *t, const recipe *rp, long seed, result *out) {
  dlca_eval f;
  if (dlca_trainer_eval_hard_fresh(t, 1000 + (uint64_t)seed, (int)o->fresh, &f)) return fail("fresh evaluation", 1);
  out->fresh_accuracy = f.accuracy;
  dlca_model *tm;
  if (dlca_trainer_export_model(t, &tm)) return fail("export", 1);
  size_t hist[16];
  out->active_gates = dlca_model_gate_histogram(tm, hist);
  out->n_gates = dlca_model_n_gates(tm);
  int rc = 0;
  if (o->save_dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-%s-s%ld.json", o->save_dir, o->task, rp->name, seed);
    if (dlca_model_save(tm, path)) rc = fail("--save-dir", 1);
  }
  dlca_model_free(tm);
  return rc;
}

static int run_one(const options *o, dlca_context *ctx, int ri, long seed, result *out) {
  const recipe *rp = &recipes[ri];
  dlca_model *m = NULL;
  dlca_train_config cfg;
  dlca_trainer *t = NULL;
  if (task_setup(o, rp, seed, &m, &cfg)) return fail("model", 1);
  if (rp->batch) cfg.batch = rp->batch;
  cfg.relax = rp->relax;
  memset(out, 0, sizeof *out);
  out->recipe = ri, out->seed = seed, out->success_epoch = -1;
  double t0 = cli_now();
  int rc = dlca_trainer_new(ctx, m, &cfg, &t) ? fail("trainer", 1) : 0;
  if (!rc) rc = set_target(t, &cfg, m);
  if (!rc) rc = train_epochs(o, t, rp, seed, out);
  if (!rc) rc = finish_run(o, t, rp, seed, out);
  if (!rc) out->wall_s = cli_now() - t0;
  dlca_trainer_free(t);
  dlca_model_free(m);
  return rc;
}

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

/* "-" or the median epoch, for the tables. */
static const char *median_str(double med, char *buf, size_t n) {
  if (isnan(med)) snprintf(buf, n, "-");
  else snprintf(buf, n, "%.0f", med);
  return buf;
}

/* Successes and the median epoch of the successful runs of one recipe. */
static void summarise(const result *res, int n, int ri, int *succ, double *median, double *mean_acc) {
  long ep[MAX_SEEDS];
  int k = 0, all = 0;
  double acc = 0;
  for (int i = 0; i < n; i++)
    if (res[i].recipe == ri) {
      all++, acc += res[i].fresh_accuracy;
      if (res[i].success_epoch > 0) ep[k++] = res[i].success_epoch;
    }
  qsort(ep, (size_t)k, sizeof ep[0], cmp_long);
  *succ = k;
  *median = k ? (k % 2 ? (double)ep[k / 2] : 0.5 * (double)(ep[k / 2 - 1] + ep[k / 2])) : NAN;
  *mean_acc = all ? acc / all : NAN;
}

static int write_json(const char *path, const options *o, const result *res, int n, const char *device,
                      const char *command) {
  json_t *root = json_object(), *runs = json_array(), *sum = json_array();
  for (int i = 0; i < n; i++) {
    const result *r = &res[i];
    json_array_append_new(
        runs, json_pack("{s:s, s:I, s:o, s:I, s:f, s:I, s:I, s:f}", "recipe", recipes[r->recipe].name, "seed",
                        (json_int_t)r->seed, "success_epoch",
                        r->success_epoch > 0 ? json_integer(r->success_epoch) : json_null(), "epochs_run",
                        (json_int_t)r->epochs_run, "fresh_accuracy", r->fresh_accuracy, "active_gates",
                        (json_int_t)r->active_gates, "gates", (json_int_t)r->n_gates, "wall_s", r->wall_s));
  }
  for (int k = 0; k < o->n_recipes; k++) {
    int s;
    double med, acc;
    summarise(res, n, o->recipe[k], &s, &med, &acc);
    json_array_append_new(sum, json_pack("{s:s, s:s, s:i, s:i, s:o, s:f}", "recipe", recipes[o->recipe[k]].name,
                                         "what", recipes[o->recipe[k]].what, "successes", s, "seeds", o->n_seeds,
                                         "median_success_epoch", isnan(med) ? json_null() : json_real(med),
                                         "mean_fresh_accuracy", acc));
  }
  char date[32];
  time_t now_t = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d", localtime(&now_t));
  json_object_set_new(root, "task", json_string(o->task));
  json_object_set_new(root, "device", json_string(device));
  json_object_set_new(root, "date", json_string(date));
  json_object_set_new(root, "command", json_string(command));
  json_object_set_new(root, "epochs", json_integer(o->epochs));
  json_object_set_new(root, "fresh_batches", json_integer(o->fresh));
  json_object_set_new(root, "runs", runs);
  json_object_set_new(root, "summary", sum);
  /* written whole (tools/outfile.h): a reader never sees half a file */
  char *text = json_dumps(root, JSON_INDENT(1));
  json_decref(root);
  char err[256];
  int rc = !text || outfile_write(path, text, strlen(text), err, sizeof err);
  if (rc) fprintf(stderr, "%s: --json %s: %s\n", PROG, path, text ? err : "out of memory");
  free(text);
  return rc;
}

/* --markdown: a row per recipe appended to the file's table (tools/outfile.h); 0, or 1 after a message. */
static int append_markdown(const char *path, const options *o, const result *res, int n, const char *device,
                           const char *command) {
  static const char header[] = "| date | task | recipe | seeds at 100% fresh | median epoch of those | mean fresh "
                               "accuracy | max epochs | device | command |\n"
                               "|---|---|---|---:|---:|---:|---:|---|---|\n";
  char date[32], err[256];
  time_t now_t = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d", localtime(&now_t));
  outfile_mem m;
  int rc = outfile_mem_open(&m, err, sizeof err);
  FILE *f = m.f;
  for (int k = 0; !rc && k < o->n_recipes; k++) {
    int s;
    double med, acc;
    summarise(res, n, o->recipe[k], &s, &med, &acc);
    char mb[32];
    fprintf(f, "| %s | %s | %s | %d/%d | %s | %.2f%% | %ld | ", date, o->task, recipes[o->recipe[k]].name, s,
            o->n_seeds, median_str(med, mb, sizeof mb), 100 * acc, o->epochs);
    outfile_md_cell(f, device);
    fputs(" | `", f);
    outfile_md_cell(f, command);
    fputs("` |\n", f);
  }
  if (!rc) rc = outfile_mem_md_append(&m, path, header, err, sizeof err);
  if (rc) fprintf(stderr, "%s: --markdown %s: %s\n", PROG, path, err);
  return rc ? 1 : 0;
}

int main(int argc, char **argv) {
  options o;
  int rc = parse(argc, argv, &o);
  if (rc) return rc;
  char command[2048] = "dlca-recipes";
  for (int i = 1; i < argc; i++) {
    size_t len = strlen(command);
    snprintf(command + len, sizeof command - len, " %s", argv[i]);
  }
  dlca_context *ctx = NULL;
  char device[512] = "CPU reference";
  if (!o.backend_ref) {
    if ((rc = dlca_context_new(o.device, &ctx)))
      return cli_context_fail(PROG, o.device, rc, "use --backend ref for the CPU reference");
    dlca_device_info di;
    dlca_context_device(ctx, &di);
    snprintf(device, sizeof device, "%s", di.name);
  }
  const int n = o.n_recipes * o.n_seeds;
  result *res = calloc((size_t)n, sizeof *res);
  if (!res) return CLI_FAIL;
  int failed = 0, k = 0;
  printf("recipe,seed,success_epoch,epochs_run,fresh_accuracy,active_gates,wall_s\n");
  for (int i = 0; i < o.n_recipes; i++)
    for (int j = 0; j < o.n_seeds; j++, k++) {
      if (run_one(&o, ctx, o.recipe[i], o.seeds[j], &res[k])) {
        failed = 1;
        break;
      }
      const result *r = &res[k];
      printf("%s,%ld,%ld,%ld,%.6f,%zu,%.2f\n", recipes[r->recipe].name, r->seed, r->success_epoch, r->epochs_run,
             r->fresh_accuracy, r->active_gates, r->wall_s);
      fflush(stdout);
    }
  printf("\n| recipe | seeds at 100%% fresh | median epoch of those | mean fresh accuracy |\n|---|---|---|---|\n");
  for (int i = 0; i < o.n_recipes; i++) {
    int s;
    double med, acc;
    summarise(res, k, o.recipe[i], &s, &med, &acc);
    char mb[32];
    printf("| %s | %d/%d | %s | %.2f%% |\n", recipes[o.recipe[i]].name, s, o.n_seeds, median_str(med, mb, sizeof mb),
           100 * acc);
  }
  if (!failed && o.json && write_json(o.json, &o, res, k, device, command)) failed = 1;
  if (!failed && o.markdown && append_markdown(o.markdown, &o, res, k, device, command)) failed = 1;
  free(res);
  dlca_context_free(ctx);
  return failed ? CLI_FAIL : CLI_OK;
}
