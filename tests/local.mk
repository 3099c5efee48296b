# tests/main needs Check; without it, Makefile.am's needs-check says so.
if HAVE_CHECK
check_PROGRAMS += tests/main
TESTS += tests/main
endif
tests_main_SOURCES = tests/main.c tests/suites.h tests/util.h tests/util.c tests/test_vectors.c
# The tests read the source tree's kernels and tables by path (DLCA_SRCDIR);
# the library itself knows only the installed ones.
tests_main_CPPFLAGS = $(AM_CPPFLAGS) -DDLCA_SRCDIR='"$(abs_top_srcdir)"'
tests_main_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_main_LDADD = tools/libdlca_tools.la libdlca_cl_internal.la $(CHECK_LIBS) $(DLCA_DEP_LIBS)
tests_main_SOURCES += tests/test_wiring.c
tests_main_SOURCES += tests/test_model.c
tests_main_SOURCES += tests/test_loader.c
tests_main_SOURCES += tests/test_gradcheck.c
tests_main_SOURCES += tests/test_device.c
tests_main_SOURCES += tests/test_cache.c tests/test_memo.c
tests_main_SOURCES += tests/test_bank_order.c
tests_main_SOURCES += tests/test_tuning.c
tests_main_SOURCES += tests/test_mutations.c
tests_main_SOURCES += tests/test_files.c
tests_main_SOURCES += tests/cl_util.h tests/cl_util.c
# The compute layer (issue 31): its vectors are ../shared/testdata/ops.
tests_main_SOURCES += tests/test_ops.c tests/ops_util.h tests/ops_util.c tests/test_ops_ref.c tests/test_ops_fd.c \
	tests/test_ops_cl.c tests/test_ops_cl_reduce.c tests/test_ops_cl_move.c \
	tests/test_ops_cl_loss.c
# The public ops API and its tape (issue 31).
tests_main_SOURCES += tests/test_ops_api.c tests/test_ops_tape.c tests/test_ops_api_blas.c tests/test_ops_api_conv.c \
	tests/test_ops_api_train.c tests/test_ops_api_gru.c
# The optimizer suite (issue 32) against the same vectors.
tests_main_SOURCES += tests/test_optim.c tests/test_optim_checks.c tests/test_optim_ref.c
AM_TESTS_ENVIRONMENT = DLCA_TESTDATA='$(abs_top_srcdir)/../shared/testdata/reference'; export DLCA_TESTDATA; \
	DLCA_OPS_TESTDATA='$(abs_top_srcdir)/../shared/testdata/ops'; export DLCA_OPS_TESTDATA; \
	DLCA_CL_KERNEL_PATH='$(abs_top_srcdir)/kernels-cl'; export DLCA_CL_KERNEL_PATH; \
	DLCA_TOP_BUILDDIR='$(abs_top_builddir)'; export DLCA_TOP_BUILDDIR; \
	DLCA_SRCDIR='$(abs_top_srcdir)'; export DLCA_SRCDIR; \
	DLCA_CL_CACHE_DIR='$(abs_top_builddir)/tests/cache'; export DLCA_CL_CACHE_DIR; \
	DLCA_CC='$(CC)'; export DLCA_CC;
