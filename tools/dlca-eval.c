/* dlca-eval: runs a trained model's hard circuit and says whether it really
 * works: fresh start grids, larger grids for more steps, Game of Life step
 * by step, growth and colour targets exactly. Public API and libpng only.
 * --png and --gif picture one rollout. Usage: --help, or doc/dlca-eval.md. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dlca_cl.h"
#include "cli.h"
#include "eval_options.h"
#include "gates.h"
#include "gif.h"
#include "outfile.h"
#include "rollout.h"
#include "strip.h"

/* More values than this in one grid batch ([batch][H][W][C]) is a typo, not
 * an experiment: refuse it before asking for gigabytes. */
#define MAX_VALUES (1ull << 28)
#define GOL_BOARD_STEPS 64 /* --gol-board's default --steps */

/* One check's figures. A rollout check also keeps its per-step curve. */
typedef struct check {
  int ran, pass;
  int height, width, steps, samples, batches;
  dlca_eval ev;           /* of the final state (summed over batches) */
  size_t *per_step;       /* rollouts: errors (gol board: cells unlike Life) after step i, i = 0..steps */
  long first_mismatch;    /* gol board: the first step unlike Life, -1 if none */
  size_t mismatch_cells;  /* gol board: cells wrong at that step */
  size_t mismatch_total;  /* gol board: over all steps */
  size_t n_wrong;         /* target check: values unlike the target at the last step (the first */
  int *wrong;             /* WRONG_LISTED as row, column, channel triples) */
} check;

#define WRONG_LISTED 4096

typedef struct eval {
  eval_options opt;
  dlca_preset preset;
  dlca_train_config cfg; /* the preset's protocol, seeded from --seed */
  dlca_model *model;
  dlca_model_shape shape;
  dlca_context *ctx;
  char device[512];
  float *target;         /* non-gol: [H][W][C] of the training grid */
  int is_gol, is_cb, is_image; /* gol; the checkerboards; growth and colour */
  gate_summary gates;
  check fresh, general, boards, board, tgt, picture_only;
  int gen_h, gen_w, gen_steps;
  strip pic, movie;   /* --png's frames; --gif's */
  long movie_every;
  gif_options gif;
  float *last_exact; /* growth's --png: channel 0 of the target, [H][W], for the last frame's red cells */
  int pic_ran;
  long pic_every;
  double t_start;
} eval;

/* One line: "dlca-eval: <what>: <the library's message>". */
static int fail_lib(int code, int status, const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  const char *why = dlca_last_error();
  if (!why[0]) why = dlca_strerror(status);
  /* Bad input is said in one line (the library may append a device list);
   * a runtime failure keeps everything, a build log included. */
  int len = (int)strlen(why);
  if (code == CLI_USAGE && strchr(why, '\n')) {
    len = (int)(strchr(why, '\n') - why);
    for (int i = len - 1; i > 0; i--) /* end at the last full sentence: "...  Available:" goes */
      if (why[i] == ' ' && why[i - 1] == '.') {
        len = i;
        break;
      }
  }
  fprintf(stderr, "%s: %s: %.*s\n", EVAL_PROG, what, len, why);
  return code;
}

/* Statuses the user can fix (a file, a grid, a device spec) exit 2; the
 * rest (OpenCL, memory) are runtime failures. */
static int status_code(int status) {
  switch (status) {
    case DLCA_EINVAL:
    case DLCA_EIO:
    case DLCA_EPARSE:
    case DLCA_EMODEL:
    case DLCA_ECONFIG:
    case DLCA_ETUNING: /* a table value outside its @tunable range */
    case DLCA_ENODEVICE:
    case DLCA_EDEVMEM: /* the grid asked for is larger than the device */
    case DLCA_EUNSUPPORTED: return CLI_USAGE;
    default: return EVAL_RUNTIME;
  }
}

static int usage(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", EVAL_PROG);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  return CLI_USAGE;
}

static int oom(const char *what) {
  fprintf(stderr, "%s: %s: out of memory\n", EVAL_PROG, what);
  return EVAL_RUNTIME;
}

/* ---- set-up: preset, model, options against the preset, target, device ---- */

