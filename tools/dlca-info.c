/* dlca-info: lists the OpenCL devices libdlca_cl can use (the default marked
 * '*'), and can build a kernel file to check a device, the loader and the cache. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "dlca_cl.h"

#define PROG "dlca-info"

static void usage(FILE *f) {
  fputs("NAME\n"
        "    dlca-info - list the OpenCL devices libdlca_cl can use, and check one\n"
        "\n"
        "SYNOPSIS\n"
        "    dlca-info [--json] [--device SPEC] [--build FILE] [--cache-dir] [--clear-cache]\n"
        "\n"
        "DESCRIPTION\n"
        "    Lists every OpenCL device of every platform; '*' marks the default, the\n"
        "    one the library takes when no device is named, and '>' the one that the\n"
        "    option --device (else DLCA_CL_DEVICE) selects. With --build, builds a\n"
        "    kernel file on that device and says where its source and its cached\n"
        "    binary came from, which checks the device, the kernel search path and\n"
        "    the binary cache at once.\n"
        "\n"
        "OPTIONS\n"
        "    --json               print the list as JSON\n"
        "    --device SPEC        the device to mark and to --build on: an index \"0\",\n"
        "                         \"platform:device\", gpu, cpu, accelerator, or part of\n"
        "                         its name (default: $DLCA_CL_DEVICE, else the best GPU)\n"
        "    --build FILE         build a kernel file (\"selftest.cl\") on that device and\n"
        "                         report where it came from and how long it took\n"
        "    --cache-dir          print the binary cache directory\n"
        "    --clear-cache        delete the cached program binaries and gate orders\n"
        "    -h, --help           this text\n"
        "    -V, --version        the library version\n"
        "\n"
        "ENVIRONMENT\n"
        "    DLCA_CL_DEVICE       the default --device\n"
        "    DLCA_CL_KERNEL_PATH  directories searched for kernel sources before the\n"
        "                         installed ones (colon-separated); the tuning table\n"
        "                         shipped with them is read from ../tuning/default.json\n"
        "                         beside them\n"
        "    DLCA_CL_CACHE_DIR    the binary cache (default $XDG_CACHE_HOME/dlca_cl,\n"
        "                         else ~/.cache/dlca_cl); DLCA_CL_CACHE=0 turns it off\n"
        "    DLCA_CL_TUNING       the user tuning table (default <cache dir>/tuning.json)\n"
        "    The format notes kernel-cache.md and tuning-table.md say more.\n"
        "\n"
        "EXIT STATUS\n"
        "    0    success\n"
        "    1    failure: no OpenCL platform, a kernel that does not build, the cache\n"
        "    2    bad input: option, device spec, kernel file name, tuning table\n"
        "\n"
        "EXAMPLES\n"
        "    dlca-info\n"
        "    dlca-info --device gpu --build selftest.cl\n",
        f);
}

static const char *type_name(dlca_device_type t) {
  switch (t) {
  case DLCA_DEVICE_GPU: return "gpu";
  case DLCA_DEVICE_CPU: return "cpu";
  case DLCA_DEVICE_ACCELERATOR: return "accelerator";
  default: return "other";
  }
}

static double mib(uint64_t b) { return (double)b / (1024.0 * 1024.0); }

static void print_text(const dlca_device_info *d, size_t n, long sel) {
  for (size_t i = 0; i < n; i++) {
    printf("%c%c %zu  %-5s %s\n", d[i].is_default ? '*' : ' ', (long)i == sel ? '>' : ' ', i,
           d[i].spec, d[i].name);
    printf("      type %s, vendor %s, driver %s, %s\n", type_name(d[i].type), d[i].vendor,
           d[i].driver, d[i].version);
    printf("      platform %s (%s)\n", d[i].platform, d[i].platform_version);
    printf("      %u compute units, %.0f MiB global memory (largest allocation %.0f MiB), "
           "%.0f KiB local memory, work-groups up to %zu\n",
           d[i].compute_units, mib(d[i].global_mem), mib(d[i].max_alloc),
           (double)d[i].local_mem / 1024.0, d[i].max_work_group);
  }
}

static int print_json(const dlca_device_info *d, size_t n, long sel) {
  json_t *root = json_object(), *arr = json_array();
  json_object_set_new(root, "version", json_string(dlca_version_string()));
  for (size_t i = 0; i < n; i++) {
    json_t *o = json_object();
    json_object_set_new(o, "index", json_integer((json_int_t)i));
    json_object_set_new(o, "spec", json_string(d[i].spec));
    json_object_set_new(o, "default", json_boolean(d[i].is_default));
    if (sel >= 0) json_object_set_new(o, "selected", json_boolean((long)i == sel));
    json_object_set_new(o, "name", json_string(d[i].name));
    json_object_set_new(o, "vendor", json_string(d[i].vendor));
    json_object_set_new(o, "type", json_string(type_name(d[i].type)));
    json_object_set_new(o, "driver", json_string(d[i].driver));
    json_object_set_new(o, "device_version", json_string(d[i].version));
    json_object_set_new(o, "platform", json_string(d[i].platform));
    json_object_set_new(o, "platform_version", json_string(d[i].platform_version));
    json_object_set_new(o, "compute_units", json_integer(d[i].compute_units));
    json_object_set_new(o, "global_mem", json_integer((json_int_t)d[i].global_mem));
    json_object_set_new(o, "max_alloc", json_integer((json_int_t)d[i].max_alloc));
    json_object_set_new(o, "local_mem", json_integer((json_int_t)d[i].local_mem));
    json_object_set_new(o, "max_work_group", json_integer((json_int_t)d[i].max_work_group));
    json_array_append_new(arr, o);
  }
  json_object_set_new(root, "devices", arr);
  char *s = json_dumps(root, JSON_INDENT(2));
  json_decref(root);
  if (!s) return CLI_FAIL;
  puts(s);
  free(s);
  return CLI_OK;
}

static int build(const char *spec, const char *file) {
  dlca_context *ctx;
  int rc = dlca_context_new(spec, &ctx);
  if (rc) return cli_context_fail(PROG, spec, rc, NULL);
  dlca_device_info d;
  dlca_context_device(ctx, &d);
  dlca_build_info bi;
  rc = dlca_context_build(ctx, file, NULL, &bi);
  if (rc) {
    fprintf(stderr, "%s: --build: %s\n", PROG, dlca_last_error());
    dlca_context_free(ctx);
    return rc == DLCA_ENOKERNEL || rc == DLCA_EINVAL ? CLI_USAGE : CLI_FAIL; /* no such file: a typo */
  }
  static const char *how[] = {"compiled from source", "loaded from the binary cache",
                              "already built"};
  printf("%s on %s (%s): %s in %.1f ms\n  source %s\n  cache  %s\n", file, d.spec, d.name,
         how[bi.from_cache], bi.build_ms, bi.source_file,
         bi.cache_file[0] ? bi.cache_file : "(off)");
  const char *w = dlca_context_warnings(ctx);
  if (*w) fprintf(stderr, "%s: warning: %s", PROG, w);
  dlca_context_free(ctx);
  return CLI_OK;
}

