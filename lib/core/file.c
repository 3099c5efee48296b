/* Whole-file reads that never block and never read more than a limit, and
 * atomic writes (temp file, fsync, rename, fsync of the directory) that
 * replace only regular files. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "core/internal.h"

/* A temp file of a dead process is removed once it is this old (a live
 * writer touches its file as it writes), and any temp file after an hour. */
#define STALE_DEAD_S 10
#define STALE_ANY_S 3600
#define DEFAULT_MAX ((size_t)256 << 20)

const char *dlca__file_kind(unsigned mode) {
  mode_t m = (mode_t)mode;
  if (S_ISREG(m)) return "a regular file";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISLNK(m)) return "a symbolic link";
  return "not a regular file";
}

int dlca__check_owned(const char *path, const struct stat *st, int status) {
  if (st->st_uid != geteuid())
    return dlca__fail(status, "%s: owned by uid %u, not by this user (uid %u): not trusted", path,
                      (unsigned)st->st_uid, (unsigned)geteuid());
  if (st->st_mode & (S_IWGRP | S_IWOTH))
    return dlca__fail(status, "%s: writable by %s (mode %04o): not trusted", path,
                      st->st_mode & S_IWOTH ? "others" : "its group", (unsigned)(st->st_mode & 07777));
  return DLCA_OK;
}

/* Opens path for reading without blocking (a FIFO would wait for a writer)
 * and checks what it is before anything is read; 1 if missing and allowed.
 * A path that is not a regular file is refused before it is even opened
 * (opening some devices has effects); fstat after the open decides. */
static int open_checked(const char *path, const dlca__read_limits *lim, struct stat *st, int *fdp) {
  int nofollow = lim->flags & DLCA__READ_NOFOLLOW;
  if ((nofollow ? lstat(path, st) : stat(path, st)) == 0 && !S_ISREG(st->st_mode) &&
      !(nofollow && S_ISLNK(st->st_mode)))
    return dlca__fail(lim->status, "%s: is %s, not a regular file", path, dlca__file_kind(st->st_mode));
  int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0);
  int fd = open(path, flags);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT && (lim->flags & DLCA__READ_MISSING_OK)) return 1;
    if (e == ELOOP && (lim->flags & DLCA__READ_NOFOLLOW))
      return dlca__fail(lim->status, "%s: is a symbolic link, which is not followed here", path);
    return dlca__fail(DLCA_EIO, "%s: cannot open: %s", path, strerror(e));
  }
  int rc = DLCA_OK;
  if (fstat(fd, st) != 0) rc = dlca__fail(DLCA_EIO, "%s: cannot stat: %s", path, strerror(errno));
  else if (!S_ISREG(st->st_mode))
    rc = dlca__fail(lim->status, "%s: is %s, not a regular file", path, dlca__file_kind(st->st_mode));
  else if (lim->flags & DLCA__READ_OWNED) rc = dlca__check_owned(path, st, lim->status);
  if (!rc && (uint64_t)st->st_size > lim->max)
    rc = dlca__fail(lim->status, "%s: %lld bytes, more than the %zu bytes %s may have", path,
                    (long long)st->st_size, lim->max, lim->what ? lim->what : "a file read here");
  if (!rc && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
    rc = dlca__fail(DLCA_EIO, "%s: fcntl: %s", path, strerror(errno));
  if (rc) close(fd);
  else *fdp = fd;
  return rc;
}

int dlca__read_file_limited(const char *path, const dlca__read_limits *lim, char **out, size_t *len) {
  struct stat st;
  int fd = -1, rc = open_checked(path, lim, &st, &fd);
  if (rc) return rc;
  size_t n = (size_t)st.st_size, got = 0;
  char *buf = malloc(n + 1);
  if (!buf) {
    close(fd);
    return dlca__fail(DLCA_ENOMEM, "%s: out of memory for %zu bytes", path, n);
  }
  while (got < n) { /* a file that shrinks meanwhile ends early; one that grows is cut at n */
    ssize_t r = read(fd, buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      int e = errno;
      close(fd);
      free(buf);
      return dlca__fail(DLCA_EIO, "%s: read error: %s", path, strerror(e));
    }
    if (r == 0) break;
    got += (size_t)r;
  }
  close(fd);
  buf[got] = 0;
  *out = buf;
  if (len) *len = got;
  return DLCA_OK;
}

int dlca__read_file(const char *path, char **out, size_t *len) {
  const dlca__read_limits lim = {DEFAULT_MAX, DLCA_EIO, "a file read here", 0};
  return dlca__read_file_limited(path, &lim, out, len);
}

/* ---- atomic writes ---- */

/* The directory part of path ("." for a bare name). */
static void dir_of(const char *path, char *dir, size_t n) {
  const char *slash = strrchr(path, '/');
  if (!slash) snprintf(dir, n, ".");
  else if (slash == path) snprintf(dir, n, "/");
  else snprintf(dir, n, "%.*s", (int)(slash - path), path);
}

/* Follows path's symbolic links to the file a write must replace; *exists
 * = 0 if there is none yet. Anything there but a regular file is refused. */