static int check_options(eval *e) {
  const eval_options *o = &e->opt;
  const char *p = e->preset.name;
  if ((o->scale || o->grid_h) && !e->is_cb)
    return usage("%s: the %s preset's target is fixed to its %dx%d grid; generalisation is for the checkerboards",
                 o->scale ? "--scale" : "--grid", p, e->preset.height, e->preset.width);
  if (o->gol_board && !e->is_gol) return usage("--gol-board: only for the gol preset, not %s", p);
  if (e->is_gol && o->steps > 0 && !o->gol_board) return usage("--steps: for gol, give it with --gol-board N");
  if (e->is_gol && (o->png || o->gif) && !o->gol_board)
    return usage("%s: for gol, the picture is of --gol-board N", o->png ? "--png" : "--gif");
  if (o->target && !e->is_image)
    return usage("--target: the %s preset has a fixed target; --target is for growth and colour", p);
  if (e->is_cb && (o->scale || o->grid_h || o->steps > 0)) {
    long S = o->scale ? o->scale : 1;
    long H = o->grid_h ? o->grid_h : S * e->preset.height, W = o->grid_w ? o->grid_w : S * e->preset.width;
    long T = o->steps > 0 ? o->steps : S * e->preset.steps;
    long samples = (o->fresh > 0 ? o->fresh : 1) * e->preset.batch;
    if (H > 4096 || W > 4096)
      return usage("--scale: %ld gives a %ldx%ld grid; sides are at most 4096", o->scale, H, W);
    if ((unsigned long long)samples * H * W * e->shape.channels > MAX_VALUES)
      return usage("%s: %ld grids of %ldx%ld cells with %d channels is more than %llu values; lower --fresh",
                   o->scale ? "--scale" : "--grid", samples, H, W, e->shape.channels, MAX_VALUES);
    e->gen_h = (int)H, e->gen_w = (int)W, e->gen_steps = (int)T;
  }
  if (e->is_cb && o->fresh == 0 && !e->gen_h)
    return usage("--fresh: 0 leaves nothing to check; give --scale, --grid or --steps too");
  if (o->gol_board && (unsigned long long)o->gol_board * o->gol_board > MAX_VALUES)
    return usage("--gol-board: %ld is too large", o->gol_board);
  return 0;
}

static int setup(eval *e) {
  const eval_options *o = &e->opt;
  int rc;
  if (o->gif && !gif_available())
    return usage("--gif: this build of dlca-eval lacks giflib; install libgif-dev (Debian/Ubuntu) and run "
                 "configure again, or use --png");
  if ((rc = dlca_preset_get(o->preset, &e->preset))) return fail_lib(CLI_USAGE, rc, "--preset");
  e->is_gol = dlca_preset_is_gol(&e->preset);
  e->is_image = !strcmp(e->preset.name, "growth") || !strcmp(e->preset.name, "colour");
  e->is_cb = !e->is_gol && !e->is_image;
  dlca_train_config_from_preset(&e->preset, &e->cfg);
  e->cfg.seed = o->seed;
  if ((rc = dlca_model_load(o->model, &e->model)))
    return fail_lib(rc == DLCA_ENOMEM ? EVAL_RUNTIME : CLI_USAGE, rc, "--model");
  dlca_model_get_shape(e->model, &e->shape);
  if (e->shape.channels != e->preset.shape.channels)
    return usage("%s: the model has %d channel%s, but the %s preset needs %d", o->model, e->shape.channels,
                 e->shape.channels == 1 ? "" : "s", e->preset.name, e->preset.shape.channels);
  if ((rc = check_options(e))) return rc;
  if (!e->is_gol) {
    if ((rc = dlca_preset_target(&e->preset, e->shape.channels, o->target, &e->target))) {
      fprintf(stderr, "%s: %s\n", EVAL_PROG, dlca_last_error());
      return rc == DLCA_ENOMEM ? EVAL_RUNTIME : CLI_USAGE;
    }
  }
  if (o->backend_ref) {
    snprintf(e->device, sizeof e->device, "CPU reference");
    return 0;
  }
  if ((rc = dlca_context_new(o->device, &e->ctx)))
    return cli_context_fail(EVAL_PROG, o->device, rc, "use --backend ref for the CPU reference");
  dlca_device_info info;
  dlca_context_device(e->ctx, &info);
  snprintf(e->device, sizeof e->device, "%s (%s, OpenCL device %s)", info.name, info.platform, info.spec);
  return 0;
}

/* ---- checks on the training grid ---- */

