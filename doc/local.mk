# The docs that `make install` puts in $(docdir) beside LICENSE, NEWS and
# README.md (Makefile.am): the format notes and the tools' guides. A note
# added to doc/ that users need goes on this list.
dist_doc_DATA += doc/model-format.md doc/checkpoint-format.md doc/tuning-table.md doc/kernel-cache.md \
	doc/export.md doc/bits.md doc/rng.md doc/dlca-train.md doc/dlca-eval.md doc/training.md \
	doc/performance.md doc/kernels.md doc/semantics.md doc/ops.md

# Man pages of the installed tools, made by help2man from their --help and
# --version (doc/man/mkman.sh). They are tracked and ship in the tarball, so
# a host without help2man installs them as they are; with help2man, each is
# remade when its tool is rebuilt (into the build directory: `make man-update`
# copies them back to the source tree, to be committed).
MAN_TOOLS = tools/dlca-train tools/dlca-parity tools/dlca-info tools/dlca-eval tools/dlca-export \
	bench/dlca-tune tools/dlca-net
dist_man1_MANS += doc/man/dlca-train.1 doc/man/dlca-parity.1 doc/man/dlca-info.1 doc/man/dlca-eval.1 \
	doc/man/dlca-export.1 doc/man/dlca-tune.1 doc/man/dlca-net.1
EXTRA_DIST += doc/man/mkman.sh doc/man/common.h2m

if HAVE_HELP2MAN
MKMAN = $(AM_V_GEN)$(MKDIR_P) doc/man && HELP2MAN='$(HELP2MAN)' $(SHELL) $(srcdir)/doc/man/mkman.sh
MKMAN_DEPS = $(srcdir)/doc/man/mkman.sh $(srcdir)/doc/man/common.h2m
doc/man/dlca-train.1: tools/dlca-train$(EXEEXT) $(MKMAN_DEPS)
	$(MKMAN) tools/dlca-train$(EXEEXT) $@
doc/man/dlca-parity.1: tools/dlca-parity$(EXEEXT) $(MKMAN_DEPS)
	$(MKMAN) tools/dlca-parity$(EXEEXT) $@
doc/man/dlca-info.1: tools/dlca-info$(EXEEXT) $(MKMAN_DEPS)
	$(MKMAN) tools/dlca-info$(EXEEXT) $@
doc/man/dlca-eval.1: tools/dlca-eval$(EXEEXT) $(MKMAN_DEPS)
	$(MKMAN) tools/dlca-eval$(EXEEXT) $@
doc/man/dlca-export.1: tools/dlca-export$(EXEEXT) $(MKMAN_DEPS)
	$(MKMAN) tools/dlca-export$(EXEEXT) $@
doc/man/dlca-tune.1: bench/dlca-tune$(EXEEXT) $(MKMAN_DEPS)
	$(MKMAN) bench/dlca-tune$(EXEEXT) $@
doc/man/dlca-net.1: tools/dlca-net$(EXEEXT) $(MKMAN_DEPS)
	$(MKMAN) tools/dlca-net$(EXEEXT) $@

# The pages made in a separate build directory, back into the source tree.
man-update: $(dist_man1_MANS)
	@test "$(srcdir)" = . || for p in $(dist_man1_MANS); do cp $$p $(srcdir)/$$p || exit 1; done
endif
.PHONY: man-update

# In a separate build directory, remade pages are build products.
distclean-local: distclean-man
distclean-man:
	test "$(srcdir)" = . || rm -f $(dist_man1_MANS)
.PHONY: distclean-man
# dlca-opsbench's page, by the same rule.
MAN_TOOLS += bench/dlca-opsbench
dist_man1_MANS += doc/man/dlca-opsbench.1
if HAVE_HELP2MAN
doc/man/dlca-opsbench.1: bench/dlca-opsbench$(EXEEXT) $(MKMAN_DEPS)
	$(MKMAN) bench/dlca-opsbench$(EXEEXT) $@
endif