static int resolve_target(const char *path, char *out, size_t n, struct stat *st, int *exists) {
  *exists = 0;
  if (snprintf(out, n, "%s", path) >= (int)n) return dlca__fail(DLCA_EIO, "%s: path too long", path);
  for (int hops = 0;; hops++) {
    if (lstat(out, st) != 0) {
      if (errno == ENOENT) return DLCA_OK;
      return dlca__fail(DLCA_EIO, "%s: cannot stat: %s", out, strerror(errno));
    }
    if (!S_ISLNK(st->st_mode)) break;
    char link[PATH_MAX], next[PATH_MAX], dir[PATH_MAX];
    ssize_t k = hops < 40 ? readlink(out, link, sizeof link - 1) : -1;
    if (k < 0) return dlca__fail(DLCA_EIO, "%s: cannot follow the symbolic link %s", path, out);
    link[k] = 0;
    dir_of(out, dir, sizeof dir);
    int w = link[0] == '/' || !strchr(out, '/') ? snprintf(next, sizeof next, "%s", link)
                                                 : snprintf(next, sizeof next, "%s/%s", dir, link);
    if (w < 0 || (size_t)w >= n) return dlca__fail(DLCA_EIO, "%s: link target too long", path);
    memcpy(out, next, (size_t)w + 1);
  }
  *exists = 1;
  if (S_ISREG(st->st_mode)) return DLCA_OK;
  if (strcmp(out, path) != 0)
    return dlca__fail(DLCA_EIO, "%s: links to %s, which is %s, not a regular file: not replaced", path, out,
                      dlca__file_kind(st->st_mode));
  return dlca__fail(DLCA_EIO, "%s: is %s, not a regular file: not replaced", path, dlca__file_kind(st->st_mode));
}

/* Is the temp file named <target>.tmp.<rest> left by a dead writer? */
static int stale(const char *rest, const struct stat *st) {
  time_t age = time(NULL) - st->st_mtime;
  if (age >= STALE_ANY_S) return 1;
  char *end;
  long pid = strtol(rest, &end, 10);
  if (end == rest || *end != '.' || pid <= 0 || pid == (long)getpid() || age < STALE_DEAD_S) return 0;
  return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Removes our own temp files of target that a killed writer left behind. */
static void remove_stale_temps(const char *target) {
  char dir[PATH_MAX], prefix[PATH_MAX];
  dir_of(target, dir, sizeof dir);
  const char *slash = strrchr(target, '/');
  int plen = snprintf(prefix, sizeof prefix, "%s.tmp.", slash ? slash + 1 : target);
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  struct stat st;
  while ((e = readdir(d)))
    if (!strncmp(e->d_name, prefix, (size_t)plen) &&
        fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
        st.st_uid == geteuid() && stale(e->d_name + plen, &st))
      unlinkat(dirfd(d), e->d_name, 0);
  closedir(d);
}

/* Creates <target>.tmp.<pid>.<random>: with the old file's mode (and owner,
 * where allowed), or for a new file 0666 less the umask; less `strip`. */
static int create_temp(const char *target, const struct stat *old, unsigned strip, char *tmp, size_t n) {
  static unsigned counter;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  for (int i = 0; i < 100; i++) {
    unsigned r = (unsigned)ts.tv_nsec ^ (__atomic_fetch_add(&counter, 1u, __ATOMIC_RELAXED) * 2654435761u);
    snprintf(tmp, n, "%s.tmp.%ld.%06x", target, (long)getpid(), r & 0xffffffu);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, old ? 0600 : 0666 & ~strip);
    if (fd >= 0) {
      if (old && (old->st_uid != geteuid() || old->st_gid != getegid()) && fchown(fd, old->st_uid, old->st_gid)) {
        /* not ours to give away: the file keeps its mode, and becomes ours */
      }
      if (old) fchmod(fd, old->st_mode & 0777 & ~strip);
      return fd;
    }
    if (errno != EEXIST) return -1;
  }
  return -1;
}

static int write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return errno;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

/* fsync of the directory, so that the rename survives a power loss; a file
 * system that cannot sync directories (EINVAL) is not an error. */
static int sync_dir(const char *target) {
  char dir[PATH_MAX];
  dir_of(target, dir, sizeof dir);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  int e = fsync(fd) != 0 && errno != EINVAL && errno != EROFS ? errno : 0;
  close(fd);
  return e;
}

int dlca__write_file_atomic_mode(const char *path, const void *data, size_t len, unsigned strip) {
  char target[PATH_MAX], tmp[PATH_MAX + 40];
  struct stat st;
  int exists, rc = resolve_target(path, target, sizeof target, &st, &exists);
  if (rc) return rc;
  remove_stale_temps(target);
  int fd = create_temp(target, exists ? &st : NULL, strip, tmp, sizeof tmp);
  if (fd < 0)
    return dlca__fail(DLCA_EIO, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
  int e = write_all(fd, data, len);
  const char *what = "write failed";
  if (!e && fsync(fd) != 0) e = errno, what = "fsync failed";
  if (close(fd) != 0 && !e) e = errno, what = "close failed";
  if (!e && rename(tmp, target) != 0) e = errno, what = "rename failed";
  if (e) {
    unlink(tmp);
    return dlca__fail(DLCA_EIO, "%s: %s: %s", path, what, strerror(e));
  }
  if ((e = sync_dir(target)))
    return dlca__fail(DLCA_EIO, "%s: written, but its directory could not be synced: %s", path, strerror(e));
  return DLCA_OK;
}

int dlca__write_file_atomic(const char *path, const void *data, size_t len) {
  return dlca__write_file_atomic_mode(path, data, len, 0);
}
