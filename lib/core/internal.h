/* Internal helpers shared by every part of the library: error reporting,
 * atomic file writes, whole-file reads. Not installed. */
#ifndef DLCA_CORE_INTERNAL_H
#define DLCA_CORE_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "dlca_cl.h"
#include "core/grow.h"

#if defined(__GNUC__)
#define DLCA_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define DLCA_PRINTF(a, b)
#endif

/* Records the message for dlca_last_error() and returns status, so that a
 * failure is one line: return dlca__fail(DLCA_EPARSE, "%s: ...", path); */
int dlca__fail(int status, const char *fmt, ...) DLCA_PRINTF(2, 3);
/* The same, for a failed OpenCL call; keeps err for dlca_last_cl_error(). */
int dlca__fail_cl(int err, const char *fmt, ...) DLCA_PRINTF(2, 3);
/* Clears the last error (a call that succeeds after a recovered failure). */
void dlca__clear_error(void);
/* Appends text to the last error message (build logs). */
void dlca__append_error(const char *text);
/* The OpenCL error's name ("CL_OUT_OF_RESOURCES"). */
const char *dlca__cl_error_name(int err);

/* Writes len bytes to path atomically: a temp file <path>.tmp.<pid>.<random>
 * in the same directory, fsync, rename, fsync of the directory. On failure
 * the old file is untouched. A symbolic link is followed and its target
 * replaced; an existing target that is not a regular file (directory, FIFO,
 * device, socket) is refused by name. An existing file keeps its mode (and,
 * where allowed, its owner); a new one gets 0666 less the umask. Temp files
 * of this path left by a dead process are removed first (doc/model-format.md). */
int dlca__write_file_atomic(const char *path, const void *data, size_t len);
/* The same, with the permission bits in strip removed from the file's mode
 * (022 for the cache, whose files must be writable by no one else whatever
 * the umask: a umask of 002 would make them group-writable, and untrusted). */
int dlca__write_file_atomic_mode(const char *path, const void *data, size_t len, unsigned strip);

/* What a bounded read accepts. */
typedef struct dlca__read_limits {
  size_t max;       /* the largest file, in bytes */
  int status;       /* the status of a file refused for what it is or its size */
  const char *what; /* names the limit: "%zu bytes <what> may have" */
  int flags;        /* DLCA__READ_* */
} dlca__read_limits;
#define DLCA__READ_NOFOLLOW 1   /* a symbolic link is refused (O_NOFOLLOW) */
#define DLCA__READ_OWNED 2      /* refused unless owned by this user and not group/other-writable */
#define DLCA__READ_MISSING_OK 4 /* a missing file returns 1, with no error */

/* Reads a whole regular file; *out is malloc'd and NUL-terminated. Opens
 * with O_NONBLOCK and checks fstat before reading: a FIFO, a device, a
 * directory or a file over lim->max is refused by name, never read. The
 * size read is fstat's (a /proc file reads as empty). */
int dlca__read_file_limited(const char *path, const dlca__read_limits *lim, char **out, size_t *len);
/* The same with a 256 MiB limit and DLCA_EIO. */
int dlca__read_file(const char *path, char **out, size_t *len);
/* "a FIFO", "a directory", "a character device"... for a st_mode. */
const char *dlca__file_kind(unsigned mode);
struct stat;
/* DLCA_OK if st is owned by this user and writable by no one else; else
 * status, with a message naming path. */
int dlca__check_owned(const char *path, const struct stat *st, int status);

/* splitmix64: the sequential PRNG for wiring shuffles (doc/rng.md). */
uint64_t dlca__splitmix64(uint64_t *state);
/* Uniform integer in [0, n) from a splitmix64 state (n < 2^32). */
uint32_t dlca__rand_below(uint64_t *state, uint32_t n);

#endif
