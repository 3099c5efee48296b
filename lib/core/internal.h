/* Internal helpers shared by every part of the library: error reporting,
 * atomic file writes, whole-file reads. Not installed. */
#ifndef DLCA_CORE_INTERNAL_H
#define DLCA_CORE_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include "dlca_cl.h"

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

/* Writes len bytes to path atomically: temp file in the same directory,
 * fsync, rename. On failure the old file is untouched. */
int dlca__write_file_atomic(const char *path, const void *data, size_t len);
/* Reads a whole file; *out is malloc'd and NUL-terminated. */
int dlca__read_file(const char *path, char **out, size_t *len);

/* splitmix64: the sequential PRNG for wiring shuffles (doc/rng.md). */
uint64_t dlca__splitmix64(uint64_t *state);
/* Uniform integer in [0, n) from a splitmix64 state (n < 2^32). */
uint32_t dlca__rand_below(uint64_t *state, uint32_t n);

#endif
