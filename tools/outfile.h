/* The tools' files (pictures, --runs, a winner's --log, a resumed log)
 * written whole or not at all: a temp file beside the target, fsync,
 * rename, as the library writes its own files (lib/core/file.c). */
#ifndef DLCA_TOOLS_OUTFILE_H
#define DLCA_TOOLS_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

/* Writes data[0, len) to path atomically; an existing file keeps its mode.
 * Returns 0, or -1 with a one-line reason in err (the path is not in it). */
int outfile_write(const char *path, const void *data, size_t len, char *err, size_t n);

/* A file built in memory, then written whole: outfile_mem_open starts a
 * memory stream in m->f; outfile_mem_commit closes it, writes it to path
 * (outfile_write) and frees it. Each returns 0, or -1 with a one-line
 * reason in err (m freed). */
typedef struct outfile_mem {
  FILE *f;
  char *buf;
  size_t len;
} outfile_mem;
int outfile_mem_open(outfile_mem *m, char *err, size_t n);
int outfile_mem_commit(outfile_mem *m, const char *path, char *err, size_t n);

#endif
