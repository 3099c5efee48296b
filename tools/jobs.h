/* Ordered runs in child processes, for dlca-train --jobs (a chain of
 * --restarts with several runs at once; tests/test_jobs.c).
 *
 * Tasks k = first..last run in forked children, at most n at once. Each
 * child's stdout and stderr go to files of its own; the parent waits for
 * the tasks in the order of k, replays each one's output whole, and then
 * asks done() whether to go on. So what the parent prints and decides is
 * what running the tasks one after another would give; only the time
 * differs. A task started but not needed (done() stopped the chain, or a
 * signal did) is killed and handed to drop().
 *
 * The parent must not have started OpenCL or OpenMP threads: a child is a
 * fork. Children ignore SIGINT, so that a Ctrl-C on the terminal reaches
 * the parent only; on Linux a child dies with its parent. */
#ifndef DLCA_TOOLS_JOBS_H
#define DLCA_TOOLS_JOBS_H

#include <signal.h>

/* In the child: runs task k and returns its exit code (0-125); *value
 * (0 unless set) reaches done(). */
typedef int (*jobs_task_fn)(void *ctx, long k, long *value);
/* In the parent, in the order of k, after task k's output: its exit code,
 * or 128 + the signal that killed it, and its value (0 if it died before
 * giving one). Returns 1 to stop, 0 to go on. */
typedef int (*jobs_done_fn)(void *ctx, long k, int code, long value);
/* In the parent: task k was started, then killed unfinished. May be NULL. */
typedef void (*jobs_drop_fn)(void *ctx, long k);

typedef struct jobs_spec {
  long n;             /* tasks at once, >= 1 */
  long first, last;   /* tasks first..last */
  jobs_task_fn task;
  jobs_done_fn done;
  jobs_drop_fn drop;
  void *ctx;
  volatile sig_atomic_t *stop; /* set by a signal handler: stop at once; may be NULL */
} jobs_spec;

enum { JOBS_DONE = 0, JOBS_STOPPED = 1, JOBS_FAILED = -1 };

/* Runs the tasks. Returns JOBS_DONE once done() said stop or task `last` was
 * handed to it; JOBS_STOPPED when *stop was set first; JOBS_FAILED when a
 * fork or a temporary file failed (errno says why). *next is the first task
 * not handed to done(). Prints nothing of its own. */
int jobs_run(const jobs_spec *s, long *next);

#endif
