/* dlca-tune --clblast (bench/tune_clblast.h): runs CLBlast's tuner programs
 * (clblast_tuner_xgemm, ...) on the chosen device, each in a scratch
 * directory, reads the JSON files they write, keeps each kernel's fastest
 * parameters and stores them in the user tuning table atomically. */
#include "tune_clblast.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cl/clblast.h"
#include "cli.h"
#include "tune_clblast_table.h"

#define PROG "dlca-tune"

/* The tuners this mode knows: the name --clblast-kernels takes, the program, the kernel it tunes. */
static const struct {
  const char *name, *program, *kernel;
  int gemm; /* takes -k */
} tuners[] = {
    {"xgemm", "clblast_tuner_xgemm", "Xgemm", 1},
    {"xgemm_direct", "clblast_tuner_xgemm_direct", "XgemmDirect", 1},
    {"copy", "clblast_tuner_copy_fast", "Copy", 0},
    {"pad", "clblast_tuner_copy_pad", "Pad", 0},
    {"transpose", "clblast_tuner_transpose_fast", "Transpose", 0},
    {"padtranspose", "clblast_tuner_transpose_pad", "Padtranspose", 0},
};
#define N_TUNERS (sizeof tuners / sizeof tuners[0])

typedef struct options {
  const char *device, *output, *kernels, *dir, *fraction;
  long size, seconds;
  int help, keep;
} options;

int tune_clblast_wanted(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--clblast")) return 1;
  return 0;
}

static void help(void) {
  printf("Usage: dlca-tune --clblast [--device SPEC] [--clblast-kernels LIST] [--clblast-size N]\n"
         "                 [--clblast-fraction F] [--clblast-tuners DIR] [--keep] [--output FILE]\n"
         "\n"
         "Runs CLBlast's tuners (Debian/Ubuntu package clblast-utils) on one device and stores\n"
         "each kernel's fastest parameters in the \"clblast\" section of this device's entry of\n"
         "the user tuning table (doc/tuning-table.md); the library applies them with\n"
         "CLBlastOverrideParameters when a context opens on the device.\n"
         "\n"
         "    --clblast-kernels LIST  comma-separated, of xgemm, xgemm_direct, copy, pad,\n"
         "                            transpose, padtranspose (default xgemm,xgemm_direct)\n"
         "    --clblast-size N        the tuners' -m -n -k (default 1024; xgemm needs a\n"
         "                            multiple of 128)\n"
         "    --clblast-fraction F    the share of the random search they measure (their -fraction)\n"
         "    --clblast-tuners DIR    where the clblast_tuner_* programs are (default: PATH)\n"
         "    --clblast-seconds N     stop each tuner after N seconds and keep the stages it\n"
         "                            finished (xgemm writes one JSON file per stage)\n"
         "    --keep                  keep the scratch directory with the tuners' logs and JSON\n"
         "    --output FILE           the table to write (default <cache dir>/tuning.json)\n"
         "    --device SPEC           OpenCL device (default $DLCA_CL_DEVICE, else the best)\n");
}

enum { O_DEVICE = 256, O_OUTPUT, O_KERNELS, O_SIZE, O_FRACTION, O_DIR, O_KEEP, O_CLBLAST, O_HELP, O_SECONDS };
static const struct option long_options[] = {
    {"clblast", no_argument, NULL, O_CLBLAST},         {"device", required_argument, NULL, O_DEVICE},
    {"output", required_argument, NULL, O_OUTPUT},     {"clblast-kernels", required_argument, NULL, O_KERNELS},
    {"clblast-size", required_argument, NULL, O_SIZE}, {"clblast-fraction", required_argument, NULL, O_FRACTION},
    {"clblast-tuners", required_argument, NULL, O_DIR}, {"keep", no_argument, NULL, O_KEEP},
    {"clblast-seconds", required_argument, NULL, O_SECONDS},
    {"help", no_argument, NULL, O_HELP},               {NULL, 0, NULL, 0},
};

static int parse(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  o->kernels = "xgemm,xgemm_direct", o->size = 1024;
  opterr = 0;
  int c;
  double f;
  while ((c = getopt_long(argc, argv, ":h", long_options, NULL)) != -1) {
    const char *name = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    int bad = 0;
    switch (c) {
      case O_CLBLAST: break;
      case O_DEVICE: o->device = optarg; break;
      case O_OUTPUT: o->output = optarg; break;
      case O_KERNELS: o->kernels = optarg; break;
      case O_SIZE: bad = cli_parse_long(PROG, "--clblast-size", optarg, 16, 16384, &o->size); break;
      case O_FRACTION: bad = cli_parse_double(PROG, "--clblast-fraction", optarg, 0, &f), o->fraction = optarg; break;
      case O_DIR: o->dir = optarg; break;
      case O_SECONDS: bad = cli_parse_long(PROG, "--clblast-seconds", optarg, 1, 1000000, &o->seconds); break;
      case O_KEEP: o->keep = 1; break;
      case 'h':
      case O_HELP: o->help = 1; break;
      case ':': fprintf(stderr, "%s: %s: needs a value (see --clblast --help)\n", PROG, name); return CLI_USAGE;
      default:
        fprintf(stderr, "%s: %s: not an option of --clblast (see dlca-tune --clblast --help)\n", PROG, name);
        return CLI_USAGE;
    }
    if (bad) return CLI_USAGE;
  }
  if (optind < argc) {
    fprintf(stderr, "%s: %s: unexpected argument\n", PROG, argv[optind]);
    return CLI_USAGE;
  }
  return CLI_OK;
}

