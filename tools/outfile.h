/* The tools' picture files (dlca-eval --png, --gif) written whole or not at
 * all: a temp file beside the target, fsync, rename, as the library writes
 * its own files (lib/core/file.c). */
#ifndef DLCA_TOOLS_OUTFILE_H
#define DLCA_TOOLS_OUTFILE_H

#include <stddef.h>

/* Writes data[0, len) to path atomically; an existing file keeps its mode.
 * Returns 0, or -1 with a one-line reason in err (the path is not in it). */
int outfile_write(const char *path, const void *data, size_t len, char *err, size_t n);

#endif
