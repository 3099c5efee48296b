/* Programs: the in-memory cache of a context in front of the on-disk binary
 * cache in front of the compiler. A failed build returns the whole log. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cl/runtime.h"

double dlca__now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* A program from a cached binary, or NULL if the driver refuses it (it is
 * then rebuilt from source, as for any bad entry). */
static cl_program from_binary(dlca_context *ctx, const unsigned char *bin, size_t len, const char *opts) {
  cl_int err, st = CL_SUCCESS;
  cl_program p = clCreateProgramWithBinary(ctx->cl, 1, &ctx->device, &len, &bin, &st, &err);
  if (!p || err != CL_SUCCESS || st != CL_SUCCESS) {
    if (p) clReleaseProgram(p);
    return NULL;
  }
  if (clBuildProgram(p, 1, &ctx->device, opts, NULL, NULL) != CL_SUCCESS) {
    clReleaseProgram(p);
    return NULL;
  }
  return p;
}

/* The "#define" lines that dlca__kernel_source put before the first #line. */
static void tuned_summary(const char *src, char *out, size_t n) {
  out[0] = 0;
  size_t o = 0;
  for (const char *p = src; p && *p && strncmp(p, "#line", 5) != 0;) {
    const char *nl = strchr(p, '\n');
    size_t l = nl ? (size_t)(nl - p) : strlen(p);
    if (!strncmp(p, "#define ", 8) && o + l + 3 < n) {
      o += (size_t)snprintf(out + o, n - o, "%s%.*s", o ? ", " : "", (int)(l - 8), p + 8);
    }
    p = nl ? nl + 1 : NULL;
  }
  if (!o) snprintf(out, n, "none");
}

/* A -D option naming a tunable would fight the injected #define (and lose,
 * with only a compiler warning): refuse it, pointing at the right tool. */
static int check_options(const char *file, const char *src, const char *opts) {
  for (const char *p = src; p && *p && strncmp(p, "#line", 5) != 0;) {
    const char *nl = strchr(p, '\n');
    if (!strncmp(p, "#define ", 8)) {
      const char *name = p + 8, *end = strchr(name, ' ');
      size_t l = end && (!nl || end < nl) ? (size_t)(end - name) : 0;
      for (const char *o = strstr(opts, "-D"); l && o; o = strstr(o + 2, "-D")) {
        const char *q = o + 2;
        while (*q == ' ') q++;
        if (!strncmp(q, name, l) && (q[l] == 0 || q[l] == '=' || q[l] == ' '))
          return dlca__fail(DLCA_EINVAL,
                            "%s: option \"%s\" sets %.*s, a tunable of the file; set it through "
                            "the tuning table (DLCA_CL_TUNING) or dlca__tuning_override",
                            file, opts, (int)l, name);
      }
    }
    p = nl ? nl + 1 : NULL;
  }
  return DLCA_OK;
}

static int binary_of(cl_program p, unsigned char **bin, size_t *len) {
  size_t n = 0;
  if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL) != CL_SUCCESS || n == 0)
    return 1;
  unsigned char *b = malloc(n);
  if (!b) return 1;
  if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof b, &b, NULL) != CL_SUCCESS) {
    free(b);
    return 1;
  }
  *bin = b;
  *len = n;
  return 0;
}

/* The source's @ptx-maxnreg caps (ptx.c), on a device whose binaries are
 * PTX: *p is replaced by the program built again from its PTX with the caps
 * written in. Where the binary is not PTX, the driver refuses the capped
 * one, or an entry is missing, *p stays as it is, with a warning. */
static int apply_caps(dlca_context *ctx, const char *path, const dlca__ptx_cap *caps, int ncaps,
                      const char *opts, cl_program *p) {
  int any = 0;
  for (int i = 0; i < ncaps; i++) any |= caps[i].maxnreg > 0;
  unsigned char *bin;
  size_t len;
  if (!any || binary_of(*p, &bin, &len)) return DLCA_OK;
  if (!dlca__ptx_is(bin, len)) {
    free(bin);
    dlca__warn(ctx, "%s: @ptx-maxnreg caps ignored: the program binary of %s is not PTX", path, ctx->info.name);
    return DLCA_OK;
  }
  char *cur = (char *)bin;
  int applied = 0;
  for (int i = 0; i < ncaps; i++) {
    char *o;
    size_t ol;
    if (caps[i].maxnreg <= 0) continue;
    int r = dlca__ptx_maxnreg(cur, len, caps[i].kernel, caps[i].maxnreg, &o, &ol);
    if (r < 0) {
      free(cur);
      return dlca__fail(DLCA_ENOMEM, "%s: out of memory", path);
    }
    if (r) {
      dlca__warn(ctx, "%s: @ptx-maxnreg %s: %s in the PTX of %s; built without that cap", path,
                 caps[i].kernel, r == 1 ? "no such entry" : "its entry is not well formed", ctx->info.name);
      continue;
    }
    free(cur);
    cur = o;
    len = ol;
    applied++;
  }
  if (!applied) {
    free(cur);
    return DLCA_OK;
  }
  cl_program q = from_binary(ctx, (const unsigned char *)cur, len, opts);
  free(cur);
  if (!q) {
    dlca__warn(ctx, "%s: %s refused the PTX with @ptx-maxnreg caps; built without them", path,
               ctx->info.name);
    return DLCA_OK;
  }
  clReleaseProgram(*p);
  *p = q;
  return DLCA_OK;
}

