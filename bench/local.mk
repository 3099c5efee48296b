# The bench programs include the tools' headers (cli.h) by name and link the
# tools' convenience library (tools/local.mk) rather than recompiling tools/*.c.
DLCA_BENCH_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools

# dlca-bench: times training epochs per preset and batch size, with floors
# and a per-phase device profile (doc/performance.md). Public API only.
noinst_PROGRAMS += bench/dlca-bench
bench_dlca_bench_SOURCES = bench/dlca-bench.c bench/bench_population.c bench/bench_population.h
# its --json and --markdown files written whole, as the tools write theirs
bench_dlca_bench_SOURCES += tools/outfile.c tools/outfile.h
bench_dlca_bench_CPPFLAGS = $(DLCA_BENCH_CPPFLAGS)
bench_dlca_bench_LDADD = libdlca_cl.la $(JANSSON_LIBS) -lm
bench_dlca_bench_LDFLAGS = $(OPENMP_CFLAGS)

# dlca-tune: the per-device tuner; writes the user tuning table
# (doc/tuning-table.md). It sets overrides and reads profiling events, so it
# links the internal library; the presets' targets come from it too.
bin_PROGRAMS += bench/dlca-tune
bench_dlca_tune_SOURCES = bench/dlca-tune.c bench/tune.h bench/tune_workloads.c bench/tune_search.c bench/tune_table.c bench/tune_table_file.h bench/tune_table_file.c bench/tune_options.c
# --clblast: CLBlast's own tuners (clblast-utils) into the table's "clblast" section.
bench_dlca_tune_SOURCES += bench/tune_clblast.h bench/tune_clblast.c bench/tune_clblast_table.h bench/tune_clblast_table.c
bench_dlca_tune_CPPFLAGS = $(DLCA_BENCH_CPPFLAGS)
bench_dlca_tune_LDADD = libdlca_cl_internal.la $(DLCA_DEP_LIBS)

# dlca-recipes: training recipes (schedules, relaxations) compared by how
# often and how fast they reach a hard circuit right on fresh grids
# (doc/training.md). Public API and jansson.
noinst_PROGRAMS += bench/dlca-recipes
bench_dlca_recipes_SOURCES = bench/dlca-recipes.c tools/outfile.c tools/outfile.h
bench_dlca_recipes_CPPFLAGS = $(DLCA_BENCH_CPPFLAGS)
bench_dlca_recipes_LDADD = libdlca_cl.la $(JANSSON_LIBS) -lm

# dlca-hardbench: the hard evaluation of a preset's circuit on the float
# reference, an OpenCL device and the packed-bits circuit (doc/bits.md).
noinst_PROGRAMS += bench/dlca-hardbench
bench_dlca_hardbench_SOURCES = bench/dlca-hardbench.c tools/outfile.c tools/outfile.h
bench_dlca_hardbench_CPPFLAGS = $(DLCA_BENCH_CPPFLAGS)
bench_dlca_hardbench_LDADD = libdlca_cl.la $(JANSSON_LIBS) -lm
bench_dlca_hardbench_LDFLAGS = $(OPENMP_CFLAGS)

# dlca-opsbench: the compute layer's ops timed on one device against their
# floors (GEMM through CLBlast, dense, ...); installed. It calls the ops'
# launchers, so it links the internal library. Its suites are listed in
# bench/opsbench_suites.h, one file each.
bin_PROGRAMS += bench/dlca-opsbench
bench_dlca_opsbench_SOURCES = bench/dlca-opsbench.c bench/opsbench.h bench/opsbench_suites.h
# its --csv and --json files written whole, as the tools write theirs
bench_dlca_opsbench_SOURCES += tools/outfile.c tools/outfile.h
bench_dlca_opsbench_SOURCES += bench/opsbench_blas.c
bench_dlca_opsbench_SOURCES += bench/opsbench_conv.c
bench_dlca_opsbench_SOURCES += bench/opsbench_optim.c
bench_dlca_opsbench_SOURCES += bench/opsbench_gru.c bench/opsbench_hybrid.c
bench_dlca_opsbench_SOURCES += bench/opsbench_net.c
bench_dlca_opsbench_CPPFLAGS = $(DLCA_BENCH_CPPFLAGS)
bench_dlca_opsbench_LDADD = libdlca_cl_internal.la $(DLCA_DEP_LIBS) -lm
# bench/peer/torch_ops.py: the same rows for PyTorch (run on the GPU machine).
EXTRA_DIST += bench/peer/torch_ops.py bench/peer/torch_net.py bench/peer/python_step.py
