/* The user tuning table as a file (doc/tuning-table.md), as both of
 * dlca-tune's modes write it: the kernel search (bench/tune_table.c) and
 * --clblast (bench/tune_clblast_table.c). Errors are printed; the
 * functions return exit codes (cli.h) or NULL. */
#ifndef DLCA_BENCH_TUNE_TABLE_FILE_H
#define DLCA_BENCH_TUNE_TABLE_FILE_H
#include <jansson.h>
#include <stddef.h>

#include "dlca_cl.h"

/* Where the table goes: output, or (NULL) the cache directory's
 * tuning.json, where the library reads it. */
int tune_table_path(const char *output, char *path, size_t n);
/* The table at path as it is (after checking that the library can read
 * it), or a new empty one where there is no file; NULL after a message. */
json_t *tune_table_load(const char *path);
/* This device's entry of root (the first; later duplicates, which would
 * never be read, removed), made where there is none, with a "params"
 * object as the format requires; root's header names the device. */
json_t *tune_table_device_entry(json_t *root, const dlca_device_info *dev);
/* entry's member key, a new empty object where it is none. */
json_t *tune_table_object(json_t *entry, const char *key);
/* root as indented JSON with a final newline, written atomically to path
 * (in_cache: in the cache directory, made if need be, writable by its
 * owner alone, or the library ignores it). */
int tune_table_store(const json_t *root, const char *path, int in_cache);
#endif
