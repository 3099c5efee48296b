/* dlca-train's command line: the options, their parsing, and --help. */
#ifndef DLCA_TOOLS_TRAIN_OPTIONS_H
#define DLCA_TOOLS_TRAIN_OPTIONS_H

#include <stdint.h>

#define TRAIN_PROG "dlca-train"
#define TRAIN_INTERRUPT_CKPT "dlca-train-interrupted.ckpt"

typedef struct train_options {
  const char *preset;
  const char *device;            /* --device SPEC, for dlca_context_new() */
  int backend_ref;               /* --backend ref: the CPU reference (ctx == NULL) */
  long epochs, batch, steps;     /* -1: the preset's */
  double lr;                     /* 0: the preset's */
  uint64_t seed;
  const char *log, *save, *checkpoint, *resume, *model, *target;
  long eval_every, checkpoint_every;
  int quiet, help, version;
} train_options;

/* Fills o from argv. Returns 0, or an exit code (2) after printing one
 * line on stderr. --help and --version only set their flags. */
int train_options_parse(int argc, char **argv, train_options *o);
void train_options_help(void);

#endif
