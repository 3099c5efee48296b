/* The OpenCL runtime shared by lib/cl/: the context, the kernel loader, the
 * binary cache, the tuning table, launches and profiling. Not installed. */
#ifndef DLCA_CL_RUNTIME_H
#define DLCA_CL_RUNTIME_H

/* 1.2 keeps clCreateCommandQueue undeprecated and runs on every platform
 * still in use (NVIDIA's and older drivers stop at 1.2 or 3.0-as-1.2). */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <pthread.h>
#include "core/internal.h"

/* ---- devices (device.c) ---- */

typedef struct dlca__device {
  dlca_device_info info;
  cl_platform_id platform;
  cl_device_id device;
  unsigned clock_mhz;
  char platform_vendor[128]; /* "The pocl project": matched by name specs too */
} dlca__device;

/* Every device of every platform, the default marked. Free *out with free(). */
int dlca__device_enum(dlca__device **out, size_t *n);
/* The device that spec selects (NULL/"" : $DLCA_CL_DEVICE, else the default). */
int dlca__device_select(const dlca__device *devs, size_t n, const char *spec, size_t *index);

/* ---- the loader (loader.c) ---- */

/* One term of a tunable's allowed values: lo..hi, every step-th value from
 * lo (step 1: all), or with pow2 only the powers of two among them. */
typedef struct dlca_tunable_range {
  int lo, hi, step, pow2;
} dlca_tunable_range;

typedef struct dlca_tunable {
  char name[64];
  int values[16];   /* candidates; values[0] is the default */
  int n_values;
  dlca_tunable_range allowed[8]; /* the values a table may set (doc/tuning-table.md) */
  int n_allowed;
  int declared_allowed; /* 0: the line has no `| ...`, and only the candidates are allowed */
} dlca_tunable;

/* Finds file on the kernel search path: DLCA_CL_KERNEL_PATH (colon-separated),
 * then the installed DLCA_PKGDATADIR/kernels. DLCA_ENOKERNEL naming the
 * directories tried. */
int dlca__kernel_find(const char *file, char *path, size_t n);
/* The file's source with every #include "x.cl" resolved textually. */
int dlca__kernel_resolve(const char *file, char **src, size_t *len, char *path, size_t pathn);
/* Where the arguments of the annotation `// @word args` on line [p, end)
 * start (at the blank after the word), or NULL if the line is not one. */
const char *dlca__annotation(const char *p, const char *end, const char *word);
/* The `// @tunable NAME DEFAULT CANDIDATES... | ALLOWED` annotations of a
 * source (doc/tuning-table.md); DLCA_EBUILD naming the file and line of a
 * malformed one. */
int dlca__tunables_parse(const char *where, const char *src, dlca_tunable **out, size_t *n);
/* Whether value is one that t's line allows. */
int dlca__tunable_allowed(const dlca_tunable *t, int value);
/* t's allowed values as written in doc/tuning-table.md: "0, 16..1024 pow2". */
void dlca__tunable_allowed_text(const dlca_tunable *t, char *buf, size_t n);
/* The tunables that file (after includes) declares. Free *out with free(). */
int dlca__kernel_tunables(dlca_context *ctx, const char *file, dlca_tunable **out, size_t *n);
/* The source handed to the compiler: one "#define NAME VALUE" line per
 * tunable (values from dlca__tunable), then the resolved file. The only place
 * where tuned values enter a program. */
int dlca__kernel_source(dlca_context *ctx, const char *file, char **src, size_t *len, char *path,
                        size_t pathn);
/* "kernels/trainer.cl" -> "trainer": the key of the tuning table. */
void dlca__kernel_stem(const char *file, char *out, size_t n);

/* ---- the binary cache (cache.c) ---- */

/* The cache directory of the current environment; *enabled = 0 under
 * DLCA_CL_CACHE=0. */
int dlca__cache_dir(char *buf, size_t n, int *enabled);
/* What an entry is for, in full: pieces (pointers, valid while the caller
 * holds them) whose length-prefixed text is stored in the entry and compared
 * on load, and its XXH3-64, which names the file. */
