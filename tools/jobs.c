/* Ordered runs in child processes: jobs.h. */
#include "jobs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

typedef struct slot {
  pid_t pid;
  FILE *out, *err; /* the child's stdout and stderr, unlinked temporary files */
  FILE *res;       /* the task's value (jobs_task_fn), another one */
} slot;

static void close_slot(slot *t) {
  if (t->out) fclose(t->out);
  if (t->err) fclose(t->err);
  if (t->res) fclose(t->res);
  t->out = t->err = t->res = NULL, t->pid = 0;
}

/* Copies what the child wrote to f onto to. */
static void replay(FILE *f, FILE *to) {
  char buf[8192];
  size_t got;
  rewind(f);
  while ((got = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, got, to);
  fflush(to);
}

static int start(const jobs_spec *s, long k, slot *t) {
  t->out = tmpfile();
  t->err = t->out ? tmpfile() : NULL;
  t->res = t->err ? tmpfile() : NULL;
  if (!t->res) {
    int e = errno;
    close_slot(t);
    errno = e;
    return -1;
  }
  fflush(NULL); /* nothing buffered twice */
  const pid_t parent = getpid();
  t->pid = fork();
  if (t->pid < 0) {
    int e = errno;
    close_slot(t);
    errno = e;
    return -1;
  }
  if (t->pid == 0) {
    signal(SIGINT, SIG_IGN);
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(128 + SIGKILL); /* the parent is already gone */
#else
    (void)parent;
#endif
    if (dup2(fileno(t->out), STDOUT_FILENO) < 0 || dup2(fileno(t->err), STDERR_FILENO) < 0) _exit(127);
    long value = 0;
    int code = s->task(s->ctx, k, &value);
    fflush(stdout);
    fflush(stderr);
    if (write(fileno(t->res), &value, sizeof value) != (ssize_t)sizeof value) _exit(127);
    _exit(code & 0xff);
  }
  return 0;
}

/* Waits for t's child: its exit code, or 128 + the signal that killed it;
 * -1 with errno (EINTR: a signal came first, the child still runs). */
static int reap(slot *t) {
  int st;
  if (waitpid(t->pid, &st, 0) < 0) return -1;
  t->pid = 0;
  return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}

int jobs_run(const jobs_spec *s, long *next) {
  const long n = s->n < 1 ? 1 : s->n;
  slot *slots = calloc((size_t)n, sizeof *slots);
  if (!slots) return JOBS_FAILED;
  long started = s->first, handed = s->first;
  int rc = JOBS_DONE, stop = 0, saved_errno = 0;
  while (handed <= s->last && !stop) {
    while (started <= s->last && started - handed < n && !(s->stop && *s->stop)) {
      if (start(s, started, &slots[(started - s->first) % n])) {
        saved_errno = errno, rc = JOBS_FAILED, stop = 1;
        break;
      }
      started++;
    }
    if (stop) break;
    if (s->stop && *s->stop) {
      rc = JOBS_STOPPED;
      break;
    }
    slot *t = &slots[(handed - s->first) % n];
    const int code = reap(t);
    if (code < 0) {
      if (errno == EINTR) continue; /* a signal: *stop says whether to go on */
      saved_errno = errno, rc = JOBS_FAILED;
      break;
    }
    replay(t->out, stdout);
    replay(t->err, stderr);
    long value = 0; /* 0 where the child died first */
    rewind(t->res);
    if (fread(&value, sizeof value, 1, t->res) != 1) value = 0;
    close_slot(t);
    const long k = handed++;
    if (s->done(s->ctx, k, code, value)) stop = 1;
  }
  /* the tasks started but not handed to done(): not needed any more */
  for (long k = handed; k < started; k++) {
    slot *t = &slots[(k - s->first) % n];
    if (t->pid > 0) {
      kill(t->pid, SIGKILL);
      while (waitpid(t->pid, NULL, 0) < 0 && errno == EINTR) {
      }
    }
    close_slot(t);
    if (s->drop) s->drop(s->ctx, k);
  }
  free(slots);
  if (next) *next = handed;
  if (rc == JOBS_FAILED) errno = saved_errno;
  return rc;
}