/* The index in tuners[] of each name of the comma-separated list; -1 and a message for an unknown one. */
static int pick(const char *list, int *which, int *n) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", list);
  *n = 0;
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    size_t i = 0;
    while (i < N_TUNERS && strcmp(tuners[i].name, t)) i++;
    if (i == N_TUNERS || *n == (int)N_TUNERS) {
      fprintf(stderr, "%s: --clblast-kernels: '%s' is not one of xgemm, xgemm_direct, copy, pad, transpose, "
                      "padtranspose\n", PROG, t);
      return -1;
    }
    which[(*n)++] = (int)i;
  }
  return *n ? 0 : -1;
}

/* The program's full path in dir or on PATH; 0 if it is not there. */
static int find_program(const char *dir, const char *prog, char *out, size_t n) {
  const char *path = dir ? dir : getenv("PATH");
  for (const char *s = path ? path : "/usr/bin"; *s;) {
    size_t l = dir ? strlen(s) : strcspn(s, ":");
    char rel[PATH_MAX];
    snprintf(rel, sizeof rel, "%.*s/%s", (int)l, s, prog);
    if (l && access(rel, X_OK) == 0 && realpath(rel, out)) return n >= PATH_MAX; /* the tuner runs elsewhere */
    s += l;
    if (*s == ':') s++;
  }
  return 0;
}

/* Runs one tuner in dir, its output to dir/<name>.log; the exit status (-1: it could not start). */
static int run_tuner(const char *exe, const char *dir, const char *name, const dlca_device_info *dev,
                     const options *o, int gemm) {
  char plat[16], devi[16], size[24], log[1200];
  snprintf(plat, sizeof plat, "%d", dev->platform_index);
  snprintf(devi, sizeof devi, "%d", dev->device_index);
  snprintf(size, sizeof size, "%ld", o->size);
  snprintf(log, sizeof log, "%s/%s.log", dir, name);
  const char *argv[20] = {exe, "-platform", plat, "-device", devi, "-precision", "32", "-m", size, "-n", size};
  int a = 11;
  if (gemm) argv[a++] = "-k", argv[a++] = size;
  if (o->fraction) argv[a++] = "-fraction", argv[a++] = o->fraction;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (chdir(dir) || !freopen(log, "w", stdout) || dup2(fileno(stdout), 2) < 0) _exit(126);
    execv(exe, (char *const *)argv);
    _exit(127);
  }
  int st;
  double t0 = cli_now();
  long limit = o->seconds; /* 0: none */
  for (;;) {
    pid_t w = waitpid(pid, &st, limit ? WNOHANG : 0);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) return -1;
    if (w == 0 && cli_now() - t0 > (double)limit) {
      printf("  stopping it after %ld s (--clblast-seconds)\n", limit);
      kill(pid, SIGTERM);
      limit = 0; /* then wait for it */
    } else if (w == 0) {
      usleep(200000);
    }
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* Runs the chosen tuners (all found first: no hour of tuning before a missing one stops it); reads what
 * they wrote into best. The number of kernels found, -1 after a message. */
static int run_all(const options *o, const int *which, int n, const dlca_device_info *dev, const char *dir,
                   tc_best *best) {
  static char exe[N_TUNERS][PATH_MAX];
  for (int i = 0; i < n; i++)
    if (!find_program(o->dir, tuners[which[i]].program, exe[i], sizeof exe[i])) {
      fprintf(stderr, "%s: %s not found (%s): install CLBlast's tuners, Debian/Ubuntu package clblast-utils\n", PROG,
              tuners[which[i]].program, o->dir ? o->dir : "on PATH");
      return -1;
    }
  for (int i = 0; i < n; i++) {
    printf("running %s (log %s/%s.log) ...\n", exe[i], dir, tuners[which[i]].name);
    double t0 = cli_now();
    int st = run_tuner(exe[i], dir, tuners[which[i]].name, dev, o, tuners[which[i]].gemm);
    char dur[32];
    printf("  %s exit %d after %s\n", tuners[which[i]].program, st, cli_duration(cli_now() - t0, dur, sizeof dur));
    if (st) fprintf(stderr, "%s: note: %s exited %d; what it wrote before is still read\n", PROG,
                    tuners[which[i]].program, st);
  }
  int found = 0;
  return tc_read_results(dir, best, &found) ? -1 : found;
}

int tune_clblast_main(int argc, char **argv) {
  options o;
  int code = parse(argc, argv, &o);
  if (code || o.help) {
    if (o.help) help();
    return code;
  }
  int which[N_TUNERS], n;
  if (pick(o.kernels, which, &n)) return CLI_USAGE;
  dlca_context *ctx;
  int rc = dlca_context_new(o.device, &ctx);
  if (rc) return cli_context_fail(PROG, o.device, rc, NULL);
  dlca_device_info dev;
  dlca_context_device(ctx, &dev);
  dlca_context_free(ctx);
  char dir[] = "/tmp/dlca-tune-clblast-XXXXXX";
  if (!mkdtemp(dir)) {
    fprintf(stderr, "%s: a scratch directory in /tmp: %s\n", PROG, strerror(errno));
    return CLI_FAIL;
  }
  printf("%s --clblast on %s (%s, driver %s, OpenCL device %s)\n", PROG, dev.name, dev.platform, dev.driver, dev.spec);
  tc_best best;
  memset(&best, 0, sizeof best);
  int found = run_all(&o, which, n, &dev, dir, &best);
  if (found < 0) code = CLI_FAIL;
  else if (!found) {
    fprintf(stderr, "%s: the tuners wrote no result (see the logs in %s)\n", PROG, dir);
    code = CLI_FAIL, o.keep = 1;
  } else code = tc_write(&dev, &best, o.output, o.size);
  tc_best_free(&best);
  if (!o.keep) tc_remove_dir(dir);
  else printf("kept %s\n", dir);
  return code;
}
