# What the tools and bench programs share and the library does not install:
# option parsing helpers (cli.h), the progress line, the CSV log, the gate
# census, hard rollouts, pictures and the --jobs runner. Built once.
noinst_LTLIBRARIES += tools/libdlca_tools.la
tools_libdlca_tools_la_SOURCES = tools/cli.h tools/progress.c tools/progress.h tools/csvlog.c tools/csvlog.h \
	tools/gates.c tools/gates.h tools/rollout.c tools/rollout.h tools/strip.c tools/strip.h \
	tools/jobs.c tools/jobs.h tools/outfile.c tools/outfile.h
DLCA_TOOLS_LIBS = tools/libdlca_tools.la libdlca_cl.la $(JANSSON_LIBS)

# dlca-train: trains a preset over the library's training loop. Public API only.
bin_PROGRAMS += tools/dlca-train
tools_dlca_train_SOURCES = tools/dlca-train.c tools/train_run.h tools/train_options.c tools/train_options.h \
	tools/train_report.c tools/train_chain.c tools/train_population.c \
	tools/train_measure.c tools/train_measure.h
tools_dlca_train_LDADD = $(DLCA_TOOLS_LIBS) -lm

# dlca-parity: a backend against a JAX vector, or a device against the CPU reference.
bin_PROGRAMS += tools/dlca-parity
tools_dlca_parity_SOURCES = tools/dlca-parity.c tools/cli.h
tools_dlca_parity_LDADD = $(DLCA_TOOLS_LIBS)

# dlca-info: lists OpenCL devices, builds a kernel file. Public API and jansson.
bin_PROGRAMS += tools/dlca-info
tools_dlca_info_SOURCES = tools/dlca-info.c
tools_dlca_info_LDADD = libdlca_cl.la $(JANSSON_LIBS)

# dlca-eval: scores a saved model's hard circuit. Public API, libpng and
# (optional, configure --with-gif) giflib for --gif.
bin_PROGRAMS += tools/dlca-eval
tools_dlca_eval_SOURCES = tools/dlca-eval.c tools/eval_options.c tools/eval_options.h tools/gif.c tools/gif.h
tools_dlca_eval_LDADD = $(DLCA_TOOLS_LIBS) $(PNG_LIBS) $(GIF_LIBS) -lm

# dlca-export: a saved model's hard circuit as C or Verilog. Public API only.
bin_PROGRAMS += tools/dlca-export
tools_dlca_export_SOURCES = tools/dlca-export.c tools/cli.h
tools_dlca_export_LDADD = libdlca_cl.la

# dlca-net: trains a network of the compute layer on a shipped data set. Public API only.
bin_PROGRAMS += tools/dlca-net
tools_dlca_net_SOURCES = tools/dlca-net.c tools/cli.h
tools_dlca_net_LDADD = $(DLCA_TOOLS_LIBS) -lm