# End-to-end test of tools/dlca-train on the CPU reference. Run through
# $(SHELL), so that it needs no executable bit after a patch or a tarball.
TEST_EXTENSIONS = .sh
SH_LOG_COMPILER = $(SHELL)
TESTS += tests/dlca-train.sh
TESTS += tests/dlca-train-population.sh
# --population --measure: M single runs to their ends, the success rate (issue 34).
TESTS += tests/dlca-train-measure.sh
EXTRA_DIST += tests/dlca-train-measure.sh
# An outside program built with pkg-config against a DESTDIR install (issue 30).
TESTS += tests/outside-program.sh
EXTRA_DIST += tests/outside-program.sh tests/outside/checkerboard.c
# dlca-train when a write fails or an input lies (issue 35).
TESTS += tests/dlca-train-disk.sh
EXTRA_DIST += tests/dlca-train-disk.sh
EXTRA_DIST += tests/dlca-train.sh tests/dlca-train-population.sh tests/shell-lib.sh tests/lsan.supp
# dlca-train under an address-space limit (issue 35): DLCA_EDEVMEM, not an abort.
TESTS += tests/dlca-memory.sh
EXTRA_DIST += tests/dlca-memory.sh
# Per-test scratch directories (tu_tmpdir) and the test cache; distcheck wants them gone.
clean-local: ; -rm -rf tests/tmp-* tests/cache
# Smoke test of bench/dlca-bench on the CPU reference.
TESTS += tests/dlca-bench.sh
EXTRA_DIST += tests/dlca-bench.sh
# Smoke test of bench/dlca-tune on the default OpenCL device (PoCL in CI).
TESTS += tests/dlca-tune.sh
EXTRA_DIST += tests/dlca-tune.sh
tests_main_SOURCES += tests/test_trainer.c
tests_main_SOURCES += tests/test_trainer_optim.c
tests_main_SOURCES += tests/test_schedule.c
tests_main_SOURCES += tests/test_relax.c
tests_main_SOURCES += tests/test_iwp.c
tests_main_SOURCES += tests/test_bits.c
tests_main_SOURCES += tests/test_export.c
tests_main_SOURCES += tests/test_jobs.c
tests_main_SOURCES += tests/test_recipe.c
tests_main_SOURCES += tests/test_population.c tests/test_population_sel.c
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
# Every tool's -h/--help, -V/--version, exit codes, and a bad DLCA_CL_DEVICE named.
TESTS += tests/cli.sh
EXTRA_DIST += tests/cli.sh
# dlca-parity --vector on the ops vectors, ref and PoCL (issue 31).
TESTS += tests/dlca-parity-ops.sh
EXTRA_DIST += tests/dlca-parity-ops.sh
# The optimizer suite on the device (issue 32): kernels-cl/optim against its twin.
tests_main_SOURCES += tests/test_optim_cl.c
# GRU and randomized SVD (issue 33): twins, vectors, device against twin.
tests_main_SOURCES += tests/test_gru.h tests/test_gru.c tests/test_rsvd.c tests/test_rsvd_cl.c tests/test_gru_cl.c tests/test_gru_norm.c
# GEMM (CLBlast) and dense (issue 31), and the tuning table's CLBlast section.
tests_main_SOURCES += tests/test_blas.c tests/blas_util.h tests/test_blas_cl.c tests/test_blas_dense.c tests/test_blas_tuning.c
# dlca-tune --clblast with a stand-in for CLBlast's tuner.
TESTS += tests/dlca-tune-clblast.sh
EXTRA_DIST += tests/dlca-tune-clblast.sh
# conv2d and 2-D pooling (issue 31): the twin, the vectors, the device.
tests_main_SOURCES += tests/test_conv.h tests/test_conv.c tests/test_conv_cl.c tests/test_conv_cl2.c
# Smoke test of bench/dlca-opsbench on the default OpenCL device.
TESTS += tests/dlca-opsbench.sh
EXTRA_DIST += tests/dlca-opsbench.sh
# The network trainer (issue 31): lib/net, the digits data set, dlca-net.
tests_main_SOURCES += tests/test_net.c tests/test_net_cl.c
TESTS += tests/dlca-net.sh
EXTRA_DIST += tests/dlca-net.sh
# dlca-eval --gif (giflib): frame count, size, delays and loop, read back by
# tests/gifinfo through giflib; without giflib, the clear refusal.
if HAVE_GIF
check_PROGRAMS += tests/gifinfo
endif
tests_gifinfo_SOURCES = tests/gifinfo.c
tests_gifinfo_LDADD = $(GIF_LIBS)
TESTS += tests/dlca-eval-gif.sh
EXTRA_DIST += tests/dlca-eval-gif.sh
