/* Whole-file reads and atomic writes (temp file, fsync, rename). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/internal.h"

int dlca__write_file_atomic(const char *path, const void *data, size_t len) {
  size_t n = strlen(path);
  char *tmp = malloc(n + 32);
  if (!tmp) return dlca__fail(DLCA_ENOMEM, "%s: out of memory", path);
  snprintf(tmp, n + 32, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    int e = errno;
    free(tmp);
    return dlca__fail(DLCA_EIO, "%s: cannot create a temporary file beside it: %s", path, strerror(e));
  }
  const char *p = data;
  size_t left = len;
  while (left > 0) {
    ssize_t w = write(fd, p, left);
    if (w < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      close(fd);
      unlink(tmp);
      free(tmp);
      return dlca__fail(DLCA_EIO, "%s: write failed: %s", path, strerror(e));
    }
    p += w;
    left -= (size_t)w;
  }
  fchmod(fd, 0644);
  if (fsync(fd) != 0 || close(fd) != 0) {
    int e = errno;
    unlink(tmp);
    free(tmp);
    return dlca__fail(DLCA_EIO, "%s: fsync failed: %s", path, strerror(e));
  }
  if (rename(tmp, path) != 0) {
    int e = errno;
    unlink(tmp);
    free(tmp);
    return dlca__fail(DLCA_EIO, "%s: rename failed: %s", path, strerror(e));
  }
  free(tmp);
  return DLCA_OK;
}

int dlca__read_file(const char *path, char **out, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return dlca__fail(DLCA_EIO, "%s: cannot open: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  if (!buf) {
    fclose(f);
    return dlca__fail(DLCA_ENOMEM, "%s: out of memory", path);
  }
  for (;;) {
    if (n + 1 >= cap) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        fclose(f);
        return dlca__fail(DLCA_ENOMEM, "%s: out of memory", path);
      }
      buf = nb;
      cap *= 2;
    }
    size_t r = fread(buf + n, 1, cap - n - 1, f);
    n += r;
    if (r == 0) break;
  }
  int err = ferror(f);
  fclose(f);
  if (err) {
    free(buf);
    return dlca__fail(DLCA_EIO, "%s: read error", path);
  }
  buf[n] = 0;
  *out = buf;
  if (len) *len = n;
  return DLCA_OK;
}
