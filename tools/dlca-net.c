/* dlca-net: trains a sequential network (lib/net) on a data set that ships
 * with the library, on an OpenCL device or on the CPU twin, and reports the
 * test accuracy. Public API only. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "outfile.h"
#include "progress.h"

#define PROG "dlca-net"

typedef struct options {
  const char *dataset, *model, *device, *save, *json;
  long epochs, batch;
  double lr;
  unsigned long long seed;
  int backend_ref, quiet;
} options;

typedef struct result {
  char device[512];
  double accuracy, loss, train_loss, wall_s, samples_per_s;
  size_t correct;
} result;

static void usage_text(void) {
  printf("NAME\n"
         "    dlca-net - train a small network on a data set shipped with libdlca_cl\n"
         "\n"
         "SYNOPSIS\n"
         "    dlca-net --dataset digits --model mlp|cnn [--epochs N] [--batch N] [--lr X]\n"
         "             [--seed N] [--device SPEC] [--backend cl|ref] [--save FILE] [--json FILE]\n"
         "\n"
         "DESCRIPTION\n"
         "    Trains a sequential network on an OpenCL device, where each step's forward,\n"
         "    loss, backward and AdamW update run with no host round trip and the data\n"
         "    set is uploaded once, or on the C CPU twin; then reports the test accuracy.\n"
         "    The digits data set holds 1797 8x8 images; row i is a test row when\n"
         "    i %% 5 == 4. An epoch's samples past its last full batch are left out.\n"
         "\n"
         "OPTIONS\n"
         "    --dataset NAME       digits (the default)\n"
         "    --model NAME         mlp: 64-128-10 relu (the default); cnn: conv 3x3x16,\n"
         "                         relu, conv 3x3x32, relu, maxpool 2, dense 10\n"
         "    --epochs N           passes over the training set (default 40, cnn 15)\n"
         "    --batch N            samples per step (default 64)\n"
         "    --lr X               AdamW's learning rate (default 0.003)\n"
         "    --seed N             the initialisation and the batch order (default 1)\n"
         "    --backend B          cl, an OpenCL device (the default), or ref, the CPU twin\n"
         "    --device SPEC        OpenCL device: an index \"0\", \"platform:device\" \"1:0\",\n"
         "                         or part of a name \"gpu\"; default $DLCA_CL_DEVICE or the\n"
         "                         first device\n"
         "    --save FILE          write the trained network (JSON, format dlca-net)\n"
         "    --json FILE          write the result as JSON (\"-\": stdout)\n"
         "    -q, --quiet          no progress line\n"
         "    -h, --help           this text\n"
         "    -V, --version        the library version\n"
         "\n"
         "ENVIRONMENT\n"
         "    DLCA_NET_DATA        the data sets' directory (default: the installed one)\n"
         "    DLCA_CL_DEVICE       the default --device\n"
         "\n"
         "EXIT STATUS\n"
         "    0    trained\n"
         "    1    runtime failure: device, memory, disk\n"
         "    2    bad input: option, data set, model, device spec\n"
         "\n"
         "EXAMPLES\n"
         "    dlca-net --dataset digits --model mlp --json r.json\n"
         "    dlca-net --dataset digits --model cnn --backend ref --save cnn.json\n");
}

static int bad(const char *fmt, const char *arg) {
  fprintf(stderr, PROG ": ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, " (see --help)\n");
  return CLI_USAGE;
}

static const struct option long_opts[] = {
    {"dataset", 1, 0, 'd'}, {"model", 1, 0, 'm'},  {"epochs", 1, 0, 'e'}, {"batch", 1, 0, 'b'},
    {"lr", 1, 0, 'l'},      {"seed", 1, 0, 's'},   {"device", 1, 0, 'D'}, {"backend", 1, 0, 'B'},
    {"save", 1, 0, 'S'},    {"json", 1, 0, 'j'},   {"quiet", 0, 0, 'q'},  {"help", 0, 0, 'h'},
    {"version", 0, 0, 'V'}, {0, 0, 0, 0}};

/* One option into o; -1 to go on, else the exit code. */
static int take(options *o, int c, const char *a) {
  switch (c) {
  case 'd': o->dataset = a; break;
  case 'm': o->model = a; break;
  case 'e': return cli_parse_long(PROG, "--epochs", a, 1, 1000000, &o->epochs) ? CLI_USAGE : -1;
  case 'b': return cli_parse_long(PROG, "--batch", a, 1, 65536, &o->batch) ? CLI_USAGE : -1;
  case 'l': return cli_parse_double(PROG, "--lr", a, 0, &o->lr) ? CLI_USAGE : -1;
  case 's': return cli_parse_u64(PROG, "--seed", a, &o->seed) ? CLI_USAGE : -1;
  case 'D': o->device = a; break;
  case 'B':
    if (strcmp(a, "cl") && strcmp(a, "ref")) return bad("--backend: '%s' is not cl or ref", a);
    o->backend_ref = !strcmp(a, "ref");
    break;
  case 'S': o->save = a; break;
  case 'j': o->json = a; break;
  case 'q': o->quiet = 1; break;
  case 'h': usage_text(); return CLI_OK;
  case 'V': return cli_print_version(PROG, dlca_version_string());
  default: return CLI_USAGE; /* getopt said why */
  }
  return -1;
}