/* Fresh batches through dlca_trainer_eval_hard_fresh: the trainer draws the
 * start grids and fire masks itself, as it would for an unseen epoch. */
static int check_fresh(eval *e) {
  check *c = &e->fresh;
  dlca_trainer *t;
  int rc = dlca_trainer_new(e->ctx, e->model, &e->cfg, &t);
  if (rc) return fail_lib(status_code(rc), rc, "%s: trainer of the %s preset", e->opt.model, e->preset.name);
  if (!(rc = dlca_trainer_set_target(t, e->target, 0)))
    rc = dlca_trainer_eval_hard_fresh(t, e->opt.seed, (int)e->opt.fresh, &c->ev);
  dlca_trainer_free(t);
  if (rc) return fail_lib(EVAL_RUNTIME, rc, "fresh evaluation");
  c->ran = 1, c->pass = c->ev.errors == 0;
  c->height = e->cfg.height, c->width = e->cfg.width, c->steps = e->cfg.steps;
  c->samples = e->cfg.batch;
  c->batches = (int)(c->ev.total / ((size_t)e->cfg.batch * e->cfg.height * e->cfg.width * e->cfg.n_loss_channels));
  return 0;
}

/* gol: all 512 boards of a 3x3 torus, each scored against its Life step. */
static int check_boards(eval *e) {
  check *c = &e->boards;
  dlca_train_config cfg = e->cfg;
  cfg.batch = DLCA_GOL_BOARDS;
  dlca_trainer *t;
  int rc = dlca_trainer_new(e->ctx, e->model, &cfg, &t);
  if (rc) return fail_lib(status_code(rc), rc, "%s: trainer of the gol preset", e->opt.model);
  float *x = malloc(sizeof(float) * 9 * DLCA_GOL_BOARDS), *y = malloc(sizeof(float) * 9 * DLCA_GOL_BOARDS);
  if (!x || !y) {
    free(x), free(y), dlca_trainer_free(t);
    return oom("gol boards");
  }
  dlca_gol_all(x, y);
  rc = dlca_trainer_set_input(t, x);
  if (!rc) rc = dlca_trainer_set_target(t, y, 1);
  if (!rc) rc = dlca_trainer_eval_hard(t, &c->ev);
  free(x), free(y), dlca_trainer_free(t);
  if (rc) return fail_lib(EVAL_RUNTIME, rc, "gol boards");
  c->ran = 1, c->pass = c->ev.errors == 0;
  c->height = c->width = 3, c->steps = 1, c->samples = DLCA_GOL_BOARDS, c->batches = 1;
  return 0;
}

/* ---- rollouts, one step at a time ---- */

/* Errors of x [batch][H][W][C] against target [H][W][C] on the loss channels,
 * counted as the library counts them (|x - y| >= 0.5). */
static size_t host_errors(const eval *e, const float *x, const float *y, int batch, int H, int W) {
  const int C = e->shape.channels;
  size_t n = 0, cells = (size_t)H * W;
  for (int b = 0; b < batch; b++)
    for (size_t i = 0; i < cells; i++)
      for (int j = 0; j < e->cfg.n_loss_channels; j++) {
        int k = e->cfg.loss_channels[j];
        float d = x[((size_t)b * cells + i) * C + k] - y[i * C + k];
        n += d >= 0.5f || d <= -0.5f;
      }
  return n;
}

/* Streams of dlca_rng_u32 for the host's draws ("EV" and a number), apart
 * from the trainer's own draws with the same seed. */
enum { STREAM_GENERAL = 0x45560001u, STREAM_BOARD = 0x45560002u, STREAM_PICTURE = 0x45560003u,
       STREAM_MASKS = 0x45560004u };

static void frame(eval *e, strip *st, const float *x, const float *exact) {
  if (e->preset.shape.channels >= 3 && !strcmp(e->preset.name, "colour"))
    strip_add_rgb(st, x, e->shape.channels, 0);
  else
    strip_add_gray(st, x, e->shape.channels, exact, 0);
}

/* More cells than this in --gif's frames ([frames][H][W], 3 bytes each) is
 * a GIF no viewer would open: --frame-every thins it. */
#define MAX_MOVIE_CELLS (1ull << 27)

/* Room for the pictures of a T-step rollout on an H x W grid: --png's strip
 * (about 8 frames) and --gif's (every step, or --frame-every). */
