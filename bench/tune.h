/* dlca-tune's parts (bench/dlca-tune.c and bench/tune_*.c): the options,
 * what a configuration computed and how long it took, the workloads that
 * run a kernel file, and the tuner's state. */
#ifndef DLCA_BENCH_TUNE_H
#define DLCA_BENCH_TUNE_H

#include <stddef.h>
#include <stdint.h>
#include "cl/runtime.h"
#include "dlca_cl.h"

#define PROG "dlca-tune"
#define MAX_T 32          /* tunables of one kernel file */
#define MAX_V 16          /* candidate values of one tunable (the loader's limit) */
#define MAX_ONLY 16       /* --only options */
#define MAX_FILES 64      /* kernel files in the search path */
#define GRID_MAX 16       /* the full grid when it has at most this many combinations */
#define QUICK_VALUES 3    /* --quick: the first 3 candidates of each tunable */
#define MIN_GAIN 0.01     /* what it takes to displace the default: 1% faster */
/* Correctness gate. Work-group sizes and group counts change the order of
 * float sums (per-group partial sums of the gradients, the loss), so a
 * correct configuration differs from the reference in the last bits, and
 * AdamW carries that into the parameters; equality would reject every
 * candidate. A wrong kernel misses by far more than these. */
#define LOSS_RTOL 1e-4
#define PARAM_ATOL 1e-4
/* The differences grow as training goes on (about 2e-5 after 13 epochs of
 * checkerboard when only BWD_GROUPS_PER_CU changes), so the gate looks at
 * the losses of the first GATE_EPOCHS epochs and the parameters after them,
 * however many epochs are timed. */
#define GATE_EPOCHS 16
#define SELFTEST_N (1u << 22)
#define SELFTEST_KEY 0x0123456789abcdefULL

enum { SEARCH_AUTO, SEARCH_GRID, SEARCH_DESCENT };
enum { ST_OK, ST_REJECTED, ST_FAILED };

typedef struct only_opt {
  char name[64];
  int v[MAX_V], n;
  int used;
} only_opt;

typedef struct options {
  const char *kernel, *device, *preset, *output;
  long batch, steps, warmup, repeats, passes, max_configs;
  unsigned long long seed;
  int quick, print_entry, search, help, version;
  only_opt only[MAX_ONLY];
  int n_only;
} options;

/* What a configuration computed, compared with the reference's. */
typedef struct output {
  double *losses; /* relative LOSS_RTOL */
  size_t n_losses;
  float *params; /* absolute PARAM_ATOL */
  size_t n_params;
  uint32_t *words; /* exactly */
  size_t n_words;
} output;

typedef struct meas {
  int v[MAX_T];
  int status;
  double dev_ms, wall_ms; /* medians over the timed repeats */
  double dp, dl;          /* differences from the reference (compare()) */
  char msg[320];
} meas;

struct tuner;
struct kfile;

/* How a kernel file is exercised. run() gets a fresh context whose
 * overrides are set; it returns a dlca status, the message in dlca_last_error(). */
typedef struct workload {
  const char *stem;
  int (*prepare)(struct tuner *T);                    /* once; returns an exit code */
  void (*describe)(struct tuner *T, char *buf, size_t n);
  int (*run)(struct tuner *T, struct kfile *k, dlca_context *ctx, meas *m, output *out);
  int kernels; /* trainer_run: the trainer.cl KERNELS whose steps are the file's, or -1 (no override) */
} workload;

typedef struct kfile {
  char file[1024], stem[64];
  dlca_tunable *t;
  size_t nt;
  const workload *w;
  int trials[MAX_T][MAX_V], n_trials[MAX_T];
  int start[MAX_T]; /* the values in effect now (override-free context) */
  int search;       /* SEARCH_GRID or SEARCH_DESCENT */
  meas *m;
  size_t n_m, cap_m;
  int ref, winner, start_idx; /* indices into m, -1 if none */
  output ref_out;
  int use_wall; /* no device times (profiling gave 0): rank by wall time */
  int capped;   /* the search stopped at --max-configs */
  uint64_t src_key; /* hash of the source (includes resolved) when tuning began */
  int changed;      /* the source changed on disk meanwhile: results void */
  int pw;       /* width of the params column */
} kfile;

typedef struct tuner {
  options o;
  dlca_device_info dev;
  FILE *out; /* the table: stdout, or stderr under --print-entry */
  int kw;    /* width of the kernel column */
  /* the trainer workload */
  dlca_preset preset;
  dlca_train_config cfg;
  dlca_model *model;
  float *target;
  int gol, gol_order[DLCA_GOL_BOARDS];
  float *gol_x, *gol_y;
} tuner;

/* ---- bench/dlca-tune.c: helpers ---- */
void first_line(char *dst, size_t n, const char *src);
const char *lib_error(int rc);
void output_free(output *o);
void params_str(const kfile *k, const int *v, char *buf, size_t n);
static inline double score(const kfile *k, const meas *m) { return k->use_wall ? m->wall_ms : m->dev_ms; }

/* ---- bench/tune_workloads.c ---- */
/* The workload that runs kernel files of this stem, or NULL. */
const workload *workload_of(const char *stem);
/* The trainer workloads' preparation (the model, its configuration and
 * target), once before any of them runs; an exit code. */
int trainer_prepare(tuner *T);

/* ---- bench/tune_search.c ---- */
size_t n_combinations(const kfile *k);
/* Measures k's configurations and picks its winner; -1: out of memory. */
int tune_file(tuner *T, kfile *k);
/* One line on the winner of a tuned file (0), or on why there is none (an exit code). */
int report_file(tuner *T, kfile *k);

/* ---- bench/tune_table.c ---- */
/* Writes the winners into path: this device's entry is updated (the kernel
 * files tuned now replaced, the others kept), every other entry kept. */
int write_table(tuner *T, kfile *ks, int nk, const char *path, int make_dir);
/* --print-entry: the device's entry on one line of stdout. */
int print_entry(tuner *T, kfile *ks, int nk);

/* ---- bench/tune_options.c ---- */
void help(void);
/* Fills o from the command line; an exit code (0: go on). */
int parse(int argc, char **argv, options *o);
#endif
