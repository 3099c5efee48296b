/* dlca-train's recommended recipe per preset (issue 6): the relaxation that
 * measured best on that preset (relaxation, batch, epochs, schedule and
 * stopping; an option given on the command line wins), applied unless --reference-protocol (or
 * --recipe reference) asks for the paper's protocol. The evidence for each
 * entry is in doc/training.md. */
#ifndef DLCA_TOOLS_RECIPES_H
#define DLCA_TOOLS_RECIPES_H

typedef struct train_recipe {
  const char *preset;
  float temperature, gumbel; /* the relaxation */
  int batch;                 /* 0: the preset's */
  long epochs;               /* at most; 0: the preset's */
  int cooldown;              /* --lr-schedule cooldown */
  long early_stop;           /* --early-stop K; 0: none */
  int keep_best;             /* --keep-best */
  const char *what;          /* one line for the summary */
} train_recipe;

/* The preset's recommended recipe, or NULL where none was measured to beat
 * the reference protocol. */
const train_recipe *train_recipe_for(const char *preset);

#endif