static int pictures_init(eval *e, int H, int W, int T) {
  const eval_options *o = &e->opt;
  if (o->png) {
    if (!e->pic_every) e->pic_every = o->frame_every ? o->frame_every : (T + 7) / 8;
    if (strip_init(&e->pic, H, W, (int)(T / e->pic_every) + 3)) return oom("--png");
  }
  if (o->gif) {
    e->movie_every = o->frame_every ? o->frame_every : 1;
    const unsigned long long frames = (unsigned long long)(T / e->movie_every) + 2;
    const int zoom = gif_zoom(&e->gif, H, W);
    if ((long)H * zoom > GIF_MAX_SIDE || (long)W * zoom > GIF_MAX_SIDE)
      return usage("--gif: %dx%d cells at %d pixels a cell is more than %d pixels a side; lower --gif-scale", H, W,
                   zoom, GIF_MAX_SIDE);
    if (frames * H * W > MAX_MOVIE_CELLS)
      return usage("--gif: %llu frames of %dx%d cells is too large; give --frame-every K", frames, H, W);
    if (strip_init(&e->movie, H, W, (int)frames)) return oom("--gif");
  }
  return 0;
}

/* Step s's frames, where the strips take one. exact: the cells to compare
 * with (red where unlike), or NULL. */
static void pictures_add(eval *e, const float *x, long s, long T, const float *exact) {
  if (e->opt.png && (s % e->pic_every == 0 || s == T)) frame(e, &e->pic, x, exact);
  if (e->opt.gif && (s % e->movie_every == 0 || s == T)) frame(e, &e->movie, x, exact);
}

/* The target check: which values of the loss channels are at least 0.5 from
 * the target (the "values wrong" of dlca_eval), sample 0. */
static int list_wrong(eval *e, check *c, const float *x, const float *target, int H, int W) {
  const int C = e->shape.channels;
  c->n_wrong = 0;
  free(c->wrong);
  if (!(c->wrong = malloc(sizeof(int) * 3 * WRONG_LISTED))) return oom("the target check");
  for (int i = 0; i < H * W; i++)
    for (int k = 0; k < e->cfg.n_loss_channels; k++) {
      const size_t v = (size_t)i * C + (size_t)e->cfg.loss_channels[k];
      if (fabs((double)x[v] - (double)target[v]) < 0.5) continue; /* dlca_eval's test of a wrong value */
      if (c->n_wrong < WRONG_LISTED) {
        int *t = c->wrong + 3 * c->n_wrong;
        t[0] = i / W, t[1] = i % W, t[2] = e->cfg.loss_channels[k];
      }
      c->n_wrong++;
    }
  return 0;
}

/* Runs T hard steps of `batch` grids from x0 and fills c. target: the fixed
 * [H][W][C] target, or NULL for gol, whose every step is compared with an
 * exact Life step of the state before it. With `picture`, sample 0 becomes
 * the frames of --png. */
