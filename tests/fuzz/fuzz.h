/* What every libFuzzer harness of tests/fuzz/ shares: a per-process scratch
 * file on tmpfs for parsers that take a path, and the check that a refusal
 * names its file. Built only by scripts/run-fuzz.sh, with clang. */
#ifndef DLCA_FUZZ_H
#define DLCA_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include "dlca_cl.h"

/* A directory of this process under $DLCA_FUZZ_TMP (scripts/run-fuzz.sh
 * makes one on /dev/shm), else /dev/shm when there is one, $TMPDIR or
 * /tmp; the one file a harness writes there is rewritten for every input,
 * and both are removed at a normal exit. */
static char fuzz_dir_[512], fuzz_path_[600];

static inline void fuzz_cleanup_(void) {
  if (fuzz_path_[0]) unlink(fuzz_path_);
  if (fuzz_dir_[0]) rmdir(fuzz_dir_);
}

static inline const char *fuzz_dir(void) {
  if (fuzz_dir_[0]) return fuzz_dir_;
  const char *base = getenv("DLCA_FUZZ_TMP");
  struct stat st;
  if (!base || !*base) base = stat("/dev/shm", &st) == 0 && access("/dev/shm", W_OK) == 0 ? "/dev/shm" : NULL;
  if (!base) base = getenv("TMPDIR");
  if (!base || !*base) base = "/tmp";
  snprintf(fuzz_dir_, sizeof fuzz_dir_, "%s/dlca-fuzz-%ld", base, (long)getpid());
  if (mkdir(fuzz_dir_, 0700) != 0 && stat(fuzz_dir_, &st) != 0) {
    perror(fuzz_dir_);
    abort();
  }
  atexit(fuzz_cleanup_);
  return fuzz_dir_;
}

/* Writes data to <fuzz_dir>/name and returns the path (static storage). */
static inline const char *fuzz_write(const char *name, const uint8_t *data, size_t size) {
  snprintf(fuzz_path_, sizeof fuzz_path_, "%s/%s", fuzz_dir(), name);
  FILE *f = fopen(fuzz_path_, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
    perror(fuzz_path_);
    abort();
  }
  return fuzz_path_;
}

/* A refusal must say which file (the house rule: errors name the file). */
static inline void fuzz_check_refusal(int rc, const char *path) {
  const char *msg = dlca_last_error();
  if (getenv("DLCA_FUZZ_VERBOSE")) fprintf(stderr, "fuzz: rc %d: %s\n", rc, rc ? msg : "ok");
  if (rc && (!msg || !strstr(msg, path))) {
    fprintf(stderr, "fuzz: refused (status %d) without naming %s: \"%s\"\n", rc, path, msg ? msg : "(null)");
    abort();
  }
}

/* Seed mode: with DLCA_FUZZ_SEEDS=DIR, a harness that has seeds of its
 * own writes them into DIR with the library's writers (LLVMFuzzerInitialize)
 * and exits; scripts/run-fuzz.sh does this before fuzzing. */
static inline const char *fuzz_seed_dir(void) {
  const char *d = getenv("DLCA_FUZZ_SEEDS");
  return d && *d ? d : NULL;
}

static inline void fuzz_seed_done(int rc, const char *what) {
  if (rc) {
    fprintf(stderr, "fuzz: cannot write the %s seeds: %s\n", what, dlca_last_error());
    exit(1);
  }
  exit(0);
}

/* A small model shape (as tests/util.c's tu_small_shape(1, 1, 0, 1, 0,
 * UNIQUE)): 20 gates, so that its files are a few kilobytes. */
static inline dlca_model_shape fuzz_small_shape(dlca_parametrisation par) {
  static const int perceive[] = {9, 8, 4, 2}, update[] = {3, 3, 2, 1};
  dlca_model_shape s;
  memset(&s, 0, sizeof s);
  s.channels = 1, s.n_kernels = 1, s.periodic = 1;
  s.n_perceive_layers = 4, s.n_update_layers = 4;
  memcpy(s.perceive_layers, perceive, sizeof perceive);
  memcpy(s.update_layers, update, sizeof update);
  s.perceive_first_wiring = DLCA_WIRING_FIRST_KERNEL;
  s.wiring = DLCA_WIRING_UNIQUE;
  s.parametrisation = par;
  return s;
}

#endif
