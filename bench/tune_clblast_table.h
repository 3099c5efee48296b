/* dlca-tune --clblast's results: the JSON files CLBlast's tuners write,
 * read into each kernel's best parameters, and the user tuning table's
 * "clblast" section written from them (bench/tune_clblast.c). */
#ifndef DLCA_BENCH_TUNE_CLBLAST_TABLE_H
#define DLCA_BENCH_TUNE_CLBLAST_TABLE_H
#include <jansson.h>

#include "dlca_cl.h"

#define TC_MAX 16

/* The fastest result per CLBlast kernel. */
typedef struct tc_best {
  int n;
  char kernel[TC_MAX][32], file[TC_MAX][64];
  double ms[TC_MAX];
  json_t *params[TC_MAX]; /* {"MWG": 64, ...}, PRECISION left out */
} tc_best;

/* Reads every clblast_*.json of dir (the tuners' output: best_kernel, best_time, best_parameters "K=V ...")
 * into best, the fastest per kernel; *found gets the number of kernels. 0, or -1 after a message. */
int tc_read_results(const char *dir, tc_best *best, int *found);
void tc_best_free(tc_best *best);
/* Stores best into this device's entry (device + driver, made if absent) of the table at output (NULL: the
 * cache directory's tuning.json), kernels not tuned now kept, atomically; each kernel's section is checked
 * with the library's validator first. An exit code. */
int tc_write(const dlca_device_info *dev, const tc_best *best, const char *output, long size);
/* rm -r of the scratch directory (its files only: the tuners write no subdirectories). */
void tc_remove_dir(const char *dir);
#endif
