/* The on-disk binary cache (doc/kernel-cache.md): one file per program,
 * keyed by everything that can change the binary, written atomically and
 * checked on read. A bad entry is deleted and rebuilt, never an error. Only
 * directories and files of this user that no one else can write are used. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include "cl/runtime.h"

#define ENTRY_MAGIC "DLCACLB\x1a"
#define ENTRY_FORMAT 2u
/* The largest entry read: program binaries are a few MiB. */
#define ENTRY_MAX ((size_t)256 << 20)

/* Fixed-width fields in host byte order: a cache is read on the machine
 * that wrote it; a foreign one fails the magic or the checksum and is
 * rebuilt. The key text (every field of the key, each length-prefixed)
 * follows the header, then the payload. */
typedef struct entry_header {
  char magic[8];
  uint32_t format;
  uint32_t header_size;
  uint64_t key;          /* the hash that names the file */
  uint64_t key_size;     /* bytes of key text after the header */
  uint64_t payload_size;
  uint64_t checksum;     /* XXH3-64 of the key text and the payload */
} entry_header;

/* The home directory of HOME, else of the password database; NULL if none. */
static const char *home_dir(void) {
  const char *h = getenv("HOME");
  if (h && *h) return h;
  struct passwd *pw = getpwuid(geteuid());
  return pw && pw->pw_dir && pw->pw_dir[0] == '/' && strcmp(pw->pw_dir, "/") != 0 ? pw->pw_dir : NULL;
}

int dlca__cache_dir(char *buf, size_t n, int *enabled) {
  const char *off = getenv("DLCA_CL_CACHE");
  if (enabled)
    *enabled = !(off && (!strcmp(off, "0") || !strcmp(off, "off") || !strcmp(off, "no") ||
                         !strcmp(off, "false")));
  const char *d = getenv("DLCA_CL_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME"), *h;
  int w;
  if (d && *d) w = snprintf(buf, n, "%s", d);
  else if (x && x[0] == '/') w = snprintf(buf, n, "%s/dlca_cl", x); /* XDG: relative is invalid */
  else if ((h = home_dir())) w = snprintf(buf, n, "%s/.cache/dlca_cl", h);
  else /* never a predictable /tmp path: another user could create it first */
    return dlca__fail(DLCA_EINVAL, "no cache directory: HOME is unset and this user has no home "
                                   "directory; set DLCA_CL_CACHE_DIR");
  if (w < 0 || (size_t)w >= n) return dlca__fail(DLCA_EINVAL, "cache directory path is too long");
  return DLCA_OK;
}

int dlca_cache_dir(char *buf, size_t n) {
  if (!buf || n == 0) return dlca__fail(DLCA_EINVAL, "dlca_cache_dir: no buffer");
  return dlca__cache_dir(buf, n, NULL);
}

static void key_add(dlca__cache_id *k, const void *p, size_t len) {
  k->ptr[k->n] = p;
  k->len[k->n++] = len;
}

/* The key text: each piece length-prefixed, so that ("ab","c") and ("a","bc") differ. */
static size_t key_text_size(const dlca__cache_id *k) {
  size_t n = 0;
  for (size_t i = 0; i < k->n; i++) n += sizeof(uint64_t) + k->len[i];
  return n;
}

static unsigned char *key_text_put(const dlca__cache_id *k, unsigned char *p) {
  for (size_t i = 0; i < k->n; i++) {
    uint64_t l = k->len[i];
    memcpy(p, &l, sizeof l);
    memcpy(p + sizeof l, k->ptr[i], k->len[i]);
    p += sizeof l + k->len[i];
  }
  return p;
}

/* 1 if text (of n bytes) is k's key text. */
static int key_text_equal(const dlca__cache_id *k, const unsigned char *text, size_t n) {
  if (n != key_text_size(k)) return 0;
  for (size_t i = 0; i < k->n; i++) {
    uint64_t l;
    memcpy(&l, text, sizeof l);
    if (l != k->len[i] || memcmp(text + sizeof l, k->ptr[i], k->len[i]) != 0) return 0;
    text += sizeof l + k->len[i];
  }
  return 1;
}

void dlca__cache_key_program(dlca__cache_id *k, const dlca_device_info *dev, const char *src, size_t len,
                             const char *options) {
  static const char tag[] = "dlca_cl binary cache 1";
  const char *fields[] = {tag,         DLCA_VERSION_STRING, dev->platform, dev->platform_version,
                          dev->name,   dev->vendor,         dev->driver,   dev->version,
                          options ? options : ""};
  k->n = 0;
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) key_add(k, fields[i], strlen(fields[i]));
  key_add(k, src, len);
  XXH3_state_t *s = XXH3_createState();
  k->hash = 0;
  if (!s) return;
  XXH3_64bits_reset(s);
  for (size_t i = 0; i < k->n; i++) {
    uint64_t l = k->len[i];
    XXH3_64bits_update(s, &l, sizeof l);
    XXH3_64bits_update(s, k->ptr[i], k->len[i]);
  }
  k->hash = XXH3_64bits_digest(s);
  XXH3_freeState(s);
}

