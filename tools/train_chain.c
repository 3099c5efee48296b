/* dlca-train's chain of --restarts: run k trains seed + 1000 k while the
 * circuit is wrong on fresh grids, one by one or with --jobs several at
 * once in child processes (tools/jobs.h). */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "jobs.h"
#include "train_run.h"

/* The lines a chain of --restarts prints on stderr, one by one or with --jobs. */
static void chain_right(const run *r, long k, uint64_t seed) {
  fprintf(stderr, "%s: right on every fresh grid%s at run %ld (seed %llu)\n", TRAIN_PROG,
          r->opt.eval_scale > 0 ? " and on the larger grid" : "", k + 1, (unsigned long long)seed);
}

static void chain_none(long runs, long abandoned, uint64_t seed) {
  fprintf(stderr,
          "%s: --restarts: none of the %ld runs was right on every fresh grid (%ld abandoned; the last: seed %llu)\n",
          TRAIN_PROG, runs, abandoned, (unsigned long long)seed);
}

/* Run k (the runs-th of the chain) was not right: the chain's rate so far,
 * a long chain's only progress line (its length is a geometric draw).
 * abandoned_at: the epoch, 0 if it was not abandoned. */
static void chain_restart(const run *r, long k, long last, uint64_t next_seed, long runs, long abandoned,
                          uint64_t abandoned_at) {
  char why[96], took[32];
  const double dt = cli_now() - r->t_start;
  if (abandoned_at > 0)
    snprintf(why, sizeof why, "the run was abandoned at epoch %llu", (unsigned long long)abandoned_at);
  else snprintf(why, sizeof why, "the circuit is wrong on fresh grids");
  fprintf(stderr, "%s: %s: restart %ld of %ld with seed %llu (%ld run%s in %s, %.1f s a run, %ld abandoned)\n",
          TRAIN_PROG, why, k + 1, last, (unsigned long long)next_seed, runs, runs == 1 ? "" : "s",
          cli_duration(dt, took, sizeof took), dt / (double)runs, abandoned);
}

/* --jobs: a chain of --restarts with several runs at once (tools/jobs.h).
 * Run k trains in a child process with its own --save, --log and
 * --checkpoint files (PATH.runK); the parent replays each run's output in
 * the order of k, as the chain one by one prints it, and keeps the files of
 * the run that ends the chain. A run's exit code says how it ended, its
 * value the epoch it was abandoned at (0: it was not). */
enum { JOB_RIGHT = 10, JOB_WRONG = 11 };

typedef struct chain {
  run *r;
  uint64_t seed0;
  long k0, last, abandoned;
  int rc;
} chain;

/* PATH.runK, or NULL without PATH; malloc'd. */
static char *run_path(const char *path, long k) {
  if (!path) return NULL;
  size_t n = strlen(path) + 32;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s.run%ld", path, k);
  return p;
}

static int chain_task(void *ctx, long k, long *abandoned_at) {
  chain *c = ctx;
  run *r = c->r;
  r->opt.seed = c->seed0 + 1000 * (uint64_t)k;
  r->save_shown = r->opt.save, r->log_shown = r->opt.log;
  r->opt.save = run_path(r->opt.save, k);
  r->opt.log = run_path(r->opt.log, k);
  r->opt.checkpoint = run_path(r->opt.checkpoint, k);
  int rc = train_run_main(r);
  if (!rc) rc = r->fresh_ok ? JOB_RIGHT : JOB_WRONG;
  *abandoned_at = (long)r->abandoned_at;
  train_run_free(r);
  return rc;
}

/* Run k's files become the chain's (keep), or go (drop). */
static int chain_files(chain *c, long k, int keep) {
  const char *paths[3] = {c->r->opt.save, c->r->opt.log, c->r->opt.checkpoint};
  int rc = 0;
  for (int i = 0; i < 3; i++) {
    char *p = run_path(paths[i], k);
    if (!p) continue;
    if (keep && rename(p, paths[i]) && errno != ENOENT && !rc) {
      fprintf(stderr, "%s: --jobs: %s -> %s: %s\n", TRAIN_PROG, p, paths[i], strerror(errno));
      rc = CLI_FAIL;
    }
    if (!keep) remove(p);
    /* a run killed while it wrote left the library's temporary file (PATH.runK.tmp.XXXXXX) */
    glob_t g;
    char pat[4096];
    snprintf(pat, sizeof pat, "%s.tmp.*", p);
    if (glob(pat, GLOB_NOSORT, NULL, &g) == 0) {
      for (size_t j = 0; j < g.gl_pathc; j++) remove(g.gl_pathv[j]);
      globfree(&g);
    }
    free(p);
  }
  return rc;
}