static int compile(dlca_context *ctx, const char *path, const char *src, size_t len, const char *opts,
                   const dlca__ptx_cap *caps, int ncaps, cl_program *out) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx->cl, 1, &src, &len, &err);
  if (!p)
    return dlca__fail_cl(err, "%s: clCreateProgramWithSource failed on %s: %s", path, ctx->info.name,
                         dlca__cl_error_name(err));
  err = clBuildProgram(p, 1, &ctx->device, opts, NULL, NULL);
  if (err == CL_SUCCESS) {
    int rc = apply_caps(ctx, path, caps, ncaps, opts, &p);
    if (rc) {
      clReleaseProgram(p);
      return rc;
    }
    /* with DLCA_CL_BUILD_OPTIONS set, keep the log (register counts, spills) as a warning */
    size_t n = 0;
    char *log;
    if (dlca__build_options_env() &&
        clGetProgramBuildInfo(p, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) == CL_SUCCESS && n > 1 &&
        (log = malloc(n + 1))) {
      if (clGetProgramBuildInfo(p, ctx->device, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS) {
        log[n] = 0;
        dlca__warn(ctx, "build log of %s: %s", path, log); /* takes ctx->lock itself */
      }
      free(log);
    }
    *out = p;
    return DLCA_OK;
  }
  char tuned[512];
  tuned_summary(src, tuned, sizeof tuned);
  size_t loglen = 0;
  char *log = NULL;
  if (clGetProgramBuildInfo(p, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &loglen) == CL_SUCCESS &&
      loglen > 0 && (log = malloc(loglen + 1)) &&
      clGetProgramBuildInfo(p, ctx->device, CL_PROGRAM_BUILD_LOG, loglen, log, NULL) == CL_SUCCESS)
    log[loglen] = 0;
  else if (log)
    log[0] = 0;
  clReleaseProgram(p);
  /* fail_cl keeps err for dlca_last_cl_error(); a compiler's refusal is
   * still reported as DLCA_EBUILD. */
  int rc = dlca__fail_cl(err,
                         "%s: build failed (%s) on device \"%s\" (%s, driver %s) with options \"%s\" "
                         "and tuned parameters %s. Build log:\n",
                         path, dlca__cl_error_name(err), ctx->info.name, ctx->info.platform,
                         ctx->info.driver, opts, tuned);
  if (err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS) rc = DLCA_EBUILD;
  dlca__append_error(log && *log ? log : "(the driver gave no log)");
  free(log);
  return rc;
}

static int remember(dlca_context *ctx, uint64_t key, const char *opts, char *src, size_t len,
                    cl_program prog, const dlca_build_info *bi) {
  if (ctx->n_programs == ctx->cap_programs) {
    size_t cap = ctx->cap_programs ? 2 * ctx->cap_programs : 8;
    dlca__program *p = realloc(ctx->programs, cap * sizeof *p);
    if (!p) return dlca__fail(DLCA_ENOMEM, "out of memory");
    ctx->programs = p;
    ctx->cap_programs = cap;
  }
  char *o = strdup(opts);
  if (!o) return dlca__fail(DLCA_ENOMEM, "out of memory");
  dlca__program *e = &ctx->programs[ctx->n_programs++];
  e->key = key;
  e->options = o;
  e->source = src;
  e->source_len = len;
  e->prog = prog;
  e->info = *bi;
  return DLCA_OK;
}

static int program_get(dlca_context *ctx, const char *file, const char *opts, cl_program *out,
                       dlca_build_info *info, double t0);

int dlca__program_get(dlca_context *ctx, const char *file, const char *options, cl_program *out,
                      dlca_build_info *info) {
  if (!ctx || !file || !out) return dlca__fail(DLCA_EINVAL, "dlca__program_get: NULL argument");
  double t0 = dlca__now_ms();
  /* DLCA_CL_BUILD_OPTIONS: extra compiler options for every build (for
   * example -cl-nv-verbose); they are part of the cache key like any option. */
  const char *extra = dlca__build_options_env();
  char *joined = NULL;
  if (extra) {
    size_t n = strlen(options ? options : "") + strlen(extra) + 2;
    if (!(joined = malloc(n))) return dlca__fail(DLCA_ENOMEM, "%s: out of memory", file);
    snprintf(joined, n, "%s %s", options ? options : "", extra);
  }
  const char *opts = joined ? joined : options ? options : "";
  int rc = program_get(ctx, file, opts, out, info, t0);
  free(joined);
  return rc;
}