static int run_rollout(eval *e, check *c, int batch, int H, int W, int T, const float *x0, const float *target,
                       int picture) {
  const int C = e->shape.channels, gol = target == NULL;
  const size_t n = (size_t)batch * H * W * C;
  rollout r;
  float *life = gol ? malloc(sizeof(float) * n) : NULL;
  c->per_step = calloc((size_t)T + 1, sizeof(size_t));
  if ((gol && !life) || !c->per_step) {
    free(life);
    return oom("rollout");
  }
  int rc = rollout_new(e->ctx, e->model, &e->cfg, batch, H, W, x0, target,
                       dlca_rng_u32(e->opt.seed, STREAM_MASKS, 0), &r);
  if (rc) {
    rollout_free(&r), free(life);
    return fail_lib(status_code(rc), rc, "%s: a %dx%d grid, batch %d", e->opt.model, H, W, batch);
  }
  if (picture) {
    if ((rc = pictures_init(e, H, W, T))) {
      rollout_free(&r), free(life);
      return rc;
    }
    pictures_add(e, r.x, 0, T, NULL);
    /* growth: the last frame shows the cells unlike the target in red */
    free(e->last_exact), e->last_exact = NULL;
    if (!gol && strcmp(e->preset.name, "colour") && (e->last_exact = malloc(sizeof(float) * H * W)))
      for (size_t i = 0; i < (size_t)H * W; i++) e->last_exact[i] = target[i * C];
  }
  c->height = H, c->width = W, c->steps = T, c->samples = batch, c->batches = 1;
  c->first_mismatch = -1;
  c->per_step[0] = gol ? 0 : host_errors(e, x0, target, batch, H, W);
  for (int s = 1; s <= T && !rc; s++) {
    if (gol)
      for (int b = 0; b < batch; b++) dlca_gol_step(H, W, r.x + (size_t)b * H * W, life + (size_t)b * H * W);
    if ((rc = rollout_step(&r, life, &c->ev))) break;
    c->per_step[s] = c->ev.errors;
    if (gol && c->ev.errors) {
      if (c->first_mismatch < 0) c->first_mismatch = s, c->mismatch_cells = c->ev.errors;
      c->mismatch_total += c->ev.errors;
    }
    if (picture) pictures_add(e, r.x, s, T, s == T && !gol ? e->last_exact : life);
    if (s == T && c == &e->tgt && (rc = list_wrong(e, c, r.x, target, H, W))) break;
  }
  if (!rc && picture && !gol && e->opt.png) { /* the target last, after a wider gap */
    if (!strcmp(e->preset.name, "colour")) strip_add_rgb(&e->pic, target, C, 1);
    else strip_add_gray(&e->pic, target, C, NULL, 1);
  }
  rollout_free(&r);
  free(life);
  if (rc) return fail_lib(EVAL_RUNTIME, rc, "hard rollout on a %dx%d grid", H, W);
  if (picture) e->pic_ran = 1;
  c->ran = 1;
  c->pass = gol ? c->first_mismatch < 0 : c->ev.errors == 0;
  return 0;
}

/* The checkerboards on a larger grid for more steps, from fresh random
 * grids: the paper's generalisation experiment (spec/dlca.md section 5). */
static int check_general(eval *e, int picture) {
  const int H = e->gen_h, W = e->gen_w, C = e->shape.channels;
  const int batch = (int)(e->opt.fresh > 0 ? e->opt.fresh : 1) * e->preset.batch;
  float *x = malloc(sizeof(float) * batch * H * W * C), *y = calloc((size_t)H * W * C, sizeof(float));
  if (!x || !y) {
    free(x), free(y);
    return oom("generalisation grids");
  }
  dlca_target_random_bits(x, (size_t)batch * H * W * C, e->opt.seed, STREAM_GENERAL);
  dlca_target_checkerboard(H, W, C, y);
  int rc = run_rollout(e, &e->general, batch, H, W, e->gen_steps, x, y, picture);
  free(x), free(y);
  return rc;
}

/* A checkerboard picture with no generalisation run: one fresh grid of the
 * training size, the preset's steps. Not a check. */
static int picture_training_grid(eval *e) {
  const int H = e->preset.height, W = e->preset.width, C = e->shape.channels;
  float *x = malloc(sizeof(float) * H * W * C);
  if (!x) return oom("--png");
  dlca_target_random_bits(x, (size_t)H * W * C, e->opt.seed, STREAM_PICTURE);
  int rc = run_rollout(e, &e->picture_only, 1, H, W, e->preset.steps, x, e->target, 1);
  free(x);
  return rc;
}

/* gol: a random N x N torus, stepped one step at a time, each step compared
 * with an exact Life step of the circuit's own previous state. */
static int check_board(eval *e) {
  const int N = (int)e->opt.gol_board, T = e->opt.steps > 0 ? (int)e->opt.steps : GOL_BOARD_STEPS;
  if (!e->shape.periodic)
    fprintf(stderr, "%s: note: the model is not periodic, but the Life board wraps round\n", EVAL_PROG);
  float *x = malloc(sizeof(float) * N * N);
  if (!x) return oom("--gol-board");
  dlca_target_random_bits(x, (size_t)N * N, e->opt.seed, STREAM_BOARD);
  int rc = run_rollout(e, &e->board, 1, N, N, T, x, NULL, e->opt.png || e->opt.gif);
  free(x);
  return rc;
}

/* growth and colour: from the preset's start (DLCA_START_SEED: the centre
 * cell all 1, as the library builds it; _ZEROS: all 0) for T steps. */
