/* dlca-eval's command line: the options, their parsing, and --help. */
#ifndef DLCA_TOOLS_EVAL_OPTIONS_H
#define DLCA_TOOLS_EVAL_OPTIONS_H

#include <stdint.h>

#define EVAL_PROG "dlca-eval"
/* Exit status of a runtime failure (device, memory, disk): 1, as in every
 * tool (cli.h), the same as "a check failed"; the message says which, and
 * --json's "pass" fields tell a failed check. */
#define EVAL_RUNTIME 1

typedef struct eval_options {
  const char *model, *preset, *device, *target, *png, *gif, *json;
  int backend_ref;
  uint64_t seed;
  long fresh;           /* batches of the fresh check on the training grid (4) */
  long scale;           /* 0: off */
  int grid_h, grid_w;   /* --grid HxW; 0: not given */
  long steps;           /* -1: not given */
  long gol_board;       /* 0: off */
  long frame_every;     /* 0: automatic */
  long gif_delay_ms;    /* --gif: between frames (100) */
  long gif_scale;       /* --gif: pixels per cell side; 0: automatic */
  int help, version;
} eval_options;

/* Fills o from argv. Returns 0, or 2 after printing one line on stderr.
 * --help and --version only set their flags. */
int eval_options_parse(int argc, char **argv, eval_options *o);
void eval_options_help(void);

#endif