typedef struct dlca__cache_id {
  uint64_t hash;
  size_t n;
  const void *ptr[10];
  size_t len[10];
} dlca__cache_id;
/* A program's key: the library version, the platform name and version, the
 * device name, vendor and driver, the options and the source. */
void dlca__cache_key_program(dlca__cache_id *k, const dlca_device_info *dev, const char *src, size_t len,
                             const char *options);
/* A key that is only a hash computed elsewhere (bank orders); *hash must
 * outlive k. */
void dlca__cache_key_hash(dlca__cache_id *k, const uint64_t *hash);
/* dlca__cache_key_program's hash. */
uint64_t dlca__cache_key(const dlca_device_info *dev, const char *src, size_t len, const char *options);
/* <dir>/programs/<key>.clbin */
void dlca__cache_entry_path(const char *dir, uint64_t key, char *buf, size_t n);
/* <dir>/orders/<key>.order: a bank-aware order (bank_order.c), in the same
 * entry format */
void dlca__cache_order_path(const char *dir, uint64_t key, char *buf, size_t n);
/* The binary stored under path; 0 and *bin with a valid entry for k. A
 * missing entry returns 1; a bad one (corrupt, another key, not a regular
 * file of this user, a link) is deleted and returns 1 as well. */
int dlca__cache_load(const char *path, const dlca__cache_id *k, unsigned char **bin, size_t *len);
/* Stores an entry atomically (temp file, fsync, rename). */
int dlca__cache_store(const char *path, const dlca__cache_id *k, const unsigned char *bin, size_t len);
/* mkdir -p, new directories 0700 */
int dlca__mkdirs(const char *dir);
/* Creates dir, dir/programs and dir/orders (0700) where missing, and checks
 * that each is a directory of this user that no one else can write. A
 * failure (message set) means: run without the disk cache. */
int dlca__cache_prepare(const char *dir);

/* ---- the tuning table (tuning.c) ---- */

typedef struct dlca__tuning_param {
  char stem[64], name[64];
  int value;
} dlca__tuning_param;

typedef struct dlca__tuning_entry {
  char device[256], driver[128], vendor[128]; /* normalised; "" when absent */
  char type[16];                               /* "cpu", "gpu", "accelerator" or "" */
  int is_default;
  dlca__tuning_param *params;
  size_t n_params;
} dlca__tuning_entry;

typedef struct dlca__tuning_table {
  char path[1024];
  char device[256], driver[128]; /* header: the device it was tuned on, or "" */
  dlca__tuning_entry *entries;
  size_t n_entries;
} dlca__tuning_table;

/* Lowercase, "(tm)" "(r)" removed, runs of spaces collapsed, trimmed. */
void dlca__normalise_name(const char *in, char *out, size_t n);
/* Reads and validates a table; DLCA_ETUNING naming the file and the JSON path. */
int dlca__tuning_load(const char *path, dlca__tuning_table *t);
void dlca__tuning_free(dlca__tuning_table *t);
/* 1 and *value if the table sets stem's param for this device: exact device
 * and driver, then the device under any driver, then vendor, then device
 * type ("cpu", "gpu", "accelerator"; "" or NULL matches no type entry), then
 * default. dlca__tuning_lookup is the same without a type. */
int dlca__tuning_lookup(const dlca__tuning_table *t, const char *device, const char *driver,
                        const char *vendor, const char *stem, const char *param, int *value);
int dlca__tuning_lookup_typed(const dlca__tuning_table *t, const char *device, const char *driver,
                              const char *vendor, const char *type, const char *stem, const char *param,
                              int *value);
/* Whether the table's header names this device (no header: yes). */
int dlca__tuning_matches(const dlca__tuning_table *t, const char *device, const char *driver);
/* Loads the shipped table and the user table into ctx (context creation). */
int dlca__tuning_init(dlca_context *ctx);
/* The value injected for file's param: override > user table > shipped
 * table > the .cl fallback (the first @tunable value). */