static int check_target(eval *e) {
  const int H = e->preset.height, W = e->preset.width, C = e->shape.channels;
  const int T = e->opt.steps > 0 ? (int)e->opt.steps : e->preset.steps;
  float *x = calloc((size_t)H * W * C, sizeof(float));
  if (!x) return oom("start grid");
  if (e->preset.start == DLCA_START_SEED)
    for (int k = 0; k < C; k++) x[((size_t)(H / 2) * W + W / 2) * C + k] = 1.0f;
  else if (e->preset.start == DLCA_START_RANDOM)
    dlca_target_random_bits(x, (size_t)H * W * C, e->opt.seed, STREAM_PICTURE);
  int rc = run_rollout(e, &e->tgt, 1, H, W, T, x, e->target, e->opt.png || e->opt.gif);
  free(x);
  return rc;
}

/* ---- output ---- */

static void print_check(const char *label, const check *c, const char *what) {
  printf("%-16s%.4f%% (%zu of %zu values wrong; %s)  %s\n", label, 100 * c->ev.accuracy, c->ev.errors, c->ev.total,
         what, c->pass ? "PASS" : "FAIL");
}

static void print_report(const eval *e, int n_checks, int n_failed) {
  const eval_options *o = &e->opt;
  char what[256];
  printf("model:          %s (%zu gates, %zu logits, %s)\n", o->model, dlca_model_n_gates(e->model),
         dlca_model_n_params(e->model), dlca_parametrisation_name(e->shape.parametrisation));
  printf("preset:         %s\n", e->preset.name);
  printf("backend:        %s\n", o->backend_ref ? "ref" : "cl");
  printf("device:         %s\n", e->device);
  gate_summary_print(stdout, &e->gates);
  if (e->fresh.ran) {
    const check *c = &e->fresh;
    snprintf(what, sizeof what, "%d batch%s of %d on %dx%d, %d steps, seed %llu", c->batches,
             c->batches == 1 ? "" : "es", c->samples, c->height, c->width, c->steps, (unsigned long long)o->seed);
    print_check("fresh:", c, what);
  }
  if (e->general.ran) {
    const check *c = &e->general;
    snprintf(what, sizeof what, "%d fresh grid%s of %dx%d, %d steps", c->samples, c->samples == 1 ? "" : "s",
             c->height, c->width, c->steps);
    if (o->scale) snprintf(what + strlen(what), sizeof what - strlen(what), ", scale %ld", o->scale);
    print_check("generalisation:", c, what);
  }
  if (e->boards.ran) print_check("gol boards:", &e->boards, "all 512 3x3 neighbourhoods");
  if (e->board.ran) {
    const check *c = &e->board;
    if (c->pass)
      printf("%-16sexact for %d steps (%dx%d torus, seed %llu)  PASS\n", "gol board:", c->steps, c->height, c->width,
             (unsigned long long)o->seed);
    else
      printf("%-16sfirst mismatch at step %ld of %d: %zu of %d cells unlike Life (%zu over all steps; %dx%d torus)"
             "  FAIL\n",
             "gol board:", c->first_mismatch, c->steps, c->mismatch_cells, c->height * c->width, c->mismatch_total,
             c->height, c->width);
  }
  if (e->tgt.ran) {
    snprintf(what, sizeof what, "%dx%d, %d steps from the preset's start", e->tgt.height, e->tgt.width, e->tgt.steps);
    print_check("target:", &e->tgt, what);
    if (e->tgt.n_wrong && e->tgt.n_wrong <= 12) {
      printf("wrong:          ");
      for (size_t i = 0; i < e->tgt.n_wrong; i++) {
        const int *t = e->tgt.wrong + 3 * i;
        printf("%s(row %d, col %d", i ? ", " : "", t[0], t[1]);
        if (e->cfg.n_loss_channels > 1) printf(", ch %d", t[2]);
        putchar(')');
      }
      putchar('\n');
    }
  }
  if (e->pic_ran && o->png)
    printf("picture:        %s (%d frames, every %ld steps%s)\n", o->png, e->pic.n, e->pic_every,
           e->is_gol ? "; red: unlike Life"
           : e->last_exact ? ", then the target; red: unlike the target at the last step" : ", then the target");
  if (e->pic_ran && o->gif)
    printf("gif:            %s (%d frames, every %ld step%s, %d ms a frame, %d pixels a cell)\n", o->gif,
           e->movie.n, e->movie_every, e->movie_every == 1 ? "" : "s", e->gif.delay_ms,
           gif_zoom(&e->gif, e->movie.height, e->movie.width));
  if (o->json && strcmp(o->json, "-")) printf("json:           %s\n", o->json);
  if (n_failed)
    printf("result:         FAIL (%d of %d check%s failed)\n", n_failed, n_checks, n_checks == 1 ? "" : "s");
  else
    printf("result:         PASS (%d check%s)\n", n_checks, n_checks == 1 ? "" : "s");
}