/* The program this context built already from src with opts, or NULL. */
static cl_program find_built(const dlca_context *ctx, uint64_t key, const char *src, size_t len, const char *opts) {
  for (size_t i = 0; i < ctx->n_programs; i++) {
    const dlca__program *e = &ctx->programs[i];
    if (e->key == key && e->source_len == len && !strcmp(e->options, opts) && !memcmp(e->source, src, len))
      return e->prog;
  }
  return NULL;
}

/* The program from the binary cache, or compiled (and then stored there);
 * bi->from_cache says which. Under build_lock. */
static int load_or_compile(dlca_context *ctx, const char *file, const dlca__cache_id *ck, const char *src, size_t len,
                           const char *opts, const dlca__ptx_cap *caps, int ncaps, dlca_build_info *bi,
                           cl_program *out) {
  cl_program prog = NULL;
  unsigned char *bin;
  size_t blen;
  if (ctx->cache_on && dlca__cache_load(bi->cache_file, ck, &bin, &blen) == 0) {
    prog = from_binary(ctx, bin, blen, opts);
    free(bin);
    if (prog) bi->from_cache = DLCA_BUILD_DISK;
    else unlink(bi->cache_file);
  }
  if (!prog) {
    int rc = compile(ctx, bi->source_file, src, len, opts, caps, ncaps, &prog);
    if (rc) return rc;
    bi->from_cache = DLCA_BUILD_COMPILED;
    if (ctx->cache_on) {
      if (binary_of(prog, &bin, &blen) == 0) {
        if (dlca__cache_store(bi->cache_file, ck, bin, blen) != DLCA_OK)
          dlca__warn(ctx, "binary cache: %s", dlca_last_error());
        free(bin);
      } else {
        dlca__warn(ctx, "binary cache: %s gives no program binary for %s", ctx->info.name, file);
      }
    }
  }
  *out = prog;
  return DLCA_OK;
}

static int program_get(dlca_context *ctx, const char *file, const char *opts, cl_program *out,
                       dlca_build_info *info, double t0) {
  dlca_build_info bi;
  memset(&bi, 0, sizeof bi);
  char *src = NULL;
  size_t len = 0;
  /* Before build_lock: it reads the overrides under ctx->lock. */
  dlca__ptx_cap caps[8];
  int ncaps = 0;
  int rc = dlca__kernel_source(ctx, file, &src, &len, bi.source_file, sizeof bi.source_file);
  if (!rc) rc = check_options(bi.source_file, src, opts);
  if (!rc) rc = dlca__ptx_caps(bi.source_file, src, opts, caps, 8, &ncaps);
  if (rc) {
    free(src);
    return rc;
  }
  dlca__cache_id ck; /* points into src and opts */
  dlca__cache_key_program(&ck, &ctx->info, src, len, opts);
  uint64_t key = ck.hash;

  /* One lock over the whole build: two threads asking for one program
   * compile it once. */
  pthread_mutex_lock(&ctx->build_lock);
  if (ctx->cache_on) dlca__cache_entry_path(ctx->cache_dir, key, bi.cache_file, sizeof bi.cache_file);
  cl_program prog = find_built(ctx, key, src, len, opts);
  if (prog) {
    bi.from_cache = DLCA_BUILD_MEMORY;
    free(src); /* the context keeps its own copy */
  } else if (!(rc = load_or_compile(ctx, file, &ck, src, len, opts, caps, ncaps, &bi, &prog))) {
    bi.build_ms = dlca__now_ms() - t0; /* the build's time, as remembered */
    if ((rc = remember(ctx, key, opts, src, len, prog, &bi))) clReleaseProgram(prog);
  }
  if (rc) free(src);
  pthread_mutex_unlock(&ctx->build_lock);
  if (rc) return rc;
  *out = prog;
  if (bi.from_cache == DLCA_BUILD_MEMORY) bi.build_ms = dlca__now_ms() - t0;
  else dlca__clear_error();
  if (info) *info = bi;
  return DLCA_OK;
}

int dlca_context_build(dlca_context *ctx, const char *file, const char *options, dlca_build_info *info) {
  cl_program p;
  return dlca__program_get(ctx, file, options, &p, info);
}

int dlca__kernel_create(dlca_context *ctx, cl_program prog, const char *name, cl_kernel *out) {
  if (!ctx || !prog || !name || !out) return dlca__fail(DLCA_EINVAL, "dlca__kernel_create: NULL argument");
  cl_int err;
  *out = clCreateKernel(prog, name, &err);
  if (!*out)
    return dlca__fail_cl(err, "kernel %s: clCreateKernel failed on %s: %s%s", name, ctx->info.name,
                         dlca__cl_error_name(err),
                         err == CL_INVALID_KERNEL_NAME ? " (no __kernel of that name in the program)" : "");
  return DLCA_OK;
}
