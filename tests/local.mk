check_PROGRAMS += tests/main
tests_main_SOURCES = tests/main.c tests/suites.h tests/util.h tests/util.c tests/test_vectors.c
tests_main_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_main_LDADD = libdlca_cl_internal.la $(CHECK_LIBS) $(DLCA_DEP_LIBS)
TESTS += tests/main
AM_TESTS_ENVIRONMENT = DLCA_TESTDATA='$(abs_top_srcdir)/../shared/testdata/reference'; export DLCA_TESTDATA; \
	DLCA_CL_KERNEL_PATH='$(abs_top_srcdir)/kernels-cl'; export DLCA_CL_KERNEL_PATH; \
	DLCA_TOP_BUILDDIR='$(abs_top_builddir)'; export DLCA_TOP_BUILDDIR; \
	DLCA_CL_CACHE_DIR='$(abs_top_builddir)/tests/cache'; export DLCA_CL_CACHE_DIR;
