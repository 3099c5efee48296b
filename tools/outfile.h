/* The tools' files (pictures, --runs, a winner's --log, a resumed log)
 * written whole or not at all: a temp file beside the target, fsync,
 * rename, as the library writes its own files (lib/core/file.c). */
#ifndef DLCA_TOOLS_OUTFILE_H
#define DLCA_TOOLS_OUTFILE_H

#include <jansson.h>
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

/* v as JSON to path (outfile_write), or to stdout where path is "-": an
 * array one element a line, anything else on one line, with a final
 * newline; real numbers to `digits` significant digits (1-30). 0, or -1
 * with a reason in err. */
int outfile_json(const char *path, const json_t *v, int digits, char *err, size_t n);
/* x as a JSON number, or null where it is not finite (JSON has no NaN). */
json_t *outfile_json_num(double x);

/* The whole file at path, NUL-terminated, into *text (free() it) and its
 * length into *len; empty where there is no file. 0, or -1 with a reason. */
int outfile_read(const char *path, char **text, size_t *len, char *err, size_t n);

/* The bench programs' markdown tables (doc/performance.md): the rows, lines
 * of the table each ending in a newline, written into a memory stream
 * (outfile_mem_open), then outfile_mem_md_append closes it and puts them
 * after the file's table when its last table (blank lines after it
 * allowed) has header, a title line and a rule line each ending in a
 * newline; else after a blank line and header. The file is rewritten
 * whole (outfile_write) and m freed. 0, or -1 with a reason in err. */
int outfile_mem_md_append(outfile_mem *m, const char *path, const char *header, char *err, size_t n);
/* s as the text of a table cell: '|' escaped, line breaks as spaces. */
void outfile_md_cell(FILE *f, const char *s);

#endif
