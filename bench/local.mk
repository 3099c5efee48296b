# dlca-bench: times training epochs per preset and batch size, with floors
# and a per-phase device profile (doc/performance.md). Public API only.
noinst_PROGRAMS += bench/dlca-bench
bench_dlca_bench_SOURCES = bench/dlca-bench.c tools/cli.h
bench_dlca_bench_LDADD = libdlca_cl.la -lm
bench_dlca_bench_LDFLAGS = $(OPENMP_CFLAGS)

# dlca-tune: the per-device tuner; writes the user tuning table
# (doc/tuning-table.md). It sets overrides and reads profiling events, so it
# links the internal library; it shares dlca-train's targets.
bin_PROGRAMS += bench/dlca-tune
bench_dlca_tune_SOURCES = bench/dlca-tune.c tools/cli.h tools/targets.c tools/targets.h \
	tools/image.c tools/image.h tools/builtin.c tools/builtin.h
bench_dlca_tune_LDADD = libdlca_cl_internal.la $(DLCA_DEP_LIBS)

# dlca-recipes: training recipes (schedules, relaxations) compared by how
# often and how fast they reach a hard circuit right on fresh grids
# (doc/training.md). Public API, jansson and the tools' targets.
noinst_PROGRAMS += bench/dlca-recipes
bench_dlca_recipes_SOURCES = bench/dlca-recipes.c tools/cli.h tools/targets.c tools/targets.h \
	tools/image.c tools/image.h tools/builtin.c tools/builtin.h
bench_dlca_recipes_LDADD = libdlca_cl.la $(JANSSON_LIBS) $(PNG_LIBS) -lm

# dlca-hardbench: the hard evaluation of a preset's circuit on the float
# reference, an OpenCL device and the packed-bits circuit (doc/bits.md).
noinst_PROGRAMS += bench/dlca-hardbench
bench_dlca_hardbench_SOURCES = bench/dlca-hardbench.c tools/cli.h
bench_dlca_hardbench_LDADD = libdlca_cl.la $(JANSSON_LIBS) -lm
bench_dlca_hardbench_LDFLAGS = $(OPENMP_CFLAGS)