/* c's object, with extra's members after the counts (extra consumed), or
 * NULL when c did not run or out of memory. */
static json_t *check_json(const check *c, json_t *extra) {
  json_t *o = c->ran ? json_pack("{s:b, s:i, s:i, s:i, s:i, s:i, s:I, s:I, s:o, s:o}", "pass", c->pass, "height",
                                 c->height, "width", c->width, "steps", c->steps, "samples", c->samples, "batches",
                                 c->batches, "errors", (json_int_t)c->ev.errors, "total", (json_int_t)c->ev.total,
                                 "accuracy", outfile_json_num(c->ev.accuracy), "hard_loss",
                                 outfile_json_num(c->ev.hard_loss))
                   : NULL;
  if (o && extra) json_object_update(o, extra);
  json_decref(extra);
  if (o && c->per_step) {
    json_t *a = json_array();
    for (int s = 0; a && s <= c->steps; s++) json_array_append_new(a, json_integer((json_int_t)c->per_step[s]));
    json_object_set_new(o, "errors_per_step", a);
  }
  return o;
}

/* The target check's wrong values: "wrong" as [row, column, channel] (the
 * first WRONG_LISTED) and "wrong_listed". */
static json_t *wrong_json(const check *c) {
  const size_t k = c->n_wrong < WRONG_LISTED ? c->n_wrong : WRONG_LISTED;
  json_t *a = json_array();
  for (size_t i = 0; a && i < k; i++)
    json_array_append_new(a, json_pack("[i, i, i]", c->wrong[3 * i], c->wrong[3 * i + 1], c->wrong[3 * i + 2]));
  return json_pack("{s:o, s:I}", "wrong", a, "wrong_listed", (json_int_t)k);
}

/* The gol board's first step unlike Life, and how far it is. */
static json_t *mismatch_json(const check *b) {
  if (b->first_mismatch < 0) return json_pack("{s:n}", "first_mismatch");
  return json_pack("{s:I, s:I, s:I}", "first_mismatch", (json_int_t)b->first_mismatch, "mismatch_cells",
                   (json_int_t)b->mismatch_cells, "mismatch_total", (json_int_t)b->mismatch_total);
}

/* The model and its gates. */
static json_t *model_json(const eval *e, int n_checks, int n_failed) {
  const eval_options *o = &e->opt;
  json_t *hist = json_object();
  for (int i = 0; i < 16; i++)
    json_object_set_new(hist, gate_op_names[i], json_integer((json_int_t)e->gates.counts[i]));
  return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:b, s:i, s:i, s:o, s:i, s:b, s:s, s:I, s:I, s:I, s:I, s:I, "
                   "s:o}",
                   "tool", EVAL_PROG, "version", dlca_version_string(), "model", o->model, "preset", e->preset.name,
                   "backend", o->backend_ref ? "ref" : "cl", "device", e->device, "seed", (json_int_t)o->seed, "pass",
                   !n_failed, "checks", n_checks, "failed", n_failed, "wall_s",
                   outfile_json_num(cli_now() - e->t_start), "channels", e->shape.channels, "periodic",
                   e->shape.periodic, "parametrisation", dlca_parametrisation_name(e->shape.parametrisation), "gates",
                   (json_int_t)e->gates.total, "logits", (json_int_t)dlca_model_n_params(e->model), "active_gates",
                   (json_int_t)e->gates.active, "live_gates", (json_int_t)e->gates.live, "live_logic_gates",
                   (json_int_t)e->gates.live_logic, "gate_histogram", hist);
}

/* Sets key to v in root where v is not NULL. */
static void set_opt(json_t *root, const char *key, json_t *v) {
  if (v) json_object_set_new(root, key, v);
}