static int parse(int argc, char **argv, options *o) {
  *o = (options){"digits", "mlp", NULL, NULL, NULL, 0, 64, 0.003, 1, 0, 0};
  int c, rc;
  while ((c = getopt_long(argc, argv, "qhV", long_opts, NULL)) != -1)
    if ((rc = take(o, c, optarg)) >= 0) return rc;
  if (optind < argc) return bad("unexpected argument '%s'", argv[optind]);
  if (o->backend_ref && o->device) return bad("--device: %s chooses an OpenCL device, but --backend is ref", o->device);
  if (strcmp(o->dataset, "digits")) return bad("--dataset: '%s' is not one of: digits", o->dataset);
  if (strcmp(o->model, "mlp") && strcmp(o->model, "cnn")) return bad("--model: '%s' is not mlp or cnn", o->model);
  if (!o->epochs) o->epochs = strcmp(o->model, "cnn") ? 40 : 15;
  return -1;
}

/* A library failure: its message, and 2 for bad input, 1 for the rest. */
static int fail(int status, const char *what) {
  fprintf(stderr, PROG ": %s: %s\n", what, dlca_last_error()[0] ? dlca_last_error() : dlca_strerror(status));
  return status == DLCA_EINVAL || status == DLCA_EPARSE || status == DLCA_EMODEL || status == DLCA_ECONFIG
             ? CLI_USAGE : CLI_FAIL;
}

/* --json: to stdout ("-"), or written whole (tools/outfile.h). */
static int write_json(const options *o, const result *r) {
  json_t *v = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:o, s:I, s:o, s:o, s:o, s:o, s:o}", "dataset", o->dataset,
                        "model", o->model, "device", r->device, "backend", o->backend_ref ? "ref" : "cl", "epochs",
                        (json_int_t)o->epochs, "batch", (json_int_t)o->batch, "lr", outfile_json_num(o->lr), "seed",
                        (json_int_t)o->seed, "test_accuracy", outfile_json_num(r->accuracy), "test_loss",
                        outfile_json_num(r->loss), "train_loss", outfile_json_num(r->train_loss), "wall_s",
                        outfile_json_num(r->wall_s), "samples_per_s", outfile_json_num(r->samples_per_s));
  char err[256] = "out of memory";
  int bad = !v || outfile_json(o->json, v, 6, err, sizeof err);
  json_decref(v);
  if (bad) fprintf(stderr, PROG ": --json %s: %s\n", o->json, err);
  return bad ? CLI_FAIL : CLI_OK;
}

static void draw(progress *p, uint64_t epoch, double loss, double sps) {
  if (p->warm_time <= 0) p->warm_epoch = epoch, p->warm_time = cli_now();
  if (p->mode == PROGRESS_QUIET) return;
  int tty = p->mode == PROGRESS_TTY;
  uint64_t span = p->total ? p->total : 1;
  int tenth = (int)(epoch * 10 / span);
  if (!tty && tenth <= p->last_tenth && epoch < p->total) return;
  if (tty && epoch < p->total && p->last_draw >= 0 && cli_now() - p->last_draw < 0.1) return;
  p->last_draw = cli_now(), p->last_tenth = tenth;
  double rate = progress_rate(p, epoch);
  char eta[32];
  cli_duration(rate > 0 ? (double)(p->total - epoch) / rate : -1, eta, sizeof eta);
  fprintf(p->out, "%sepoch %llu/%llu  loss %.5f  %.0f samples/s  ETA %s%s", tty ? "\r" : "",
          (unsigned long long)epoch, (unsigned long long)p->total, loss, sps, eta, tty ? "\033[K" : "\n");
  fflush(p->out);
  p->on_screen = tty;
}