/* --cache-dir and --clear-cache; an exit code. */
static int cache_actions(int show, int clear) {
  char dir[1024];
  if (dlca_cache_dir(dir, sizeof dir) != DLCA_OK) {
    fprintf(stderr, "%s: %s\n", PROG, dlca_last_error());
    return CLI_FAIL;
  }
  if (show) puts(dir);
  if (!clear) return CLI_OK;
  if (dlca_cache_clear() != DLCA_OK) {
    fprintf(stderr, "%s: %s\n", PROG, dlca_last_error());
    return CLI_FAIL;
  }
  printf("cleared %s/programs\n", dir);
  return CLI_OK;
}

/* Every device, the one spec (or DLCA_CL_DEVICE) selects marked; a bad
 * spec is an error. */
static int list_devices(const char *spec, int json) {
  dlca_device_info *d;
  size_t n;
  int rc = dlca_device_list(&d, &n);
  if (rc) {
    fprintf(stderr, "%s: %s\n", PROG, dlca_last_error());
    return CLI_FAIL;
  }
  long sel = -1;
  const char *env = getenv("DLCA_CL_DEVICE");
  if (spec || (env && *env)) {
    dlca_context *ctx;
    if ((rc = dlca_context_new(spec, &ctx))) {
      free(d);
      return cli_context_fail(PROG, spec, rc, NULL);
    }
    dlca_device_info sd;
    dlca_context_device(ctx, &sd);
    dlca_context_free(ctx);
    for (size_t i = 0; i < n; i++)
      if (!strcmp(d[i].spec, sd.spec)) sel = (long)i;
  }
  int ret = json ? print_json(d, n, sel) : (print_text(d, n, sel), CLI_OK);
  free(d);
  return ret;
}

int main(int argc, char **argv) {
  int json = 0, cache_dir = 0, clear = 0;
  const char *spec = NULL, *file = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return CLI_OK;
    } else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
      return cli_print_version(PROG, dlca_version_string());
    } else if (!strcmp(a, "--json")) {
      json = 1;
    } else if (!strcmp(a, "--cache-dir")) {
      cache_dir = 1;
    } else if (!strcmp(a, "--clear-cache")) {
      clear = 1;
    } else if ((!strcmp(a, "--device") || !strcmp(a, "--build")) && i + 1 < argc) {
      *(a[2] == 'd' ? &spec : &file) = argv[++i];
    } else if (!strncmp(a, "--device=", 9)) {
      spec = a + 9;
    } else if (!strncmp(a, "--build=", 8)) {
      file = a + 8;
    } else {
      fprintf(stderr, "%s: %s: %s (see --help)\n", PROG, a,
              !strcmp(a, "--device") || !strcmp(a, "--build") ? "needs a value" : "unknown option");
      return CLI_USAGE;
    }
  }
  if (cache_dir || clear) {
    int code = cache_actions(cache_dir, clear);
    if (code || (!file && !json)) return code;
  }
  return file ? build(spec, file) : list_devices(spec, json);
}