int dlca__tunable(dlca_context *ctx, const char *file, const char *param, int *value);
/* The same for a tunable already parsed from the file whose stem is given. */
int dlca__tunable_value(dlca_context *ctx, const char *stem, const dlca_tunable *t, int *value);
/* Whether every value of the table is one its tunable's @tunable line
 * allows (the kernel files found on the search path): DLCA_ETUNING naming
 * the table, the entry, the tunable, the value and the allowed values. */
int dlca__tuning_validate(const dlca__tuning_table *t);
/* Sets param for later builds of file (the tuner); builds already made stay.
 * DLCA_ETUNING for a value outside the tunable's declared values. */
int dlca__tuning_override(dlca_context *ctx, const char *file, const char *param, int value);
void dlca__tuning_clear_overrides(dlca_context *ctx);

/* ---- the context (context.c) ---- */

typedef struct dlca__program {
  uint64_t key;
  char *options, *source;
  size_t source_len;
  cl_program prog;
  dlca_build_info info;
} dlca__program;

typedef struct dlca__pending {
  char name[64];
  cl_event ev;
} dlca__pending;

struct dlca_context {
  cl_platform_id platform;
  cl_device_id device;
  cl_context cl;
  cl_command_queue queue; /* in-order; CL_QUEUE_PROFILING_ENABLE always on */
  dlca_device_info info;
  char name_norm[256], vendor_norm[128];

  /* build_lock guards the programs and is held through a whole build, so
   * that two threads asking for one program compile it once; lock guards
   * the rest and is never held long, so launches do not wait for a
   * compiler. Order: build_lock, then lock. */
  pthread_mutex_t build_lock, lock;
  dlca__program *programs;
  size_t n_programs, cap_programs;

  int cache_on;
  char cache_dir[1024];

  dlca__tuning_table shipped, user;
  int have_shipped, have_user;
  dlca__tuning_param *overrides;
  size_t n_overrides;
  unsigned overrides_gen; /* bumped on every change of the overrides: the memo's entries go stale */

  /* the launchers' memo of programs, tuned values and kernels (memo.c) */
  struct dlca__memo *memo;

  char *warnings;

  /* CLBlast's GEMM scratch and its size memo (lib/ops/cl_blas_cache.c) */
  struct dlca__blas_cache *blas_cache;
  /* the rSVD's buffers and kernels, kept between calls (lib/ops/rsvd_cl.c) */
  struct dlca__rsvd_cl *rsvd_scratch;

  int profiling;
  dlca__pending *pending;
  size_t n_pending, cap_pending;
  dlca_kernel_profile *profile;
  size_t n_profile;
};
/* Frees ctx's rsvd_scratch (lib/ops/rsvd_cl.c); dlca_context_free calls it. */
void dlca__rsvd_scratch_free(dlca_context *ctx);

/* DLCA_CL_BUILD_OPTIONS, or NULL where unset or empty (context.c): the only
 * reader of that variable. */
const char *dlca__build_options_env(void);

/* Adds a line to dlca_context_warnings(); takes ctx->lock. */
void dlca__warn(dlca_context *ctx, const char *fmt, ...) DLCA_PRINTF(2, 3);

/* ---- programs (program.c) ---- */

/* The program of file + options, built once per context and cached on disk.
 * *out stays owned by ctx: do not release it. info may be NULL. */
int dlca__program_get(dlca_context *ctx, const char *file, const char *options, cl_program *out,
                      dlca_build_info *info);
/* A kernel of prog; the caller releases it. DLCA_ECL naming the kernel. */
int dlca__kernel_create(dlca_context *ctx, cl_program prog, const char *name, cl_kernel *out);

/* ---- the launchers' memo (memo.c) ---- */

/* dlca__program_get and dlca__tunable, remembered per context while the
 * tuner's overrides stay the same (a file edited on disk is seen by the next
 * context): a launcher's lookup without reading its file. Thread-safe. */
