/* The progress report of dlca-train on stderr: one line redrawn in place
 * with \r on a terminal, or a plain line every tenth of the run otherwise
 * (logs, CI), so that neither floods nor stays silent. */
#ifndef DLCA_TOOLS_PROGRESS_H
#define DLCA_TOOLS_PROGRESS_H

#include <stdint.h>
#include <stdio.h>
#include "dlca_cl.h"

typedef enum progress_mode { PROGRESS_QUIET, PROGRESS_TTY, PROGRESS_LINES } progress_mode;

typedef struct progress {
  progress_mode mode;
  FILE *out;
  uint64_t first, total; /* epochs done when the run started, and the goal */
  double t0, last_draw;
  uint64_t warm_epoch;   /* the rate is measured from the end of the first epoch, */
  double warm_time;      /* which carries kernel builds and warm-up */
  int last_tenth;
  int on_screen;         /* a \r line is showing and must be ended before other output */
} progress;

void progress_init(progress *p, FILE *out, int quiet, uint64_t first, uint64_t total);
/* After each epoch. hard is the latest hard evaluation, or NULL if none yet. */
void progress_update(progress *p, uint64_t epoch, double soft_loss, const dlca_eval *hard);
/* Ends the in-place line so that the next message starts on its own line. */
void progress_break(progress *p);
/* Epochs per second of this run so far (0 before the first epoch). */
double progress_rate(const progress *p, uint64_t epoch);

#endif
