/* Helpers shared by the test suites. */
#ifndef DLCA_TESTS_UTIL_H
#define DLCA_TESTS_UTIL_H
#include <check.h>
#include <stddef.h>
#include <string.h>
#include "dlca_cl.h"

/* call succeeds, or the test fails with the library's message. */
#define TU_OK(call) ck_assert_msg((call) == DLCA_OK, "%s", dlca_last_error())

/* call returns status and dlca_last_error() contains text. */
#define TU_EXPECT(call, status, text)                                                                  \
  do {                                                                                                 \
    ck_assert_int_eq((call), (status));                                                                \
    ck_assert_msg(strstr(dlca_last_error(), (text)), "\"%s\" lacks \"%s\"", dlca_last_error(), (text)); \
  } while (0)

/* Full path of a reference vector, or NULL (and a message) if shared/ is absent. */
const char *tu_vector_path(const char *name);
/* A fresh directory under the build tree for this test. */
const char *tu_tmpdir(const char *tag);
/* The whole file at path, NUL-terminated, its length in *len (len may be
 * NULL); fails the test if it cannot be read. Free it. */
char *tu_read(const char *path, size_t *len);
/* Writes text to dir/name and returns the path (static buffer, rotates 8). */
const char *tu_write(const char *dir, const char *name, const char *text);
/* A small model shape: C channels, K kernels, perception [9,8,4,2] or
 * [9,8,4,2,1] (with_one), update [in, in, `extra` more of width in, then
 * halving down to C], so that unique wiring works in every layer (2G >= N).
 * `wiring` applies to every layer after the first perception layer. */
dlca_model_shape tu_small_shape(int C, int K, int with_one, int periodic, int extra, dlca_wiring wiring);
/* The small training run of the relaxation and IWP suites: batch 2, 6x6,
 * 4 steps, random starts from seed 77, loss channel 0, default AdamW. */
dlca_train_config tu_small_train_config(void);
/* The tiny checkerboard of the population suites: the preset with 2 grids
 * a batch, 4 steps, seed 7, temperature 2 + Gumbel 0.5 (each model its own
 * draws); the loop's defaults with `epochs` epochs and a hard evaluation
 * every 2. */
void tu_tiny_checkerboard(dlca_preset *p, dlca_train_config *cfg, dlca_loop_options *o, long epochs);
/* Fills n floats with uniform values in [lo, hi) from seed (never all zero). */
void tu_random(float *v, size_t n, float lo, float hi, uint64_t seed);
#endif