static void chain_drop(void *ctx, long k) { chain_files(ctx, k, 0); }

static int chain_done(void *ctx, long k, int code, long abandoned_at) {
  chain *c = ctx;
  const uint64_t seed = c->seed0 + 1000 * (uint64_t)k;
  c->abandoned += code == JOB_WRONG && abandoned_at > 0;
  if (code == JOB_RIGHT) {
    chain_right(c->r, k, seed);
    c->rc = chain_files(c, k, 1);
    return 1;
  }
  if (code != JOB_WRONG) { /* a failed run's message came with its output */
    if (code > 128)
      fprintf(stderr, "%s: --jobs: run %ld (seed %llu) was killed by signal %d\n", TRAIN_PROG, k + 1,
              (unsigned long long)seed, code - 128);
    chain_files(c, k, 0);
    c->rc = code > 128 ? CLI_FAIL : code;
    return 1;
  }
  if (k == c->last) {
    chain_none(k + 1 - c->k0, c->abandoned, seed);
    c->rc = chain_files(c, k, 1);
    return 1;
  }
  chain_files(c, k, 0);
  chain_restart(c->r, k, c->last, seed + 1000, k + 1 - c->k0, c->abandoned, (uint64_t)abandoned_at);
  return 0;
}

static int chain_jobs(run *r) {
  chain c = {r, r->opt.seed, r->opt.restart_from, r->opt.restart_from + r->opt.restarts, 0, 0};
  jobs_spec s = {r->opt.jobs, c.k0, c.last, chain_task, chain_done, chain_drop, &c, &train_stop_signal};
  train_catch_signals();
  long next = c.k0;
  const int jr = jobs_run(&s, &next);
  if (jr == JOBS_FAILED) {
    fprintf(stderr, "%s: --jobs: cannot start a run (a process or its output file): %s; go on with --restart-from %ld\n",
            TRAIN_PROG, strerror(errno), next);
    return CLI_FAIL;
  }
  if (jr == JOBS_STOPPED) {
    if (next > c.k0)
      fprintf(stderr, "%s: --jobs: interrupted; runs %ld to %ld were done, none right (go on with --restart-from %ld)\n",
              TRAIN_PROG, c.k0, next - 1, next);
    else
      fprintf(stderr, "%s: --jobs: interrupted before run %ld was done (go on with --restart-from %ld)\n", TRAIN_PROG,
              c.k0, c.k0);
    return CLI_INTERRUPTED;
  }
  return c.rc;
}

int train_chain(run *r) {
  if (r->opt.jobs > 1) return chain_jobs(r);
  int rc;
  /* --restarts: run k trains seed + 1000 k while the fresh check fails */
  const uint64_t seed0 = r->opt.seed;
  const long k0 = r->opt.restart_from, last = k0 + r->opt.restarts;
  r->opt.seed = seed0 + 1000 * (uint64_t)k0;
  long abandoned = 0;
  for (long k = k0;; k++) {
    rc = train_run_main(r);
    abandoned += !rc && r->abandoned_at > 0;
    const int more = !rc && !r->fresh_ok && k < last && !train_stop_signal;
    if (r->opt.restarts > 0 && !rc && r->fresh_ok) chain_right(r, k, r->opt.seed);
    else if (r->opt.restarts > 0 && !rc && !more) chain_none(k + 1 - k0, abandoned, r->opt.seed);
    if (!more) break;
    const uint64_t at = r->abandoned_at;
    train_run_free(r);
    r->opt.seed = seed0 + 1000 * (uint64_t)(k + 1);
    chain_restart(r, k, last, r->opt.seed, k + 1 - k0, abandoned, at);
  }
  return rc;
}
