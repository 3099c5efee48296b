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
  fputs("NAME\n"
        "    dlca-export - write a trained model's hard circuit as C or Verilog\n"
        "\n"
        "SYNOPSIS\n"
        "    dlca-export --model MODEL.json --out FILE [--format c|verilog] [--name NAME]\n"
        "                [--keep LIST] [--quiet]\n"
        "\n"
        "DESCRIPTION\n"
        "    Writes the hard circuit of one cell of a saved model (each gate its most\n"
        "    likely op) as C or Verilog: pass-through gates become wires, constants\n"
        "    are folded, and only the gates that reach the cell's new state are\n"
        "    written. The bit order, the boundary and how to call the code are in\n"
        "    the format note export.md.\n"
        "\n"
        "OPTIONS\n"
        "    --model FILE         the dlca-model JSON (dlca-train --save)\n"
        "    --out FILE           the file to write (atomically)\n"
        "    --format F           c (the default: NAME_cells64, 64 cells bit-sliced in\n"
        "                         uint64_t words, NAME_step, one synchronous step of a\n"
        "                         grid of bytes, and NAME_step_async, one step under a\n"
        "                         fire mask) or verilog (a combinational module\n"
        "                         NAME_cell, and NAME_grid, a grid of them with state\n"
        "                         registers, one step per clock)\n"
        "    --name NAME          the prefix of the C functions or the Verilog module\n"
        "                         (default dlca)\n"
        "    --keep LIST          the channels that must be right at every step, such\n"
        "                         as 0 for growth or 0,1,2 for colour (default: all); a\n"
        "                         channel that none of them reads is written as 0, and\n"
        "                         its logic left out\n"
        "    --quiet              print nothing on success\n"
        "    -h, --help           this text\n"
        "    -V, --version        the library version\n"
        "\n"
        "EXIT STATUS\n"
        "    0    success\n"
        "    1    failure: out of memory, the file not written\n"
        "    2    bad input: option, model file, --name or --keep\n"
        "\n"
        "EXAMPLES\n"
        "    dlca-export --model cb.json --out cb.c\n"
        "    dlca-export --model growth.json --format verilog --keep 0 --out growth.v\n",
        f);
}

typedef struct options {
  const char *model, *out, *name;
  int format, quiet, keep[DLCA_EXPORT_MAX_KEEP], n_keep;
} options;

/* --keep's list of channel numbers into o; 0, or -1 after a message. */
static int parse_keep(const char *arg, options *o) {
  const char *p = arg;
  o->n_keep = 0;
  for (;;) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || v < 0 || v > 1000000 || (*end != ',' && *end) || o->n_keep == DLCA_EXPORT_MAX_KEEP) {
      fprintf(stderr, "%s: --keep: '%s' is not a list of at most %d channel numbers (0,1,2)\n", PROG, arg,
              DLCA_EXPORT_MAX_KEEP);
      return -1;
    }
    o->keep[o->n_keep++] = (int)v;
    if (!*end) return 0;
    p = end + 1;
  }
}

/* The command line into o; -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, options *o) {
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
  memset(o, 0, sizeof *o);
  o->name = "dlca", o->format = DLCA_EXPORT_C;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, ":hV", opts, NULL)) != -1) {
    const char *opt = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    switch (c) {
      case O_MODEL: o->model = optarg; break;
      case O_OUT: o->out = optarg; break;
      case O_NAME: o->name = optarg; break;
      case O_QUIET: o->quiet = 1; break;
      case O_KEEP: if (parse_keep(optarg, o)) return CLI_USAGE; break;
      case O_FORMAT:
        if (!strcmp(optarg, "c")) o->format = DLCA_EXPORT_C;
        else if (!strcmp(optarg, "verilog")) o->format = DLCA_EXPORT_VERILOG;
        else {
          fprintf(stderr, "%s: --format: '%s' is neither c nor verilog\n", PROG, optarg);
          return CLI_USAGE;
        }
        break;
      case 'h':
      case O_HELP: usage(stdout); return CLI_OK;
      case 'V':
      case O_VERSION: return cli_print_version(PROG, dlca_version_string());
      case ':': fprintf(stderr, "%s: %s: needs a value (see --help)\n", PROG, opt); return CLI_USAGE;
      default: fprintf(stderr, "%s: %s: unknown option (see --help)\n", PROG, opt); return CLI_USAGE;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "%s: %s: unexpected argument (see --help)\n", PROG, argv[optind]);
    return CLI_USAGE;
  }
  if (!o->model || !o->out) {
    fprintf(stderr, "%s: %s: missing (see --help)\n", PROG, !o->model ? "--model" : "--out");
    return CLI_USAGE;
  }
  return -1;
}

int main(int argc, char **argv) {
  options o;
  int code = parse_args(argc, argv, &o);
  if (code >= 0) return code;
  dlca_model *m;
  int rc = dlca_model_load(o.model, &m);
  if (rc) {
    fprintf(stderr, "%s: --model: %s\n", PROG, dlca_last_error());
    return rc == DLCA_ENOMEM ? CLI_FAIL : CLI_USAGE;
  }
  dlca_model_shape shape;
  dlca_model_get_shape(m, &shape);
  dlca_export_info info;
  rc = dlca_model_export(m, (dlca_export_format)o.format, o.name, o.keep, o.n_keep, o.out, &info);
  dlca_model_free(m);
  if (rc) {
    fprintf(stderr, "%s: %s\n", PROG, dlca_last_error());
    return rc == DLCA_EINVAL ? CLI_USAGE : CLI_FAIL;
  }
  if (!o.quiet)
    printf("%s: %s, %zu logic gates (%zu of them NOT) of the model's %zu, %zu of the %d patch bits read, "
           "%zu of %d channels kept, %zu constant outputs\n",
           o.out, o.format == DLCA_EXPORT_C ? "C" : "Verilog", info.logic_gates, info.not_gates, info.model_gates,
           info.inputs_used, 9 * shape.channels, info.channels_kept, shape.channels, info.const_outputs);
  return 0;
}
