/* The CSV training log of dlca-train (see csvlog.h and doc/dlca-train.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "csvlog.h"
#include "outfile.h"

/* Reads the rows of an earlier log that a resumed run keeps: those whose
 * epoch is at most `upto`. Returns a malloc'd string (possibly empty), or
 * NULL with errno set; a missing file keeps nothing. */
static char *kept_rows(const char *path, uint64_t upto) {
  FILE *f = fopen(path, "r");
  if (!f) return errno == ENOENT ? calloc(1, 1) : NULL;
  size_t cap = 4096, len = 0;
  char *out = malloc(cap), line[1024];
  if (!out) {
    fclose(f);
    return NULL;
  }
  out[0] = 0;
  while (fgets(line, sizeof line, f)) {
    char *end;
    unsigned long long e = strtoull(line, &end, 10);
    if (end == line || *end != ',' || e > upto) continue; /* the header, or a row past the checkpoint */
    size_t add = strlen(line);
    if (len + add + 2 > cap) {
      char *p = realloc(out, cap = 2 * (len + add + 2));
      if (!p) {
        free(out);
        fclose(f);
        return NULL;
      }
      out = p;
    }
    memcpy(out + len, line, add + 1);
    len += add;
    if (out[len - 1] != '\n') out[len++] = '\n', out[len] = 0;
  }
  fclose(f);
  return out;
}

/* Writes the header and the kept rows over path, whole (outfile.h): an
 * interruption or a full disk leaves the earlier log as it was, never half
 * of it. */
static int rewrite(const char *path, const char *keep, char *err, size_t n) {
  char why[200];
  outfile_mem m;
  if (outfile_mem_open(&m, why, sizeof why) == 0) {
    fprintf(m.f, "%s\n%s", CSVLOG_HEADER, keep);
    if (outfile_mem_commit(&m, path, why, sizeof why) == 0) return 0;
  }
  snprintf(err, n, "%s: cannot rewrite it for the resumed run (the earlier log is kept): %s", path, why);
  return -1;
}

int csvlog_open(csvlog *l, const char *path, uint64_t resumed_at, char *err, size_t n) {
  l->f = NULL;
  if (resumed_at) { /* the kept rows, rewritten atomically; the new rows are appended */
    char *keep = kept_rows(path, resumed_at);
    if (!keep) {
      snprintf(err, n, "%s: cannot read the earlier log: %s", path, strerror(errno));
      return -1;
    }
    int rc = rewrite(path, keep, err, n);
    free(keep);
    if (rc) return -1;
  }
  l->f = fopen(path, resumed_at ? "a" : "w");
  if (!l->f) {
    snprintf(err, n, "%s: cannot write: %s", path, strerror(errno));
    return -1;
  }
  const int bad = !resumed_at && fprintf(l->f, "%s\n", CSVLOG_HEADER) < 0;
  if (fflush(l->f) || bad) {
    snprintf(err, n, "%s: cannot write: %s", path, strerror(errno));
    fclose(l->f);
    l->f = NULL;
    return -1;
  }
  return 0;
}

int csvlog_row(csvlog *l, uint64_t epoch, double soft, const dlca_eval *e, double rate) {
  if (!l->f) return 0;
  /* %.9g round-trips a float32 and prints the same text for the same double. */
  fprintf(l->f, "%llu,%.9g,%.9g,%.6f,%.3f\n", (unsigned long long)epoch, soft, e->hard_loss, e->accuracy, rate);
  /* Flushed per row: a crashed or killed run keeps its log up to the end. */
  return fflush(l->f) ? -1 : 0;
}

int csvlog_close(csvlog *l) {
  if (!l->f) return 0;
  int bad = ferror(l->f);
  bad |= fclose(l->f) != 0;
  l->f = NULL;
  return bad ? -1 : 0;
}
