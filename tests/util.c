/* Helpers shared by the test suites. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util.h"

const char *tu_vector_path(const char *name) {
  static char buf[8][1024];
  static int k;
  const char *dir = getenv("DLCA_TESTDATA");
  if (!dir) dir = "../shared/testdata/reference";
  char *p = buf[k++ % 8];
  snprintf(p, 1024, "%s/%s", dir, name);
  if (access(p, R_OK) != 0) {
    fprintf(stderr, "SKIP: reference vector %s not found (shared/ absent?)\n", p);
    return NULL;
  }
  return p;
}

const char *tu_tmpdir(const char *tag) {
  static char buf[8][1024];
  static int k;
  const char *top = getenv("DLCA_TOP_BUILDDIR");
  char *p = buf[k++ % 8];
  snprintf(p, 1024, "%s/tests/tmp-%s-%d", top ? top : ".", tag, (int)getpid());
  char cmd[1100];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", p);
  if (system(cmd) != 0) return p;
  mkdir(top ? top : ".", 0755);
  char t[1024];
  snprintf(t, sizeof t, "%s/tests", top ? top : ".");
  mkdir(t, 0755);
  mkdir(p, 0755);
  return p;
}

const char *tu_write(const char *dir, const char *name, const char *text) {
  static char buf[8][1024];
  static int k;
  char *p = buf[k++ % 8];
  snprintf(p, 1024, "%s/%s", dir, name);
  FILE *f = fopen(p, "wb");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
  return p;
}

void tu_random(float *v, size_t n, float lo, float hi, uint64_t seed) {
  for (size_t i = 0; i < n; i++)
    v[i] = lo + (hi - lo) * (float)(dlca_rng_u32(seed, 7, (uint32_t)i) >> 8) * (1.0f / 16777216.0f);
}
