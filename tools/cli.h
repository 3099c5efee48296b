/* Helpers the command-line tools share: strict number parsing for options,
 * a monotonic clock, and the exit codes every tool documents. Header-only so
 * that each tool links nothing extra. */
#ifndef DLCA_TOOLS_CLI_H
#define DLCA_TOOLS_CLI_H

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "dlca_cl.h"
#include "core/grow.h" /* dlca__grow */

/* Exit codes, the same in every tool: 0 success; 2 the user can fix the
 * command line or the input files (a bad value, a corrupt file, a missing or
 * unknown device); 1 something failed while running (device, disk, memory). */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2, CLI_INTERRUPTED = 130 };

/* Every tool takes -h/--help and -V/--version. --version prints one line,
 * "PROG (libdlca_cl) X.Y.Z", the format help2man reads for the man pages. */
#define CLI_VERSION_FMT "%s (libdlca_cl) %s\n"
static inline int cli_print_version(const char *prog, const char *version) {
  printf(CLI_VERSION_FMT, prog, version);
  return CLI_OK;
}

/* A failed dlca_context_new(device, ...): prints one line and returns the
 * exit code. A spec that matches nothing is the user's to fix (2), whether
 * --device gave it ("PROG: --device: no OpenCL device matches ...") or
 * DLCA_CL_DEVICE did (the library's message starts "DLCA_CL_DEVICE=..."); so
 * is a bad table named by DLCA_CL_TUNING, which the message names too. The
 * library's list of the devices goes (dlca-info shows them). The rest, no
 * OpenCL platform among them, are runtime failures (1); `hint`, if not NULL,
 * is added to that one ("use --backend ref ..."). */
static inline int cli_context_fail(const char *prog, const char *device, int status, const char *hint) {
  const char *why = dlca_last_error();
  if (!why[0]) why = dlca_strerror(status);
  int spec = status == DLCA_ENODEVICE || status == DLCA_EINVAL;
  int code = spec || status == DLCA_ETUNING ? CLI_USAGE : CLI_FAIL;
  int nop = status == DLCA_ENOPLATFORM && hint;
  int len = (int)strlen(why), cut = 0;
  if (code == CLI_USAGE && strchr(why, '\n')) { /* end at the last full sentence: "... Available:" goes */
    len = (int)(strchr(why, '\n') - why);
    for (int i = len - 1; i > 0; i--)
      if (why[i] == ' ' && why[i - 1] == '.') {
        len = i;
        break;
      }
    cut = status == DLCA_ENODEVICE;
  }
  fprintf(stderr, "%s: %s%.*s%s%s%s%s\n", prog, spec && device && *device ? "--device: " : "", len, why,
          cut ? " dlca-info lists the devices." : "", nop ? " (" : "", nop ? hint : "", nop ? ")" : "");
  return code;
}

/* Parses a whole decimal integer in [min, max]. On failure prints one line
 * "prog: --opt: 'text' is not an integer in [min, max]" and returns -1.
 * strtol alone accepts "12abc" and empty strings; those are typos here. */
static inline int cli_parse_long(const char *prog, const char *opt, const char *s, long min, long max,
                                 long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < min || v > max) {
    fprintf(stderr, "%s: %s: '%s' is not an integer in [%ld, %ld]\n", prog, opt, s, min, max);
    return -1;
  }
  *out = v;
  return 0;
}

/* The same for an unsigned 64-bit value (seeds). */
static inline int cli_parse_u64(const char *prog, const char *opt, const char *s, unsigned long long *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || end == s || *end || s[0] == '-') {
    fprintf(stderr, "%s: %s: '%s' is not a non-negative integer\n", prog, opt, s);
    return -1;
  }
  *out = v;
  return 0;
}

/* A finite number strictly greater than `above`. */
static inline int cli_parse_double(const char *prog, const char *opt, const char *s, double above, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !isfinite(v) || !(v > above)) {
    fprintf(stderr, "%s: %s: '%s' is not a number greater than %g\n", prog, opt, s, above);
    return -1;
  }
  *out = v;
  return 0;
}

/* A finite number >= 0. */
static inline int cli_parse_nonneg(const char *prog, const char *opt, const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !isfinite(v) || !(v >= 0)) {
    fprintf(stderr, "%s: %s: '%s' is not a number >= 0\n", prog, opt, s);
    return -1;
  }
  *out = v;
  return 0;
}

/* Seconds on a clock that never jumps, for rates and ETAs. */
static inline double cli_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "3h05m", "4m07s", "12.3s": durations a person reads at a glance. */
static inline const char *cli_duration(double s, char *buf, size_t n) {
  if (!(s >= 0) || s > 1e8) snprintf(buf, n, "?");
  else if (s < 60) snprintf(buf, n, "%.1fs", s);
  else if (s < 3600) snprintf(buf, n, "%dm%02ds", (int)s / 60, (int)s % 60);
  else snprintf(buf, n, "%dh%02dm", (int)s / 3600, ((int)s % 3600) / 60);
  return buf;
}

#endif
