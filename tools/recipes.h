/* dlca-train's recommended recipe per preset (issue 6): the relaxation that
 * measured best on that preset (relaxation, batch, epochs, schedule and
 * stopping, and the repair of the hard circuit; an option given on the
 * command line wins), applied unless
 * --reference-protocol (or --recipe reference) asks for the paper's protocol. The evidence for each
 * entry is in doc/training.md. */
#ifndef DLCA_TOOLS_RECIPES_H
#define DLCA_TOOLS_RECIPES_H

#include <stddef.h>

typedef struct train_recipe {
  const char *preset;
  float temperature, gumbel; /* the relaxation */
  int batch;                 /* 0: the preset's */
  long epochs;               /* at most; 0: the preset's */
  int cooldown;              /* --lr-schedule cooldown */
  long early_stop;           /* --early-stop K; 0: none */
  int keep_best;             /* --keep-best */
  int param;                 /* the gate parametrisation it was measured with (DLCA_PARAM_*) */
  long repair;               /* --repair N; 0: none */
  long eval_every;           /* --eval-every N (what --keep-best sees); 0: the tool's default */
  long evolve;               /* --evolve N; 0: none */
  long evolve_max_wrong;     /* --evolve-max-wrong K; -1: any */
  long repair_max_wrong;     /* --repair-max-wrong K; -1: any */
  const char *abandon;       /* --abandon E:W[,...] in a chain of --restarts; NULL: none */
} train_recipe;

/* The recommended recipe of a preset and parametrisation (DLCA_PARAM_*), or
 * NULL where none was measured to beat the reference protocol. */
const train_recipe *train_recipe_for(const char *preset, int param);

/* Recipe i of the table, or NULL past its end (for --help). */
const train_recipe *train_recipe_at(size_t i);

/* The recipe in words ("batch 8, temperature 2, ...") or as the dlca-train
 * options it stands for ("--batch 8 --temperature 2 ..."), into buf. */
void train_recipe_describe(const train_recipe *q, int as_options, char *buf, size_t n);

#endif
