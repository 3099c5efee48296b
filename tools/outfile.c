/* Atomic whole-file writes for the tools; see outfile.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "outfile.h"

static int write_all(int fd, const unsigned char *p, size_t len) {
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return -1;
    p += w, len -= (size_t)w;
  }
  return 0;
}

int outfile_write(const char *path, const void *data, size_t len, char *err, size_t n) {
  size_t tlen = strlen(path) + 16;
  char *tmp = malloc(tlen);
  if (!tmp) {
    snprintf(err, n, "out of memory");
    return -1;
  }
  snprintf(tmp, tlen, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    snprintf(err, n, "cannot create a temporary file beside it: %s", strerror(errno));
    free(tmp);
    return -1;
  }
  /* mkstemp makes 0600: an existing file keeps its mode, a new one gets 0666 less the umask */
  struct stat st;
  mode_t mask = umask(0);
  umask(mask);
  (void)!fchmod(fd, stat(path, &st) == 0 ? st.st_mode & 07777 : 0666 & ~mask);
  const char *what = "write failed";
  int ok = write_all(fd, data, len) == 0 && (what = "fsync failed", fsync(fd) == 0);
  int e = errno;
  if (close(fd) != 0 && ok) ok = 0, e = errno, what = "close failed";
  if (ok && rename(tmp, path) != 0) ok = 0, e = errno, what = "rename failed";
  if (!ok) {
    unlink(tmp);
    snprintf(err, n, "%s: %s", what, strerror(e));
  }
  free(tmp);
  return ok ? 0 : -1;
}

int outfile_mem_open(outfile_mem *m, char *err, size_t n) {
  m->buf = NULL, m->len = 0;
  m->f = open_memstream(&m->buf, &m->len);
  if (!m->f) snprintf(err, n, "out of memory");
  return m->f ? 0 : -1;
}

int outfile_mem_commit(outfile_mem *m, const char *path, char *err, size_t n) {
  int rc = fclose(m->f) ? (snprintf(err, n, "out of memory"), -1) : outfile_write(path, m->buf, m->len, err, n);
  free(m->buf);
  m->f = NULL, m->buf = NULL;
  return rc;
}

int outfile_json(const char *path, const json_t *v, int digits, char *err, size_t n) {
  const size_t flags = JSON_REAL_PRECISION(digits) | JSON_ENCODE_ANY;
  outfile_mem m;
  int to_stdout = !strcmp(path, "-");
  FILE *f = stdout;
  if (!to_stdout) {
    if (outfile_mem_open(&m, err, n)) return -1;
    f = m.f;
  }
  int bad = 0;
  if (json_is_array(v)) {
    bad |= fputs("[\n", f) < 0;
    for (size_t i = 0; i < json_array_size(v); i++) {
      bad |= fputs("  ", f) < 0 || json_dumpf(json_array_get(v, i), f, flags);
      bad |= fputs(i + 1 < json_array_size(v) ? ",\n" : "\n", f) < 0;
    }
    bad |= fputs("]\n", f) < 0;
  } else {
    bad |= json_dumpf(v, f, flags) || fputc('\n', f) == EOF;
  }
  if (to_stdout) {
    bad |= fflush(stdout) != 0;
    if (bad) snprintf(err, n, "write failed");
    return bad ? -1 : 0;
  }
  if (bad) {
    fclose(m.f);
    free(m.buf);
    snprintf(err, n, "out of memory");
    return -1;
  }
  return outfile_mem_commit(&m, path, err, n);
}

json_t *outfile_json_num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

int outfile_read(const char *path, char **text, size_t *len, char *err, size_t n) {
  *text = NULL, *len = 0;
  outfile_mem m;
  FILE *f = fopen(path, "rb");
  if (!f && errno != ENOENT) {
    snprintf(err, n, "cannot read: %s", strerror(errno));
    return -1;
  }
  if (outfile_mem_open(&m, err, n)) {
    if (f) fclose(f);
    return -1;
  }
  char buf[65536];
  size_t k;
  int bad = 0;
  while (f && (k = fread(buf, 1, sizeof buf, f)) > 0) bad |= fwrite(buf, 1, k, m.f) != k;
  int read_bad = f && (ferror(f) | (fclose(f) != 0));
  bad |= fclose(m.f) != 0;
  if (bad || read_bad) {
    free(m.buf);
    snprintf(err, n, "%s", read_bad ? "read failed" : "out of memory");
    return -1;
  }
  *text = m.buf, *len = m.len;
  return 0;
}

void outfile_md_cell(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '|') fputs("\\|", f);
    else fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
  }
}

/* Whether the last block of table lines of text (lines starting with '|',
 * blank lines after it allowed) starts with header's first line. */
static int ends_with_table(const char *text, size_t len, const char *header) {
  const char *first = NULL, *end = text + len;
  for (const char *p = text; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
    if (l && p[0] == '|') {
      if (!first) first = p;
    } else if (l && !(l == 1 && p[0] == '\r')) {
      first = NULL;
    }
    p += l + (nl != NULL);
  }
  const size_t hl = strcspn(header, "\n") + 1; /* with its newline */
  return first && (size_t)(end - first) >= hl && !memcmp(first, header, hl);
}

/* rows (NUL-terminated) appended as outfile_mem_md_append says. */
static int md_append(const char *path, const char *header, const char *rows, char *err, size_t n) {
  char *text;
  size_t len;
  if (outfile_read(path, &text, &len, err, n)) return -1;
  outfile_mem m;
  if (outfile_mem_open(&m, err, n)) {
    free(text);
    return -1;
  }
  fwrite(text, 1, len, m.f);
  if (len && text[len - 1] != '\n') fputc('\n', m.f);
  if (!ends_with_table(text, len, header)) {
    const int blank_last = len == 1 ? text[0] == '\n' : len >= 2 && text[len - 1] == '\n' && text[len - 2] == '\n';
    if (len && !blank_last) fputc('\n', m.f);
    fputs(header, m.f);
  }
  fputs(rows, m.f);
  free(text);
  return outfile_mem_commit(&m, path, err, n);
}

int outfile_mem_md_append(outfile_mem *m, const char *path, const char *header, char *err, size_t n) {
  int rc = fclose(m->f) ? (snprintf(err, n, "out of memory"), -1) : md_append(path, header, m->buf, err, n);
  free(m->buf);
  m->f = NULL, m->buf = NULL;
  return rc;
}
