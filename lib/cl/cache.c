/* The on-disk binary cache (doc/kernel-cache.md): one file per program,
 * keyed by everything that can change the binary, written atomically and
 * checked on read. A bad entry is deleted and rebuilt, never an error. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include "cl/runtime.h"

#define ENTRY_MAGIC "DLCACLB\x1a"
#define ENTRY_FORMAT 1u

/* Fixed-width fields in host byte order: a cache is read on the machine
 * that wrote it; a foreign one fails the magic or the checksum and is rebuilt. */
typedef struct entry_header {
  char magic[8];
  uint32_t format;
  uint32_t header_size;
  uint64_t key;
  uint64_t payload_size;
  uint64_t checksum; /* XXH3-64 of the payload */
} entry_header;

int dlca__cache_dir(char *buf, size_t n, int *enabled) {
  const char *off = getenv("DLCA_CL_CACHE");
  if (enabled)
    *enabled = !(off && (!strcmp(off, "0") || !strcmp(off, "off") || !strcmp(off, "no") ||
                         !strcmp(off, "false")));
  const char *d = getenv("DLCA_CL_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
  int w;
  if (d && *d) w = snprintf(buf, n, "%s", d);
  else if (x && x[0] == '/') w = snprintf(buf, n, "%s/dlca_cl", x); /* XDG: relative is invalid */
  else if (h && *h) w = snprintf(buf, n, "%s/.cache/dlca_cl", h);
  else {
    const char *t = getenv("TMPDIR");
    w = snprintf(buf, n, "%s/dlca_cl-%ld", t && *t ? t : "/tmp", (long)getuid());
  }
  if (w < 0 || (size_t)w >= n) return dlca__fail(DLCA_EINVAL, "cache directory path is too long");
  return DLCA_OK;
}

int dlca_cache_dir(char *buf, size_t n) {
  if (!buf || n == 0) return dlca__fail(DLCA_EINVAL, "dlca_cache_dir: no buffer");
  return dlca__cache_dir(buf, n, NULL);
}

static void hash_field(XXH3_state_t *s, const void *p, size_t len) {
  uint64_t l = len; /* length-prefixed: ("ab","c") and ("a","bc") differ */
  XXH3_64bits_update(s, &l, sizeof l);
  XXH3_64bits_update(s, p, len);
}

uint64_t dlca__cache_key(const dlca_device_info *dev, const char *src, size_t len, const char *options) {
  XXH3_state_t *s = XXH3_createState();
  if (!s) return 0;
  XXH3_64bits_reset(s);
  const char *fields[] = {"dlca_cl binary cache 1", DLCA_VERSION_STRING, dev->platform,
                          dev->platform_version, dev->name,    dev->vendor,
                          dev->driver,           dev->version, options ? options : ""};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) hash_field(s, fields[i], strlen(fields[i]));
  hash_field(s, src, len);
  uint64_t k = XXH3_64bits_digest(s);
  XXH3_freeState(s);
  return k;
}

void dlca__cache_entry_path(const char *dir, uint64_t key, char *buf, size_t n) {
  snprintf(buf, n, "%s/programs/%016llx.clbin", dir, (unsigned long long)key);
}

void dlca__cache_order_path(const char *dir, uint64_t key, char *buf, size_t n) {
  snprintf(buf, n, "%s/orders/%016llx.order", dir, (unsigned long long)key);
}

int dlca__mkdirs(const char *dir) {
  char p[1100];
  if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p)
    return dlca__fail(DLCA_EIO, "%s: path too long", dir);
  for (char *s = p + 1; *s; s++) {
    if (*s != '/') continue;
    *s = 0;
    if (mkdir(p, 0755) != 0 && errno != EEXIST)
      return dlca__fail(DLCA_EIO, "%s: cannot create directory: %s", p, strerror(errno));
    *s = '/';
  }
  if (mkdir(p, 0755) != 0 && errno != EEXIST)
    return dlca__fail(DLCA_EIO, "%s: cannot create directory: %s", p, strerror(errno));
  return DLCA_OK;
}

