/* dlca-train's --log file: one CSV row per hard evaluation. The loss
 * columns depend only on the seed (the library is bitwise reproducible);
 * timing lives in its own last column so that `cut -d, -f1-4` compares runs. */
#ifndef DLCA_TOOLS_CSVLOG_H
#define DLCA_TOOLS_CSVLOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "dlca_cl.h"

#define CSVLOG_HEADER "epoch,soft_loss,hard_loss,hard_accuracy,epochs_per_s"

typedef struct csvlog {
  FILE *f;
} csvlog;

/* Opens path for a run whose first new epoch follows `resumed_at`. A fresh
 * run (resumed_at == 0) starts the file over; a resumed run keeps the rows
 * up to its checkpoint's epoch and drops later ones (written after that
 * checkpoint by the run that was cut short), so the file reads as one run;
 * those rows are rewritten to a temporary file renamed over path, so that
 * a failure loses none of them, and the new rows are appended.
 * On failure returns -1 with a message naming the file in err. */
int csvlog_open(csvlog *l, const char *path, uint64_t resumed_at, char *err, size_t n);
int csvlog_row(csvlog *l, uint64_t epoch, double soft_loss, const dlca_eval *e, double epochs_per_s);
/* 0, or -1 if any row failed to reach the disk. */
int csvlog_close(csvlog *l);

#endif
