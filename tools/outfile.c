/* Atomic whole-file writes for the tools; see outfile.h. */
#include <errno.h>
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
