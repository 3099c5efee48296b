check_PROGRAMS += tests/main
tests_main_SOURCES = tests/main.c tests/suites.h tests/util.h tests/util.c tests/test_vectors.c
tests_main_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_main_LDADD = libdlca_cl_internal.la $(CHECK_LIBS) $(DLCA_DEP_LIBS)
TESTS += tests/main
tests_main_SOURCES += tests/test_wiring.c
tests_main_SOURCES += tests/test_model.c
tests_main_SOURCES += tests/test_loader.c
tests_main_SOURCES += tests/test_gradcheck.c
tests_main_SOURCES += tests/test_device.c
tests_main_SOURCES += tests/test_cache.c
tests_main_SOURCES += tests/test_bank_order.c
tests_main_SOURCES += tests/test_tuning.c
tests_main_SOURCES += tests/test_mutations.c
tests_main_SOURCES += tests/test_files.c
tests_main_SOURCES += tests/cl_util.h tests/cl_util.c
AM_TESTS_ENVIRONMENT = DLCA_TESTDATA='$(abs_top_srcdir)/../shared/testdata/reference'; export DLCA_TESTDATA; \
	DLCA_CL_KERNEL_PATH='$(abs_top_srcdir)/kernels-cl'; export DLCA_CL_KERNEL_PATH; \
	DLCA_TOP_BUILDDIR='$(abs_top_builddir)'; export DLCA_TOP_BUILDDIR; \
	DLCA_CL_CACHE_DIR='$(abs_top_builddir)/tests/cache'; export DLCA_CL_CACHE_DIR; \
	DLCA_CC='$(CC)'; export DLCA_CC;
# End-to-end test of tools/dlca-train on the CPU reference. Run through
# $(SHELL), so that it needs no executable bit after a patch or a tarball.
TEST_EXTENSIONS = .sh
SH_LOG_COMPILER = $(SHELL)
TESTS += tests/dlca-train.sh
EXTRA_DIST += tests/dlca-train.sh tests/shell-lib.sh tests/lsan.supp
# Per-test scratch directories (tu_tmpdir) and the test cache; distcheck wants them gone.
clean-local: ; -rm -rf tests/tmp-* tests/cache
# Smoke test of bench/dlca-bench on the CPU reference.
TESTS += tests/dlca-bench.sh
EXTRA_DIST += tests/dlca-bench.sh
# Smoke test of bench/dlca-tune on the default OpenCL device (PoCL in CI).
TESTS += tests/dlca-tune.sh
EXTRA_DIST += tests/dlca-tune.sh
tests_main_SOURCES += tests/test_trainer.c
tests_main_SOURCES += tests/test_schedule.c tools/repair.c tools/repair.h
tests_main_SOURCES += tests/test_relax.c
tests_main_SOURCES += tests/test_iwp.c
tests_main_SOURCES += tests/test_bits.c
tests_main_SOURCES += tests/test_export.c
tests_main_SOURCES += tests/test_jobs.c tools/jobs.c tools/jobs.h
# Smoke test of bench/dlca-recipes on the CPU reference.
TESTS += tests/dlca-recipes.sh
EXTRA_DIST += tests/dlca-recipes.sh
# End-to-end test of tools/dlca-eval on the CPU reference.
TESTS += tests/dlca-eval.sh
EXTRA_DIST += tests/dlca-eval.sh
# End-to-end test of tools/dlca-export (C always; Verilog against the C where iverilog is installed).
TESTS += tests/dlca-export.sh
EXTRA_DIST += tests/dlca-export.sh
# Smoke test of bench/dlca-hardbench on the CPU engines.
TESTS += tests/dlca-hardbench.sh
EXTRA_DIST += tests/dlca-hardbench.sh
