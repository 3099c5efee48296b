/* dlca-export: writes a saved model's hard circuit as C or Verilog for
 * deployment (dlca_model_export; doc/export.md). Public API only. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DLCA_EXPORT_MAX_KEEP 4096
#include "dlca_cl.h"
#include "cli.h"

#define PROG "dlca-export"

static void usage(FILE *f) {
  fprintf(f,
          "Usage: dlca-export --model MODEL.json --out FILE [--format c|verilog] [--name NAME]\n"
          "Write the hard circuit of one cell of a saved model (each gate its most likely op)\n"
          "as C or Verilog: pass-through gates become wires, constants are folded, and only\n"
          "the gates that reach the cell's new state are written.\n"
          "\n"
          "  --model FILE      the dlca-model JSON (dlca-train --save)\n"
          "  --out FILE        the file to write (atomically)\n"
          "  --format F        c (default: NAME_cells64, 64 cells bit-sliced in uint64_t words,\n"
          "                    NAME_step, one synchronous step of a grid of bytes, and\n"
          "                    NAME_step_async, one step under a fire mask) or\n"
          "                    verilog (a combinational module NAME_cell, and NAME_grid, a\n"
          "                    grid of them with state registers, one step per clock)\n"
          "  --name NAME       the prefix of the C functions or the Verilog module (default dlca)\n"
          "  --keep LIST       the channels that must be right at every step, such as 0 for growth\n"
          "                    or 0,1,2 for colour (default: all); a channel that none of them\n"
          "                    reads is written as 0, and its logic left out\n"
          "  --quiet           print nothing on success\n"
          "  --help            show this help\n"
          "  --version         show the library version\n"
          "\n"
          "The bit order, boundary and how to call the code: doc/export.md.\n"
          "Exit status: 0 success, 1 failure, 2 bad arguments or a bad model.\n");
}

int main(int argc, char **argv) {
  const char *model = NULL, *out = NULL, *name = "dlca";
  int format = DLCA_EXPORT_C, quiet = 0, keep[DLCA_EXPORT_MAX_KEEP], n_keep = 0;
  enum { O_MODEL = 256, O_OUT, O_FORMAT, O_NAME, O_KEEP, O_QUIET, O_HELP, O_VERSION };
  static const struct option opts[] = {{"model", required_argument, NULL, O_MODEL},
                                       {"out", required_argument, NULL, O_OUT},
                                       {"format", required_argument, NULL, O_FORMAT},
                                       {"name", required_argument, NULL, O_NAME},
                                       {"keep", required_argument, NULL, O_KEEP},
                                       {"quiet", no_argument, NULL, O_QUIET},
                                       {"help", no_argument, NULL, O_HELP},
                                       {"version", no_argument, NULL, O_VERSION},
                                       {NULL, 0, NULL, 0}};
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
    const char *opt = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    switch (c) {
      case O_MODEL: model = optarg; break;
      case O_OUT: out = optarg; break;
      case O_NAME: name = optarg; break;
      case O_QUIET: quiet = 1; break;
      case O_KEEP: {
        const char *p = optarg;
        n_keep = 0;
        for (;;) {
          char *end;
          long v = strtol(p, &end, 10);
          if (end == p || v < 0 || v > 1000000 || (*end != ',' && *end) || n_keep == DLCA_EXPORT_MAX_KEEP) {
            fprintf(stderr, "%s: --keep: '%s' is not a list of at most %d channel numbers (0,1,2)\n", PROG, optarg,
                    DLCA_EXPORT_MAX_KEEP);
            return CLI_USAGE;
          }
          keep[n_keep++] = (int)v;
          if (!*end) break;
          p = end + 1;
        }
        break;
      }
      case O_FORMAT:
        if (!strcmp(optarg, "c")) format = DLCA_EXPORT_C;
        else if (!strcmp(optarg, "verilog")) format = DLCA_EXPORT_VERILOG;
        else {
          fprintf(stderr, "%s: --format: '%s' is neither c nor verilog\n", PROG, optarg);
          return CLI_USAGE;
        }
        break;
      case O_HELP: usage(stdout); return 0;
      case O_VERSION: printf("%s (libdlca_cl) %s\n", PROG, dlca_version_string()); return 0;
      case ':': fprintf(stderr, "%s: %s: needs a value (see --help)\n", PROG, opt); return CLI_USAGE;
      default: fprintf(stderr, "%s: %s: unknown option (see --help)\n", PROG, opt); return CLI_USAGE;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "%s: %s: unexpected argument (see --help)\n", PROG, argv[optind]);
    return CLI_USAGE;
  }
  if (!model || !out) {
    fprintf(stderr, "%s: %s: missing (see --help)\n", PROG, !model ? "--model" : "--out");
    return CLI_USAGE;
  }
  dlca_model *m;
  int rc = dlca_model_load(model, &m);
  if (rc) {
    fprintf(stderr, "%s: --model: %s\n", PROG, dlca_last_error());
    return rc == DLCA_ENOMEM ? CLI_FAIL : CLI_USAGE;
  }
  dlca_model_shape shape;
  dlca_model_get_shape(m, &shape);
  dlca_export_info info;
  rc = dlca_model_export(m, (dlca_export_format)format, name, keep, n_keep, out, &info);
  dlca_model_free(m);
  if (rc) {
    fprintf(stderr, "%s: %s\n", PROG, dlca_last_error());
    return rc == DLCA_EINVAL ? CLI_USAGE : CLI_FAIL;
  }
  if (!quiet)
    printf("%s: %s, %zu logic gates (%zu of them NOT) of the model's %zu, %zu of the %d patch bits read, "
           "%zu of %d channels kept, %zu constant outputs\n",
           out, format == DLCA_EXPORT_C ? "C" : "Verilog", info.logic_gates, info.not_gates, info.model_gates,
           info.inputs_used, 9 * shape.channels, info.channels_kept, shape.channels, info.const_outputs);
  return 0;
}
