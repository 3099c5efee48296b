/* dlca-tune --clblast: CLBlast's own tuners (clblast-utils) run on one
 * device, their best parameters stored in the user tuning table's
 * "clblast" section (doc/tuning-table.md). */
#ifndef DLCA_BENCH_TUNE_CLBLAST_H
#define DLCA_BENCH_TUNE_CLBLAST_H

/* Whether argv asks for this mode (--clblast anywhere). */
int tune_clblast_wanted(int argc, char **argv);
/* The mode's main: its own options (--help lists them); an exit code. */
int tune_clblast_main(int argc, char **argv);
#endif
