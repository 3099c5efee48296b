# `make fuzz`: the libFuzzer harnesses (tests/fuzz/README.md), built with
# clang by scripts/run-fuzz.sh into build-fuzz/ of the build tree and run
# for FUZZ_SECONDS each. Not part of `all` or `check`.
FUZZ_SECONDS = 30
EXTRA_DIST += tests/fuzz
fuzz: all
	DLCA_BUILD=$(abs_top_builddir) DLCA_FUZZ_OUT=$(abs_top_builddir)/build-fuzz \
	  $(abs_top_srcdir)/scripts/run-fuzz.sh $(FUZZ_SECONDS)
.PHONY: fuzz