static int write_json(const eval *e, int n_checks, int n_failed) {
  const eval_options *o = &e->opt;
  json_t *root = model_json(e, n_checks, n_failed);
  if (root) {
    set_opt(root, "fresh", check_json(&e->fresh, NULL));
    json_t *scale = o->scale ? json_pack("{s:I}", "scale", (json_int_t)o->scale) : NULL;
    set_opt(root, "generalisation", check_json(&e->general, scale));
    set_opt(root, "gol_boards", check_json(&e->boards, NULL));
    set_opt(root, "gol_board", check_json(&e->board, e->board.ran ? mismatch_json(&e->board) : NULL));
    set_opt(root, "target", check_json(&e->tgt, e->tgt.ran && e->tgt.wrong ? wrong_json(&e->tgt) : NULL));
    if (e->pic_ran && o->gif)
      set_opt(root, "gif", json_pack("{s:s, s:i, s:I, s:i, s:i}", "file", o->gif, "frames", e->movie.n, "frame_every",
                                     (json_int_t)e->movie_every, "delay_ms", e->gif.delay_ms, "scale",
                                     gif_zoom(&e->gif, e->movie.height, e->movie.width)));
    if (e->pic_ran && o->png)
      set_opt(root, "picture", json_pack("{s:s, s:i, s:I}", "file", o->png, "frames", e->pic.n, "frame_every",
                                         (json_int_t)e->pic_every));
  }
  char err[256] = "out of memory";
  int bad = !root || outfile_json(o->json, root, 9, err, sizeof err);
  json_decref(root);
  if (bad) fprintf(stderr, "%s: --json %s: %s\n", EVAL_PROG, o->json, err);
  return bad ? EVAL_RUNTIME : 0;
}

/* ---- main ---- */

static int run_checks(eval *e) {
  const eval_options *o = &e->opt;
  int rc;
  gate_summary_of(e->model, e->cfg.loss_channels, e->cfg.n_loss_channels, &e->gates);
  if (e->is_gol) {
    if ((rc = check_boards(e))) return rc;
    if (o->gol_board && (rc = check_board(e))) return rc;
  } else if (e->is_image) {
    if ((rc = check_target(e))) return rc;
  } else {
    if (o->fresh > 0 && (rc = check_fresh(e))) return rc;
    if (e->gen_h && (rc = check_general(e, o->png || o->gif))) return rc;
    if (!e->gen_h && (o->png || o->gif) && (rc = picture_training_grid(e))) return rc;
  }
  char err[512];
  if (e->pic_ran && o->png && strip_save(&e->pic, o->png, err, sizeof err)) {
    fprintf(stderr, "%s: --png %s: %s\n", EVAL_PROG, o->png, err);
    return EVAL_RUNTIME;
  }
  if (e->pic_ran && o->gif && gif_save(&e->movie, o->gif, &e->gif, err, sizeof err)) {
    fprintf(stderr, "%s: --gif %s: %s\n", EVAL_PROG, o->gif, err);
    return EVAL_RUNTIME;
  }
  return 0;
}

int main(int argc, char **argv) {
  eval e;
  memset(&e, 0, sizeof e);
  e.t_start = cli_now();
  int rc = eval_options_parse(argc, argv, &e.opt);
  if (rc) return rc;
  if (e.opt.help) {
    eval_options_help();
    return 0;
  }
  if (e.opt.version) return cli_print_version(EVAL_PROG, dlca_version_string());
  e.gif.zoom = (int)e.opt.gif_scale, e.gif.delay_ms = (int)e.opt.gif_delay_ms;
  e.gif.hold_ms = e.gif.delay_ms > 1000 ? e.gif.delay_ms : 1000;
  if (!(rc = setup(&e)) && !(rc = run_checks(&e))) {
    const check *all[] = {&e.fresh, &e.general, &e.boards, &e.board, &e.tgt};
    int n = 0, failed = 0;
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
      if (all[i]->ran) n++, failed += !all[i]->pass;
    /* --json - owns stdout; the report then goes to stderr's reader only as JSON */
    if (!e.opt.json || strcmp(e.opt.json, "-")) print_report(&e, n, failed);
    if (e.opt.json) rc = write_json(&e, n, failed);
    if (!rc) rc = failed ? CLI_FAIL : CLI_OK;
  }
  check *all[] = {&e.fresh, &e.general, &e.boards, &e.board, &e.tgt, &e.picture_only};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) free(all[i]->per_step);
  strip_free(&e.pic);
  strip_free(&e.movie);
  free(e.tgt.wrong);
  free(e.last_exact);
  free(e.target);
  dlca_model_free(e.model);
  dlca_context_free(e.ctx);
  return rc;
}