/* Reads the whole entry; 1 if missing or unreadable. */
static int read_all(const char *path, unsigned char **out, size_t *len) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return 1;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0) {
    close(fd);
    return 1;
  }
  size_t n = (size_t)st.st_size, got = 0;
  unsigned char *buf = malloc(n ? n : 1);
  if (!buf) {
    close(fd);
    return 1;
  }
  while (got < n) {
    ssize_t r = read(fd, buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  *out = buf;
  *len = got;
  return 0;
}

int dlca__cache_load(const char *path, uint64_t key, unsigned char **bin, size_t *len) {
  unsigned char *buf;
  size_t n;
  if (read_all(path, &buf, &n)) return 1;
  entry_header h;
  int ok = n >= sizeof h;
  if (ok) {
    memcpy(&h, buf, sizeof h);
    ok = !memcmp(h.magic, ENTRY_MAGIC, 8) && h.format == ENTRY_FORMAT &&
         h.header_size == sizeof h && h.key == key && h.payload_size == n - sizeof h &&
         h.payload_size > 0 && XXH3_64bits(buf + sizeof h, n - sizeof h) == h.checksum;
  }
  if (!ok) {
    /* Truncated, flipped, foreign or from an older format: rebuild it. */
    free(buf);
    unlink(path);
    return 1;
  }
  memmove(buf, buf + sizeof h, n - sizeof h);
  *bin = buf;
  *len = n - sizeof h;
  return 0;
}

int dlca__cache_store(const char *path, uint64_t key, const unsigned char *bin, size_t len) {
  char dir[1100];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  int rc = dlca__mkdirs(dir);
  if (rc) return rc;
  entry_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, ENTRY_MAGIC, 8);
  h.format = ENTRY_FORMAT;
  h.header_size = sizeof h;
  h.key = key;
  h.payload_size = len;
  h.checksum = XXH3_64bits(bin, len);
  unsigned char *buf = malloc(sizeof h + len);
  if (!buf) return dlca__fail(DLCA_ENOMEM, "%s: out of memory", path);
  memcpy(buf, &h, sizeof h);
  memcpy(buf + sizeof h, bin, len);
  /* Two processes storing the same key both rename a complete file over
   * the name: the last one wins and either is valid. */
  rc = dlca__write_file_atomic(path, buf, sizeof h + len);
  free(buf);
  return rc;
}

/* Deletes <dir>/<sub>'s files whose names hold suffix (entries and the
 * temp files of interrupted writes; nothing else), then the folder if empty. */
static int clear_entries(const char *dir, const char *sub, const char *suffix) {
  char folder[1100];
  snprintf(folder, sizeof folder, "%s/%s", dir, sub);
  DIR *d = opendir(folder);
  if (!d) {
    if (errno == ENOENT) return DLCA_OK;
    return dlca__fail(DLCA_EIO, "%s: cannot open the cache directory: %s", folder, strerror(errno));
  }
  struct dirent *e;
  int failed = 0;
  char path[1400], bad[1400] = "";
  while ((e = readdir(d))) {
    if (!strstr(e->d_name, suffix)) continue;
    snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
    if (unlink(path) != 0 && errno != ENOENT) {
      failed = errno;
      snprintf(bad, sizeof bad, "%s", path);
    }
  }
  closedir(d);
  rmdir(folder); /* fails, harmlessly, if someone else put files there */
  if (failed) return dlca__fail(DLCA_EIO, "%s: cannot delete: %s", bad, strerror(failed));
  return DLCA_OK;
}

int dlca_cache_clear(void) {
  char dir[1024];
  int rc = dlca__cache_dir(dir, sizeof dir, NULL);
  if (rc || (rc = clear_entries(dir, "programs", ".clbin"))) return rc;
  return clear_entries(dir, "orders", ".order");
}
