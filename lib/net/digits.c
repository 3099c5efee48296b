/* The digits data set (data/digits/README.md): a gzip'd CSV of 64 pixels
 * 0..16 and a class 0..9 per line, read with zlib, scaled to 0..1 and split
 * (row i is a test row when i % 5 == 4). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "net/net_impl.h"

#define DIGITS_PIXELS 64
#define DIGITS_MAX_ROWS 100000

/* One CSV line into px[64] and *cls, or an error naming path and line. */
static int parse_line(const char *path, size_t line, char *s, float *px, float *cls) {
  for (int k = 0; k <= DIGITS_PIXELS; k++) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    int last = k == DIGITS_PIXELS;
    if (end == s || errno || (last ? (*end && *end != '\n' && *end != '\r') : *end != ','))
      return dlca__fail(DLCA_EPARSE, "%s:%zu: field %d: expected %s", path, line, k + 1,
                        last ? "the class and the end of the line" : "an integer and a comma");
    if (v < 0 || v > (last ? 9 : 16))
      return dlca__fail(DLCA_EPARSE, "%s:%zu: field %d: %ld is not in [0, %d]", path, line, k + 1, v,
                        last ? 9 : 16);
    if (last) *cls = (float)v;
    else px[k] = (float)v / 16.0f;
    s = end + 1;
  }
  return DLCA_OK;
}

static int grow(dlca_dataset *d, size_t *cap) {
  size_t c = *cap ? *cap * 2 : 1024;
  float *x = realloc(d->x_train, c * DIGITS_PIXELS * sizeof(float));
  if (x) d->x_train = x;
  float *y = realloc(d->y_train, c * sizeof(float));
  if (y) d->y_train = y;
  if (!x || !y) return dlca__fail(DLCA_ENOMEM, "digits: out of host memory for %zu rows", c);
  *cap = c;
  return DLCA_OK;
}

/* Every row into x_train / y_train, in file order; n_train counts them. */
static int read_rows(gzFile f, const char *path, dlca_dataset *d) {
  char line[1024];
  size_t cap = 0;
  while (gzgets(f, line, sizeof line)) {
    size_t n = d->n_train;
    if (strlen(line) == sizeof line - 1 && line[sizeof line - 2] != '\n')
      return dlca__fail(DLCA_EPARSE, "%s:%zu: line longer than %zu bytes", path, n + 1, sizeof line - 2);
    if (n >= DIGITS_MAX_ROWS) return dlca__fail(DLCA_EPARSE, "%s: over %d rows", path, DIGITS_MAX_ROWS);
    int rc = n == cap ? grow(d, &cap) : DLCA_OK;
    if (rc || (rc = parse_line(path, n + 1, line, d->x_train + n * DIGITS_PIXELS, d->y_train + n))) return rc;
    d->n_train++;
  }
  int err;
  const char *msg = gzerror(f, &err);
  if (err != Z_OK && err != Z_STREAM_END) return dlca__fail(DLCA_EIO, "%s: %s", path, msg);
  if (d->n_train < 5) return dlca__fail(DLCA_EPARSE, "%s: %zu rows; a split needs at least 5", path, d->n_train);
  return DLCA_OK;
}

/* Moves rows i % 5 == 4 into the test arrays, keeping the order of both. */
static int split(dlca_dataset *d) {
  size_t n = d->n_train, nt = n / 5;
  d->x_test = malloc(nt * DIGITS_PIXELS * sizeof(float)), d->y_test = malloc(nt * sizeof(float));
  if (!d->x_test || !d->y_test) return dlca__fail(DLCA_ENOMEM, "digits: out of host memory");
  size_t a = 0, b = 0;
  for (size_t i = 0; i < n; i++) {
    int test = i % 5 == 4;
    float *x = test ? d->x_test + b * DIGITS_PIXELS : d->x_train + a * DIGITS_PIXELS;
    memmove(x, d->x_train + i * DIGITS_PIXELS, DIGITS_PIXELS * sizeof(float));
    (test ? d->y_test : d->y_train)[test ? b : a] = d->y_train[i];
    test ? b++ : a++;
  }
  d->n_train = a, d->n_test = b, d->in_size = DIGITS_PIXELS;
  return DLCA_OK;
}

int dlca_dataset_load_digits_file(const char *path, dlca_dataset *out) {
  if (!path || !out) return dlca__fail(DLCA_EINVAL, "dlca_dataset_load_digits_file: NULL argument");
  memset(out, 0, sizeof *out);
  gzFile f = gzopen(path, "rb"); /* reads a plain file as it is */
  if (!f) return dlca__fail(DLCA_EIO, "%s: cannot open: %s", path, strerror(errno ? errno : ENOMEM));
  int rc = read_rows(f, path, out);
  gzclose(f);
  if (rc == DLCA_OK) rc = split(out);
  if (rc) dlca_dataset_free(out);
  return rc;
}

int dlca_dataset_load(const char *name, dlca_dataset *out) {
  if (!name || !out) return dlca__fail(DLCA_EINVAL, "dlca_dataset_load: NULL argument");
  memset(out, 0, sizeof *out);
  if (strcmp(name, "digits") != 0) return dlca__fail(DLCA_EINVAL, "data set '%s' is not one of: digits", name);
  const char *dir = getenv("DLCA_NET_DATA");
  char path[4096];
  if (!dir || !*dir) dir = DLCA_PKGDATADIR "/data";
  if ((size_t)snprintf(path, sizeof path, "%s/digits/digits.csv.gz", dir) >= sizeof path)
    return dlca__fail(DLCA_EINVAL, "DLCA_NET_DATA: path too long");
  return dlca_dataset_load_digits_file(path, out);
}

void dlca_dataset_free(dlca_dataset *d) {
  if (!d) return;
  free(d->x_train), free(d->y_train), free(d->x_test), free(d->y_test);
  memset(d, 0, sizeof *d);
}