void dlca__cache_key_hash(dlca__cache_id *k, const uint64_t *hash) {
  k->n = 0;
  k->hash = *hash;
  key_add(k, hash, sizeof *hash);
}

uint64_t dlca__cache_key(const dlca_device_info *dev, const char *src, size_t len, const char *options) {
  dlca__cache_id k;
  dlca__cache_key_program(&k, dev, src, len, options);
  return k.hash;
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
    if (mkdir(p, 0700) != 0 && errno != EEXIST)
      return dlca__fail(DLCA_EIO, "%s: cannot create directory: %s", p, strerror(errno));
    *s = '/';
  }
  if (mkdir(p, 0700) != 0 && errno != EEXIST)
    return dlca__fail(DLCA_EIO, "%s: cannot create directory: %s", p, strerror(errno));
  return DLCA_OK;
}

/* A directory of the cache must be a directory of this user that no one
 * else can write: anyone who can put files there can run code in us. */
static int check_dir(const char *dir) {
  struct stat st;
  if (stat(dir, &st) != 0) return dlca__fail(DLCA_EIO, "%s: cannot stat: %s", dir, strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return dlca__fail(DLCA_EIO, "%s: is %s, not a directory", dir, dlca__file_kind(st.st_mode));
  return dlca__check_owned(dir, &st, DLCA_EIO);
}

int dlca__cache_prepare(const char *dir) {
  static const char *subs[] = {"", "/programs", "/orders"};
  char p[1200];
  for (size_t i = 0; i < 3; i++) {
    snprintf(p, sizeof p, "%s%s", dir, subs[i]);
    int rc = dlca__mkdirs(p);
    if (rc || (rc = check_dir(p))) return rc;
  }
  return DLCA_OK;
}

/* 1 if buf (n bytes) is a whole, intact entry for k. */
static int entry_valid(const unsigned char *buf, size_t n, const dlca__cache_id *k, entry_header *h) {
  if (n < sizeof *h) return 0;
  memcpy(h, buf, sizeof *h);
  return !memcmp(h->magic, ENTRY_MAGIC, 8) && h->format == ENTRY_FORMAT && h->header_size == sizeof *h &&
         h->key == k->hash && h->key_size <= n - sizeof *h && h->payload_size > 0 &&
         h->payload_size == n - sizeof *h - h->key_size &&
         XXH3_64bits(buf + sizeof *h, n - sizeof *h) == h->checksum &&
         key_text_equal(k, buf + sizeof *h, (size_t)h->key_size);
}

int dlca__cache_load(const char *path, const dlca__cache_id *k, unsigned char **bin, size_t *len) {
  const dlca__read_limits lim = {ENTRY_MAX + sizeof(entry_header) + key_text_size(k), DLCA_EIO,
                                 "a cache entry", DLCA__READ_NOFOLLOW | DLCA__READ_OWNED | DLCA__READ_MISSING_OK};
  char *raw;
  size_t n;
  int rc = dlca__read_file_limited(path, &lim, &raw, &n);
  if (rc == 1) return 1;
  unsigned char *buf = (unsigned char *)raw;
  entry_header h;
  if (rc || !entry_valid(buf, n, k, &h)) {
    /* A FIFO, a link, a stranger's file, truncated, flipped, foreign, for
     * another key or from an older format: rebuild it. */
    if (!rc) free(buf);
    unlink(path);
    dlca__clear_error();
    return 1;
  }
  size_t off = sizeof h + (size_t)h.key_size;
  memmove(buf, buf + off, n - off);
  *bin = buf;
  *len = n - off;
  return 0;
}

int dlca__cache_store(const char *path, const dlca__cache_id *k, const unsigned char *bin, size_t len) {
  char dir[1100];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  int rc = dlca__mkdirs(dir);
  if (rc || (rc = check_dir(dir))) return rc;
  entry_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, ENTRY_MAGIC, 8);
  h.format = ENTRY_FORMAT;
  h.header_size = sizeof h;
  h.key = k->hash;
  h.key_size = key_text_size(k);
  h.payload_size = len;
  size_t total = sizeof h + (size_t)h.key_size + len;
  unsigned char *buf = malloc(total);
  if (!buf) return dlca__fail(DLCA_ENOMEM, "%s: out of memory", path);
  memcpy(key_text_put(k, buf + sizeof h), bin, len);
  h.checksum = XXH3_64bits(buf + sizeof h, total - sizeof h);
  memcpy(buf, &h, sizeof h);
  /* Two processes storing the same key both rename a complete file over
   * the name: the last one wins and either is valid. */
  rc = dlca__write_file_atomic_mode(path, buf, total, 022);
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