int dlca__memo_program(dlca_context *ctx, const char *file, const char *options, cl_program *out);
int dlca__memo_tunable(dlca_context *ctx, const char *file, const char *param, int *value);
/* Kernel `name` of prog (a program of ctx) from the context's pool, else
 * created: the caller's alone (no other thread sets its arguments) until
 * dlca__memo_kernel_put hands it back. clReleaseKernel instead is safe, but
 * keeps its pool slot taken. */
int dlca__memo_kernel(dlca_context *ctx, cl_program prog, const char *name, cl_kernel *out);
/* Hands k back to its pool (or releases it where it is none of the pool's). */
void dlca__memo_kernel_put(dlca_context *ctx, cl_kernel k);
/* dlca_context_free's: releases the kernels of the pools. */
void dlca__memo_free(dlca_context *ctx);

/* ---- register caps in PTX (ptx.c) ---- */

/* One `// @ptx-maxnreg <kernel> <MACRO>` annotation of a kernel file, with
 * the macro's value (0: no cap): the last -DMACRO=v of the build options,
 * else the tuned #define of a tunable of that name. */
typedef struct dlca__ptx_cap {
  char kernel[64];
  int maxnreg;
} dlca__ptx_cap;
/* The annotations of a tuned source (at most max); DLCA_EBUILD naming
 * `where` for a malformed one or one whose tunable the file lacks. */
int dlca__ptx_caps(const char *where, const char *src, const char *opts, dlca__ptx_cap *caps, int max, int *n);
/* Whether a program binary is PTX text. */
int dlca__ptx_is(const unsigned char *bin, size_t len);
/* A copy of ptx with ".maxnreg maxnreg" on entry `kernel` (replacing one it
 * has): 0, or 1 where there is no such entry, 2 where its parameter list or
 * body is not found, -1 out of memory. *out is malloc'ed. */
int dlca__ptx_maxnreg(const char *ptx, size_t len, const char *kernel, int maxnreg, char **out,
                      size_t *outlen);

/* ---- launches, buffers, profiling (launch.c) ---- */

/* clEnqueueNDRangeKernel; lws may be NULL. With profiling on, the event is
 * kept and its device time goes to the accumulator of `name`. */
int dlca__launch(dlca_context *ctx, cl_kernel k, const char *name, cl_uint dims, const size_t *gws,
                 const size_t *lws);
/* A read-write buffer; DLCA_EDEVMEM naming `what` and its size in bytes and
 * MiB when it exceeds CL_DEVICE_MAX_MEM_ALLOC_SIZE or the allocation fails
 * for want of memory (CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_RESOURCES,
 * CL_OUT_OF_HOST_MEMORY); DLCA_ECL for any other OpenCL error. */
int dlca__buffer(dlca_context *ctx, size_t bytes, const char *what, cl_mem *out);
/* The same with clCreateBuffer flags and an optional host pointer. */
int dlca__buffer_ex(dlca_context *ctx, cl_mem_flags flags, size_t bytes, void *host, const char *what,
                    cl_mem *out);
/* Blocking copies between host and a buffer, errors naming `what`. */
int dlca__upload(dlca_context *ctx, cl_mem buf, size_t offset, size_t bytes, const void *src,
                 const char *what);
int dlca__download(dlca_context *ctx, cl_mem buf, size_t offset, size_t bytes, void *dst,
                   const char *what);
/* clFinish, an error naming what was running. */
int dlca__finish(dlca_context *ctx, const char *what);

void dlca__profile_enable(dlca_context *ctx, int on);
void dlca__profile_reset(dlca_context *ctx);
/* Waits for the queue, then returns per-name totals (malloc'd copy) since the
 * last reset, in first-launch order. */
int dlca__profile_collect(dlca_context *ctx, dlca_kernel_profile **out, size_t *n);

/* Keeps a launch's event for the totals of `name` (profile.c). */
void dlca__profile_add(dlca_context *ctx, const char *name, cl_event ev);
/* Whether launches are being profiled now. */
int dlca__profiling(dlca_context *ctx);

/* Milliseconds on a monotonic clock. */
double dlca__now_ms(void);

#endif