/* The epochs: every step enqueued, the loss read once per epoch. */
static int train(const options *o, dlca_net_trainer *t, result *r) {
  progress p;
  progress_init(&p, stderr, o->quiet, 0, (uint64_t)o->epochs);
  size_t steps = dlca_net_steps_per_epoch(t);
  double t0 = cli_now();
  for (long e = 0; e < o->epochs; e++) {
    int rc = DLCA_OK;
    for (size_t b = 0; b < steps && !rc; b++) rc = dlca_net_step(t, o->seed, (uint64_t)e, b);
    if (rc || (rc = dlca_net_trainer_loss(t, &r->train_loss))) {
      progress_break(&p);
      return fail(rc, "training");
    }
    double dt = cli_now() - t0;
    r->samples_per_s = dt > 0 ? (double)((size_t)(e + 1) * steps * (size_t)o->batch) / dt : 0;
    draw(&p, (uint64_t)e + 1, r->train_loss, r->samples_per_s);
  }
  progress_break(&p);
  return CLI_OK;
}

static int setup_ctx(const options *o, dlca_context **ctx, result *r) {
  *ctx = NULL;
  if (o->backend_ref) {
    snprintf(r->device, sizeof r->device, "CPU reference");
    return CLI_OK;
  }
  int rc = dlca_context_new(o->device, ctx);
  if (rc) return cli_context_fail(PROG, o->device, rc, "use --backend ref for the CPU twin");
  dlca_device_info info;
  dlca_context_device(*ctx, &info);
  snprintf(r->device, sizeof r->device, "%s (%s, OpenCL device %s)", info.name, info.platform, info.spec);
  return CLI_OK;
}

static int run(const options *o, const dlca_dataset *d, dlca_context *ctx, result *r) {
  dlca_net_spec spec;
  dlca_net *net = NULL;
  dlca_net_trainer *t = NULL;
  dlca_optim_config cfg;
  int rc = dlca_net_preset(o->model, &spec), code = CLI_OK;
  if (!rc) rc = dlca_net_new(&spec, o->seed, &net);
  if (!rc) rc = dlca_optim_config_default(DLCA_OPTIM_ADAMW, &cfg);
  if (!rc) cfg.lr = o->lr, rc = dlca_net_trainer_new(net, ctx, &cfg, (size_t)o->batch, &t);
  if (!rc) rc = dlca_net_trainer_data(t, d->n_train, d->x_train, d->y_train);
  if (rc) code = fail(rc, "setup");
  double t0 = cli_now();
  if (!code) code = train(o, t, r);
  r->wall_s = cli_now() - t0;
  if (!code && (rc = dlca_net_evaluate(t, d->n_test, d->x_test, d->y_test, &r->accuracy, &r->loss)))
    code = fail(rc, "evaluation");
  if (!code && o->save && ((rc = dlca_net_trainer_sync(t)) || (rc = dlca_net_save(net, o->save))))
    code = fail(rc, "--save");
  dlca_net_trainer_free(t);
  dlca_net_free(net);
  return code;
}

int main(int argc, char **argv) {
  options o;
  int code = parse(argc, argv, &o);
  if (code >= 0) return code;
  dlca_dataset d;
  int rc = dlca_dataset_load(o.dataset, &d);
  if (rc) return fail(rc, "--dataset");
  if ((size_t)o.batch > d.n_train) {
    dlca_dataset_free(&d);
    fprintf(stderr, PROG ": --batch %ld is over the %zu training samples\n", o.batch, d.n_train);
    return CLI_USAGE;
  }
  dlca_context *ctx;
  result r = {0};
  code = setup_ctx(&o, &ctx, &r);
  if (!code) code = run(&o, &d, ctx, &r);
  if (!code)
    fprintf(o.json && !strcmp(o.json, "-") ? stderr : stdout,
            PROG ": %s %s on %s: test accuracy %.2f%% (%zu samples), test loss %.4f, train loss %.4f, %.1f s, "
            "%.0f samples/s\n", o.dataset, o.model, r.device, 100 * r.accuracy, d.n_test, r.loss, r.train_loss,
            r.wall_s, r.samples_per_s);
  if (!code && o.json) code = write_json(&o, &r);
  dlca_context_free(ctx);
  dlca_dataset_free(&d);
  return code;
}
