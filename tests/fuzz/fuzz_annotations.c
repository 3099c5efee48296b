/* libFuzzer: the kernel source reader (lib/cl/loader.c) on a kernel file
 * of the fuzzer's bytes: #include resolution (dlca__kernel_resolve; the
 * file may include itself or the shipped kernels) and the `// @tunable`
 * annotations (dlca__tunables_parse), through dlca__kernel_tunables. A
 * tunable that parses has a macro name and 1 to 16 values. */
#include <ctype.h>
#include "fuzz.h"
#include "cl/runtime.h"

static void check(const dlca_tunable *t) {
  if (t->n_values < 1 || t->n_values > 16 || !(isalpha((unsigned char)t->name[0]) || t->name[0] == '_')) {
    fprintf(stderr, "fuzz: tunable \"%s\" with %d values\n", t->name, t->n_values);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write("fuzz.cl", data, size);
  dlca_tunable *ts = NULL;
  size_t n = 0;
  int rc = dlca__kernel_tunables(NULL, path, &ts, &n);
  if (!rc) {
    for (size_t i = 0; i < n; i++) check(&ts[i]);
    free(ts);
  }
  /* the annotation parser alone, on the bytes up to the first NUL */
  char *src = malloc(size + 1);
  if (!src) return 0;
  memcpy(src, data, size);
  src[size] = 0;
  if (!dlca__tunables_parse("fuzz.cl", src, &ts, &n)) {
    for (size_t i = 0; i < n; i++) check(&ts[i]);
    free(ts);
  }
  free(src);
  return 0;
}
