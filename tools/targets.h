/* Targets and start grids for dlca-train's presets (spec/dlca.md section 5):
 * the fixed checkerboard, the growth and colour images, and the Game of
 * Life boards with their one-step successors. Grids are float
 * [height][width][channels], as dlca_trainer_set_target() takes them. */
#ifndef DLCA_TOOLS_TARGETS_H
#define DLCA_TOOLS_TARGETS_H

#include <stddef.h>
#include <stdint.h>
#include "dlca_cl.h"

#define GOL_BOARDS 512 /* every 3x3 board: bit k of the index is cell k */

/* Whether the preset trains on per-sample boards (gol) rather than one target. */
int target_is_gol(const dlca_preset *p);

/* The one target of a non-gol preset, [height][width][channels], malloc'd
 * into *y. `path` is a PNG or PBM for growth and colour (NULL: the built-in
 * image) and must be NULL for the checkerboards. On failure returns -1 with
 * one line in err that names the file; *is_input says whether the user's
 * input is at fault (exit 2) rather than the host (exit 1). */
int target_fixed(const dlca_preset *p, int channels, const char *path, float **y, char *err, size_t n,
                 int *is_input);

/* The checkerboard target of any grid size into y, [H][W][C], which must be
 * zeroed: channel 0 of cell (r, q) is (r/2 + q/2) mod 2, the rest stay 0. */
void target_checkerboard(int H, int W, int C, float *y);

/* n random 0/1 values into x: bit 31 of dlca_rng_u32(seed, stream, i), a
 * stream apart from the trainer's own draws (fresh start grids). */
void random_bits(float *x, size_t n, uint64_t seed, uint32_t stream);

/* The training order of the 512 boards: a permutation drawn from seed. */
void gol_order(uint64_t seed, int order[GOL_BOARDS]);
/* Epoch e's batch: boards order[(e*batch + i) mod 512] for i < batch, as
 * start grids x and targets y, each [batch][3][3][1]. It depends only on
 * the epoch, so a resumed run sees the boards the full run would have. */
void gol_batch(const int order[GOL_BOARDS], uint64_t epoch, int batch, float *x, float *y);
/* All 512 boards in index order, and their successors, each [512][3][3][1]. */
void gol_all(float *x, float *y);
/* One exact Life step of an H x W torus, x and y [H][W] (values >= 0.5 live). */
void gol_step(int H, int W, const float *x, float *y);

#endif
